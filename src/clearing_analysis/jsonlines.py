"""A JSON-lines history file read one line at a time, under the journal decoders' rules.

pi sessions, Claude Code transcripts and Codex rollouts are all JSON lines. Each reader reads
its lines here and maps a refused line's fixed reason (`LineRejected.reason`) onto its own
detail enum, whose members carry the same names: `LINE_TOO_LONG`, `NOT_AN_OBJECT`, every
`strictjson` reason and the shape reasons of `strictjson.shape_reason`. Nothing of a refused
line is kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO

import msgspec

from clearing_analysis import strictjson
from clearing_analysis.policy import limits

LINE_TOO_LONG = "LINE_TOO_LONG"
NOT_AN_OBJECT = "NOT_AN_OBJECT"


class LineRejected(Exception):  # noqa: N818  (a refusal as data, like strictjson.JsonRejected)
    """A line refused, with its fixed reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def lines(stream: BinaryIO) -> Iterator[tuple[bytes, bool]]:
    """(line without its newline, whether it ended with one). A line is read only up to one
    byte past `maxJournalLineBytes`; `check_length` refuses one that long (a reader may look
    at a first line before, e.g. for a compressed file's magic)."""
    limit = limits().max_journal_line_bytes
    while True:
        raw = stream.readline(limit + 2)
        if not raw:
            return
        ended = raw.endswith(b"\n")
        yield (raw[:-1] if ended else raw), ended


def check_length(body: bytes) -> bytes:
    """`body` if within `maxJournalLineBytes`; LINE_TOO_LONG otherwise."""
    if len(body) > limits().max_journal_line_bytes:
        raise LineRejected(LINE_TOO_LONG)
    return body


def json_object(raw: bytes) -> dict[str, Any]:
    """One line as a JSON object, decoded strictly (strictjson, `maxNestingDepth`)."""
    try:
        value = strictjson.loads(raw, max_depth=limits().max_nesting_depth)
    except strictjson.JsonRejected as rejected:
        if rejected.reason == strictjson.TOO_LARGE:  # no memory to decode it: too long a line
            raise LineRejected(LINE_TOO_LONG) from None
        raise LineRejected(rejected.reason) from None
    if not isinstance(value, dict):
        raise LineRejected(NOT_AN_OBJECT)
    return value


def convert(value: Any, type_: Any) -> Any:
    """`value` as `type_` (msgspec, strict); WRONG_SHAPE or VALUE_OUT_OF_RANGE otherwise."""
    try:
        return msgspec.convert(value, type=type_, strict=True)
    except msgspec.ValidationError as error:
        raise LineRejected(strictjson.shape_reason(error)) from None


__all__ = [
    "LINE_TOO_LONG",
    "NOT_AN_OBJECT",
    "LineRejected",
    "check_length",
    "convert",
    "json_object",
    "lines",
]
