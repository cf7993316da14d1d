"""Property: the JSON.stringify length matches a real compact serialization.

For values without floats (whose layout differs between Python and JavaScript and is checked
by example in test_estimate.py) Python's compact json.dumps prints what JSON.stringify prints,
so their UTF-16 lengths must agree.
"""

from __future__ import annotations

import json

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from clearing_analysis.replay.heuristic import (
    escaped_string_units,
    json_string_units,
    json_stringify_units,
    stringify_units_walked,
    utf16_units,
)

_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**53), max_value=2**53) | _text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_text, inner, max_size=4),
    max_leaves=20,
)


# Any decoded JSON value: floats of every layout JavaScript distinguishes (integral, tiny,
# huge, negative zero), keys and texts dense in escapes and non-ASCII.
_floats = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(
    [0.0, -0.0, 1.0, -2.5, 1e21, 1e-7, 123456789012345680000.0, 5e-324, 1.7976931348623157e308]
)
_any_text = st.text(st.sampled_from('"\\\b\f\n\r\t\x00\x1f\x7f a\u00e9\u2028\U0001f600')) | _text
_any_values = st.recursive(
    st.none() | st.booleans() | st.integers() | _floats | _any_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_any_text, inner, max_size=4),
    max_leaves=20,
)


@given(_any_values)
def test_stringify_length_is_the_walked_definition(value: object) -> None:
    """The one-call measure of JSON.stringify's length (on msgspec's encoding) gives exactly
    what the value-by-value definition gives, floats and escapes included."""
    assert json_stringify_units(value) == stringify_units_walked(value)


@given(_values)
def test_stringify_length_matches_compact_json(value: object) -> None:
    """Compact JSON with non-ASCII kept as is has the length the heuristic computes."""
    printed = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    # JavaScript leaves U+007F..U+009F and U+2028/9 unescaped, as Python does here.
    assert json_stringify_units(value) == utf16_units(printed)


# Every character class the escape count distinguishes: short escapes, \u00XX escapes, plain
# ASCII, non-ASCII in the BMP and above it (two UTF-16 units).
_escapable = st.text(
    st.sampled_from('"\\\b\f\n\r\t\x00\x07\x0b\x0e\x1f\x7f a\u00e9\u2028\U0001f600')
)


@given(_escapable)
def test_string_length_counts_every_escape(text: str) -> None:
    """A text dense in characters JSON must escape has the length JSON.stringify prints, from
    the text alone and from its UTF-8 and JSON sizes (as replay computes it)."""
    printed = utf16_units(json.dumps(text, ensure_ascii=False))
    assert json_string_units(text) == printed
    sizes = len(text.encode("utf-8")), len(msgspec.json.encode(text))
    assert escaped_string_units(text, *sizes) == printed


@given(st.text())
def test_msgspec_string_is_json_dumps(text: str) -> None:
    """The escaped size and finalized ids use msgspec's JSON writer: for any text it writes
    exactly what json.dumps(..., ensure_ascii=False) writes (lone surrogates never reach
    here: the decoder refuses them)."""
    if any(0xD800 <= ord(char) <= 0xDFFF for char in text):
        return
    assert msgspec.json.encode(text) == json.dumps(text, ensure_ascii=False).encode()
    parts = [text, "turn", text[::-1], "call"]
    assert msgspec.json.encode(parts) == json.dumps(
        parts, separators=(",", ":"), ensure_ascii=False
    ).encode("utf-8")
