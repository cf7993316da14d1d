"""From a merged replay to classified results, counted boundaries and per-API counts.

Only counted boundaries (not skipped) are assessed. Every result of a contributing journal is
classified once (`ResultClass`: what holds at every boundary); an occurrence adds only the
boundary's protection (`eligibility.occurrences`). Retention counts unique results (by
finalized id) of counted boundaries' turns with proven identity that pass every result-level
rule, protected ones included (R-RT-1). Identity proof needs the whole snapshot (a period
attestation is void when the replayed runs show more than one toolset fingerprint), so
assessment runs after the merge, in one process, in merge order.
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence

import msgspec

from clearing_analysis.eligibility.classify import ResultClass, classify_result, result_exclusion
from clearing_analysis.eligibility.context import ContextCursor
from clearing_analysis.eligibility.identity import IdentityProofs, identity_shortfall
from clearing_analysis.eligibility.occurrences import (
    ContextTally,
    OccurrenceTally,
    classified_context,
)
from clearing_analysis.eligibility.reasons import (
    ApiSignal,
    Bound,
    EligibilityClass,
    ExclusionReason,
    class_of,
)
from clearing_analysis.inputs.configs import AgentConfig, Api, AppAllowlist, Routes
from clearing_analysis.inputs.period import EVERYTHING, Period
from clearing_analysis.policy import eligibility_policy
from clearing_analysis.replay.merge import ReplayResult
from clearing_analysis.replay.model import (
    BoundarySkipReason,
    ReplayedBoundary,
    RequestUsage,
    ToolResult,
)
from clearing_analysis.replay.retention import RetentionStatus

_SUPPORTED = frozenset(api.value for api in Api)


class Occurrence(msgspec.Struct, frozen=True):
    """One tool result in context at one boundary, classified (materialized on request only)."""

    result: ToolResult
    eligibility: EligibilityClass
    reason: ExclusionReason | None


class Boundary(msgspec.Struct, frozen=True):
    """A counted pre-turn boundary, ready for the simulation stage.

    `journal` is the position of its journal in `ReplayResult.journals` (merge order).
    """

    api: Api
    journal: int
    logical_conversation_id: str
    physical_conversation_id: str
    replayed: ReplayedBoundary
    completed_prompt_runs_before: int

    @property
    def host_turn_id(self) -> str:
        """The host's prompt-turn id (never printed)."""
        return self.replayed.host_turn_id

    @property
    def estimate(self) -> int:
        """The native boundary estimate E (R-SIM-1)."""
        return self.replayed.estimate

    @property
    def requests(self) -> tuple[RequestUsage, ...]:
        """The turn's requests, re-prompts included."""
        return self.replayed.requests


class RetentionCounts(msgspec.Struct, frozen=True):
    """R-RT-1/2 counts over unique proven results; matched = full + redacted + truncated."""

    proven: int
    matched: int
    redacted: int
    truncated: int
    unmatched: int
    by_status: Mapping[RetentionStatus, int]


class ApiAssessment(msgspec.Struct, frozen=True):
    """Per-API counts over counted boundaries (denominators are never pooled across APIs)."""

    api: Api
    boundaries: int
    requests: int
    tool_results: int
    candidates: int
    retention: RetentionCounts
    signals: tuple[ApiSignal, ...]
    # Unique results of counted boundaries that are redacted JSON web envelopes, and those the
    # credential / private-evidence guard rejects again (structuredScanLosses, R-SIM-9).
    redacted_web_envelopes: int
    structured_scan_losses: int


class Assessment(msgspec.Struct, frozen=True):
    """Counted boundaries in merge order, each journal's result classes, per-API counts."""

    replay: ReplayResult
    boundaries: tuple[Boundary, ...]
    classes: tuple[tuple[ResultClass, ...], ...]
    per_api: Mapping[Api, ApiAssessment]
    # Per journal and result slot, the API cohort the result belongs to (`result_cohorts`).
    cohorts: tuple[tuple[Api | None, ...], ...]
    # Requests of counted turns whose own API is unsupported or has no route (R-CM-8).
    requests_without_route: int = 0
    # --since / --until: requests and checkpoints outside it are left out and counted.
    period: Period = EVERYTHING
    requests_outside_period: int = 0
    compactions_outside_period: int = 0

    def occurrences(self, boundary: Boundary) -> tuple[Occurrence, ...]:
        """The classified occurrences at one boundary, oldest first (for tests and views;
        the pipeline counts them with `count_occurrences` without storing them)."""
        journal = self.replay.journals[boundary.journal].journal
        classes = self.classes[boundary.journal]
        cursor = ContextCursor(journal.results)
        cohorts = self.cohorts[boundary.journal]
        return tuple(
            Occurrence(journal.results[slot], class_of(reason), reason)
            for slot, reason in classified_context(
                cursor, boundary.replayed, journal.results, classes, cohorts
            )
        )


