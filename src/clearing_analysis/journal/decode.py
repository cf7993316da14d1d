"""Decode one journal file into typed records, or say why it cannot be replayed.

A journal is either decoded whole or rejected whole with one fixed outcome (R-RP-1, R-RP-2):

- `UNSUPPORTED_VERSION`: the header names the format with a version other than 2.
- `IMPORTED` / `INHERITED`: the header's origin is not `native`.
- `OPEN`: no close record (including a final line cut off mid-write).
- `INVALID`: anything else wrong, with a fixed detail reason (docs/formats/reason-codes.md).

Outcomes for whole-journal semantics that need replay (INTERRUPTED, DUPLICATE) are decided by
the replay stage. Nothing here keeps or reports input text.
"""

from __future__ import annotations

import enum
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from clearing_analysis import strictjson
from clearing_analysis.journal.records import (
    JOURNAL_FORMAT,
    JOURNAL_VERSION,
    RECORD_KINDS,
    Close,
    Header,
    Record,
)
from clearing_analysis.policy import limits


class JournalOutcome(enum.StrEnum):
    """Why a journal contributes nothing (the decoder's share of skippedJournals codes)."""

    UNSUPPORTED_VERSION = "UNSUPPORTED_VERSION"
    IMPORTED = "IMPORTED"
    INHERITED = "INHERITED"
    OPEN = "OPEN"
    INVALID = "INVALID"


class InvalidReason(enum.StrEnum):
    """Detail codes behind an INVALID journal (documented, tested, never printed with input)."""

    EMPTY_FILE = "EMPTY_FILE"
    LINE_TOO_LONG = "LINE_TOO_LONG"
    INVALID_UTF8 = strictjson.INVALID_UTF8
    MALFORMED_JSON = strictjson.MALFORMED_JSON
    DUPLICATE_KEY = strictjson.DUPLICATE_KEY
    NON_FINITE_NUMBER = strictjson.NON_FINITE_NUMBER
    NUMBER_OUT_OF_RANGE = strictjson.NUMBER_OUT_OF_RANGE
    NESTING_TOO_DEEP = strictjson.NESTING_TOO_DEEP
    WRONG_SHAPE = strictjson.WRONG_SHAPE
    NOT_AN_OBJECT = "NOT_AN_OBJECT"
    UNKNOWN_RECORD_KIND = "UNKNOWN_RECORD_KIND"
    HEADER_MISSING = "HEADER_MISSING"
    HEADER_REPEATED = "HEADER_REPEATED"
    SEQ_NOT_MONOTONIC = "SEQ_NOT_MONOTONIC"
    RECORD_AFTER_CLOSE = "RECORD_AFTER_CLOSE"
    UNREADABLE = "UNREADABLE"


@dataclass(frozen=True, slots=True)
class DecodedJournal:
    """A journal whose every line decoded, header first, close last, seq 0..n-1."""

    header: Header
    records: tuple[Record, ...]
    byte_size: int


@dataclass(frozen=True, slots=True)
class RejectedJournal:
    """A journal that contributes nothing, with its fixed outcome (and detail if INVALID)."""

    outcome: JournalOutcome
    reason: InvalidReason | None = None


DecodeResult = DecodedJournal | RejectedJournal


def _invalid(reason: InvalidReason) -> RejectedJournal:
    return RejectedJournal(JournalOutcome.INVALID, reason)


class _Invalid(Exception):  # noqa: N818  (internal control flow, never escapes this module)
    def __init__(self, reason: InvalidReason) -> None:
        self.reason = reason


def _lines(stream: BinaryIO, max_line: int) -> Iterator[tuple[bytes, bool]]:
    """Yield (line without newline, terminated?) pairs; refuse over-long lines early."""
    while True:
        line = stream.readline(max_line + 2)
        if not line:
            return
        terminated = line.endswith(b"\n")
        body = line[:-1] if terminated else line
        if len(body) > max_line:
            raise _Invalid(InvalidReason.LINE_TOO_LONG)
        yield body, terminated


def _parse_line(raw: bytes, max_depth: int) -> dict[str, Any]:
    try:
        value = strictjson.loads(raw, max_depth=max_depth)
    except strictjson.JsonRejected as rejected:
        raise _Invalid(InvalidReason(rejected.reason)) from None
    if not isinstance(value, dict):
        raise _Invalid(InvalidReason.NOT_AN_OBJECT)
    return value


