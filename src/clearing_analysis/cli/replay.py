"""`clearing-analysis replay`: what was replayed and skipped, and why (counts only).

A thin layer: InputSession selects and checks the inputs (explicit paths, offline sidecar,
snapshot), the library replays, merges and assesses, and the session writes the summary only
after the second snapshot matched. The summary carries fixed codes and counts, never text,
ids, paths or digests (R-OUT-1).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from clearing_analysis.cli._app import app
from clearing_analysis.cli._exit import fatal
from clearing_analysis.eligibility import assess, dumps_summary, replay_summary
from clearing_analysis.errors import AnalysisError
from clearing_analysis.inputs.session import InputSession
from clearing_analysis.replay import replay_journals


def run_replay(
    journals: list[Path],
    *,
    sidecar: Path,
    routes: Path,
    agent_config: Path | None = None,
    app_allowlist: Path | None = None,
    out: Path | None = None,
    workers: int = 1,
) -> None:
    """Select, replay, assess and write the summary (raises AnalysisError on bad inputs)."""
    session = InputSession.open(
        journals,
        sidecar=sidecar,
        routes=routes,
        agent_config=agent_config,
        app_allowlist=app_allowlist,
        out=out,
    )
    with session.open_sidecar() as view:
        result = replay_journals(
            session.journals, session.routes, view, sidecar_path=session.sidecar, workers=workers
        )
    assessment = assess(result, session.routes, session.agent_config, session.app_allowlist)
    data = dumps_summary(replay_summary(assessment)).encode("ascii")
    session.finish()
    session.write_output(data, out)


@app.command()
def replay(  # noqa: PLR0917  (typer maps each option to a parameter)
    journals: Annotated[
        list[Path],
        typer.Option("--journals", help="Journal files or directories (recursive *.jsonl)."),
    ],
    sidecar: Annotated[Path, typer.Option("--sidecar", help="Checkpointed sidecar SQLite file.")],
    routes: Annotated[Path, typer.Option("--routes", help="routes.json: one entry per API.")],
    agent_config: Annotated[
        Path | None, typer.Option("--agent-config", help="Owner attestation of built-ins.")
    ] = None,
    app_allowlist: Annotated[
        Path | None, typer.Option("--app-allowlist", help="Reviewed read-only MCP app tools.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Create this new file instead of stdout.")
    ] = None,
    workers: Annotated[
        int, typer.Option("--workers", min=1, help="Processes replaying journals in parallel.")
    ] = 1,
) -> None:
    """Replay journals and print a JSON summary of counts: replayed and skipped journals and
    boundaries, and per API the requests, tool results, eligibility and retention."""
    try:
        run_replay(
            journals,
            sidecar=sidecar,
            routes=routes,
            agent_config=agent_config,
            app_allowlist=app_allowlist,
            out=out,
            workers=workers,
        )
    except AnalysisError as error:
        fatal(error)
