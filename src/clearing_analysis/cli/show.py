"""`clearing-analysis show REPORT`: the human view of a saved JSON report (R-CLI-6), of
`analyze` or of `explore` (its `format` says which).

The file is read strictly: a file that is not a schema-valid report of this version is
INPUT_INVALID (REPORT_*), exit 2. Nothing else is read and nothing is written.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from clearing_analysis.cli._app import app
from clearing_analysis.cli._command import Command
from clearing_analysis.cli._exit import fatal
from clearing_analysis.cli._report_job import Details
from clearing_analysis.errors import AnalysisError, InputInvalidDetail, InputInvalidError
from clearing_analysis.policy import limits


@app.command(cls=Command)
def show(
    report: Annotated[
        Path,
        typer.Argument(metavar="<report.json>", help="A report written by `analyze` or `explore`."),
    ],
    details: Details = False,
) -> None:
    """Render a saved report as the human view: the verdicts with their deciding figures on
    one screen, then with --details every criterion and the evidence (an explore report: its
    upper-bound figures, never a verdict)."""
    from rich.console import Console  # noqa: PLC0415

    from clearing_analysis.report.encode import decode_report  # noqa: PLC0415
    from clearing_analysis.report.view import print_view, render_text  # noqa: PLC0415

    try:
        if not report.is_file():
            raise InputInvalidError(InputInvalidDetail.REPORT_MISSING)
        try:
            with report.open("rb") as stream:
                data = stream.read(limits().max_config_file_bytes + 1)
        except OSError:
            raise InputInvalidError(InputInvalidDetail.REPORT_MISSING) from None
        decoded = decode_report(data)
    except AnalysisError as error:
        fatal(error)
    if sys.stdout.isatty():
        print_view(decoded, Console(), details=details)
    else:
        sys.stdout.write(render_text(decoded, details=details))