def _header_outcome(obj: dict[str, Any]) -> RejectedJournal | None:
    """Decide from the raw header alone what needs no further decoding."""
    if obj.get("kind") != "header":
        return _invalid(InvalidReason.HEADER_MISSING)
    version = obj.get("version")
    if (
        obj.get("format") == JOURNAL_FORMAT
        and isinstance(version, int)
        and not isinstance(version, bool)
        and version != JOURNAL_VERSION
    ):
        return RejectedJournal(JournalOutcome.UNSUPPORTED_VERSION)
    return None


def _provenance_outcome(header: Header | None) -> RejectedJournal | None:
    """IMPORTED / INHERITED for a non-native header (R-RP-2); None otherwise."""
    if header is not None and header.origin == "imported":
        return RejectedJournal(JournalOutcome.IMPORTED)
    if header is not None and header.origin == "inherited":
        return RejectedJournal(JournalOutcome.INHERITED)
    return None


def _to_record(obj: dict[str, Any]) -> Record:
    kind = obj.get("kind")
    if not isinstance(kind, str) or kind not in RECORD_KINDS:
        raise _Invalid(InvalidReason.UNKNOWN_RECORD_KIND)
    if kind == "turn_start" and not _has_role(obj.get("message")):
        # msgspec treats the tag of a struct outside a union as optional; the format does not:
        # every message carries its role (docs/formats/journal-v2.md).
        raise _Invalid(InvalidReason.WRONG_SHAPE)
    try:
        record: Record = strictjson.to_struct(obj, Record)  # type: ignore[arg-type]
    except strictjson.JsonRejected:
        raise _Invalid(InvalidReason.WRONG_SHAPE) from None
    return record


def _has_role(message: object) -> bool:
    return not isinstance(message, dict) or "role" in message


def decode_lines(lines: Iterable[tuple[bytes, bool]], byte_size: int = 0) -> DecodeResult:
    """Decode (line, terminated) pairs; see the module docstring for the outcomes."""
    max_depth = limits().max_nesting_depth
    records: list[Record] = []
    header: Header | None = None
    closed = False
    try:
        for raw, terminated in lines:
            if not terminated and not closed:
                # A final fragment without its newline: the writer is (or died) mid-line.
                # IMPORTED / INHERITED take precedence over OPEN (shared outcome precedence).
                return _provenance_outcome(header) or RejectedJournal(JournalOutcome.OPEN)
            if closed:
                raise _Invalid(InvalidReason.RECORD_AFTER_CLOSE)
            obj = _parse_line(raw, max_depth)
            if header is None:
                early = _header_outcome(obj)
                if early is not None:
                    return early
            record = _to_record(obj)
            if record.seq != len(records):
                raise _Invalid(InvalidReason.SEQ_NOT_MONOTONIC)
            if isinstance(record, Header):
                if header is not None:
                    raise _Invalid(InvalidReason.HEADER_REPEATED)
                header = record
            elif isinstance(record, Close):
                closed = True
            records.append(record)
    except _Invalid as invalid:
        return _invalid(invalid.reason)
    if header is None:
        return _invalid(InvalidReason.EMPTY_FILE)
    provenance = _provenance_outcome(header)
    if provenance is not None:
        return provenance
    if not closed:
        return RejectedJournal(JournalOutcome.OPEN)
    return DecodedJournal(header=header, records=tuple(records), byte_size=byte_size)


def decode_bytes(data: bytes) -> DecodeResult:
    """Decode a whole journal held in memory (tests, fuzzing)."""
    return decode_stream(io.BytesIO(data), byte_size=len(data))


def decode_stream(stream: BinaryIO, byte_size: int = 0) -> DecodeResult:
    """Decode a journal from a binary stream, line by line."""
    max_line = limits().max_journal_line_bytes
    try:
        return decode_lines(_lines(stream, max_line), byte_size)
    except _Invalid as invalid:
        return _invalid(invalid.reason)


def decode_file(path: Path) -> DecodeResult:
    """Decode a journal file; an unreadable file is INVALID/UNREADABLE, never an exception."""
    try:
        with path.open("rb") as stream:
            size = path.stat().st_size
            return decode_stream(stream, byte_size=size)
    except OSError:
        return _invalid(InvalidReason.UNREADABLE)
