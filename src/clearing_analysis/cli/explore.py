"""`clearing-analysis explore`: upper-bound exploration of pi coding-agent sessions.

A thin layer over `jobs.explore_job` (docs/explore.md). It never prints a verdict: explore
reads pi's own session files, which prove neither tool identity nor retention, so every
figure is an upper bound and no BUILD / DEFER / STOP is ever produced. Where the report goes,
as for `analyze`: the human view on a terminal without `--json`; the JSON explore report on a
pipe, a file, in CI or with `--json`; `--out F` creates F exclusively, `--html P` the page
(every figure titled as an upper bound). Exit 0 for a complete
exploration, 2 for incomplete or invalid inputs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from clearing_analysis.cli._app import app
from clearing_analysis.cli._command import Command
from clearing_analysis.cli._period import Since, Until
from clearing_analysis.cli._report_job import By, Details, Html, run_report_job


@app.command(
    cls=Command.variadic("--sessions"),
    short_help="Upper-bound figures from pi sessions; never a verdict.",
)
def explore(  # noqa: PLR0917  (typer maps each option to a parameter)
    sessions: Annotated[
        list[Path],
        typer.Option(
            "--sessions",
            readable=False,
            metavar="<path>...",
            help="pi session files, Codex CLI rollouts or directories (recursive *.jsonl),"
            " e.g. a copy of ~/.pi/agent/sessions or ~/.codex/sessions: one or more after the"
            " flag, or the flag repeated.",
        ),
    ],
    routes: Annotated[
        Path, typer.Option("--routes", readable=False, help="routes.json: one entry per API.")
    ],
    retrieval_rate: Annotated[
        float,
        typer.Option(
            "--retrieval-rate",
            help="Expected share of cleared results retrieved again, in [0, 1] (default"
            " 0.05); 0, 5% and 20% are always reported too.",
        ),
    ] = 0.05,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            readable=False,
            help="Create this new file for the JSON report instead of stdout.",
        ),
    ] = None,
    log_file: Annotated[
        Path | None,
        typer.Option(
            "--log-file",
            readable=False,
            help="Create this new file for the log (codes and counts).",
        ),
    ] = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the JSON report even on a terminal.")
    ] = False,
    details: Details = False,
    by: By = None,
    html: Html = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            help="Processes reading independent sessions in parallel (default: one per core).",
        ),
    ] = None,
    since: Since = None,
    until: Until = None,
) -> None:
    """Upper-bound exploration of pi sessions, Claude Code transcripts and Codex rollouts with
    the same models as analyze; never a verdict (they prove neither tool identity nor
    retention)."""
    # The library loads only when the command runs: `--help` starts fast.
    from clearing_analysis.jobs import explore_job  # noqa: PLC0415

    run_report_job(
        lambda progress: explore_job(
            sessions,
            routes=routes,
            retrieval_rate=retrieval_rate,
            out=out,
            log_file=log_file,
            html=html,
            workers=workers,
            progress=progress,
            since=since,
            until=until,
            usage_by=by is not None,
        ),
        out=out,
        json_output=json_output,
        details=details,
        by=by,
    )
