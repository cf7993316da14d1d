"""Jobs: the library entry points the CLI commands call, one per command that reads inputs.

Each job takes the command's frozen request (inputs.requests: its values checked once),
opens an `InputSession` for it (explicit paths, up-front output checks, first snapshot), runs
the pipeline stages, takes the second snapshot and returns the complete result in memory.
Writing it (stdout or exclusively created files, as one whole) is the caller's last step, so
a refusal or a changed snapshot leaves nothing behind.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import msgspec

from clearing_analysis import logsink
from clearing_analysis.codes.errors import NoJournalsDetail, NoJournalsError
from clearing_analysis.container.runtime import CONTAINERENV, stated_image
from clearing_analysis.eligibility import dumps_summary, replay_summary
from clearing_analysis.eligibility.reasons import Bound
from clearing_analysis.histories import grouping_keys
from clearing_analysis.histories.recognize import explored_formats, foreign_format
from clearing_analysis.inputs.configs import Routes
from clearing_analysis.inputs.output import NewFile
from clearing_analysis.inputs.period import EVERYTHING, Period
from clearing_analysis.inputs.recognize import HistoryFormat
from clearing_analysis.inputs.requests import AnalyzeRequest, ExploreRequest, ReplayRequest
from clearing_analysis.inputs.session import InputSession
from clearing_analysis.inputs.sidecar import SidecarView
from clearing_analysis.pipeline.units import (
    Settings,
    SnapshotAnalysis,
    Unit,
    analyze_snapshot,
    default_workers,
    plan_units,
)
from clearing_analysis.qualify.verify import QualificationStatus, check_qualification
from clearing_analysis.replay.model import JournalSkipReason

if TYPE_CHECKING:
    from clearing_analysis.pipeline.pool import UnitPool
    from clearing_analysis.report.explore_model import ExploreReport
    from clearing_analysis.report.model import Report

ProgressCallback = Callable[[int, int, int, int], None]
"""Called with (journals done, journals total, bytes done, bytes total) as replay goes."""


def _write(
    session: InputSession,
    data: bytes,
    files: tuple[NewFile, ...],
    out: Path | None,
    view: bytes | None,
) -> None:
    """Every output of a run as one whole (R-REL-6, `InputSession.write_outputs`): `out`
    (the JSON) and the run's other files, each created exclusively, and on stdout `view`
    (a human view) or, without `out`, the JSON. The files are named only once all of them
    and stdout are written; a refusal, a failure or an interrupt before that leaves none of
    them (docs/security.md), so a report is never left looking signed without being so
    (docs/attestation.md)."""
    created = files if out is None else (NewFile(out, data), *files)
    if view is not None:
        printed: bytes | None = view
    else:
        printed = data if out is None else None
    session.write_outputs(list(created), printed)


def _log_files(log: logsink.LogBuffer | None, log_file: Path | None) -> tuple[NewFile, ...]:
    """The --log-file, if one was asked for, as one more output of the run."""
    if log is None or log_file is None:
        return ()
    return (NewFile(log_file, log.to_bytes()),)


class CompletedJob(msgspec.Struct, frozen=True):
    """A finished replay: its summary, the summary's JSON bytes, and the session that may
    write them with the run's other files (the --log-file)."""

    data: bytes
    summary: dict[str, Any]
    _session: InputSession
    _files: tuple[NewFile, ...] = ()

    def write(self, out: Path | None) -> None:
        """Write to stdout (None) or create `out` exclusively, with the --log-file, if any, as
        one whole (`_write`)."""
        _write(self._session, self.data, self._files, out, None)


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


def _worker_count(session: InputSession, workers: int | None) -> int:
    return default_workers(sum(session.journal_sizes)) if workers is None else workers


def _unit_pool(count: int) -> AbstractContextManager[UnitPool | None]:
    """A started pool of `count` workers, or None (the units run in this process) for one: a
    run in one process never imports the pool's machinery (`pipeline.pool`)."""
    if count < 2:
        return nullcontext()
    from clearing_analysis.pipeline.pool import UnitPool  # noqa: PLC0415

    return UnitPool(count)


