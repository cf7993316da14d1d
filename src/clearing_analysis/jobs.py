"""Jobs: the library entry points the CLI commands call, one per command that reads inputs.

A job opens an `InputSession` (explicit paths, up-front output checks, first snapshot),
runs the pipeline stages, takes the second snapshot and returns the complete result in memory.
Writing it (stdout or an exclusively created file) is the caller's last step, so a refusal or a
changed snapshot leaves nothing behind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clearing_analysis.eligibility import assess, dumps_summary, replay_summary
from clearing_analysis.inputs.session import InputSession
from clearing_analysis.replay import replay_journals


@dataclass(frozen=True, slots=True)
class CompletedJob:
    """A finished job: its serialized result and the session that may write it."""

    data: bytes
    summary: dict[str, Any]
    _session: InputSession

    def write(self, out: Path | None) -> None:
        """Write to stdout (None) or create `out` exclusively, per the output rules."""
        self._session.write_output(self.data, out)


def replay_job(
    journals: list[Path],
    *,
    sidecar: Path,
    routes: Path,
    agent_config: Path | None = None,
    app_allowlist: Path | None = None,
    out: Path | None = None,
    workers: int = 1,
    between_snapshots: Callable[[], None] | None = None,
) -> CompletedJob:
    """Select, replay, assess; the replay summary (counts only). Raises AnalysisError."""
    session = InputSession.open(
        journals,
        sidecar=sidecar,
        routes=routes,
        agent_config=agent_config,
        app_allowlist=app_allowlist,
        out=out,
        between_snapshots=between_snapshots,
    )
    with session.open_sidecar() as view:
        result = replay_journals(
            session.journals, session.routes, view, sidecar_path=session.sidecar, workers=workers
        )
    assessment = assess(result, session.routes, session.agent_config, session.app_allowlist)
    summary = replay_summary(assessment)
    data = dumps_summary(summary).encode("ascii")
    session.finish()
    return CompletedJob(data=data, summary=summary, _session=session)
