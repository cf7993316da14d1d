"""Read one pi session file into the path the agent would resume, or refuse it whole.

Guarantees (docs/formats/pi-sessions.md):
- Each line is decoded under the same strict JSON rules as a native journal line
  (`strictjson`: UTF-8, no duplicate keys, no NaN, nesting and length limits from policy/).
- The first line is the `session` header; a file without one is not a session (pi ignores it
  too). Versions 1, 2 and 3 are read; a later version is UNSUPPORTED_VERSION.
- Every line after it must be a JSON object with a string `type`. A known entry type must have
  its documented shape; an unknown entry type, or a message of an unknown role (any `role`
  that is not one of the known strings: another string, a number, a list, an object, none),
  is counted by a fixed code and left out, never decoded or echoed. Every field is checked for
  its type before it is used.
- Versions 2 and 3 form a tree through `id` / `parentId`; ids are unique and a parent precedes
  its child. The **resumed path** is the one pi resumes: from the last entry of the file (pi's
  leaf after loading) up through its parents to the root. Entries of other branches are only
  counted. Version 1 is linear: every entry is on the path.
- An assistant message an agent wrote that is no model request (an OpenClaw delivery-mirror
  copy, say: policy/transcript-only.json) stays on the path but is counted by its fixed code
  (`transcript_only`); the mapping leaves it out (R-CM-8).
- A file whose last line lacks its newline is OPEN (the writer may still be writing it).
- Any other defect makes the file INVALID with one fixed detail; such a file contributes
  nothing (as a native journal, R-RP-1). Nothing here keeps text beyond the typed entries, and
  no error carries input text.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

import msgspec

from clearing_analysis import jsonlines, strictjson
from clearing_analysis.inputs.recognize import HistoryFormat
from clearing_analysis.pisession.entries import (
    ENTRY_TYPES,
    KNOWN_VERSIONS,
    MESSAGE_ROLES,
    SESSION_TYPE,
    AssistantMessage,
    Compaction,
    Entry,
    Message,
    MessageEntry,
    SessionHeader,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
)
from clearing_analysis.policy import TranscriptOnlyCode, transcript_only_messages


class SessionOutcome(enum.StrEnum):
    """Why a session file contributes nothing."""

    UNSUPPORTED_VERSION = "UNSUPPORTED_VERSION"
    OPEN = "OPEN"
    INVALID = "INVALID"


class SessionInvalid(enum.StrEnum):
    """Detail codes of an INVALID session file (docs/formats/pi-sessions.md)."""

    EMPTY_FILE = "EMPTY_FILE"
    NOT_A_SESSION = "NOT_A_SESSION"
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
    HEADER_REPEATED = "HEADER_REPEATED"
    ENTRY_ID_MISSING = "ENTRY_ID_MISSING"
    ENTRY_ID_REPEATED = "ENTRY_ID_REPEATED"
    PARENT_UNKNOWN = "PARENT_UNKNOWN"
    TIMESTAMP_INVALID = "TIMESTAMP_INVALID"
    # Found while mapping the resumed path (pisession.mapping).
    RESULT_WITHOUT_CALL = "RESULT_WITHOUT_CALL"
    REQUEST_WITHOUT_PROMPT = "REQUEST_WITHOUT_PROMPT"
    # A Codex rollout's (docs/formats/codex.md): cached input above input, a zstd-compressed
    # file, a model provider other than OpenAI's.
    USAGE_INCONSISTENT = "USAGE_INCONSISTENT"
    COMPRESSED = "COMPRESSED"
    UNSUPPORTED_PROVIDER = "UNSUPPORTED_PROVIDER"


class Unrecognized(enum.StrEnum):
    """What the reader counts and leaves out, never echoing its name."""

    ENTRY_TYPE = "ENTRY_TYPE"
    MESSAGE_ROLE = "MESSAGE_ROLE"
    # A tool result on the path whose call no assistant message of its turn requested (seen in
    # real OpenClaw sessions): mapped with a call of its own, counted here.
    ORPHAN_TOOL_RESULT = "ORPHAN_TOOL_RESULT"


class PathEntry(msgspec.Struct, frozen=True):
    """An entry on the resumed path: its line (the header is line 0), the entry (None for an
    unknown entry type) and, for a message entry of a known role, its decoded message."""

    line: int
    entry: Entry | None
    message: Message | None


class SessionShape(msgspec.Struct, frozen=True):
    """Counts about the file beyond the resumed path (never names, never text). The same
    shape serves every imported format (`histories`): `format` says which, `version` is a pi
    session's format version (0 for another format)."""

    version: int
    entries: int
    off_path_entries: int
    # Branch tips: entries without children (the resumed leaf is one of them).
    leaves: int
    unrecognized: dict[Unrecognized, int]
    # Assistant messages on the path that are no model request, by fixed code (R-CM-8).
    transcript_only: dict[TranscriptOnlyCode, int] = msgspec.field(
        default_factory=lambda: dict.fromkeys(TranscriptOnlyCode, 0)
    )
    format: HistoryFormat = HistoryFormat.PI_SESSION
    # A final line without its newline that a format drops rather than refusing the file for
    # (a Claude Code transcript, docs/formats/claude-code.md): 0 or 1.
    torn_final_lines: int = 0
    # Counted requests whose recorded output tokens are streaming placeholders, not the
    # response's size, by API (docs/formats/claude-code.md, "Counting").
    placeholder_output_requests: dict[str, int] = msgspec.field(default_factory=dict)
    # Assistant messages the agent wrote itself, no request (Claude Code's `<synthetic>`).
    synthetic_messages: int = 0


