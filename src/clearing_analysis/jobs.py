"""Jobs: the library entry points the CLI commands call, one per command that reads inputs.

A job opens an `InputSession` (explicit paths, up-front output checks, first snapshot),
runs the pipeline stages, takes the second snapshot and returns the complete result in memory.
Writing it (stdout or an exclusively created file) is the caller's last step, so a refusal or a
changed snapshot leaves nothing behind.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clearing_analysis import logsink
from clearing_analysis.codes.errors import (
    InputInvalidDetail,
    InputInvalidError,
    NoJournalsDetail,
    NoJournalsError,
)
from clearing_analysis.container.runtime import CONTAINERENV, stated_image
from clearing_analysis.eligibility import dumps_summary, replay_summary
from clearing_analysis.eligibility.reasons import Bound
from clearing_analysis.histories import grouping_keys
from clearing_analysis.histories.recognize import explored_formats, foreign_format
from clearing_analysis.inputs.configs import Routes
from clearing_analysis.inputs.output import (
    InputIdentities,
    NewFile,
    check_output,
    create_exclusive,
)
from clearing_analysis.inputs.paths import SESSION_RULES
from clearing_analysis.inputs.period import EVERYTHING, Period, parse_period
from clearing_analysis.inputs.recognize import HistoryFormat
from clearing_analysis.inputs.session import InputSession, file_identities
from clearing_analysis.inputs.sidecar import SidecarView
from clearing_analysis.policy import gate_policy, limits
from clearing_analysis.qualify.verify import QualificationStatus, check_qualification
from clearing_analysis.replay.model import JournalSkipReason
from clearing_analysis.units import (
    Settings,
    SnapshotAnalysis,
    Unit,
    UnitPool,
    analyze_snapshot,
    default_workers,
    plan_units,
    unit_pool,
)

if TYPE_CHECKING:
    from clearing_analysis.attest.sign import SignedRun
    from clearing_analysis.report.explore_model import ExploreReport
    from clearing_analysis.report.model import Report

ProgressCallback = Callable[[int, int, int, int], None]
"""Called with (journals done, journals total, bytes done, bytes total) as replay goes."""


@dataclass(frozen=True, slots=True)
class CompletedJob:
    """A finished job: its serialized result and the session that may write it."""

    data: bytes
    summary: dict[str, Any]
    _session: InputSession
    _log: logsink.LogBuffer | None = None
    _log_file: Path | None = None

    def write(self, out: Path | None) -> None:
        """Write to stdout (None) or create `out` exclusively, and the --log-file, if any: as
        one whole (R-REL-6, `InputSession.write_outputs`)."""
        files = [] if out is None else [NewFile(out, self.data)]
        self._session.write_outputs(
            [*files, *_log_files(self._log, self._log_file)],
            self.data if out is None else None,
        )


def _log_files(log: logsink.LogBuffer | None, log_file: Path | None) -> list[NewFile]:
    """The --log-file, if one was asked for, as one more output of the run."""
    if log is None or log_file is None:
        return []
    return [NewFile(log_file, log.to_bytes())]


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
    sizes = session.journal_sizes

    def report(done: int, done_bytes: int) -> None:
        if progress is not None:
            progress(done, len(sizes), done_bytes, sum(sizes))

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
) -> SnapshotAnalysis:
    """Replay, assess (and simulate) every unit of the snapshot, in a pool when workers > 1."""
    logger = logsink.get_logger()
    count = _worker_count(session, workers)
    logger.info("replay.started", journals_total=len(session.journals), workers=count)
    # The workers start first: their imports run while this process plans and checks.
    with unit_pool(count) as pool:
        units = plan_units(session.journals, session.journal_sizes)
        settings = Settings(
            routes=session.routes,
            agent_config=session.agent_config,
            app_allowlist=session.app_allowlist,
            simulate=simulate,
            period_attestation_valid=True,
            period=period,
        )
        with session.open_sidecar() as view:
            analysis = _run_units(session, units, settings, view, pool=pool, progress=progress)
    totals = analysis.totals
    for reason, skipped in sorted(totals.skipped_journals.items()):
        logger.info("replay.journals_skipped", reason=reason.value, count=skipped)
    for boundary_reason, skipped in sorted(totals.skipped_boundaries.items()):
        logger.info("replay.boundaries_skipped", reason=boundary_reason.value, count=skipped)
    return analysis


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
    workers: int | None = None,
    between_snapshots: Callable[[], None] | None = None,
    since: str | None = None,
    until: str | None = None,
) -> CompletedJob:
    """Select, replay, assess, check qualification; the replay summary. Raises AnalysisError."""
    period = parse_period(since, until)
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
    analysis = _analyze_units(
        session, simulate=False, workers=workers, progress=None, period=period
    )
    summary = replay_summary(analysis.totals, period)
    # Absent --qualification is PAYLOAD_UNQUALIFIED/MISSING, never a failure (R-CLI-1).
    summary["qualification"] = qualification_summary(
        check_qualification(session.qualification), session.routes
    )
    data = dumps_summary(summary).encode("ascii")
    session.finish()
    logsink.get_logger().info(
        "replay.finished", count=analysis.totals.replayed_journals, bytes=len(data)
    )
    return CompletedJob(data=data, summary=summary, _session=session, _log=log, _log_file=log_file)


@dataclass(frozen=True, slots=True)
class Page:
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


@dataclass(frozen=True, slots=True)
class CompletedAnalysis:
    """A finished analysis: the typed report, its JSON bytes and the session that may write."""

    report: Report
    data: bytes
    _session: InputSession
    _log: logsink.LogBuffer | None = None
    _log_file: Path | None = None
    # The image digest the runtime states (container.runtime), for a signed run's attestation
    # only: the report carries the image ID alone.
    image_digest: str | None = None
    # A signed run (`sign_key`): what was checked before any work; None for an unsigned one.
    _signed: SignedRun | None = None
    page: Page | None = None

    def write(self, out: Path | None, *, view: bytes | None = None) -> None:
        """Write every output of the run as one whole (R-REL-6): `out` (the JSON), for a
        signed run its attestation beside it, the `--html` page and the --log-file, each
        created exclusively, and on stdout `view` (the human view) or, without `out`, the
        JSON. The files are named only once all of them and stdout are written; a refusal,
        a failure or an interrupt before that leaves none of them (docs/security.md), so a
        report is never left looking signed without being so (docs/attestation.md)."""
        files: list[NewFile] = []
        if out is not None:
            files.append(NewFile(out, self.data))
        if self._signed is not None:
            if out is None:
                raise RuntimeError("a signed report is always written to a file")
            envelope = self._signed.envelope(self.report, self.data, self.image_digest)
            files.append(NewFile(self._signed.attestation, envelope))
        if self.page is not None:
            files.append(NewFile(self.page.path, self.page.data))
        files.extend(_log_files(self._log, self._log_file))
        self._session.write_outputs(files, _stdout(self.data, out, view))


def _stdout(data: bytes, out: Path | None, view: bytes | None) -> bytes | None:
    """What a report job prints: the human view when there is one, else the JSON unless it
    goes to `out`."""
    if view is not None:
        return view
    return data if out is None else None


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


def parse_retrieval_rate(rate: float) -> Fraction:
    """The supplied rate as an exact decimal fraction in [0, 1] (R-CLI-4), else INPUT_INVALID."""
    if not math.isfinite(rate) or not 0 <= rate <= 1:
        raise InputInvalidError(InputInvalidDetail.RETRIEVAL_RATE_OUT_OF_RANGE)
    return Fraction(repr(rate))


def _rate(retrieval_rate: float | None) -> Fraction:
    """The supplied rate, or the policy's default when none was supplied."""
    return parse_retrieval_rate(
        gate_policy().default_retrieval_rate if retrieval_rate is None else retrieval_rate
    )


