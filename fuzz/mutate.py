"""Structure-aware mutation of JSON documents and JSON-lines files.

A `Chooser` makes every decision, so the same mutations run under hypothesis (which can then
shrink them) and under atheris (from the fuzzer's bytes or a seeded `random.Random`). Values
that plain JSON cannot write (NaN, ±Infinity, a 400-digit literal, 1e400) are emitted as raw
tokens by `dumps`.

Three kinds of edit: structural (a member replaced by a value of another type, deleted,
added, moved, an array element repeated; lines deleted, repeated, swapped, cut), and value
edits that keep the shape: a number set to a boundary value (`BOUNDARIES`: 0, -1, 2^31,
2^53 ± 1, 2^63, 1e308, the smallest subnormal, -0.0, and the edges of every range the input
formats state, clearing_analysis.ranges), now and then every number of the document at once
(sums); or an array or object emptied where one element is expected.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any, Protocol

from clearing_analysis import ranges


class Chooser(Protocol):
    """Where every choice of a mutation comes from."""

    def below(self, n: int) -> int:
        """An integer in [0, n)."""
        ...


class RandomChooser:
    """Choices from a `random.Random` (atheris's custom mutator seeds it)."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def below(self, n: int) -> int:
        """An integer in [0, n)."""
        return self._rng.randrange(n)


class Raw:
    """A token written as it is by `dumps` (not valid in plain JSON, or not representable)."""

    def __init__(self, token: str) -> None:
        self.token = token

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Raw) and other.token == self.token

    def __hash__(self) -> int:
        return hash(self.token)


_MARK = "\x00raw\x00"


def dumps(value: Any) -> bytes:
    """Compact JSON of `value`, with each `Raw` token in place and keys in their order."""
    tokens: list[str] = []

    def default(node: Any) -> Any:
        if isinstance(node, Raw):
            tokens.append(node.token)
            return f"{_MARK}{len(tokens) - 1}{_MARK}"
        raise TypeError("not JSON")

    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=default)
    for index, token in enumerate(tokens):
        text = text.replace(json.dumps(f"{_MARK}{index}{_MARK}"), token)
    return text.encode("utf-8", "surrogatepass")


def _deep(levels: int, kind: int) -> Raw:
    """Objects (`{"a":{"a":…}}`) or arrays nested `levels` deep, as one raw token (the
    serializer itself would recurse on them)."""
    opening, closing = ('{"a":', "}") if kind == 0 else ("[", "]")
    return Raw(opening * levels + "1" + closing * levels)


# Values of the wrong type or out of every range: what a hand edit or a hostile writer gives.
_REPLACEMENTS: list[Callable[[], Any]] = [
    lambda: None,
    lambda: True,
    lambda: 0,
    lambda: -1,
    lambda: 1.5,
    lambda: "",
    lambda: "x",
    lambda: [],
    lambda: {},
    lambda: ["user"],
    lambda: {"role": "user"},
    lambda: Raw("NaN"),
    lambda: Raw("Infinity"),
    lambda: Raw("-Infinity"),
    lambda: Raw("1e400"),
    lambda: Raw("-1e400"),
    lambda: 10**400,
    lambda: -(10**20),
    lambda: 2**53,
    lambda: 2**64,
    lambda: "2025-13-45T99:99:99.999Z",
    lambda: "1970-01-01T00:00:00Z",
    lambda: -(2**63),
    lambda: "\ud800",
    lambda: _deep(70, 0),
    lambda: _deep(70, 1),
    lambda: _deep(1000, 0),
    lambda: _deep(1000, 1),
    lambda: Raw('"' + "x" * 10_000 + '"'),
]


# Numbers at the edges of what a format may hold: of the integer and double types (0, -1,
# 2^31, 2^53 ± 1, 2^63, 1e308, the largest finite double, the smallest subnormal and normal,
# -0.0), and just inside and just outside each range the input formats state (tokens 10^9,
# durations 10^12 ms, weights 10^-12 and 10^12, quota budgets up to 10^18, 32-bit exit codes).
BOUNDARIES: tuple[int | float, ...] = (
    0,
    1,
    -1,
    2**31 - 1,
    2**31,
    -(2**31),
    -(2**31) - 1,
    2**32,
    2**53 - 1,
    2**53,
    2**53 + 1,
    -(2**53) - 1,
    2**63 - 1,
    2**63,
    -(2**63),
    2**64,
    0.0,
    -0.0,
    0.5,
    1e308,
    -1e308,
    1.7976931348623157e308,
    5e-324,
    -5e-324,
    2.2250738585072014e-308,
    1e-300,
    ranges.MAX_TOKENS,
    ranges.MAX_TOKENS + 1,
    ranges.MAX_DURATION_MS,
    ranges.MAX_DURATION_MS + 1,
    ranges.MIN_POSITIVE_WEIGHT,
    ranges.MIN_POSITIVE_WEIGHT * 0.999,
    ranges.MAX_WEIGHT,
    ranges.MAX_WEIGHT * 1.001,
    ranges.MIN_QUOTA_BUDGET,
    ranges.MAX_QUOTA_BUDGET,
    ranges.MAX_QUOTA_BUDGET * 1.001,
    float(ranges.MAX_TOKENS),
)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _boundary_edit(value: Any, paths: list[tuple[Any, Any]], choose: Chooser) -> Any:
    """One value edit that keeps the document's shape: a number at a boundary (one number, or
    one in eight times every number of the document: sums of values at an edge), or an array
    or object that holds something emptied. Falls back to a structural edit when the
    document has neither."""
    numbers = [(c, k) for c, k in paths if _is_number(c[k])]
    filled = [(c, k) for c, k in paths if isinstance(c[k], list | dict) and c[k]]
    if numbers and (not filled or choose.below(4) != 0):
        boundary = BOUNDARIES[choose.below(len(BOUNDARIES))]
        if choose.below(8) == 0:
            for container, key in numbers:
                container[key] = boundary
        else:
            container, key = numbers[choose.below(len(numbers))]
            container[key] = boundary
        return value
    if filled:
        container, key = filled[choose.below(len(filled))]
        container[key] = [] if isinstance(container[key], list) else {}
        return value
    return None