class _ApiTally:
    def __init__(self) -> None:
        self.boundaries = 0
        self.requests = 0
        self.tool_results = 0
        self.unique: dict[str, ToolResult] = {}


def _retention(
    unique: Mapping[str, ToolResult], proofs: IdentityProofs
) -> tuple[int, RetentionCounts]:
    """(candidates, retention counts) over the unique results of one API."""
    candidates = 0
    by_status = dict.fromkeys(RetentionStatus, 0)
    for result in unique.values():
        if result_exclusion(result) is not None:
            continue
        candidates += 1
        if identity_shortfall(result, proofs) is None:
            by_status[result.retention] += 1
    del by_status[RetentionStatus.NOT_PLAIN_TEXT]
    proven = sum(by_status.values())
    full = by_status[RetentionStatus.MATCHED]
    redacted = by_status[RetentionStatus.REDACTED]
    truncated = by_status[RetentionStatus.TRUNCATED]
    matched = full + redacted + truncated
    counts = RetentionCounts(proven, matched, redacted, truncated, proven - matched, by_status)
    return candidates, counts


def _signals(candidates: int, retention: RetentionCounts) -> tuple[ApiSignal, ...]:
    signals: list[ApiSignal] = []
    if candidates > 0 and retention.proven == 0:
        signals.append(ApiSignal.IDENTITY_UNPROVEN)
    if retention.proven > 0:
        # An empty proven set is not missing retention (R-RT-3); zero matches is the stronger
        # signal and is reported instead of, not beside, low coverage.
        if retention.matched == 0:
            signals.append(ApiSignal.RETENTION_UNMATCHED)
        elif retention.matched / retention.proven < eligibility_policy().retention_coverage_floor:
            signals.append(ApiSignal.RETENTION_COVERAGE_LOW)
    return tuple(sorted(signals))


def assess(
    replay: ReplayResult,
    routes: Routes,
    agent_config: AgentConfig | None = None,
    app_allowlist: AppAllowlist | None = None,
    *,
    period_attestation_valid: bool | None = None,
    bound: Bound = Bound.LOWER,
    period: Period = EVERYTHING,
) -> Assessment:
    """Classify every result once, list the counted boundaries and count per API.

    Whether a period attestation still holds depends on the whole snapshot's toolset
    fingerprints: pass `period_attestation_valid` when `replay` is only part of it (a unit),
    else it is decided from `replay` itself. `bound` UPPER classifies for `explore` (`Bound`).
    Outside `period` (--since / --until): the boundaries replay skipped as OUTSIDE_PERIOD, the
    requests of counted turns made outside it and every checkpoint outside it are counted
    apart, their requests too.
    """
    fingerprints = [fp for merged in replay.journals for fp in merged.journal.toolset_fingerprints]
    proofs = IdentityProofs.for_snapshot(agent_config, app_allowlist, fingerprints)
    if period_attestation_valid is not None:
        proofs = IdentityProofs(agent_config, app_allowlist, period_attestation_valid)
    tallies = {api: _ApiTally() for api in sorted(routes.by_api)}
    boundaries: list[Boundary] = []
    classes: list[tuple[ResultClass, ...]] = []
    requests_outside_period = compactions_outside_period = 0
    for position, merged in enumerate(replay.journals):
        journal = merged.journal
        classes.append(tuple(classify_result(result, proofs, bound) for result in journal.results))
        compactions_outside_period += sum(
            not period.contains(checkpoint.timestamp) for checkpoint in journal.checkpoints
        )
        for boundary, skip, runs_before in zip(
            journal.boundaries,
            merged.boundary_skips,
            merged.completed_prompt_runs_before,
            strict=True,
        ):
            if skip is BoundarySkipReason.OUTSIDE_PERIOD:
                requests_outside_period += len(boundary.requests)
            if skip is not None:
                continue
            api = Api(boundary.api)
            tallies[api].boundaries += 1
            boundaries.append(
                Boundary(
                    api=api,
                    journal=position,
                    logical_conversation_id=journal.logical_conversation_id,
                    physical_conversation_id=journal.physical_conversation_id,
                    replayed=boundary,
                    completed_prompt_runs_before=runs_before,
                )
            )
    cohorts = result_cohorts(replay, boundaries, frozenset(routes.by_api))
    requests_without_route = 0
    for counted in boundaries:
        journal = replay.journals[counted.journal].journal
        # Each request counts on the API its own message names (R-CM-8); a request of an API
        # without a route is counted apart.
        for request in counted.requests:
            if not period.contains(request.timestamp):
                requests_outside_period += 1
                continue
            request_api = routed_api(request.api, tallies)
            if request_api is None:
                requests_without_route += 1
            else:
                tallies[request_api].requests += 1
        journal_cohorts = cohorts[counted.journal]
        for slot in counted.replayed.turn_results:
            cohort = journal_cohorts[slot]
            if cohort is None:
                continue
            tally = tallies[cohort]
            result = journal.results[slot]
            tally.unique.setdefault(result.finalized_id, result)
            tally.tool_results += 1
    per_api: dict[Api, ApiAssessment] = {}
    for api, tally in tallies.items():
        candidates, retention = _retention(tally.unique, proofs)
        per_api[api] = ApiAssessment(
            api=api,
            boundaries=tally.boundaries,
            requests=tally.requests,
            tool_results=tally.tool_results,
            candidates=candidates,
            retention=retention,
            signals=_signals(candidates, retention),
            redacted_web_envelopes=sum(r.web_envelope_redacted for r in tally.unique.values()),
            structured_scan_losses=sum(r.scan_loss for r in tally.unique.values()),
        )
    return Assessment(
        replay=replay,
        boundaries=tuple(boundaries),
        classes=tuple(classes),
        per_api=per_api,
        cohorts=cohorts,
        requests_without_route=requests_without_route,
        period=period,
        requests_outside_period=requests_outside_period,
        compactions_outside_period=compactions_outside_period,
    )