class ReadSession(msgspec.Struct, frozen=True):
    """A readable session: its header, the resumed path, and where each compaction's kept
    entries start (the path position of the first kept entry; None: nothing kept)."""

    header: SessionHeader
    lineage: str
    path: tuple[PathEntry, ...]
    first_kept: dict[int, int | None]
    shape: SessionShape
    byte_size: int


class RejectedSession(msgspec.Struct, frozen=True):
    """A session file that contributes nothing, with its fixed outcome and detail."""

    outcome: SessionOutcome
    detail: SessionInvalid | None = None


SessionRead = ReadSession | RejectedSession


class _Rejected(Exception):  # noqa: N818  (internal control flow, never escapes this module)
    def __init__(self, outcome: SessionOutcome, detail: SessionInvalid | None = None) -> None:
        self.outcome = outcome
        self.detail = detail


def _invalid(detail: SessionInvalid) -> _Rejected:
    return _Rejected(SessionOutcome.INVALID, detail)


def lineage_of(message: object) -> str:
    """The lineage key of a session: a digest of its first message entry's message, kept in
    memory only. A fork or branched copy repeats that entry exactly; separate sessions differ
    (every message carries its millisecond timestamp)."""
    return hashlib.blake2b(msgspec.json.encode(message), digest_size=16).hexdigest()


_T = TypeVar("_T")


def _decoded(step: Callable[..., _T], *args: Any) -> _T:
    """One `jsonlines` step, its refusal as this reader's INVALID detail of the same name."""
    try:
        return step(*args)
    except jsonlines.LineRejected as rejected:
        raise _invalid(SessionInvalid(rejected.reason)) from None


def _lines(stream: BinaryIO) -> Iterator[tuple[bytes, bool]]:
    """(line without its newline, whether it ended with one); refuses over-long lines."""
    for body, ended in jsonlines.lines(stream):
        yield _decoded(jsonlines.check_length, body), ended


def _object(raw: bytes) -> dict[str, Any]:
    return _decoded(jsonlines.json_object, raw)


def _convert(value: Any, type_: Any) -> Any:
    return _decoded(jsonlines.convert, value, type_)


def _header(raw: bytes) -> SessionHeader:
    try:
        value = _object(raw)
    except _Rejected:
        raise _invalid(SessionInvalid.NOT_A_SESSION) from None
    if value.get("type") != SESSION_TYPE or not isinstance(value.get("id"), str):
        raise _invalid(SessionInvalid.NOT_A_SESSION)
    header: SessionHeader = _convert(value, SessionHeader)
    if header.format_version not in KNOWN_VERSIONS:
        raise _Rejected(SessionOutcome.UNSUPPORTED_VERSION)
    return header


def _tree_field(value: dict[str, Any], key: str) -> str | None:
    field = value.get(key)
    if field is not None and not isinstance(field, str):
        raise _invalid(SessionInvalid.WRONG_SHAPE)
    return field


