"""The decoder never raises: any bytes give a DecodedJournal or a RejectedJournal (R-REL-2)."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clearing_analysis.journal import (
    DecodedJournal,
    InvalidReason,
    JournalOutcome,
    RejectedJournal,
    decode_bytes,
)
from tests.formats import _strategies as gen
from tests.journal._build import valid

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _well_formed(result: object) -> bool:
    if isinstance(result, DecodedJournal):
        return True
    assert isinstance(result, RejectedJournal)
    assert isinstance(result.outcome, JournalOutcome)
    # A detail exactly when INVALID.
    assert (result.reason is None) == (result.outcome is not JournalOutcome.INVALID)
    assert result.reason is None or isinstance(result.reason, InvalidReason)
    return True


@FUZZ
@given(st.binary(max_size=2000))
def test_arbitrary_bytes(data: bytes) -> None:
    """Arbitrary bytes decode to a result, never an exception."""
    assert _well_formed(decode_bytes(data))


@FUZZ
@given(st.lists(gen.json_value, max_size=6))
def test_arbitrary_json_lines(values: list[object]) -> None:
    """Arbitrary JSON values, one per line, decode to a result."""
    data = b"".join(json.dumps(v).encode() + b"\n" for v in values)
    assert _well_formed(decode_bytes(data))


@FUZZ
@given(st.data())
def test_corrupted_valid_journal(data: st.DataObject) -> None:
    """A valid journal cut, spliced or with one byte flipped still decodes to a result."""
    raw = bytearray(valid())
    position = data.draw(st.integers(0, len(raw) - 1))
    action = data.draw(st.sampled_from(["cut", "flip", "insert"]))
    if action == "cut":
        raw = raw[:position]
    elif action == "flip":
        raw[position] = data.draw(st.integers(0, 255))
    else:
        raw[position:position] = data.draw(st.binary(min_size=1, max_size=8))
    assert _well_formed(decode_bytes(bytes(raw)))


@FUZZ
@given(st.lists(gen.any_record, min_size=1, max_size=5))
def test_random_valid_records_in_any_order(records: list[dict[str, object]]) -> None:
    """Valid records in arbitrary order and numbering give a result, never an exception."""
    data = b"".join(json.dumps(r).encode() + b"\n" for r in records)
    assert _well_formed(decode_bytes(data))
