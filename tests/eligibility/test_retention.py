"""Retention matching (R-RT-1..3): each mismatch kind, per-API counts and signals."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from clearing_analysis.eligibility import (
    ApiSignal,
    Assessment,
    EligibilityClass,
    assess,
    count_occurrences,
)
from clearing_analysis.eligibility import ExclusionReason as R
from clearing_analysis.identity import ToolIdentity
from clearing_analysis.inputs.configs import Api
from clearing_analysis.inputs.sidecar import RetainedRow, open_sidecar
from clearing_analysis.replay import RetentionStatus, replay_journals
from clearing_analysis.replay.retention import match_retention
from tests.eligibility.helpers import PERIOD, Target, target_occurrence
from tests.replay.builder import JournalBuilder, SidecarBuilder, agent_config, routes

IDENTITY = ToolIdentity("p1", "t1", "t1-r", "c1")
OTHER_IDENTITY = ToolIdentity("p1", "t1", "t1-r", "c2")


def _row(original: str = "abc", **changes: Any) -> RetainedRow:
    """A row of IDENTITY retaining `original` exactly, with `changes` applied."""
    raw = original.encode()
    fields: dict[str, Any] = {
        "identity": IDENTITY,
        "state": "finalized",
        "byte_length": len(raw),
        "sha256": hashlib.sha256(raw).digest(),
        "text": original,
        "redacted": False,
        "truncated": False,
        "tombstone": False,
        "integrity": "ok",
        "origin_server": None,
        "origin_tool": None,
        "origin_server_identity_digest": None,
        "origin_read_only_hint": None,
        "origin_destructive_hint": None,
    }
    fields.update(changes)
    return RetainedRow(**fields)


@pytest.mark.parametrize(
    ("row", "status"),
    [
        (None, RetentionStatus.MISSING),
        (_row(), RetentionStatus.MATCHED),
        (_row(state="committed"), RetentionStatus.NOT_FINALIZED),
        (_row(tombstone=True, text=None), RetentionStatus.TOMBSTONED),
        (_row(integrity="mismatch"), RetentionStatus.INTEGRITY_MISMATCH),
        (_row(redacted=True, text="[redacted]"), RetentionStatus.REDACTED),
        (_row(truncated=True, text="a"), RetentionStatus.TRUNCATED),
        (_row(redacted=True, truncated=True), RetentionStatus.REDACTED),
        (_row(byte_length=4), RetentionStatus.BYTES_MISMATCH),
        (_row(sha256=bytes(32)), RetentionStatus.DIGEST_MISMATCH),
        (_row(text="abd"), RetentionStatus.TEXT_MISMATCH),
        (_row(text=None), RetentionStatus.TEXT_MISMATCH),
        (_row(state="committed", tombstone=True), RetentionStatus.NOT_FINALIZED),
        (_row(tombstone=True, redacted=True), RetentionStatus.TOMBSTONED),
        (_row(identity=OTHER_IDENTITY), RetentionStatus.NOT_IDENTITY_LINKED),
        (_row(identity=OTHER_IDENTITY, redacted=True), RetentionStatus.NOT_IDENTITY_LINKED),
        (_row(identity=OTHER_IDENTITY, state="committed"), RetentionStatus.NOT_IDENTITY_LINKED),
    ],
)
def test_match_retention(row: RetainedRow | None, status: RetentionStatus) -> None:
    """One status per row, in the documented precedence; identity is compared first."""
    assert match_retention(row, IDENTITY, b"abc") == status


def test_non_ascii_text_compares_utf8_bytes() -> None:
    """Byte length is UTF-8: 'é' is two bytes."""
    assert match_retention(_row("é"), IDENTITY, "é".encode()) is RetentionStatus.MATCHED
    assert (
        match_retention(_row("é", byte_length=1), IDENTITY, "é".encode())
        is RetentionStatus.BYTES_MISMATCH
    )


@pytest.mark.parametrize(
    ("retain", "reason"),
    [
        (None, R.RETENTION_MISSING),
        ({"indexed": False}, R.RETENTION_MISSING),
        ({"state": "committed"}, R.RETENTION_MISSING),
        ({"tombstone": True}, R.RETENTION_TOMBSTONED),
        ({"integrity": "mismatch"}, R.RETENTION_INTEGRITY_MISMATCH),
        ({"redacted": True, "stored_text": "[redacted]"}, R.RETENTION_REDACTED),
        ({"truncated": True, "stored_text": "target"}, R.RETENTION_TRUNCATED),
        ({"byte_length": 3}, R.RETENTION_BYTES_MISMATCH),
        ({"digest": bytes(32)}, R.RETENTION_DIGEST_MISMATCH),
        ({"stored_text": "target result texT"}, R.RETENTION_TEXT_MISMATCH),
        # The index maps the target's id to a row of another identity with equal text: no
        # match (it used to match on the text alone), redacted or not.
        ({"row_identity": ("p1", "t1", "t1-r", "c9")}, R.RETENTION_MISSING),
        ({"row_identity": ("p2", "t1", "t1-r", "c1"), "redacted": True}, R.RETENTION_MISSING),
    ],
)
def test_retention_reasons_are_upper_bound_only(
    tmp_path: Path, retain: dict | None, reason: R
) -> None:
    """A proven, unprotected result without byte-identical retention is upper bound only."""
    occurrence, _ = target_occurrence(
        tmp_path, Target(), agent_config=agent_config(PERIOD), retain=retain
    )
    assert occurrence.reason is reason
    assert occurrence.eligibility is EligibilityClass.UPPER_BOUND_ONLY


def _corpus(tmp_path: Path, retained: dict[str, dict | None], config: Any = PERIOD) -> Assessment:
    """One journal: turn t1 with a read call per key of `retained`; rows as given."""
    b = JournalBuilder()
    b.tool_turn("t1", [(c, "read") for c in retained])
    b.plain_turn("t2")
    b.close()
    sidecar = SidecarBuilder(tmp_path / "h.sqlite", capture_enabled=("p1",))
    for call_id, retain in retained.items():
        if retain is not None:
            sidecar.retain(("p1", "t1", "t1-r", call_id), f"result text {call_id}", **retain)
    with open_sidecar(sidecar.finish()) as view:
        result = replay_journals([b.write(tmp_path)], routes(), view)
    return assess(result, routes(), None if config is None else agent_config(config))


def test_counts_include_protected_results_once(tmp_path: Path) -> None:
    """Retention counts unique results, protected ones included (every occurrence here is
    protected, yet all are counted, once)."""
    assessment = _corpus(
        tmp_path,
        {"a": {}, "b": {"redacted": True}, "c": {"truncated": True}, "d": None, "e": {}},
    )
    api = assessment.per_api[Api.ANTHROPIC_MESSAGES]
    r = api.retention
    assert (r.proven, r.matched, r.redacted, r.truncated, r.unmatched) == (5, 4, 1, 1, 1)
    occurrences = count_occurrences(assessment)[Api.ANTHROPIC_MESSAGES]
    assert occurrences.by_class[EligibilityClass.LOWER_BOUND] == 0
    assert occurrences.by_reason[R.PROTECTED_RECENT_PROMPT_TURN] == 5
    assert api.signals == ()


def test_unmatched_signal(tmp_path: Path) -> None:
    """Proven results with no match: RETENTION_UNMATCHED."""
    api = _corpus(tmp_path, {"a": None, "b": {"tombstone": True}}).per_api[Api.ANTHROPIC_MESSAGES]
    assert api.signals == (ApiSignal.RETENTION_UNMATCHED,)


def test_coverage_low_signal(tmp_path: Path) -> None:
    """One match of three (below the 50% floor): RETENTION_COVERAGE_LOW; one of two is not."""
    low = _corpus(tmp_path, {"a": {}, "b": None, "c": None}).per_api[Api.ANTHROPIC_MESSAGES]
    assert low.signals == (ApiSignal.RETENTION_COVERAGE_LOW,)
    even = tmp_path / "even"
    even.mkdir()
    half = _corpus(even, {"a": {}, "b": None}).per_api[Api.ANTHROPIC_MESSAGES]
    assert half.signals == ()


def test_identity_unproven_signal_and_empty_proven_set(tmp_path: Path) -> None:
    """Plain-text candidates without any proven identity: IDENTITY_UNPROVEN, and no retention
    signal, since an empty proven set is not missing retention."""
    assessment = _corpus(tmp_path, {"a": None}, config=None)
    api = assessment.per_api[Api.ANTHROPIC_MESSAGES]
    assert api.candidates == 1
    assert api.retention.proven == 0
    assert api.signals == (ApiSignal.IDENTITY_UNPROVEN,)
    untouched = assessment.per_api[Api.OPENAI_RESPONSES]
    assert (untouched.candidates, untouched.retention.proven, untouched.signals) == (0, 0, ())