def analyze_job(
    journals: list[Path],
    *,
    sidecar: Path,
    routes: Path,
    qualification: Path | None = None,
    agent_config: Path | None = None,
    app_allowlist: Path | None = None,
    retrieval_rate: float | None = None,
    out: Path | None = None,
    log_file: Path | None = None,
    sign_key: Path | None = None,
    html: Path | None = None,
    workers: int | None = None,
    progress: ProgressCallback | None = None,
    between_snapshots: Callable[[], None] | None = None,
    containerenv: Path = CONTAINERENV,
    since: str | None = None,
    until: str | None = None,
    usage_by: bool = False,
) -> CompletedAnalysis:
    """Select, replay, assess, simulate, model, gate; the schema-checked report (naming the
    image the runtime states in `containerenv`, if any).

    With `sign_key` (then `out` is required), the signed run is prepared first, before any input
    is read (attest.sign.prepare_signed_run: the subject's name, the mount contract past the
    image's entrypoint, the key), and the attestation's path is checked up front with the other
    outputs; `write` then creates the report and its attestation (docs/attestation.md).
    `since` / `until` restrict it to a period (inputs.period); `usage_by` stores the usage
    tables of `--by` in the report (docs/report.md)."""
    rate = _rate(retrieval_rate)
    period = parse_period(since, until)
    signed = None
    if sign_key is not None:
        if out is None:
            raise RuntimeError("a signed run writes its report to a file")
        # cryptography loads only for a signed run.
        from clearing_analysis.attest.sign import prepare_signed_run  # noqa: PLC0415

        named = [path for path in (qualification, agent_config, app_allowlist) if path is not None]
        signed = prepare_signed_run(
            sign_key,
            out=out,
            inputs=[*journals, sidecar, routes, *named],
            log_file=log_file,
            sidecar=sidecar,
        )
    session = InputSession.open(
        journals,
        sidecar=sidecar,
        routes=routes,
        qualification=qualification,
        agent_config=agent_config,
        app_allowlist=app_allowlist,
        out=out,
        log_file=log_file,
        signature=None if signed is None else signed.attestation,
        html=html,
        between_snapshots=between_snapshots,
    )
    log = logsink.configure(enabled=log_file is not None)
    logger = logsink.get_logger()
    analysis = _analyze_units(
        session, simulate=True, workers=workers, progress=progress, period=period
    )
    # The models load only for analyze, so other commands start fast; and only now, so that a
    # pool's workers start without waiting for them (the combination has loaded polars).
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
            retrieval_rate=rate,
            journal_bytes=sum(session.journal_sizes),
            image_id=stated.image_id,
            period=period,
            usage_by=usage_by,
        )
    )
    data = encode_report(report)
    page = render_page(data, html)
    session.finish()
    for api, api_report in report.per_api.items():
        logger.info("analyze.verdict", api=api, verdict=api_report.gate.verdict)
    logger.info("analyze.finished", verdict=report.verdict, bytes=len(data))
    return CompletedAnalysis(
        report, data, session, log, log_file, stated.image_digest, signed, page
    )


