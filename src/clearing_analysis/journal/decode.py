"""Decode one journal file into typed records, or say why it cannot be replayed.

A journal is either decoded whole or rejected whole with one fixed outcome (R-RP-1, R-RP-2):

- `UNSUPPORTED_VERSION`: the header names the format with a version other than 2.
- `IMPORTED` / `INHERITED`: the header's origin is not `native`.
- `OPEN`: no close record (including a final line cut off mid-write).
- `INVALID`: anything else wrong, with a fixed detail reason (docs/formats/reason-codes.md).

Outcomes for whole-journal semantics that need replay (INTERRUPTED, DUPLICATE) are decided by
the replay stage. Nothing here keeps or reports input text.

A file is read and split a block at a time (`decode_path_into`), so memory holds a block and
the longest line, and a journal refused at an early line is read no further (R-REL-7). The
first line is decided by `decode_header`, which the one reader of journal headers shares
(`journal.header`, for unit planning): the same limits, the same outcomes.

Two paths decide a line, with the same outcome (a hypothesis test proves they agree):

- the **fast path** decodes the bytes straight into the typed records with msgspec, which
  itself refuses invalid UTF-8, escaped lone surrogates, NaN / Infinity, numbers beyond a
  double, a BOM and any wrong shape. What msgspec does not check is checked on the side:
  duplicate keys (msgspec keeps the last one silently) and a turn input's `role` (a tag
  msgspec treats as optional outside a union): a line is accepted when it is byte for byte
  the encoding of its typed record (what a compact writer emitting the documented field order
  writes), or else when its untyped re-encoding equals it byte for byte or has as many object
  members as it; and the nesting of the free-form `arguments` / `details` (the rest of a
  record has a fixed, shallow shape) and the integers in them too long for the strict parser;
- the **strict path** (`strictjson`) decides every line the fast path does not vouch for, and
  gives the fixed reason of a line that is wrong.

Any failure of the fast path, whatever it is (a RecursionError on deep free-form nesting, a
MemoryError on an oversized value, a decoding error), only means it does not vouch for the
line: the strict path then decides it, so no single line can end the run (R-REL-4).
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

from clearing_analysis import strictjson
from clearing_analysis.journal.messages import AssistantMessage, ToolCall, ToolResultMessage
from clearing_analysis.journal.records import (
    JOURNAL_FORMAT,
    JOURNAL_VERSION,
    RECORD_KINDS,
    Close,
    Header,
    MessageRecord,
    Record,
    ToolCallStart,
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
    # A number of the right type outside its stated range (usage tokens, clearing_analysis.ranges).
    VALUE_OUT_OF_RANGE = strictjson.VALUE_OUT_OF_RANGE
    NOT_AN_OBJECT = "NOT_AN_OBJECT"
    UNKNOWN_RECORD_KIND = "UNKNOWN_RECORD_KIND"
    HEADER_MISSING = "HEADER_MISSING"
    HEADER_REPEATED = "HEADER_REPEATED"
    SEQ_NOT_MONOTONIC = "SEQ_NOT_MONOTONIC"
    RECORD_AFTER_CLOSE = "RECORD_AFTER_CLOSE"
    UNREADABLE = "UNREADABLE"


class DecodedJournal(msgspec.Struct, frozen=True):
    """A journal whose every line decoded, header first, close last, seq 0..n-1."""

    header: Header
    records: tuple[Record, ...]
    byte_size: int


class RejectedJournal(msgspec.Struct, frozen=True):
    """A journal that contributes nothing, with its fixed outcome (and detail if INVALID)."""

    outcome: JournalOutcome
    reason: InvalidReason | None = None


DecodeResult = DecodedJournal | RejectedJournal


def _invalid(reason: InvalidReason) -> RejectedJournal:
    return RejectedJournal(JournalOutcome.INVALID, reason)


class _Invalid(Exception):  # noqa: N818  (internal control flow, never escapes this module)
    def __init__(self, reason: InvalidReason) -> None:
        self.reason = reason


# Lines are split a block at a time: one bulk split of a block is several times faster than
# finding each line, and a block's lines are few enough to hold (a file of 3-byte lines would
# otherwise be 35 M line objects at once, 2 GB for 100 MiB). A stream is read a block at a time
# too, so a journal refused at an early line is never read whole.
_BLOCK_BYTES = 64 * 1024


class _Lines:
    """The lines of a journal, in blocks: each block a list of terminated lines (without their
    newline). Once the blocks are exhausted, `fragment` holds the final bytes after the last
    newline (None when the data ends with one) and `size` the bytes read. A line longer than
    `max_line` ends the blocks (the decoder refuses the journal there): the rest is not read."""

    def __init__(self, max_line: int) -> None:
        self.max_line = max_line
        self.fragment: bytes | None = None
        self.size = 0

    def of_bytes(self, data: bytes) -> Iterator[list[bytes]]:
        """The blocks of data held in memory."""
        self.size = len(data)
        end = data.rfind(b"\n") + 1  # just after the last newline; 0: none
        start = 0
        while start < end:
            stop = data.rfind(b"\n", start, min(start + _BLOCK_BYTES, end))
            if stop < 0:  # no newline within a block: one long line
                stop = data.find(b"\n", start + _BLOCK_BYTES, end)
                yield [data[start:stop]]
            else:
                yield data[start:stop].split(b"\n")
            start = stop + 1
        self.fragment = data[end:] or None

    def of_stream(self, stream: BinaryIO) -> Iterator[list[bytes]]:
        """The blocks of a binary stream, read `_BLOCK_BYTES` at a time (OSError propagates)."""
        pending: list[bytes] = []  # the current line's bytes so far, over several reads
        pending_size = 0
        while True:
            chunk = stream.read(_BLOCK_BYTES)
            if not chunk:
                break
            self.size += len(chunk)
            last = chunk.rfind(b"\n")
            if last < 0:
                pending.append(chunk)
                pending_size += len(chunk)
                if pending_size > self.max_line:
                    yield [b"".join(pending)]  # too long already: decided as it stands
                    return
                continue
            lines = chunk[:last].split(b"\n")
            if pending:
                pending.append(lines[0])
                lines[0] = b"".join(pending)
                pending, pending_size = [], 0
            yield lines
            rest = chunk[last + 1 :]
            if rest:
                pending, pending_size = [rest], len(rest)
        self.fragment = b"".join(pending) or None


def _check_length(raw: bytes, max_line: int) -> None:
    if len(raw) > max_line:
        raise _Invalid(InvalidReason.LINE_TOO_LONG)


def _parse_line(raw: bytes, max_depth: int) -> dict[str, Any]:
    try:
        value = strictjson.loads(raw, max_depth=max_depth)
    except strictjson.JsonRejected as rejected:
        if rejected.reason == strictjson.TOO_LARGE:  # no memory to decode it: too long a line
            raise _Invalid(InvalidReason.LINE_TOO_LONG) from None
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
    except strictjson.JsonRejected as rejected:  # WRONG_SHAPE or VALUE_OUT_OF_RANGE
        raise _Invalid(InvalidReason(rejected.reason)) from None
    return record


def _has_role(message: object) -> bool:
    return not isinstance(message, dict) or "role" in message


_RECORD_DECODER: msgspec.json.Decoder[Any] = msgspec.json.Decoder(Record)
_UNTYPED_DECODER = msgspec.json.Decoder()
_ENCODER = msgspec.json.Encoder()
# The strict parser refuses integer literals of more than 4,300 digits (Python's int() limit);
# msgspec does not. Outside free-form values every integer is bounded by the record's shape.
_HUGE_INTEGER = 10**4300


def _depth(node: object) -> int:
    """Nesting of arrays and objects under `node`, itself included (iterative); a huge integer
    anywhere counts as unbounded depth, so that the strict path decides."""
    deepest = 0
    stack: list[tuple[object, int]] = [(node, 1)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, dict):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in current.values())
        elif isinstance(current, list):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in current)
        elif isinstance(current, int) and abs(current) >= _HUGE_INTEGER:
            return _UNBOUNDED
    return deepest


_UNBOUNDED = 1 << 30


def _shallow(raw: bytes, max_depth: int) -> bool:
    """Whether a line cannot nest beyond `max_depth`: every level opens a bracket, so the
    line's brackets bound its nesting. (An integer too long for the strict parser needs no
    walk either: msgspec refuses it, under the same interpreter limit; a named test keeps
    that true.)"""
    return raw.count(b"[") + raw.count(b"{") <= max_depth


def _free_form(record: Record) -> Iterator[tuple[int, object]]:
    """(depth of the container, value) of each free-form value of a record: the only parts
    whose nesting is not fixed by the record's shape."""
    kind = type(record)
    if kind is ToolCallStart:
        yield 2, record.arguments  # type: ignore[union-attr]
    elif kind is MessageRecord:
        message = record.message  # type: ignore[union-attr]
        if type(message) is ToolResultMessage:
            yield 3, message.details
        elif type(message) is AssistantMessage:
            for block in message.content:
                if type(block) is ToolCall:
                    yield 5, block.arguments


