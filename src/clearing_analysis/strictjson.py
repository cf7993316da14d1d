"""Strict JSON for untrusted bytes: one parse, every violation a fixed reason code.

Rules (docs/formats/reason-codes.md): UTF-8 only (no BOM, no invalid sequences, no escaped
lone surrogate, which no UTF-8 text can hold), standard JSON only (no NaN / Infinity, no number
that overflows a double), no duplicate object keys at any depth, nesting no deeper than the
policy limit. Typed conversion afterwards is done by `to_struct`, which maps msgspec
validation failures to two codes: VALUE_OUT_OF_RANGE for a number of the right type outside its
stated range (clearing_analysis.ranges), WRONG_SHAPE for anything else. No message text from
the underlying parser ever leaves this module.

Two paths give the same result (a hypothesis test proves they agree): msgspec decodes first,
refusing by itself invalid UTF-8, a BOM, escaped lone surrogates, NaN / Infinity, numbers
beyond a double and integers beyond the interpreter's digit limit; its result is taken when it
repeats no key (its re-encoding equals the input byte for byte, or has as many object members)
and is not nested too deep. Every other document goes through the strict standard-library
parse, which also names the reason of a refusal. Any failure of the fast path only means it
does not vouch for the document (R-REL-4); the strict parse refuses a document it has no memory
to hold as TOO_LARGE (each caller names that with its own size code), never with an exception.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, TypeVar

import msgspec


class JsonRejected(Exception):  # noqa: N818  (a verdict, not a crash)
    """Raised with a fixed reason code; carries nothing from the input."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


INVALID_UTF8 = "INVALID_UTF8"
MALFORMED_JSON = "MALFORMED_JSON"
DUPLICATE_KEY = "DUPLICATE_KEY"
NON_FINITE_NUMBER = "NON_FINITE_NUMBER"
NESTING_TOO_DEEP = "NESTING_TOO_DEEP"
NUMBER_OUT_OF_RANGE = "NUMBER_OUT_OF_RANGE"
WRONG_SHAPE = "WRONG_SHAPE"
# The right type, outside the range its format states for it (clearing_analysis.ranges).
VALUE_OUT_OF_RANGE = "VALUE_OUT_OF_RANGE"
# Not a JSON rule: the document could not be held in the memory available (MemoryError). Each
# caller maps it to its own size code (a journal's LINE_TOO_LONG, a config's <FILE>_TOO_LARGE).
TOO_LARGE = "TOO_LARGE"


def _pairs_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise JsonRejected(DUPLICATE_KEY)
    return obj


def _reject_constant(_name: str) -> Any:
    raise JsonRejected(NON_FINITE_NUMBER)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonRejected(NON_FINITE_NUMBER)
    return value


_DECODER = json.JSONDecoder(
    object_pairs_hook=_pairs_without_duplicates,
    parse_constant=_reject_constant,
    parse_float=_finite_float,
)


