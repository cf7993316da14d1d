"""`clearing-analysis show REPORT`: the human view of a saved JSON report (R-CLI-6), of
`analyze` or of `explore` (its `format` says which); with `--html P`, its HTML page instead.

The file is read strictly: a file that is not a schema-valid report of this version is
INPUT_INVALID (REPORT_*), exit 2. Nothing else is read. Without `--html` nothing is written;
with it, P is checked before the report is read (never the report itself) and created
exclusively with the page rendered from the report alone, and nothing is printed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from clearing_analysis.cli._app import app
from clearing_analysis.cli._command import Command
from clearing_analysis.cli._exit import fatal
from clearing_analysis.cli._options import By, Details, Html
from clearing_analysis.cli._report_job import usage_table
from clearing_analysis.cli._requests import request_from
from clearing_analysis.codes.errors import AnalysisError
from clearing_analysis.inputs.requests import ShowRequest


@app.command(
    cls=Command.for_request(ShowRequest),
    short_help="Render a saved report: summary, --details or --html.",
)
def show(
    ctx: typer.Context,
    report: Annotated[
        Path,
        typer.Argument(
            metavar="<report.json>",
            readable=False,
            help="A report written by `analyze` or `explore`.",
        ),
    ],
    details: Details = False,
    by: By = None,
    html: Html = None,
) -> None:
    """Render a saved report as the human view: the verdicts with their deciding figures on
    one screen, then with --details every criterion and the evidence (an explore report: its
    upper-bound figures, never a verdict); with --html, as a self-contained page instead."""
    from rich.console import Console  # noqa: PLC0415

    from clearing_analysis.pipeline.saved import read_saved_report  # noqa: PLC0415
    from clearing_analysis.report.text.view import print_view, render_text  # noqa: PLC0415

    try:
        request = request_from(ShowRequest, ctx.params)
        saved = read_saved_report(request)
        if request.html is not None:
            saved.write_page(request.html)
            return
    except AnalysisError as error:
        fatal(error)
    table = usage_table(by)
    if sys.stdout.isatty():
        print_view(saved.report, Console(), details=details, by=table)
    else:
        sys.stdout.write(render_text(saved.report, details=details, by=table))
