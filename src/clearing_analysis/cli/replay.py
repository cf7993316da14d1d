"""`clearing-analysis replay`: what was replayed and skipped, and why (counts only).

A thin layer over `jobs.replay_job`: the session selects and checks the inputs (explicit paths,
offline sidecar, snapshot), the library replays, merges and assesses, and the summary is written
only after the second snapshot matched. The summary carries fixed codes and counts, never text,
ids, paths or digests (R-OUT-1).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from clearing_analysis.cli._app import app
from clearing_analysis.cli._command import Command
from clearing_analysis.cli._exit import fatal
from clearing_analysis.cli._period import Since, Until
from clearing_analysis.codes.errors import AnalysisError


@app.command(
    cls=Command.variadic("--journals"),
    short_help="Replay journals; print a JSON summary of counts per API.",
)
def replay(  # noqa: PLR0917  (typer maps each option to a parameter)
    journals: Annotated[
        list[Path],
        typer.Option(
            "--journals",
            readable=False,
            metavar="<path>...",
            help="Journal files or directories (recursive *.jsonl): one or more after the"
            " flag, or the flag repeated.",
        ),
    ],
    sidecar: Annotated[
        Path, typer.Option("--sidecar", readable=False, help="Checkpointed sidecar SQLite file.")
    ],
    routes: Annotated[
        Path, typer.Option("--routes", readable=False, help="routes.json: one entry per API.")
    ],
    qualification: Annotated[
        Path | None,
        typer.Option(
            "--qualification",
            readable=False,
            help="Record from `qualify`; absent = PAYLOAD_UNQUALIFIED.",
        ),
    ] = None,
    agent_config: Annotated[
        Path | None,
        typer.Option("--agent-config", readable=False, help="Owner attestation of built-ins."),
    ] = None,
    app_allowlist: Annotated[
        Path | None,
        typer.Option("--app-allowlist", readable=False, help="Reviewed read-only MCP app tools."),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", readable=False, help="Create this new file instead of stdout."),
    ] = None,
    log_file: Annotated[
        Path | None,
        typer.Option(
            "--log-file",
            readable=False,
            help="Create this new file for the log (codes and counts).",
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            help="Processes analyzing independent journals in parallel (default: one per core).",
        ),
    ] = None,
    since: Since = None,
    until: Until = None,
) -> None:
    """Replay journals and print a JSON summary of counts: replayed and skipped journals and
    boundaries, and per API the requests, tool results, eligibility and retention."""
    from clearing_analysis.jobs import replay_job  # noqa: PLC0415  (loaded only to run)

    try:
        replay_job(
            journals,
            sidecar=sidecar,
            routes=routes,
            qualification=qualification,
            agent_config=agent_config,
            app_allowlist=app_allowlist,
            out=out,
            log_file=log_file,
            workers=workers,
            since=since,
            until=until,
        ).write(out)
    except AnalysisError as error:
        fatal(error)