def _flat_depth(value: object) -> int | None:
    """`_depth(value)` when it is at most 1 (a scalar, or an array or object of scalars, as
    almost every free-form value is), else None: one look at the children, no walk."""
    kind = type(value)
    if kind is dict:
        children: Iterable[object] = value.values()  # type: ignore[attr-defined]
    elif kind is list:
        children = value  # type: ignore[assignment]
    else:
        return 0
    for child in children:
        if type(child) is dict or type(child) is list:
            return None
    return 1


def _too_deep(record: Record, raw: bytes, max_depth: int) -> bool:
    """Whether a free-form value of `record` nests beyond `max_depth` in the line. A value's
    own depth is seen at a glance when it is flat; otherwise the line's brackets bound every
    value, and only a line with more brackets than the limit has its values walked."""
    kind = type(record)
    if kind is not ToolCallStart and kind is not MessageRecord:
        return False  # the rest of a record has a fixed, shallow shape
    for depth, value in _free_form(record):
        flat = _flat_depth(value)
        if flat is None:
            if _shallow(raw, max_depth):
                return False  # no value of the line can nest deeper than its brackets
            flat = _depth(value)
        if depth - 1 + flat > max_depth:
            return True
    return False


def _without_repeated_keys(raw: bytes) -> bool:
    """For a line that is not in canonical form: whether its untyped decoding lost nothing (no
    repeated key) and a turn input names its role."""
    obj = _UNTYPED_DECODER.decode(raw)  # a failure is `_fast`'s: the strict path decides
    if not isinstance(obj, dict) or not strictjson.repeats_no_key(raw, obj):
        return False  # a key was repeated (or the line is unusual): let the strict path say
    return obj.get("kind") != "turn_start" or _has_role(obj.get("message"))


