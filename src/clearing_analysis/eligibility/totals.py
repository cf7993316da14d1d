"""Additive totals of a replay and its assessment, so independent parts of a snapshot combine.

A snapshot is analyzed in independent units (journals that share no journal id, lineage or
physical conversation: `units.py`); each unit's replay counts and per-API eligibility and
retention counts are plain sums of numbers, combined here in unit order. Nothing here holds an
identifier or text, so units cross process boundaries cheaply (R-PERF-3).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

import msgspec

from clearing_analysis.eligibility.assess import ApiAssessment, Assessment, RetentionCounts
from clearing_analysis.eligibility.occurrences import OccurrenceTally
from clearing_analysis.eligibility.reasons import ApiSignal
from clearing_analysis.inputs.configs import Api
from clearing_analysis.policy import eligibility_policy
from clearing_analysis.replay.model import BoundarySkipReason, JournalSkipReason
from clearing_analysis.replay.retention import RetentionStatus


class ApiTotals(msgspec.Struct):
    """One API's additive counts (denominators never pooled across APIs)."""

    boundaries: int = 0
    requests: int = 0
    tool_results: int = 0
    candidates: int = 0
    retention: Counter[RetentionStatus] = msgspec.field(default_factory=Counter)
    redacted_web_envelopes: int = 0
    structured_scan_losses: int = 0
    occurrences: OccurrenceTally = msgspec.field(default_factory=OccurrenceTally)

    def add(self, other: ApiTotals) -> None:
        """Add another unit's counts."""
        self.boundaries += other.boundaries
        self.requests += other.requests
        self.tool_results += other.tool_results
        self.candidates += other.candidates
        self.retention.update(other.retention)
        self.redacted_web_envelopes += other.redacted_web_envelopes
        self.structured_scan_losses += other.structured_scan_losses
        for key, count in other.occurrences.by_class.items():
            self.occurrences.by_class[key] += count
        for reason, count in other.occurrences.by_reason.items():
            self.occurrences.by_reason[reason] += count

    @property
    def retention_counts(self) -> RetentionCounts:
        """R-RT-1/2 counts over the unique proven results."""
        by_status = {status: self.retention[status] for status in RetentionStatus}
        del by_status[RetentionStatus.NOT_PLAIN_TEXT]
        proven = sum(by_status.values())
        redacted = by_status[RetentionStatus.REDACTED]
        truncated = by_status[RetentionStatus.TRUNCATED]
        matched = by_status[RetentionStatus.MATCHED] + redacted + truncated
        return RetentionCounts(proven, matched, redacted, truncated, proven - matched, by_status)

    @property
    def signals(self) -> tuple[ApiSignal, ...]:
        """IDENTITY_UNPROVEN, RETENTION_UNMATCHED, RETENTION_COVERAGE_LOW (R-RT-3)."""
        retention = self.retention_counts
        signals: list[ApiSignal] = []
        if self.candidates > 0 and retention.proven == 0:
            signals.append(ApiSignal.IDENTITY_UNPROVEN)
        if retention.proven > 0:
            # An empty proven set is not missing retention (R-RT-3); zero matches is the
            # stronger signal and is reported instead of, not beside, low coverage.
            floor = eligibility_policy().retention_coverage_floor
            if retention.matched == 0:
                signals.append(ApiSignal.RETENTION_UNMATCHED)
            elif retention.matched / retention.proven < floor:
                signals.append(ApiSignal.RETENTION_COVERAGE_LOW)
        return tuple(sorted(signals))


class SessionTotals(msgspec.Struct):
    """pi session files (explore): format versions and what lay beyond the resumed paths."""

    by_version: Counter[int] = msgspec.field(default_factory=Counter)
    entries: int = 0
    off_path_entries: int = 0
    branched: int = 0  # sessions with more than one branch tip
    # Unrecognized code -> count
    unrecognized: Counter[str] = msgspec.field(default_factory=Counter)
    # Assistant messages that are no model request (TranscriptOnlyCode -> count, R-CM-8).
    transcript_only: Counter[str] = msgspec.field(default_factory=Counter)
    # Imported formats (HistoryFormat -> sessions read), and what a Claude Code transcript
    # adds: torn final lines dropped, `<synthetic>` messages left out, and counted requests
    # whose output tokens are streaming placeholders (API -> count).
    by_format: Counter[str] = msgspec.field(default_factory=Counter)
    torn_final_lines: int = 0
    synthetic_messages: int = 0
    placeholder_output: Counter[str] = msgspec.field(default_factory=Counter)

    def add(self, other: SessionTotals) -> None:
        """Add another unit's counts."""
        self.by_version.update(other.by_version)
        self.entries += other.entries
        self.off_path_entries += other.off_path_entries
        self.branched += other.branched
        self.unrecognized.update(other.unrecognized)
        self.transcript_only.update(other.transcript_only)
        self.by_format.update(other.by_format)
        self.torn_final_lines += other.torn_final_lines
        self.synthetic_messages += other.synthetic_messages
        self.placeholder_output.update(other.placeholder_output)