def _known_role(role: object) -> bool:
    """Whether a message's `role` is one the reader decodes. Anything else (another string, a
    number, a list, an object, nothing) is an unknown role, counted and left out: the role is
    read only after its type is checked, never hashed or compared as it comes."""
    return isinstance(role, str) and role in MESSAGE_ROLES


class _Reader:
    def __init__(self) -> None:
        self.entries: list[tuple[str | None, str | None, PathEntry]] = []  # id, parent, entry
        self.unrecognized = dict.fromkeys(Unrecognized, 0)
        self.lineage: str | None = None

    def add(self, line: int, value: dict[str, Any]) -> None:
        kind = value.get("type")
        if not isinstance(kind, str):
            raise _invalid(SessionInvalid.WRONG_SHAPE)
        if kind == SESSION_TYPE:
            raise _invalid(SessionInvalid.HEADER_REPEATED)
        if kind not in ENTRY_TYPES:
            # Still a node of the tree in versions 2 and 3 (its children hang below it); its
            # other fields are never decoded.
            self.unrecognized[Unrecognized.ENTRY_TYPE] += 1
            node = PathEntry(line, None, None)
            self.entries.append((_tree_field(value, "id"), _tree_field(value, "parentId"), node))
            return
        entry: Entry = _convert(value, Entry)
        message: Message | None = None
        if isinstance(entry, MessageEntry):
            if self.lineage is None:
                self.lineage = lineage_of(entry.message)
            if _known_role(entry.message.get("role")):
                message = _convert(entry.message, Message)
            else:
                self.unrecognized[Unrecognized.MESSAGE_ROLE] += 1
        self.entries.append((entry.id, entry.parent_id, PathEntry(line, entry, message)))


def _resumed_path(
    entries: list[tuple[str | None, str | None, PathEntry]], version: int
) -> tuple[list[PathEntry], int]:
    """(entries on the resumed path in order, branch tips). Version 1 is linear."""
    if version == 1 or not entries:
        return [entry for _, _, entry in entries], 1 if entries else 0
    by_id: dict[str, int] = {}
    has_child: set[str] = set()
    for index, (entry_id, parent, _entry) in enumerate(entries):
        if entry_id is None:
            raise _invalid(SessionInvalid.ENTRY_ID_MISSING)
        if entry_id in by_id:
            raise _invalid(SessionInvalid.ENTRY_ID_REPEATED)
        if parent is not None:
            if parent not in by_id:
                raise _invalid(SessionInvalid.PARENT_UNKNOWN)
            has_child.add(parent)
        by_id[entry_id] = index
    path: list[PathEntry] = []
    current: int | None = len(entries) - 1
    while current is not None:
        _, parent, entry = entries[current]
        path.append(entry)
        current = None if parent is None else by_id[parent]
    path.reverse()
    leaves = sum(1 for entry_id, _, _ in entries if entry_id not in has_child)
    return path, leaves


def _first_kept(path: list[PathEntry]) -> dict[int, int | None]:
    """For each compaction on the path (by path position): the path position of its first
    kept entry when that entry lies on the path before it, else None (nothing kept), as pi's
    context builder does. Version 1 names the entry by its line (`firstKeptEntryIndex`)."""
    kept: dict[int, int | None] = {}
    by_id = {p.entry.id: i for i, p in enumerate(path) if p.entry is not None and p.entry.id}
    by_line = {p.line: i for i, p in enumerate(path)}
    for index, parsed in enumerate(path):
        entry = parsed.entry
        if not isinstance(entry, Compaction):
            continue
        target: int | None = None
        if entry.first_kept_entry_id is not None:
            target = by_id.get(entry.first_kept_entry_id)
        elif entry.first_kept_entry_index is not None:
            target = by_line.get(entry.first_kept_entry_index)
        kept[index] = target if target is not None and target < index else None
    return kept


def transcript_only_code(message: Message | None) -> TranscriptOnlyCode | None:
    """The fixed code of an assistant message an agent wrote that is no model request
    (policy/transcript-only.json: its provider and model), else None."""
    if not isinstance(message, AssistantMessage):
        return None
    return transcript_only_messages().code_of(message.provider, message.model)