def _depth_exceeds(value: Any, limit: int) -> bool:
    """Iterative depth check (no recursion on untrusted structure)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth > limit:
                return True
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children)
    return False


# A `\uD800`..`\uDFFF` escape anywhere in the raw text: only then can a decoded string hold a
# lone surrogate (a valid escaped pair decodes to one astral character), so only then walk.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF]")


def _has_lone_surrogate(value: Any) -> bool:
    """Whether any key or string value cannot be encoded as UTF-8 (iterative walk)."""
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


_UNTYPED_DECODER = msgspec.json.Decoder()
_ENCODER = msgspec.json.Encoder()
# A JSON string token: scanning from a document's first quote, each match starts at a string.
_STRING_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_DECLINED = object()
JSON_WHITESPACE = b" \t\n\r"


def object_members(encoded: bytes) -> int:
    """Object members in a JSON document: the colons outside string tokens."""
    return _STRING_TOKEN.sub(b"", encoded).count(b":")


def repeats_no_key(raw: bytes, value: Any) -> bool:
    """Whether `value`, msgspec's decoding of `raw` (which keeps the last of repeated keys),
    lost no member: its encoding is `raw` itself (but for surrounding whitespace) or has as
    many object members."""
    canonical = _ENCODER.encode(value)
    if canonical == raw or canonical == raw.strip(JSON_WHITESPACE):
        return True
    return object_members(canonical) == object_members(raw)


def _fast_loads(raw: bytes, max_depth: int) -> Any:
    try:
        value = _UNTYPED_DECODER.decode(raw)
        if not repeats_no_key(raw, value) or _depth_exceeds(value, max_depth):
            return _DECLINED
    except Exception:  # any failure (RecursionError, MemoryError, ...): the strict parse decides
        return _DECLINED
    return value


def loads(raw: bytes, *, max_depth: int) -> Any:
    """Parse one JSON document from bytes under the strict rules above."""
    value = _fast_loads(raw, max_depth)
    if value is not _DECLINED:
        return value
    try:
        return _strict_loads(raw, max_depth)
    except MemoryError:
        raise JsonRejected(TOO_LARGE) from None


def _strict_loads(raw: bytes, max_depth: int) -> Any:
    try:
        text = raw.decode("utf-8", errors="strict")
    except UnicodeDecodeError:
        raise JsonRejected(INVALID_UTF8) from None
    if text.startswith("\ufeff"):
        raise JsonRejected(MALFORMED_JSON)
    try:
        value = _DECODER.decode(text)
    except JsonRejected:
        raise
    except RecursionError:
        raise JsonRejected(NESTING_TOO_DEEP) from None
    except json.JSONDecodeError:
        raise JsonRejected(MALFORMED_JSON) from None
    except ValueError:
        # int() refusing an absurdly long digit string (sys.int_info.str_digits_check_threshold).
        raise JsonRejected(NUMBER_OUT_OF_RANGE) from None
    if _depth_exceeds(value, max_depth):
        raise JsonRejected(NESTING_TOO_DEEP)
    if _SURROGATE_ESCAPE.search(raw) and _has_lone_surrogate(value):
        # Ids and texts are hashed as UTF-8 later (identity.finalized_tool_id, digests).
        raise JsonRejected(INVALID_UTF8)
    return value


T = TypeVar("T")

_TYPED_DECODERS: dict[Any, msgspec.json.Decoder[Any]] = {}


def canonical(raw: bytes, type_: type[T]) -> T | None:
    """`raw` decoded straight into `type_` when it is, but for surrounding whitespace, exactly
    msgspec's encoding of the result (so it repeats no key and holds nothing the strict rules
    refuse); None otherwise, and the caller takes the strict path. Only for types whose own
    shape bounds their nesting (no free-form values)."""
    decoder = _TYPED_DECODERS.get(type_)
    if decoder is None:
        decoder = _TYPED_DECODERS.setdefault(type_, msgspec.json.Decoder(type_, strict=True))
    try:
        value: T = decoder.decode(raw)
        if _ENCODER.encode(value) != raw.strip(JSON_WHITESPACE):
            return None
    except Exception:  # any failure: the caller's strict path decides (R-REL-4)
        return None
    return value


# msgspec's messages for a number of the right type outside a `Meta` bound ("Expected `int` <=
# 1000000000 - at `$[0].triggerTokens`") or beyond a double ("Number out of range", an integer
# literal of 400 digits for a float field), and the message a struct's own range check raises
# (`__post_init__`, for a rule a bound cannot state). The message is read for these shapes
# only, never kept or shown; a test pins them on the locked msgspec.
_BOUND_MESSAGE = re.compile(r"Expected `(?:int|float)` (?:>=|<=|>|<) |Number out of range\b")


def shape_reason(error: msgspec.ValidationError) -> str:
    """VALUE_OUT_OF_RANGE when a number of the right type broke its stated range, else
    WRONG_SHAPE."""
    message = str(error)
    if _BOUND_MESSAGE.match(message) or message.startswith(VALUE_OUT_OF_RANGE):
        return VALUE_OUT_OF_RANGE
    return WRONG_SHAPE


def to_struct(value: Any, type_: type[T]) -> T:
    """Convert parsed JSON into a typed, frozen struct; a number outside its stated range is
    VALUE_OUT_OF_RANGE, any other mismatch WRONG_SHAPE."""
    try:
        return msgspec.convert(value, type=type_, strict=True)
    except msgspec.ValidationError as error:
        raise JsonRejected(shape_reason(error)) from None