class Totals(msgspec.Struct):
    """A replay's skip counts and its per-API totals (every key present, zeros included)."""

    replayed_journals: int = 0
    turns_without_request: int = 0
    skipped_journals: dict[JournalSkipReason, int] = msgspec.field(
        default_factory=lambda: dict.fromkeys(JournalSkipReason, 0)
    )
    invalid_details: Counter[str] = msgspec.field(default_factory=Counter)
    skipped_boundaries: dict[BoundarySkipReason, int] = msgspec.field(
        default_factory=lambda: dict.fromkeys(BoundarySkipReason, 0)
    )
    boundaries_without_route: dict[Api, int] = msgspec.field(
        default_factory=lambda: dict.fromkeys(Api, 0)
    )
    # Requests of counted turns whose own API is unsupported or has no route (R-CM-8).
    requests_without_route: int = 0
    # Outside the period of --since / --until: requests of otherwise counted turns, and
    # checkpoints (inputs.period); its boundaries are skippedBoundaries OUTSIDE_PERIOD.
    requests_outside_period: int = 0
    compactions_outside_period: int = 0
    per_api: dict[Api, ApiTotals] = msgspec.field(default_factory=dict)
    sessions: SessionTotals = msgspec.field(default_factory=SessionTotals)

    def add(self, other: Totals) -> None:
        """Add another unit's totals."""
        self.sessions.add(other.sessions)
        self.replayed_journals += other.replayed_journals
        self.turns_without_request += other.turns_without_request
        for reason, count in other.skipped_journals.items():
            self.skipped_journals[reason] += count
        self.invalid_details.update(other.invalid_details)
        for boundary_reason, count in other.skipped_boundaries.items():
            self.skipped_boundaries[boundary_reason] += count
        for api, count in other.boundaries_without_route.items():
            self.boundaries_without_route[api] += count
        self.requests_without_route += other.requests_without_route
        self.requests_outside_period += other.requests_outside_period
        self.compactions_outside_period += other.compactions_outside_period
        for api, totals in other.per_api.items():
            self.per_api.setdefault(api, ApiTotals()).add(totals)


def _api_totals(
    api: ApiAssessment, occurrences: OccurrenceTally, unique: Counter[RetentionStatus]
) -> ApiTotals:
    return ApiTotals(
        boundaries=api.boundaries,
        requests=api.requests,
        tool_results=api.tool_results,
        candidates=api.candidates,
        retention=unique,
        redacted_web_envelopes=api.redacted_web_envelopes,
        structured_scan_losses=api.structured_scan_losses,
        occurrences=occurrences,
    )


def totals_of(assessment: Assessment, occurrences: Mapping[Api, OccurrenceTally]) -> Totals:
    """One unit's totals from its assessment and its occurrence counts."""
    replay = assessment.replay
    totals = Totals(
        replayed_journals=replay.replayed_journals,
        turns_without_request=sum(m.journal.turns_without_request for m in replay.journals),
        skipped_journals=dict(replay.skipped_journals),
        invalid_details=Counter(replay.invalid_details),
        skipped_boundaries=dict(replay.skipped_boundaries),
        boundaries_without_route=dict(replay.boundaries_without_route),
        requests_without_route=assessment.requests_without_route,
        requests_outside_period=assessment.requests_outside_period,
        compactions_outside_period=assessment.compactions_outside_period,
    )
    for merged in replay.journals:
        shape = merged.journal.session
        if shape is not None:
            sessions = totals.sessions
            sessions.by_version[shape.version] += 1
            sessions.entries += shape.entries
            sessions.off_path_entries += shape.off_path_entries
            sessions.branched += shape.leaves > 1
            sessions.unrecognized.update({k.value: v for k, v in shape.unrecognized.items()})
            sessions.transcript_only.update({k.value: v for k, v in shape.transcript_only.items()})
            sessions.by_format[shape.format.value] += 1
            sessions.torn_final_lines += shape.torn_final_lines
            sessions.synthetic_messages += shape.synthetic_messages
            sessions.placeholder_output.update(shape.placeholder_output_requests)
    for api, assessed in assessment.per_api.items():
        statuses: Counter[RetentionStatus] = Counter(
            {status: count for status, count in assessed.retention.by_status.items() if count}
        )
        totals.per_api[api] = _api_totals(assessed, occurrences[api], statuses)
    return totals


def combine(parts: Iterable[Totals], apis: Iterable[Api]) -> Totals:
    """The sum of `parts`, with every routed API present."""
    combined = Totals(per_api={api: ApiTotals() for api in apis})
    for part in parts:
        combined.add(part)
    return combined


__all__ = ["ApiTotals", "SessionTotals", "Totals", "combine", "totals_of"]