def transcript_only(path: Sequence[PathEntry]) -> dict[TranscriptOnlyCode, int]:
    """Transcript-only assistant messages on the path, by code (every code present)."""
    counts = dict.fromkeys(TranscriptOnlyCode, 0)
    for item in path:
        code = transcript_only_code(item.message)
        if code is not None:
            counts[code] += 1
    return counts


def orphan_results(path: Sequence[PathEntry]) -> int:
    """Tool results on the path whose call id no earlier assistant message of the same prompt
    turn requested (each call pairs with one result, as `mapping` pairs them)."""
    orphans = 0
    open_calls: dict[str, int] = {}
    for item in path:
        message = item.message
        if isinstance(message, UserMessage):
            open_calls = {}
        elif isinstance(message, AssistantMessage):
            for block in message.content:
                if isinstance(block, ToolCallBlock):
                    open_calls[block.id] = open_calls.get(block.id, 0) + 1
        elif isinstance(message, ToolResultMessage):
            if open_calls.get(message.tool_call_id, 0) > 0:
                open_calls[message.tool_call_id] -= 1
            else:
                orphans += 1
    return orphans


def read_stream(stream: BinaryIO) -> SessionRead:
    """Read a session from a binary stream (see the module docstring)."""
    reader = _Reader()
    header: SessionHeader | None = None
    size = 0
    try:
        for line, (raw, ended) in enumerate(_lines(stream)):
            size += len(raw) + ended
            if not ended:
                # A final fragment: refuse what is wrong before it, then say OPEN.
                if header is None:
                    _header(raw)
                raise _Rejected(SessionOutcome.OPEN)
            if header is None:
                header = _header(raw)
                continue
            reader.add(line, _object(raw))
        if header is None:
            raise _invalid(SessionInvalid.EMPTY_FILE)
        version = header.format_version
        path, leaves = _resumed_path(reader.entries, version)
    except _Rejected as rejected:
        return RejectedSession(rejected.outcome, rejected.detail)
    reader.unrecognized[Unrecognized.ORPHAN_TOOL_RESULT] = orphan_results(path)
    return ReadSession(
        header=header,
        lineage=reader.lineage or lineage_of(header.id),
        path=tuple(path),
        first_kept=_first_kept(path),
        shape=SessionShape(
            version=version,
            entries=len(reader.entries),
            off_path_entries=len(reader.entries) - len(path),
            leaves=leaves,
            unrecognized=reader.unrecognized,
            transcript_only=transcript_only(path),
        ),
        byte_size=size,
    )


def read_session(path: Path) -> SessionRead:
    """Read one session file; an unreadable file is INVALID (EMPTY_FILE when it has nothing)."""
    try:
        with path.open("rb") as stream:
            return read_stream(stream)
    except OSError:
        return RejectedSession(SessionOutcome.INVALID, SessionInvalid.EMPTY_FILE)


def grouping_keys(path: Path) -> tuple[str, ...]:
    """The session id and lineage of a file, read from its first lines only, for grouping
    related sessions into one unit (units.py); none when the file has no readable header."""
    try:
        with path.open("rb") as stream:
            return stream_grouping_keys(stream)
    except OSError:
        return ()


def stream_grouping_keys(stream: BinaryIO) -> tuple[str, ...]:
    """`grouping_keys` of a session read from a binary stream: each line decided under the
    reader's own rules and limits (`read_stream`), and no line read past one the reader
    refuses (nor past the first message entry)."""
    keys: list[str] = []
    try:
        for line, (raw, ended) in enumerate(_lines(stream)):
            if not ended:
                break
            if line == 0:
                keys.append(f"session\0{_header(raw).id}")
                continue
            value = _object(raw)
            kind = value.get("type")
            if not isinstance(kind, str) or kind == SESSION_TYPE:
                break  # the reader refuses the file here (WRONG_SHAPE, HEADER_REPEATED)
            if kind == "message":
                keys.append(f"lineage\0{lineage_of(value.get('message'))}")
                break
    except _Rejected:
        pass
    return tuple(keys)


__all__ = [
    "PathEntry",
    "ReadSession",
    "RejectedSession",
    "SessionInvalid",
    "SessionOutcome",
    "SessionRead",
    "SessionShape",
    "Unrecognized",
    "grouping_keys",
    "lineage_of",
    "read_session",
    "read_stream",
    "stream_grouping_keys",
    "transcript_only",
    "transcript_only_code",
]