def _run_units(
    session: InputSession,
    units: list[Unit],
    settings: Settings,
    sidecar: SidecarView | None,
    *,
    pool: UnitPool | None,
    progress: ProgressCallback | None,
) -> SnapshotAnalysis:
    """Every unit of the snapshot, in `pool` (None: in this process), with progress over all
    of the snapshot's files."""
    files, total_bytes = len(session.journal_paths), sum(session.journal_sizes)

    def report(done: int, done_bytes: int) -> None:
        if progress is not None:
            progress(done, files, done_bytes, total_bytes)

    return analyze_snapshot(
        units,
        settings,
        sidecar=sidecar,
        sidecar_path=session.sidecar,
        pool=pool,
        progress=report,
    )


def _analyze_units(
    session: InputSession,
    *,
    simulate: bool,
    workers: int | None,
    progress: ProgressCallback | None,
    period: Period = EVERYTHING,
    usage_by: bool = False,
) -> SnapshotAnalysis:
    """Replay, assess (and simulate) every unit of the snapshot, in a pool when workers > 1
    (`usage_by`: keep the usage by journal, day and model for the tables of `--by`)."""
    logger = logsink.get_logger()
    count = _worker_count(session, workers)
    logger.info("replay.started", journals_total=len(session.journal_paths), workers=count)
    # The workers start first: their imports run while this process plans and checks.
    with _unit_pool(count) as pool:
        units = plan_units(session.journal_paths, session.journal_sizes)
        settings = Settings(
            routes=session.routes,
            agent_config=session.agent_config,
            app_allowlist=session.app_allowlist,
            simulate=simulate,
            period_attestation_valid=True,
            period=period,
            usage_by=usage_by,
        )
        # The structure check runs meanwhile, on a core the replay leaves (R-SC-3).
        with session.sidecar_checked_meanwhile() as view:
            analysis = _run_units(session, units, settings, view, pool=pool, progress=progress)
    totals = analysis.totals
    for reason, skipped in sorted(totals.skipped_journals.items()):
        logger.info("replay.journals_skipped", reason=reason.value, count=skipped)
    for boundary_reason, skipped in sorted(totals.skipped_boundaries.items()):
        logger.info("replay.boundaries_skipped", reason=boundary_reason.value, count=skipped)
    return analysis


def replay_job(
    request: ReplayRequest, *, between_snapshots: Callable[[], None] | None = None
) -> CompletedJob:
    """Select, replay, assess, check qualification; the replay summary. Raises AnalysisError.
    `between_snapshots` is a test hook run before the second snapshot."""
    session = InputSession.open(request, between_snapshots=between_snapshots)
    # The log holds fixed event names, codes and counts only (logsink's allowlist).
    log = logsink.configure(enabled=request.log_file is not None)
    analysis = _analyze_units(
        session, simulate=False, workers=request.workers, progress=None, period=request.period
    )
    summary = replay_summary(analysis.totals, request.period)
    # Absent --qualification is PAYLOAD_UNQUALIFIED/MISSING, never a failure (R-CLI-1).
    summary["qualification"] = qualification_summary(
        check_qualification(session.qualification), session.routes
    )
    data = dumps_summary(summary).encode("ascii")
    session.finish()
    logsink.get_logger().info(
        "replay.finished", count=analysis.totals.replayed_journals, bytes=len(data)
    )
    return CompletedJob(data, summary, session, _log_files(log, request.log_file))


class Page(msgspec.Struct, frozen=True):
    """The `--html` page of a run: its bytes (rendered from the report's JSON bytes, as `show
    --html` renders a saved report) and the new file it goes to."""

    data: bytes
    path: Path


def render_page(data: bytes, html: Path | None) -> Page | None:
    """The page of a report's JSON bytes, when `--html` asked for one."""
    if html is None:
        return None
    from clearing_analysis.report.encode import decode_report  # noqa: PLC0415
    from clearing_analysis.report.formats import ReportFormat, render  # noqa: PLC0415

    return Page(render(decode_report(data), ReportFormat.HTML), html)


Kind = TypeVar("Kind", "Report", "ExploreReport")


class CompletedReport(msgspec.Struct, Generic[Kind], frozen=True):
    """A finished analysis or exploration: the typed report, its JSON bytes, the run's other
    files (a signed run's attestation, the `--html` page, the --log-file) and the session that
    may write them."""

    report: Kind
    data: bytes
    _session: InputSession
    _files: tuple[NewFile, ...] = ()

    def write(self, out: Path | None, *, view: bytes | None = None) -> None:
        """Write every output of the run as one whole (`_write`): `out` (the JSON) and the
        run's other files, and on stdout `view` (the human view) or, without `out`, the
        JSON."""
        _write(self._session, self.data, self._files, out, view)


