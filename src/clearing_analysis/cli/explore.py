"""`clearing-analysis explore`: upper-bound exploration of pi coding-agent sessions.

A thin layer over `pipeline.jobs.explore_job`, given the command's `ExploreRequest`
(docs/explore.md). It never prints a verdict: explore reads pi's own session files, which
prove neither tool identity nor retention, so every figure is an upper bound and no BUILD /
DEFER / STOP is ever produced. Where the report goes, as for `analyze`: the human view on a
terminal without `--json`; the JSON explore report on a pipe, a file, in CI or with
`--json`; `--out F` creates F exclusively, `--html P` the page (every figure titled as an
upper bound). Exit 0 for a complete exploration, 2 for incomplete or invalid inputs.
"""

from __future__ import annotations

import typer

from clearing_analysis.cli._app import app
from clearing_analysis.cli._command import Command
from clearing_analysis.cli._options import (
    DEFAULT_RETRIEVAL_RATE,
    By,
    Details,
    Html,
    JsonOutput,
    LogFile,
    ReportOut,
    RetrievalRate,
    Routes,
    Sessions,
    Since,
    Until,
    Workers,
)
from clearing_analysis.cli._report_job import run_report_job
from clearing_analysis.cli._requests import request_from
from clearing_analysis.inputs.requests import ExploreRequest


@app.command(
    cls=Command.for_request(ExploreRequest, "--sessions"),
    short_help="Upper-bound figures from pi sessions; never a verdict.",
)
def explore(  # noqa: PLR0917  (typer maps each option to a parameter)
    ctx: typer.Context,
    sessions: Sessions,
    routes: Routes,
    retrieval_rate: RetrievalRate = DEFAULT_RETRIEVAL_RATE,
    out: ReportOut = None,
    log_file: LogFile = None,
    json_output: JsonOutput = False,
    details: Details = False,
    by: By = None,
    html: Html = None,
    workers: Workers = None,
    since: Since = None,
    until: Until = None,
) -> None:
    """Upper-bound exploration of pi sessions, Claude Code transcripts and Codex rollouts with
    the same models as analyze; never a verdict (they prove neither tool identity nor
    retention)."""
    request = request_from(ExploreRequest, ctx.params)
    # The library loads only when the command runs: `--help` starts fast.
    from clearing_analysis.pipeline.jobs import explore_job  # noqa: PLC0415

    run_report_job(
        lambda progress: explore_job(request, progress=progress),
        out=out,
        json_output=json_output,
        details=details,
        by=by,
    )
