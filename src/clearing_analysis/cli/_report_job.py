"""Running a command that yields a report (`analyze`, `explore`) and sending it where it goes.

Both commands put their report in the same places (R-CLI-6): the human view on a terminal
without `--json`; the JSON report on a pipe, a file, in CI or with `--json`; `--out F` creates
F exclusively, and a terminal still gets the human view. The library and rich load only here,
when the command runs, so that `--help` starts fast.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from clearing_analysis.cli._exit import fatal
from clearing_analysis.errors import AnalysisError

if TYPE_CHECKING:
    from rich.console import Console

    from clearing_analysis.jobs import ProgressCallback


class ReportJob(Protocol):
    """A finished job holding a report (jobs.CompletedAnalysis, jobs.CompletedExplore)."""

    def write(self, out: Path | None) -> None: ...

    def write_log(self) -> None: ...

    def print_view(self, console: Console) -> None: ...


def run_report_job(
    start: Callable[[ProgressCallback | None], ReportJob], *, out: Path | None, json_output: bool
) -> None:
    """Run the job with progress on stderr, then write its report, its log and its view."""
    from rich.console import Console  # noqa: PLC0415

    from clearing_analysis.cli._progress import replay_progress  # noqa: PLC0415

    try:
        with replay_progress() as progress:
            job = start(progress)
        human = sys.stdout.isatty() and not json_output
        if out is not None or not human:
            job.write(out)
        else:
            job.write_log()
        if human:
            job.print_view(Console())
    except AnalysisError as error:
        fatal(error)