@dataclass(frozen=True, slots=True)
class CompletedExplore:
    """A finished exploration: the typed explore report, its JSON bytes and the session."""

    report: ExploreReport
    data: bytes
    _session: InputSession
    _log: logsink.LogBuffer | None = None
    _log_file: Path | None = None
    page: Page | None = None

    def write(self, out: Path | None, *, view: bytes | None = None) -> None:
        """Write every output of the run as one whole, as `CompletedAnalysis.write` does:
        `out`, the `--html` page, the --log-file, and `view` or the JSON on stdout."""
        files = [] if out is None else [NewFile(out, self.data)]
        if self.page is not None:
            files.append(NewFile(self.page.path, self.page.data))
        files.extend(_log_files(self._log, self._log_file))
        self._session.write_outputs(files, _stdout(self.data, out, view))


def explore_job(
    sessions: list[Path],
    *,
    routes: Path,
    retrieval_rate: float | None = None,
    out: Path | None = None,
    log_file: Path | None = None,
    html: Path | None = None,
    workers: int | None = None,
    progress: ProgressCallback | None = None,
    between_snapshots: Callable[[], None] | None = None,
    since: str | None = None,
    until: str | None = None,
    usage_by: bool = False,
) -> CompletedExplore:
    """Select, read and map the pi sessions, replay them, simulate the upper bound and model
    it; the schema-checked explore report (docs/explore.md). No gate is evaluated: explore
    never yields BUILD / DEFER / STOP. `usage_by` stores the usage tables of `--by`."""
    from clearing_analysis.assemble.explore import (  # noqa: PLC0415
        ExploreStages,
        build_explore,
    )
    from clearing_analysis.report.encode import encode_explore  # noqa: PLC0415

    rate = _rate(retrieval_rate)
    period = parse_period(since, until)
    # Same input rules as analyze: explicit paths, no symlinks followed in walks, snapshots
    # before and after, exclusive output; there is no sidecar (imported histories).
    session = InputSession.open(
        sessions,
        sidecar=None,
        routes=routes,
        out=out,
        log_file=log_file,
        html=html,
        between_snapshots=between_snapshots,
        rules=SESSION_RULES,
    )
    # The log carries what analyze's does: event names, codes and counts, never an input.
    log = logsink.configure(enabled=log_file is not None)
    logger = logsink.get_logger()
    count = _worker_count(session, workers)
    logger.info("explore.started", sessions_total=len(session.journals), workers=count)
    settings = Settings(
        routes=session.routes,
        agent_config=None,
        app_allowlist=None,
        simulate=True,
        period_attestation_valid=True,
        imported=True,
        bound=Bound.UPPER,
        period=period,
    )
    with unit_pool(count) as pool:
        units = plan_units(session.journals, session.journal_sizes, keys=grouping_keys)
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
            retrieval_rate=rate,
            session_bytes=sum(session.journal_sizes),
            period=period,
            usage_by=usage_by,
        )
    )
    data = encode_explore(explored)
    page = render_page(data, html)
    session.finish()
    for api, part in explored.per_api.items():
        logger.info(
            "explore.upper_bound",
            api=api,
            requests=part.requests.requests,
            admitted_net_tokens=part.simulation.admitted_net_tokens,
        )
    logger.info("explore.finished", sessions_read=explored.sessions.sessions_read, bytes=len(data))
    return CompletedExplore(explored, data, session, log, log_file, page)


