"""`clearing-analysis replay`: what was replayed and skipped, and why (counts only).

A thin layer over `pipeline.jobs.replay_job`, given the command's `ReplayRequest`: the
session selects and checks the inputs (explicit paths, offline sidecar, snapshot), the library
replays, merges and assesses, and the summary is written only after the second snapshot
matched. The summary carries fixed codes and counts, never text, ids, paths or digests
(R-OUT-1).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from clearing_analysis.cli._app import app
from clearing_analysis.cli._command import Command
from clearing_analysis.cli._exit import fatal
from clearing_analysis.cli._options import (
    AgentConfig,
    AppAllowlist,
    Journals,
    LogFile,
    Qualification,
    Routes,
    Sidecar,
    Since,
    Until,
    Workers,
)
from clearing_analysis.cli._requests import request_from
from clearing_analysis.codes.errors import AnalysisError
from clearing_analysis.inputs.requests import ReplayRequest


@app.command(
    cls=Command.for_request(ReplayRequest, "--journals"),
    short_help="Replay journals; print a JSON summary of counts per API.",
)
def replay(  # noqa: PLR0917  (typer maps each option to a parameter)
    ctx: typer.Context,
    journals: Journals,
    sidecar: Sidecar,
    routes: Routes,
    qualification: Qualification = None,
    agent_config: AgentConfig = None,
    app_allowlist: AppAllowlist = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", readable=False, help="Create this new file instead of stdout."),
    ] = None,
    log_file: LogFile = None,
    workers: Workers = None,
    since: Since = None,
    until: Until = None,
) -> None:
    """Replay journals and print a JSON summary of counts: replayed and skipped journals and
    boundaries, and per API the requests, tool results, eligibility and retention."""
    from clearing_analysis.pipeline.jobs import replay_job  # noqa: PLC0415  (loaded only to run)

    try:
        replay_job(request_from(ReplayRequest, ctx.params)).write(out)
    except AnalysisError as error:
        fatal(error)
