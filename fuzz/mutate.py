"""Structure-aware mutation of JSON documents and JSON-lines files.

A `Chooser` makes every decision, so the same mutations run under hypothesis (which can then
shrink them) and under atheris (from the fuzzer's bytes or a seeded `random.Random`). Values
that plain JSON cannot write (NaN, ±Infinity, a 400-digit literal, 1e400) are emitted as raw
tokens by `dumps`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any, Protocol


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
    """`value` (parsed JSON, changed in place and returned) with one structural edit."""
    paths = _paths(value)
    if not paths:
        return _REPLACEMENTS[choose.below(len(_REPLACEMENTS))]()
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
    else:
        lines[at] = mutate_document(lines[at], choose)
    return b"\n".join(lines) + (b"\n" if ended else b"")


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


__all__ = ["Chooser", "RandomChooser", "Raw", "dumps", "mutate_document", "mutate_lines"]