@dataclass(frozen=True, slots=True)
class SavedReport:
    """A report read back from its file (`show`), and the guard for the page made of it."""

    report: Report | ExploreReport
    _identities: InputIdentities

    def write_page(self, html: Path) -> None:
        """Render the page from the saved report alone and create `html` exclusively."""
        from clearing_analysis.report.formats import ReportFormat, render  # noqa: PLC0415

        create_exclusive(html, render(self.report, ReportFormat.HTML), self._identities)


def read_saved_report(path: Path, *, html: Path | None = None) -> SavedReport:
    """A saved analysis or explore report, read strictly (INPUT_INVALID REPORT_*), with the
    `--html` page's path checked first against it (OUTPUT_REFUSED: never the report itself,
    nor a name beside it that differs only in case), so a refusal reads and creates nothing."""
    from clearing_analysis.report.encode import decode_report  # noqa: PLC0415

    if not path.is_file():
        raise InputInvalidError(InputInvalidDetail.REPORT_MISSING)
    try:
        with path.open("rb") as stream:
            identities = file_identities(path, os.fstat(stream.fileno()))
            if html is not None:
                check_output(html, identities)
            data = stream.read(limits().max_config_file_bytes + 1)
    except OSError:
        raise InputInvalidError(InputInvalidDetail.REPORT_UNREADABLE) from None
    return SavedReport(decode_report(data), identities)
