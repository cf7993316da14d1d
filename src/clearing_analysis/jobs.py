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

from clearing_analysis import logsink
from clearing_analysis.eligibility import assess, dumps_summary, replay_summary
from clearing_analysis.inputs.configs import Routes
from clearing_analysis.inputs.session import InputSession
from clearing_analysis.qualify.verify import QualificationStatus, check_qualification
from clearing_analysis.replay import replay_journals


@dataclass(frozen=True, slots=True)
class CompletedJob:
    """A finished job: its serialized result and the session that may write it."""

    data: bytes
    summary: dict[str, Any]
    _session: InputSession
    _log: logsink.LogBuffer | None = None
    _log_file: Path | None = None

    def write(self, out: Path | None) -> None:
        """Write to stdout (None) or create `out` exclusively; then the --log-file, if any."""
        self._session.write_output(self.data, out)
        if self._log is not None and self._log_file is not None:
            self._session.write_log(self._log.to_bytes(), self._log_file)


def qualification_summary(status: QualificationStatus, routes: Routes) -> dict[str, Any]:
    """Per routed API: QUALIFIED or PAYLOAD_UNQUALIFIED with its fixed detail (R-Q-3).

    Only the installed pi-ai version is exposed, never the source digest.
    """
    per_api: dict[str, Any] = {}
    for api in sorted(routes.by_api):
        verdict = status.apis.get(api)
        if verdict is None:  # a valid record always lists every API; be explicit anyway
            per_api[api.value] = {"status": "PAYLOAD_UNQUALIFIED", "detail": "MALFORMED"}
            continue
        per_api[api.value] = {
            "status": "QUALIFIED" if verdict.qualified else "PAYLOAD_UNQUALIFIED",
            "detail": None if verdict.detail is None else verdict.detail.value,
            "cases": verdict.cases,
            "unintendedDifferences": verdict.unintended_differences,
        }
    return {"piAiVersion": status.pi_ai_version, "perApi": per_api}


def replay_job(
    journals: list[Path],
    *,
    sidecar: Path,
    routes: Path,
    qualification: Path | None = None,
    agent_config: Path | None = None,
    app_allowlist: Path | None = None,
    out: Path | None = None,
    log_file: Path | None = None,
    workers: int = 1,
    between_snapshots: Callable[[], None] | None = None,
) -> CompletedJob:
    """Select, replay, assess, check qualification; the replay summary. Raises AnalysisError."""
    session = InputSession.open(
        journals,
        sidecar=sidecar,
        routes=routes,
        qualification=qualification,
        agent_config=agent_config,
        app_allowlist=app_allowlist,
        out=out,
        log_file=log_file,
        between_snapshots=between_snapshots,
    )
    # The log holds fixed event names, codes and counts only (logsink's allowlist).
    log = logsink.configure(enabled=log_file is not None)
    logger = logsink.get_logger()
    logger.info("replay.started", journals_total=len(session.journals), workers=workers)
    with session.open_sidecar() as view:
        result = replay_journals(
            session.journals, session.routes, view, sidecar_path=session.sidecar, workers=workers
        )
    assessment = assess(result, session.routes, session.agent_config, session.app_allowlist)
    summary = replay_summary(assessment)
    # Absent --qualification is PAYLOAD_UNQUALIFIED/MISSING, never a failure (R-CLI-1).
    summary["qualification"] = qualification_summary(
        check_qualification(session.qualification), session.routes
    )
    data = dumps_summary(summary).encode("ascii")
    for reason, count in sorted(result.skipped_journals.items()):
        logger.info("replay.journals_skipped", reason=reason.value, count=count)
    for boundary_reason, count in sorted(result.skipped_boundaries.items()):
        logger.info("replay.boundaries_skipped", reason=boundary_reason.value, count=count)
    session.finish()
    logger.info("replay.finished", count=result.replayed_journals, bytes=len(data))
    return CompletedJob(data=data, summary=summary, _session=session, _log=log, _log_file=log_file)