_FOREIGN_DETAIL = {
    HistoryFormat.PI_SESSION: NoJournalsDetail.PI_SESSION_FILES,
    HistoryFormat.NATIVE_JOURNAL: NoJournalsDetail.NATIVE_JOURNAL_FILES,
    HistoryFormat.CLAUDE_CODE: NoJournalsDetail.CLAUDE_CODE_TRANSCRIPTS,
    HistoryFormat.CODEX: NoJournalsDetail.CODEX_TRANSCRIPTS,
}


_J = JournalSkipReason
_SKIP_DETAIL = {
    HistoryFormat.NATIVE_JOURNAL: {
        _J.UNSUPPORTED_VERSION: NoJournalsDetail.NONE_REPLAYED_UNSUPPORTED_VERSION,
        _J.IMPORTED: NoJournalsDetail.NONE_REPLAYED_IMPORTED,
        _J.INHERITED: NoJournalsDetail.NONE_REPLAYED_INHERITED,
        _J.INTERRUPTED: NoJournalsDetail.NONE_REPLAYED_INTERRUPTED,
        _J.INVALID: NoJournalsDetail.NONE_REPLAYED_INVALID,
        _J.OPEN: NoJournalsDetail.NONE_REPLAYED_OPEN,
    },
    # A pi session is skipped only for these (docs/formats/pi-sessions.md).
    HistoryFormat.PI_SESSION: {
        _J.UNSUPPORTED_VERSION: NoJournalsDetail.NONE_READ_UNSUPPORTED_VERSION,
        _J.INVALID: NoJournalsDetail.NONE_READ_INVALID,
        _J.OPEN: NoJournalsDetail.NONE_READ_OPEN,
    },
}


def _require_evidence(
    session: InputSession,
    skipped: dict[JournalSkipReason, int],
    expected: HistoryFormat,
    accepted: frozenset[HistoryFormat] = frozenset(),
) -> None:
    """No evidence, no verdict (R-RP-5 decision): when no file of the selection replayed,
    NO_JOURNALS, naming what the files are when their first line shows another kind of
    history, else the most frequent skip reason (ties: enum order). The second snapshot is
    taken first, so a selection that changed meanwhile is reported as such."""
    session.finish()
    foreign = foreign_format(session.journals, expected, accepted)
    if foreign is not None:
        raise NoJournalsError(_FOREIGN_DETAIL[foreign])
    # DUPLICATE needs a replayed original, so it cannot lead when nothing replayed.
    details = _SKIP_DETAIL[expected]
    order = list(JournalSkipReason)
    reason = max(details, key=lambda r: (skipped[r], -order.index(r)))
    raise NoJournalsError(details[reason])


def analyze_job(
    request: AnalyzeRequest,
    *,
    progress: ProgressCallback | None = None,
    between_snapshots: Callable[[], None] | None = None,
    containerenv: Path = CONTAINERENV,
) -> CompletedReport[Report]:
    """Select, replay, assess, simulate, model, gate; the schema-checked report (naming the
    image the runtime states in `containerenv`, if any).

    A signed request (`sign_key`, then `out` is set) is prepared first, before any input is
    read (attest.sign.prepare_signed_run: the subject's name, the mount contract past the
    image's entrypoint, the key), and the attestation's path is checked up front with the other
    outputs; `write` then creates the report and its attestation (docs/attestation.md).
    The request's period restricts it (inputs.period); `usage_by` stores the usage tables of
    `--by` in the report (docs/report.md)."""
    signed = None
    if request.sign_key is not None:
        # cryptography loads only for a signed run.
        from clearing_analysis.attest.sign import prepare_signed_run  # noqa: PLC0415

        signed = prepare_signed_run(request)
    session = InputSession.open(
        request,
        signature=None if signed is None else signed.attestation,
        between_snapshots=between_snapshots,
    )
    log = logsink.configure(enabled=request.log_file is not None)
    logger = logsink.get_logger()
    analysis = _analyze_units(
        session,
        simulate=True,
        workers=request.workers,
        progress=progress,
        period=request.period,
        usage_by=request.usage_by,
    )
    # The models load only for analyze, so other commands start fast; and only now, so that a
    # pool's workers start without waiting for them.
    from clearing_analysis.assemble.analysis import Stages, build_report  # noqa: PLC0415
    from clearing_analysis.report.encode import encode_report  # noqa: PLC0415

    if analysis.simulation is None:
        raise RuntimeError("analyze ran without its simulation")
    if analysis.totals.replayed_journals == 0:
        _require_evidence(session, analysis.totals.skipped_journals, HistoryFormat.NATIVE_JOURNAL)
    stated = stated_image(containerenv)
    report = build_report(
        Stages(
            totals=analysis.totals,
            simulation=analysis.simulation,
            routes=session.routes,
            qualification=check_qualification(session.qualification),
            retrieval_rate=request.retrieval_rate,
            journal_bytes=sum(session.journal_sizes),
            image_id=stated.image_id,
            period=request.period,
            usage_by=request.usage_by,
        )
    )
    data = encode_report(report)
    page = render_page(data, request.html)
    session.finish()
    for api, api_report in report.per_api.items():
        logger.info("analyze.verdict", api=api, verdict=api_report.gate.verdict)
    logger.info("analyze.finished", verdict=report.verdict, bytes=len(data))
    files: list[NewFile] = []
    if signed is not None:
        # The image digest the runtime states (container.runtime) goes into the attestation
        # only: the report carries the image ID alone.
        envelope = signed.envelope(report, data, stated.image_digest)
        files.append(NewFile(signed.attestation, envelope))
    if page is not None:
        files.append(NewFile(page.path, page.data))
    return CompletedReport(report, data, session, (*files, *_log_files(log, request.log_file)))


