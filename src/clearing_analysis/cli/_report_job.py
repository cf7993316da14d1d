"""Running a command that yields a report (`analyze`, `explore`) and sending it where it goes.

Both commands put their report in the same places (R-CLI-6): the human view on a terminal
without `--json` (the one-screen summary, and with `--details` every table after it); the JSON
report on a pipe, a file, in CI or with `--json`; `--out F` creates F exclusively, and a
terminal still gets the human view; `--html P` creates P exclusively as well, the page
rendered from the report's JSON bytes (the same page `show --html` makes of the saved file).
Whatever goes to stdout and every file of the run are one whole (R-REL-6): the files are
named only after all of them and stdout are written (docs/security.md).
The library and rich load only here, when the command runs, so that `--help` starts fast.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from clearing_analysis.cli._exit import fatal
from clearing_analysis.cli._options import UsageTable
from clearing_analysis.codes.errors import AnalysisError
from clearing_analysis.inputs.requests import UsageBy

if TYPE_CHECKING:
    from clearing_analysis.pipeline.jobs import ProgressCallback
    from clearing_analysis.report.explore_model import ExploreReport
    from clearing_analysis.report.model import Report


_TABLE_NAMES: dict[UsageTable, UsageBy] = {
    UsageTable.SESSION: "session",
    UsageTable.DAY: "day",
    UsageTable.MODEL: "model",
}


def usage_table(by: UsageTable | None) -> UsageBy | None:
    """The view's name of the table `--by` asked for (None: no table)."""
    return None if by is None else _TABLE_NAMES[by]


class ReportJob(Protocol):
    """A finished job holding a report (pipeline.jobs.CompletedReport)."""

    @property
    def report(self) -> Report | ExploreReport: ...

    def write(self, out: Path | None, *, view: bytes | None = None) -> None: ...


Job = TypeVar("Job", bound=ReportJob)


def run_report_job(
    start: Callable[[ProgressCallback | None], Job],
    *,
    out: Path | None,
    json_output: bool,
    details: bool,
    by: UsageTable | None = None,
) -> Job:
    """Run the job with progress on stderr, then write its outputs as one whole: the human
    view (on a terminal) or the JSON report on stdout, and every file (R-REL-6); returns the
    finished job (its outputs written)."""
    from clearing_analysis.cli._progress import replay_progress  # noqa: PLC0415

    try:
        with replay_progress() as progress:
            job = start(progress)
        human = sys.stdout.isatty() and not json_output
        job.write(out, view=_human_view(job.report, details, by) if human else None)
    except AnalysisError as error:
        fatal(error)
    return job


def _human_view(report: Report | ExploreReport, details: bool, by: UsageTable | None) -> bytes:
    """The human view exactly as the terminal would show it (rich's console, captured), so
    that it is written with the run's files (`write`) rather than before or after them."""
    from rich.console import Console  # noqa: PLC0415

    from clearing_analysis.inputs.output import stdout_bytes  # noqa: PLC0415
    from clearing_analysis.report.text.view import print_view  # noqa: PLC0415

    console = Console()
    with console.capture() as captured:
        print_view(report, console, details=details, by=usage_table(by))
    return stdout_bytes(captured.get())
