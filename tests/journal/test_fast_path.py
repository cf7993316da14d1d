"""The fast decoding path never disagrees with the strict one (docs: journal/decode.py).

For any line, the fast path either declines (the strict path then decides, as before) or
accepts it with exactly the record the strict path produces. Lines are drawn from valid
records, then serialized in ways a writer might (compact, spaced, reordered, and the canonical
encoding of the record itself, which the fast path checks without an untyped decoding) and
broken in the ways the fast path must notice itself: a repeated key at any depth, deep
free-form nesting, an over-long integer literal, a turn input without its role.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clearing_analysis import strictjson
from clearing_analysis.journal.decode import _fast, _to_record
from clearing_analysis.policy import limits
from tests.formats import _strategies as gen

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAX_DEPTH = limits().max_nesting_depth


def _strict(raw: bytes) -> tuple[object, dict[str, Any]] | None:
    try:
        obj = strictjson.loads(raw, max_depth=MAX_DEPTH)
    except strictjson.JsonRejected:
        return None
    if not isinstance(obj, dict):
        return None
    try:
        return _to_record(obj), obj
    except Exception:  # the strict path's _Invalid: a wrong shape
        return None


def _agree(raw: bytes) -> None:
    fast = _fast(raw, MAX_DEPTH)
    if fast is not None:
        strict = _strict(raw)
        assert strict is not None, raw
        assert fast == strict[0]


STYLES = 4  # compact, ASCII-escaped, spaced and key-sorted, canonical


def _serialize(value: Any, style: int) -> bytes:
    if style == 3:
        strict = _strict(json.dumps(value).encode())
        assert strict is not None
        return msgspec.json.encode(strict[0])
    if style == 0:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    if style == 1:
        return json.dumps(value, ensure_ascii=True).encode()
    return json.dumps(value, indent=1, sort_keys=True).replace("\n", " ").encode()


@SETTINGS
@given(record=gen.any_record, style=st.integers(0, STYLES - 1))
def test_valid_records_agree(record: dict[str, Any], style: int) -> None:
    """Well-formed records, however a writer lays them out."""
    _agree(_serialize(record, style))


def _with_duplicate(raw: bytes, draw: st.DrawFn) -> bytes:
    """Repeat one `"key":` of the line with another value at the same place."""
    text = raw.decode()
    positions = [i for i in range(len(text)) if text.startswith('":', i)]
    if not positions:
        return raw
    at = draw(st.sampled_from(positions)) + 2
    start = text.rfind('"', 0, at - 2)
    key = text[start:at]
    return (text[:start] + key + "0," + text[start:]).encode()


@SETTINGS
@given(data=st.data(), record=gen.any_record, style=st.sampled_from([0, 3]))
def test_repeated_keys_are_never_accepted_by_the_fast_path(
    data: st.DataObject, record: dict[str, Any], style: int
) -> None:
    """A line with a key repeated anywhere: the strict path refuses it (DUPLICATE_KEY), so the
    fast path, agreeing, declines it."""
    _agree(_with_duplicate(_serialize(record, style), data.draw))


@pytest.mark.parametrize(
    "line",
    [
        b'{"seq":0,"kind":"close","timestamp":1,"timestamp":2}',
        b'{"kind":"close","seq":0,"seq":0,"timestamp":1}',
        b'{"seq":0,"kind":"tool_call_start","runId":"r","callId":"c","toolName":"t",'
        b'"arguments":{"a":1,"a":2},"timestamp":1}',
        b'{"seq":0,"kind":"tool_call_start","runId":"r","callId":"c","toolName":"t",'
        b'"arguments":{"a":' + b"[" * 70 + b"]" * 70 + b'},"timestamp":1}',
        b'{"seq":0,"kind":"tool_call_start","runId":"r","callId":"c","toolName":"t",'
        b'"arguments":{"a":' + b"9" * 4301 + b'},"timestamp":1}',
        b'{"seq":0,"kind":"turn_start","hostTurnId":"t","message":{"content":"x","timestamp":1}}',
        b'{"seq":0,"kind":"close","timestamp":1.0}',
        b'\xef\xbb\xbf{"seq":0,"kind":"close","timestamp":1}',
        b'{"seq":0,"kind":"close","timestamp":1,"extra":1}',
    ],
    ids=[
        "repeated field",
        "repeated field in the canonical order",
        "repeated argument key",
        "deep arguments",
        "over-long integer",
        "turn input without role",
        "integer written as a float",
        "byte-order mark",
        "unknown field",
    ],
)
def test_named_defects_are_declined(line: bytes) -> None:
    """Each defect the fast path must see for itself makes it decline."""
    assert _fast(line, MAX_DEPTH) is None


def test_the_fast_path_accepts_compact_lines() -> None:
    """Not vacuous: a compact, well-formed line is decided by the fast path, in the record's
    canonical form (checked against its own encoding) and in another order (checked untyped)."""
    canonical = b'{"kind":"close","seq":0,"timestamp":1}'
    record = _fast(canonical, MAX_DEPTH)
    assert record is not None
    assert msgspec.json.encode(record) == canonical
    assert _fast(b'{"seq":0,"kind":"close","timestamp":1}', MAX_DEPTH) == record
