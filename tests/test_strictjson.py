"""The two paths of strictjson.loads agree (its module docstring): whatever msgspec's path
accepts, the strict standard-library parse accepts with the same value, and every document
the strict parse refuses, for whatever reason, is refused by `loads` with that reason."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clearing_analysis import strictjson
from clearing_analysis.strictjson import _DECLINED, _fast_loads, _strict_loads

SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAX_DEPTH = 8

_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
_documents = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=24,
)


def _strict(raw: bytes) -> tuple[str, Any]:
    try:
        return "ok", _strict_loads(raw, MAX_DEPTH)
    except strictjson.JsonRejected as rejected:
        return rejected.reason, None


def _same(a: Any, b: Any) -> bool:
    """Equal values, with the same types (1 and 1.0 differ; -0.0 and 0.0 too)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _agree(raw: bytes) -> None:
    fast = _fast_loads(raw, MAX_DEPTH)
    reason, strict = _strict(raw)
    if fast is not _DECLINED:
        assert reason == "ok", raw
        assert _same(fast, strict), raw
    if reason != "ok":
        with pytest.raises(strictjson.JsonRejected) as refused:
            strictjson.loads(raw, max_depth=MAX_DEPTH)
        assert refused.value.reason == reason


def _with_repeated_key(raw: bytes, position: int) -> bytes:
    """Insert `"k":0,` right after an object's opening brace (if there is one)."""
    text = raw.decode()
    braces = [i for i, char in enumerate(text) if char == "{" and text[i + 1 : i + 2] != "}"]
    if not braces:
        return raw
    at = braces[position % len(braces)] + 1
    colon = text.index(":", at)
    key = text[at:colon]
    return (text[:at] + key + ":0," + text[at:]).encode()


@SETTINGS
@given(_documents, st.sampled_from(["compact", "spaced", "ascii"]))
def test_documents_agree_however_written(value: Any, style: str) -> None:
    """Any JSON document, compact, spaced or ASCII-escaped."""
    if style == "compact":
        raw = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    elif style == "spaced":
        raw = json.dumps(value, indent=1).encode()
    else:
        raw = json.dumps(value).encode()
    _agree(raw)


@SETTINGS
@given(_documents, st.integers(0, 50))
def test_repeated_keys_are_refused_by_both(value: Any, position: int) -> None:
    """A key repeated in any object: DUPLICATE_KEY, never a silent last-wins value."""
    raw = _with_repeated_key(json.dumps(value, ensure_ascii=False).encode(), position)
    _agree(raw)


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a":1,"a":2}',
        b'{"b":{"a":1,"a":1}}',
        b"[" * 9 + b"]" * 9,
        b"[" * 100_000 + b"]" * 100_000,
        b"\xef\xbb\xbf{}",
        b'"\\ud800"',
        b"[NaN]",
        b"[1e400]",
        b"[" + b"9" * 4301 + b"]",
        b'{"a":1} x',
        b"\xff",
    ],
    ids=[
        "repeated key",
        "repeated key nested",
        "too deep",
        "past the recursion limit",
        "byte-order mark",
        "lone surrogate",
        "NaN",
        "overflowing number",
        "over-long integer",
        "trailing data",
        "invalid UTF-8",
    ],
)
def test_named_refusals_agree(raw: bytes) -> None:
    """Each rule's own example is declined by the fast path and refused by loads, with the
    strict parse's reason."""
    assert _fast_loads(raw, MAX_DEPTH) is _DECLINED
    assert _strict(raw)[0] != "ok"
    _agree(raw)


def test_fast_path_takes_ordinary_documents() -> None:
    """Not vacuous: compact and spaced documents are decided by msgspec's path."""
    assert _fast_loads(b'{"a":[1,2.5,"x",null,true]}', MAX_DEPTH) == {
        "a": [1, 2.5, "x", None, True]
    }
    assert _fast_loads(b'{ "a" : { "b" : 1 } }', MAX_DEPTH) == {"a": {"b": 1}}