def _fast(raw: bytes, max_depth: int) -> Record | None:
    """The typed record when the fast path vouches for the line."""
    try:
        record: Record = _RECORD_DECODER.decode(raw)
        # A line that is byte for byte the encoding of its record (a compact writer, fields
        # in the documented order, absent optional fields left out) repeats no key and names
        # every tag; only other lines need the untyped check.
        if _ENCODER.encode(record) != raw and not _without_repeated_keys(raw):
            return None
        if _too_deep(record, raw, max_depth):
            return None
    except Exception:  # any failure: the strict path decides the line (R-REL-4)
        return None
    return record


RecordSink = Callable[[Record], object]
"""Called with each record of a journal in order, as soon as its line is decided; whatever it
returns is ignored. It must not raise: a consumer that finds a journal wrong keeps that to
itself until the decoder has decided the whole file (the decoder's outcome comes first)."""


def _decode(
    lines: _Lines, blocks: Iterable[list[bytes]], sink: RecordSink
) -> Header | RejectedJournal:
    """Decode a journal's lines (`blocks` of `lines`), handing each record to `sink`; its
    header when the journal decoded whole (see the module docstring for the outcomes)."""
    max_depth, max_line = limits().max_nesting_depth, lines.max_line
    header: Header | None = None
    closed = False
    seq = 0
    try:
        for raw in itertools.chain.from_iterable(blocks):
            if header is None:
                first = _header_line(raw, max_depth, max_line)
                if isinstance(first, RejectedJournal):
                    return first
                header = first
                sink(header)
                seq = 1
                continue
            _check_length(raw, max_line)
            if closed:
                raise _Invalid(InvalidReason.RECORD_AFTER_CLOSE)
            record = _fast(raw, max_depth)
            if record is None:
                record = _to_record(_parse_line(raw, max_depth))
            if record.seq != seq:
                raise _Invalid(InvalidReason.SEQ_NOT_MONOTONIC)
            kind = type(record)
            if kind is Header:
                raise _Invalid(InvalidReason.HEADER_REPEATED)
            if kind is Close:
                closed = True
            sink(record)
            seq += 1
        fragment = lines.fragment
        if fragment is not None:
            _check_length(fragment, max_line)
            if closed:
                raise _Invalid(InvalidReason.RECORD_AFTER_CLOSE)
            # A final fragment without its newline: the writer is (or died) mid-line.
            # IMPORTED / INHERITED take precedence over OPEN (shared outcome precedence).
            return _provenance_outcome(header) or RejectedJournal(JournalOutcome.OPEN)
    except _Invalid as invalid:
        return _invalid(invalid.reason)
    except OSError:  # reading the file failed part of the way
        return _invalid(InvalidReason.UNREADABLE)
    if header is None:
        return _invalid(InvalidReason.EMPTY_FILE)
    provenance = _provenance_outcome(header)
    if provenance is not None:
        return provenance
    if not closed:
        return RejectedJournal(JournalOutcome.OPEN)
    return header