def _paths(value: Any) -> list[tuple[Any, Any]]:
    """(container, key) of every member of `value`, iteratively, in document order."""
    found: list[tuple[Any, Any]] = []
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            members = [(node, key) for key in node]
        elif isinstance(node, list):
            members = [(node, index) for index in range(len(node))]
        else:
            continue
        found.extend(members)
        stack.extend(node[key] for _, key in reversed(members))
    return found


def mutate_value(value: Any, choose: Chooser) -> Any:
    """`value` (parsed JSON, changed in place and returned) with one edit: a value edit
    (`_boundary_edit`) one time in three, else a structural one."""
    paths = _paths(value)
    if not paths:
        if _is_number(value):
            return BOUNDARIES[choose.below(len(BOUNDARIES))]
        return _REPLACEMENTS[choose.below(len(_REPLACEMENTS))]()
    if choose.below(3) == 0:  # a value edit, one time in three
        edited = _boundary_edit(value, paths, choose)
        if edited is not None:
            return edited
    container, key = paths[choose.below(len(paths))]
    action = choose.below(6)
    if action <= 2:  # replace the value (the most common edit)
        container[key] = _REPLACEMENTS[choose.below(len(_REPLACEMENTS))]()
    elif action == 3:  # delete the member
        del container[key]
    elif action == 4 and isinstance(container, dict):  # add an unknown or a known-looking key
        names = ["extra", "role", "type", "id", "parentId", "seq", "kind", "format", "edges"]
        container[names[choose.below(len(names))]] = _REPLACEMENTS[
            choose.below(len(_REPLACEMENTS))
        ]()
    elif isinstance(container, dict):  # reorder: move the member to the end
        container[key] = container.pop(key)
    else:  # repeat an array element
        container.insert(key, container[key])
    return value


def mutate_document(data: bytes, choose: Chooser) -> bytes:
    """One JSON document with one structural edit (a repeated key now and then); bytes that do
    not parse get a byte-level edit instead."""
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return _byte_edit(data, choose)
    if choose.below(8) == 0:
        return _repeat_a_key(dumps(value), choose)
    return dumps(mutate_value(value, choose))


def mutate_lines(data: bytes, choose: Chooser) -> bytes:
    """A JSON-lines file with one edit: of one line's structure, or of the lines themselves
    (delete, repeat, swap, cut the last line's newline)."""
    lines = data.split(b"\n")
    ended = bool(lines) and lines[-1] == b""
    if ended:
        lines.pop()
    if not lines:
        return _byte_edit(data, choose)
    action = choose.below(8)
    at = choose.below(len(lines))
    if action == 0:
        del lines[at]
    elif action == 1:
        lines.insert(at, lines[at])
    elif action == 2:
        other = choose.below(len(lines))
        lines[at], lines[other] = lines[other], lines[at]
    elif action == 3:
        ended = not ended
    elif action == 4:
        lines = _field_everywhere(lines, choose)
    else:
        lines[at] = mutate_document(lines[at], choose)
    return b"\n".join(lines) + (b"\n" if ended else b"")


def _numeric_members(value: Any) -> list[tuple[dict[str, Any], str]]:
    """(object, key) of every member of `value` whose value is a number."""
    return [(c, k) for c, k in _paths(value) if isinstance(c, dict) and _is_number(c[k])]


def _field_everywhere(lines: list[bytes], choose: Chooser) -> list[bytes]:
    """One numeric field, by name, at one boundary value on every line that has it (every
    request's `input` at 2^52: sums past what a report may state), the lines otherwise kept
    byte for byte."""
    parsed: list[Any] = []
    for line in lines:
        try:
            parsed.append(json.loads(line))
        except (ValueError, RecursionError):
            parsed.append(None)
    names = sorted({key for value in parsed for _, key in _numeric_members(value)})
    if not names:
        return lines
    name = names[choose.below(len(names))]
    boundary = BOUNDARIES[choose.below(len(BOUNDARIES))]
    out = []
    for line, value in zip(lines, parsed, strict=True):
        hits = [(c, k) for c, k in _numeric_members(value) if k == name]
        for container, key in hits:
            container[key] = boundary
        out.append(dumps(value) if hits else line)
    return out


def _repeat_a_key(data: bytes, choose: Chooser) -> bytes:
    at = data.find(b'":')
    if at < 0:
        return data
    start = data.rfind(b'"', 0, at) if at > 0 else -1
    if start < 0 or data[start - 1 : start] not in (b"{", b","):
        return data
    member = data[start : at + 2] + b"null,"
    return data[:start] + member + data[start:] if choose.below(2) else data


def _byte_edit(data: bytes, choose: Chooser) -> bytes:
    if not data:
        return b"{}"
    at = choose.below(len(data))
    action = choose.below(3)
    if action == 0:
        return data[:at]
    if action == 1:
        return data[:at] + bytes([choose.below(256)]) + data[at + 1 :]
    return data[:at] + bytes([choose.below(256)]) + data[at:]


__all__ = [
    "BOUNDARIES",
    "Chooser",
    "RandomChooser",
    "Raw",
    "dumps",
    "mutate_document",
    "mutate_lines",
]
