"""From a merged replay to classified boundaries and per-API counts (R-EL, R-RT, R-RP-6).

Only counted boundaries (not skipped) are assessed. At each, every tool result in the current
context (after the latest checkpoint, kept entries included) is one occurrence with one class
and reason. Per-API counts cover the turns of counted boundaries only; retention counts unique
results (by finalized id) with proven identity that pass every result-level rule, protected
ones included (R-RT-1). Identity proof needs the whole snapshot (a period attestation is void
when the replayed runs show more than one toolset fingerprint), so assessment runs after the
merge, in one process, in merge order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from clearing_analysis.eligibility.classify import occurrence_reason, result_exclusion
from clearing_analysis.eligibility.identity import IdentityProofs, identity_shortfall
from clearing_analysis.eligibility.reasons import (
    ApiSignal,
    EligibilityClass,
    ExclusionReason,
    class_of,
)
from clearing_analysis.inputs.configs import AgentConfig, Api, AppAllowlist, Routes
from clearing_analysis.replay.merge import ReplayResult
from clearing_analysis.replay.model import RequestUsage, ToolResult
from clearing_analysis.replay.retention import RetentionStatus
from clearing_analysis.replay.settings import eligibility_policy


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One tool result in context at one boundary, classified."""

    result: ToolResult
    eligibility: EligibilityClass
    reason: ExclusionReason | None


@dataclass(frozen=True, slots=True)
class Boundary:
    """A counted pre-turn boundary, ready for the simulation stage."""

    api: Api
    logical_conversation_id: str
    physical_conversation_id: str
    host_turn_id: str
    estimate: int
    usage_based: bool
    request_ms: int
    gap_ms: int | None
    completed_prompt_runs_before: int
    requests: tuple[RequestUsage, ...]
    turn_results: tuple[ToolResult, ...]
    occurrences: tuple[Occurrence, ...]


@dataclass(frozen=True, slots=True)
class RetentionCounts:
    """R-RT-1/2 counts over unique proven results; matched = full + redacted + truncated."""

    proven: int
    matched: int
    redacted: int
    truncated: int
    unmatched: int
    by_status: Mapping[RetentionStatus, int]


@dataclass(frozen=True, slots=True)
class ApiAssessment:
    """Per-API counts (denominators are never pooled across APIs)."""

    api: Api
    boundaries: int
    requests: int
    tool_results: int
    by_class: Mapping[EligibilityClass, int]
    by_reason: Mapping[ExclusionReason, int]
    candidates: int
    retention: RetentionCounts
    signals: tuple[ApiSignal, ...]
    # Unique results of counted boundaries that are redacted JSON web envelopes, and those the
    # credential / private-evidence guard rejects again (structuredScanLosses, R-SIM-9).
    redacted_web_envelopes: int
    structured_scan_losses: int


@dataclass(frozen=True, slots=True)
class Assessment:
    """The classified boundaries in merge order and the per-API counts."""

    replay: ReplayResult
    boundaries: tuple[Boundary, ...]
    per_api: Mapping[Api, ApiAssessment]


class _ApiTally:
    def __init__(self) -> None:
        self.boundaries = 0
        self.requests = 0
        self.tool_results = 0
        self.by_class = dict.fromkeys(EligibilityClass, 0)
        self.by_reason = dict.fromkeys(ExclusionReason, 0)
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
) -> Assessment:
    """Classify every occurrence at every counted boundary and count per API."""
    proofs = IdentityProofs.for_snapshot(
        agent_config,
        app_allowlist,
        (fp for merged in replay.journals for fp in merged.journal.toolset_fingerprints),
    )
    tallies = {api: _ApiTally() for api in sorted(routes.by_api)}
    boundaries: list[Boundary] = []
    for merged in replay.journals:
        journal = merged.journal
        for boundary, skip, runs_before in zip(
            journal.boundaries,
            merged.boundary_skips,
            merged.completed_prompt_runs_before,
            strict=True,
        ):
            if skip is not None:
                continue
            api = Api(boundary.api)
            tally = tallies[api]
            occurrences: list[Occurrence] = []
            for item in boundary.context:
                result = journal.results[item.result]
                reason = occurrence_reason(result, item.protection, proofs)
                eligibility = class_of(reason)
                tally.by_class[eligibility] += 1
                if reason is not None:
                    tally.by_reason[reason] += 1
                occurrences.append(Occurrence(result, eligibility, reason))
            turn_results = tuple(journal.results[i] for i in boundary.turn_results)
            for result in turn_results:
                tally.unique.setdefault(result.finalized_id, result)
            tally.boundaries += 1
            tally.requests += len(boundary.requests)
            tally.tool_results += len(turn_results)
            boundaries.append(
                Boundary(
                    api=api,
                    logical_conversation_id=journal.logical_conversation_id,
                    physical_conversation_id=journal.physical_conversation_id,
                    host_turn_id=boundary.host_turn_id,
                    estimate=boundary.estimate,
                    usage_based=boundary.usage_based,
                    request_ms=boundary.request_ms,
                    gap_ms=boundary.gap_ms,
                    completed_prompt_runs_before=runs_before,
                    requests=boundary.requests,
                    turn_results=turn_results,
                    occurrences=tuple(occurrences),
                )
            )
    per_api: dict[Api, ApiAssessment] = {}
    for api, tally in tallies.items():
        candidates, retention = _retention(tally.unique, proofs)
        per_api[api] = ApiAssessment(
            api=api,
            boundaries=tally.boundaries,
            requests=tally.requests,
            tool_results=tally.tool_results,
            by_class=tally.by_class,
            by_reason=tally.by_reason,
            candidates=candidates,
            retention=retention,
            signals=_signals(candidates, retention),
            redacted_web_envelopes=sum(r.web_envelope_redacted for r in tally.unique.values()),
            structured_scan_losses=sum(r.scan_loss for r in tally.unique.values()),
        )
    return Assessment(replay=replay, boundaries=tuple(boundaries), per_api=per_api)


__all__ = [
    "ApiAssessment",
    "Assessment",
    "Boundary",
    "Occurrence",
    "RetentionCounts",
    "assess",
]