def explore_job(
    request: ExploreRequest,
    *,
    progress: ProgressCallback | None = None,
    between_snapshots: Callable[[], None] | None = None,
) -> CompletedReport[ExploreReport]:
    """Select, read and map the histories, replay them, simulate the upper bound and model
    it; the schema-checked explore report (docs/explore.md). No gate is evaluated: explore
    never yields BUILD / DEFER / STOP. `usage_by` stores the usage tables of `--by`."""
    from clearing_analysis.assemble.explore import (  # noqa: PLC0415
        ExploreStages,
        build_explore,
    )
    from clearing_analysis.report.encode import encode_explore  # noqa: PLC0415

    # Same input rules as analyze: explicit paths, no symlinks followed in walks, snapshots
    # before and after, exclusive output; there is no sidecar (imported histories).
    session = InputSession.open(request, between_snapshots=between_snapshots)
    # The log carries what analyze's does: event names, codes and counts, never an input.
    log = logsink.configure(enabled=request.log_file is not None)
    logger = logsink.get_logger()
    count = _worker_count(session, request.workers)
    logger.info("explore.started", sessions_total=len(session.journal_paths), workers=count)
    settings = Settings(
        routes=session.routes,
        agent_config=None,
        app_allowlist=None,
        simulate=True,
        period_attestation_valid=True,
        imported=True,
        bound=Bound.UPPER,
        period=request.period,
        usage_by=request.usage_by,
    )
    with _unit_pool(count) as pool:
        units = plan_units(session.journal_paths, session.journal_sizes, keys=grouping_keys)
        analysis = _run_units(session, units, settings, None, pool=pool, progress=progress)
    if analysis.simulation is None:
        raise RuntimeError("explore ran without its simulation")
    if analysis.totals.replayed_journals == 0:
        # Every format explore reads (histories) is no foreign one; the skip reasons are the
        # pi reader's, which the Claude Code and Codex readers share (INVALID, with its details).
        _require_evidence(
            session,
            analysis.totals.skipped_journals,
            HistoryFormat.PI_SESSION,
            explored_formats(),
        )
    explored = build_explore(
        ExploreStages(
            totals=analysis.totals,
            simulation=analysis.simulation,
            routes=session.routes,
            retrieval_rate=request.retrieval_rate,
            session_bytes=sum(session.journal_sizes),
            period=request.period,
            usage_by=request.usage_by,
        )
    )
    data = encode_explore(explored)
    page = render_page(data, request.html)
    session.finish()
    for api, part in explored.per_api.items():
        logger.info(
            "explore.upper_bound",
            api=api,
            requests=part.requests.requests,
            admitted_net_tokens=part.simulation.admitted_net_tokens,
        )
    logger.info("explore.finished", sessions_read=explored.sessions.sessions_read, bytes=len(data))
    files = () if page is None else (NewFile(page.path, page.data),)
    return CompletedReport(explored, data, session, (*files, *_log_files(log, request.log_file)))
