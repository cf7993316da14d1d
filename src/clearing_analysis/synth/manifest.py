"""The ground-truth manifest (DIR/ground-truth.json): what the generator planted.

Its keys mirror the replay summary's (docs/replay.md), so tests compare the two. Counts are
accumulated per journal in a `JournalTally` and merged only when that journal is meant to
replay successfully, mirroring R-RP-1 (a failed journal contributes nothing, boundary skips
included). The analyzer never reads this file; the project's tests compare against it.
"""

from __future__ import annotations

from typing import Any

import msgspec

from clearing_analysis.inputs.configs import Api

JOURNAL_SKIPS = (
    "UNSUPPORTED_VERSION",
    "IMPORTED",
    "INHERITED",
    "INTERRUPTED",
    "INVALID",
    "OPEN",
    "DUPLICATE",
)
BOUNDARY_SKIPS = ("OWNER_MISSING", "UNSUPPORTED_API", "DUPLICATE", "OUTSIDE_CAPTURE_WINDOW")
RETENTION_KEYS = ("proven", "matched", "redacted", "truncated", "unmatched")
DEFECT_KEYS = (
    "missing",
    "notFinalized",
    "tombstone",
    "integrityMismatch",
    "bytesMismatch",
    "digestMismatch",
    "textMismatch",
    "redacted",
    "truncated",
    "notIdentityLinked",  # last, so that the draws of the kinds before it did not move
)
# Defects that leave a proven result unmatched (R-RT-2); redacted/truncated stay matched.
UNMATCHED_DEFECTS = frozenset(DEFECT_KEYS) - {"redacted", "truncated"}


# Per API, over unique results of counted boundaries: results a `redaction` record marks as a
# redacted JSON web envelope, and those among them whose text the guard trips on (R-SIM-9).
ENVELOPE_KEYS = ("redactedWebEnvelopes", "structuredScanLosses")


def _api_counts() -> dict[str, Any]:
    return {
        "boundaries": 0,
        "requests": 0,
        "toolResults": 0,
        "retention": dict.fromkeys(RETENTION_KEYS, 0),
        **dict.fromkeys(ENVELOPE_KEYS, 0),
    }


class JournalTally(msgspec.Struct):
    """Counts one journal would contribute if its replay succeeds."""

    skipped_boundaries: dict[str, int] = msgspec.field(
        default_factory=lambda: dict.fromkeys(BOUNDARY_SKIPS, 0)
    )
    per_api: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    defects: dict[str, int] = msgspec.field(default_factory=lambda: dict.fromkeys(DEFECT_KEYS, 0))

    def api(self, api: str) -> dict[str, Any]:
        """The counters of one supported API (created on first use)."""
        counts = self.per_api.get(api)
        if counts is None:
            counts = self.per_api[api] = _api_counts()
        return counts

    def redacted_envelope(self, api: str, *, trips_guard: bool) -> None:
        """Count one unique result of a counted boundary redacted as a JSON web envelope."""
        counts = self.api(api)
        counts["redactedWebEnvelopes"] += 1
        counts["structuredScanLosses"] += trips_guard

    def proven_result(self, api: str, defect: str | None) -> None:
        """Count one unique proven result of `api` with its planted defect (None: clean)."""
        retention = self.api(api)["retention"]
        retention["proven"] += 1
        if defect is not None:
            self.defects[defect] += 1
        if defect in UNMATCHED_DEFECTS:
            retention["unmatched"] += 1
        else:
            retention["matched"] += 1
            if defect is not None:
                retention[defect] += 1


class GroundTruth(msgspec.Struct):
    """The whole corpus's manifest, merged journal by journal."""

    seed: int
    profile: str
    journal_files: int = 0
    replayed_journals: int = 0
    skipped_journals: dict[str, int] = msgspec.field(
        default_factory=lambda: dict.fromkeys(JOURNAL_SKIPS, 0)
    )
    total: JournalTally = msgspec.field(default_factory=JournalTally)
    apis_present: set[str] = msgspec.field(default_factory=set)

    def skipped(self, outcome: str) -> None:
        """One journal file that replay is meant to skip with `outcome`."""
        self.journal_files += 1
        self.skipped_journals[outcome] += 1

    def replayed(self, tally: JournalTally) -> None:
        """One journal file that replays successfully, with its contribution."""
        self.journal_files += 1
        self.replayed_journals += 1
        for key, value in tally.skipped_boundaries.items():
            self.total.skipped_boundaries[key] += value
        for key, value in tally.defects.items():
            self.total.defects[key] += value
        for api, counts in tally.per_api.items():
            mine = self.total.api(api)
            for key in ("boundaries", "requests", "toolResults", *ENVELOPE_KEYS):
                mine[key] += counts[key]
            for key in RETENTION_KEYS:
                mine["retention"][key] += counts["retention"][key]

    def to_json(self) -> dict[str, Any]:
        """The manifest object; every API with a route is listed (zeros included), in order."""
        per_api = {
            api.value: self.total.per_api.get(api.value, _api_counts())
            for api in Api
            if api.value in self.apis_present or api.value in self.total.per_api
        }
        return {
            "format": "clearing-synth-ground-truth",
            "version": 1,
            "seed": self.seed,
            "profile": self.profile,
            "journalFiles": self.journal_files,
            "replayedJournals": self.replayed_journals,
            "skippedJournals": self.skipped_journals,
            "skippedBoundaries": self.total.skipped_boundaries,
            "perApi": per_api,
            "retentionDefects": self.total.defects,
        }
