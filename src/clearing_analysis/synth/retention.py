"""Retention rows for placed results, with planted defects on counted proven results.

Every successful single-text result gets a sidecar row consistent with its journal text
(byte length, SHA-256, complete text). Only unique proven results of counted boundaries in
journals meant to replay receive a planted defect (the manifest's `retentionDefects`), one
kind per result, so each defect is observable on its own: missing (no row, or a row absent
from the committed index), committed-not-finalized, tombstone, integrity mismatch, byte-length,
digest or text mismatch, the matched-but-ineligible redacted / truncated rows (R-RT-2), and an
index entry pointing at a row that is not identity-linked (R-SIM-9).
"""

from __future__ import annotations

import hashlib
import random
from collections import deque
from typing import Any

import msgspec

from clearing_analysis.identity import ToolIdentity
from clearing_analysis.inputs.configs import Attestation
from clearing_analysis.synth.manifest import DEFECT_KEYS, JournalTally
from clearing_analysis.synth.profiles import DefectRates
from clearing_analysis.synth.proofs import is_proven
from clearing_analysis.synth.sidecar import RetentionRow, clean_row
from clearing_analysis.synth.toolmix import WEB_TOOLS, ToolOutcome

_RATE_FIELDS = (
    ("missing", "missing"),
    ("notFinalized", "not_finalized"),
    ("tombstone", "tombstone"),
    ("integrityMismatch", "integrity_mismatch"),
    ("bytesMismatch", "bytes_mismatch"),
    ("digestMismatch", "digest_mismatch"),
    ("textMismatch", "text_mismatch"),
    ("redacted", "redacted"),
    ("truncated", "truncated"),
    ("notIdentityLinked", "not_identity_linked"),
)


class PendingResult(msgspec.Struct):
    """A placed tool result awaiting its run's end status (`finish_run` then makes its row)."""

    identity: ToolIdentity
    outcome: ToolOutcome
    seq: int
    at_ms: int
    counted: bool
    api: str
    attestation: Attestation | None
    captured: bool
    force_redaction: bool = False  # the guaranteed credential envelope is redacted


class DefectPlanter:
    """Draws the defect of each counted proven result (None: a clean, matching row)."""

    def __init__(self, rng: random.Random, rates: DefectRates, guaranteed: bool) -> None:
        self._rng = rng
        self._queue: deque[str] = deque(DEFECT_KEYS if guaranteed else ())
        self._cumulative: list[tuple[float, str]] = []
        total = 0.0
        for key, attribute in _RATE_FIELDS:
            total += float(getattr(rates, attribute))
            self._cumulative.append((total, key))

    def draw(self) -> str | None:
        """The next defect: guaranteed ones first (one of each kind), then by rate."""
        if self._queue:
            return self._queue.popleft()
        roll = self._rng.random()
        for bound, key in self._cumulative:
            if roll < bound:
                return key
        return None


def _redacted_text(tool: str) -> str:
    if tool in WEB_TOOLS:
        return '{"url":"[redacted]","status":200,"content":"[redacted]"}'
    return "[redacted]"


def _with_defect(
    row: RetentionRow, defect: str, rng: random.Random, tool: str
) -> RetentionRow | None:
    text = row.text if row.text is not None else ""
    if defect == "missing":
        # Either never captured, or captured but never entered in the committed index.
        return None if rng.random() < 0.5 else msgspec.structs.replace(row, indexed=False)
    changes: dict[str, Any]
    if defect == "notFinalized":
        changes = {"state": "committed"}
    elif defect == "tombstone":
        changes = {"text": None, "tombstone": True}
    elif defect == "integrityMismatch":
        changes = {"integrity": "mismatch"}
    elif defect == "bytesMismatch":
        changes = {"byte_length": row.byte_length + rng.randint(1, 64)}
    elif defect == "digestMismatch":
        changes = {"sha256": hashlib.sha256(text.encode() + b"\n").digest()}
    elif defect == "textMismatch":
        changes = {"text": ("#" if text[:1] != "#" else "%") + text[1:]}
    elif defect == "redacted":
        changes = {"text": _redacted_text(tool), "redacted": True}
    elif defect == "truncated":  # the retained text is a strict prefix
        changes = {"text": text[: len(text) // 2], "truncated": True}
    else:  # notIdentityLinked
        # The writer indexed this result's id to the row it stored for a retried call: the
        # row's identity columns name that other call, so the row proves nothing about this
        # result, although its text is this result's (R-SIM-9).
        own = row.identity
        other = own._replace(call_id=f"{own.call_id}-retry")
        changes = {"identity": other, "index_identity": own}
    return msgspec.structs.replace(row, **changes)


def finish_run(
    pending: list[PendingResult],
    completed: bool,
    *,
    rng: random.Random,
    shape_rng: random.Random,
    redaction_rate: float,
    defects: DefectPlanter,
    tally: JournalTally,
    rows: list[RetentionRow],
) -> list[tuple[int, str]]:
    """Append the rows of a run's placed results to `rows`, count them in `tally`, and return
    the redaction (target seq, scope) pairs. `defects` draws each counted proven result's
    defect, `rng` the rows' times and how a defect changes a row, `shape_rng` whether a
    credential envelope is redacted (at `redaction_rate`).

    A web envelope holding a credential may be redacted by the writer (scope web_envelope,
    format json; its row, if any, then holds the redacted text). For a counted boundary's
    result that is a redacted JSON web envelope the guard trips on: a structured scan loss
    (R-SIM-9). Other redactions come from the planted `redacted` retention defect.
    """
    redactions: list[tuple[int, str]] = []
    for item in pending:
        outcome = item.outcome
        content = outcome.content
        if outcome.is_error or len(content) != 1 or content[0]["type"] != "text":
            continue  # errors, images and mixed blocks are never eligible; not retained here
        redact_envelope = outcome.credential and (
            item.force_redaction or shape_rng.random() < redaction_rate
        )
        if redact_envelope:
            redactions.append((item.seq, "web_envelope"))
            if item.counted:
                tally.redacted_envelope(item.api, trips_guard=True)
        if not item.captured:
            continue  # continuity capture was not enabled yet: nothing was retained
        origin = outcome.origin
        origin_row = None
        if origin is not None:
            hints = origin["annotations"]
            origin_row = (
                origin["server"],
                origin["tool"],
                origin["serverIdentityDigest"],
                hints.get("readOnlyHint"),
                hints.get("destructiveHint"),
            )
        row: RetentionRow | None = clean_row(
            item.identity, content[0]["text"], item.at_ms + rng.randint(1, 50), origin_row
        )
        if item.counted and completed and is_proven(outcome, item.attestation):
            # A redacted envelope's row is a redacted row: that is this result's defect.
            defect = "redacted" if redact_envelope else defects.draw()
            tally.proven_result(item.api, defect)
            if defect is not None and row is not None:
                row = _with_defect(row, defect, rng, outcome.name)
            if defect == "redacted" and not redact_envelope:
                scope = "web_envelope" if outcome.name in WEB_TOOLS else "text"
                redactions.append((item.seq, scope))
                if scope == "web_envelope":
                    tally.redacted_envelope(item.api, trips_guard=outcome.credential)
        elif redact_envelope and row is not None:
            row = _with_defect(row, "redacted", rng, outcome.name)
        if row is not None:
            rows.append(row)
    return redactions