def routed_api(api: str, routed: Container[Api]) -> Api | None:
    """The API `api` names when it is one of the four and routed, else None (no cohort)."""
    if api not in _SUPPORTED:
        return None
    named = Api(api)
    return named if named in routed else None


def result_cohorts(
    replay: ReplayResult, counted: Sequence[Boundary], routed: frozenset[Api]
) -> tuple[tuple[Api | None, ...], ...]:
    """Per journal and result slot, the API cohort the result belongs to (docs/model.md,
    "Per-API cohorts"): the API of the request whose toolCall asked for it (R-CM-8), or for a
    result no request of its run asked for (an orphan) the API of its turn's boundary; only
    for a result of a counted boundary's turn, found by finalized id, so a resumed copy's
    copied results belong where the original counted them. A result of a skipped turn (owner
    missing, unsupported or unrouted API, outside the capture window or the period), or whose
    request's API has no route, belongs to no cohort. After a switch of API, another cohort's
    results still sit in the context (and in E) but are no occurrence, candidate or clearing
    of the new API."""
    of_turn: dict[tuple[int, int], Api] = {
        (b.journal, b.replayed.turn_index): b.api for b in counted
    }
    by_id: dict[str, Api | None] = {}
    for position, merged in enumerate(replay.journals):
        for result in merged.journal.results:
            turn_api = of_turn.get((position, result.turn_index))
            if turn_api is None or result.finalized_id in by_id:
                continue
            if result.request_api is None:
                by_id[result.finalized_id] = turn_api
            else:
                by_id[result.finalized_id] = routed_api(result.request_api, routed)
    return tuple(
        tuple(by_id.get(result.finalized_id) for result in merged.journal.results)
        for merged in replay.journals
    )


def count_occurrences(assessment: Assessment) -> dict[Api, OccurrenceTally]:
    """Occurrences at every counted boundary, by API, one journal sweep at a time."""
    tallies = {api: OccurrenceTally() for api in assessment.per_api}
    by_journal: dict[int, list[Boundary]] = {}
    for boundary in assessment.boundaries:
        by_journal.setdefault(boundary.journal, []).append(boundary)
    for position, counted in by_journal.items():
        journal = assessment.replay.journals[position].journal
        context = ContextTally(
            journal.results, assessment.classes[position], assessment.cohorts[position]
        )
        for boundary in counted:  # merge order within a journal is turn order
            context.advance(boundary.replayed)
            context.count(boundary.api, tallies[boundary.api])
    return tallies


__all__ = [
    "ApiAssessment",
    "Assessment",
    "Boundary",
    "Occurrence",
    "RetentionCounts",
    "assess",
    "count_occurrences",
    "result_cohorts",
    "routed_api",
]
