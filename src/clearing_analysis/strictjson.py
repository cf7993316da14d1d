"""Strict JSON for untrusted bytes: one parse, every violation a fixed reason code.

Rules (docs/formats/reason-codes.md): UTF-8 only (no BOM, no invalid sequences, no escaped
lone surrogate, which no UTF-8 text can hold), standard JSON only (no NaN / Infinity, no number
that overflows a double), no duplicate object keys at any depth, nesting no deeper than the
policy limit. Typed conversion afterwards is done by
`to_struct`, which maps msgspec validation failures to one code as well. No message text from
the underlying parser ever leaves this module.
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


def loads(raw: bytes, *, max_depth: int) -> Any:
    """Parse one JSON document from bytes under the strict rules above."""
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


def to_struct(value: Any, type_: type[T]) -> T:
    """Convert parsed JSON into a typed, frozen struct; any mismatch is WRONG_SHAPE."""
    try:
        return msgspec.convert(value, type=type_, strict=True)
    except msgspec.ValidationError:
        raise JsonRejected(WRONG_SHAPE) from None