def _header_line(raw: bytes, max_depth: int, max_line: int) -> Header | RejectedJournal:
    """Decide a journal's first line (without its newline): its header, or the journal's
    outcome when that line alone decides it. Raises `_Invalid` like any other line."""
    _check_length(raw, max_line)
    record = _fast(raw, max_depth)
    if record is None:
        obj = _parse_line(raw, max_depth)
        early = _header_outcome(obj)
        if early is not None:
            return early
        record = _to_record(obj)
    if type(record) is not Header:
        return _invalid(InvalidReason.HEADER_MISSING)
    if record.seq != 0:
        raise _Invalid(InvalidReason.SEQ_NOT_MONOTONIC)
    return record


def decode_header(first_line: bytes) -> Header | RejectedJournal:
    """Decide a journal from its first line alone (given without its newline), exactly as
    `decode_into` decides that line: the header, or the outcome the line already fixes
    (INVALID with its detail, UNSUPPORTED_VERSION). The same limits hold (line length,
    nesting), and no line, however deep or long, raises (R-REL-4). A header says nothing of
    the rest of the file: the journal may still turn out OPEN, IMPORTED or INVALID."""
    limit = limits()
    try:
        return _header_line(first_line, limit.max_nesting_depth, limit.max_journal_line_bytes)
    except _Invalid as invalid:
        return _invalid(invalid.reason)


def _lines_for(data: bytes) -> tuple[_Lines, Iterator[list[bytes]]]:
    lines = _Lines(limits().max_journal_line_bytes)
    return lines, lines.of_bytes(data)


def decode_into(data: bytes, sink: RecordSink) -> Header | RejectedJournal:
    """Decode a journal held in memory without keeping its records: each goes to `sink` as its
    line is decided (replay consumes them so). The journal's header when it decoded whole,
    else its outcome; `sink` has then seen a prefix of its records, which mean nothing."""
    return _decode(*_lines_for(data), sink)


def decode_path_into(path: Path, sink: RecordSink) -> tuple[Header | RejectedJournal, int]:
    """`decode_into` for a file, read a block at a time as it is decoded, and the bytes read
    (the file's size when it decoded whole). Memory holds a block and the longest line, never
    the file; a journal refused at an early line is not read further. An unreadable file is
    INVALID/UNREADABLE, never an exception."""
    lines = _Lines(limits().max_journal_line_bytes)
    try:
        with path.open("rb") as stream:
            return _decode(lines, lines.of_stream(stream), sink), lines.size
    except OSError:
        return _invalid(InvalidReason.UNREADABLE), lines.size


def decode_bytes(data: bytes) -> DecodeResult:
    """Decode a whole journal held in memory (tests, fuzzing, pi sessions' exports)."""
    records: list[Record] = []
    header = _decode(*_lines_for(data), records.append)
    if isinstance(header, RejectedJournal):
        return header
    return DecodedJournal(header=header, records=tuple(records), byte_size=len(data))


def decode_stream(stream: BinaryIO, byte_size: int = 0) -> DecodeResult:
    """Decode a journal from a binary stream (read whole)."""
    decoded = decode_bytes(stream.read())
    if isinstance(decoded, DecodedJournal):
        return DecodedJournal(decoded.header, decoded.records, byte_size)
    return decoded


def read_journal(path: Path) -> bytes | RejectedJournal:
    """A journal file's bytes; an unreadable file is INVALID/UNREADABLE, never an exception."""
    try:
        with path.open("rb") as stream:
            return stream.read()
    except OSError:
        return _invalid(InvalidReason.UNREADABLE)


def decode_file(path: Path) -> DecodeResult:
    """Decode a journal file; an unreadable file is INVALID/UNREADABLE, never an exception."""
    data = read_journal(path)
    if isinstance(data, RejectedJournal):
        return data
    return decode_bytes(data)
