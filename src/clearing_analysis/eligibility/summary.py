"""The replay summary: counts only, deterministic JSON (R-OUT-1, R-OUT-4).

Only fixed codes, API enums and counts appear: no text, ids, paths, digests or route labels.
Every enum key is present (zeros included) so that two summaries always have the same shape.
"""

from __future__ import annotations

import json
from typing import Any

from clearing_analysis.eligibility.assess import Assessment, count_occurrences
from clearing_analysis.eligibility.reasons import EXCLUSION_UNIT, Limitation
from clearing_analysis.eligibility.totals import ApiTotals, Totals, combine, totals_of
from clearing_analysis.inputs.period import EVERYTHING, Period
from clearing_analysis.replay.retention import RetentionStatus

SUMMARY_FORMAT = "clearing-replay-summary"
SUMMARY_VERSION = 2

_DEFECT_KEYS = {
    RetentionStatus.MISSING: "missing",
    RetentionStatus.NOT_IDENTITY_LINKED: "notIdentityLinked",
    RetentionStatus.NOT_FINALIZED: "notFinalized",
    RetentionStatus.TOMBSTONED: "tombstone",
    RetentionStatus.INTEGRITY_MISMATCH: "integrityMismatch",
    RetentionStatus.BYTES_MISMATCH: "bytesMismatch",
    RetentionStatus.DIGEST_MISMATCH: "digestMismatch",
    RetentionStatus.TEXT_MISMATCH: "textMismatch",
    RetentionStatus.REDACTED: "redacted",
    RetentionStatus.TRUNCATED: "truncated",
}


def _api_summary(api: ApiTotals) -> dict[str, Any]:
    retention = api.retention_counts
    occurrences = api.occurrences
    return {
        "boundaries": api.boundaries,
        "requests": api.requests,
        "toolResults": api.tool_results,
        "eligibility": {
            "exclusionUnit": EXCLUSION_UNIT,
            "occurrences": occurrences.total,
            "byClass": {k.value: v for k, v in occurrences.by_class.items()},
            "byReason": {k.value: v for k, v in occurrences.by_reason.items()},
        },
        "retention": {
            "candidates": api.candidates,
            "proven": retention.proven,
            "matched": retention.matched,
            "redacted": retention.redacted,
            "truncated": retention.truncated,
            "unmatched": retention.unmatched,
            "defects": {key: retention.by_status[s] for s, key in _DEFECT_KEYS.items()},
        },
        "signals": [signal.value for signal in api.signals],
        "redactedWebEnvelopes": api.redacted_web_envelopes,
        "structuredScanLosses": api.structured_scan_losses,
    }


def replay_summary(totals: Totals | Assessment, period: Period = EVERYTHING) -> dict[str, Any]:
    """The summary as a JSON-ready dict, from combined totals (or one assessment), with the
    period replayed (--since / --until)."""
    if isinstance(totals, Assessment):
        assessment = totals
        totals = combine([totals_of(assessment, count_occurrences(assessment))], assessment.per_api)
    return {
        "format": SUMMARY_FORMAT,
        "version": SUMMARY_VERSION,
        "journalsReplayed": totals.replayed_journals,
        "skippedJournals": {k.value: v for k, v in totals.skipped_journals.items()},
        "skippedBoundaries": {k.value: v for k, v in totals.skipped_boundaries.items()},
        "boundariesWithoutRoute": {k.value: v for k, v in totals.boundaries_without_route.items()},
        "requestsWithoutRoute": totals.requests_without_route,
        "requestsOutsidePeriod": totals.requests_outside_period,
        "compactionsOutsidePeriod": totals.compactions_outside_period,
        "period": {"sinceMs": period.since_ms, "untilMs": period.until_ms},
        "invalidJournalDetails": dict(sorted(totals.invalid_details.items())),
        "turnsWithoutRequest": totals.turns_without_request,
        "limitations": [limitation.value for limitation in Limitation],
        "perApi": {api.value: _api_summary(a) for api, a in sorted(totals.per_api.items())},
    }


def dumps_summary(summary: dict[str, Any]) -> str:
    """Deterministic serialization: sorted keys, fixed separators, trailing newline."""
    return json.dumps(summary, sort_keys=True, separators=(",", ":"), ensure_ascii=True) + "\n"
