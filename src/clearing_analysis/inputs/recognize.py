"""What kind of history a file holds, from its first line alone (R-RP-5 decision).

When nothing in a selection replays, the refusal names what the files are if that can be
recognized: pi session files given to `analyze`, native journals given to `explore`, or other
agents' transcripts that neither reads. Only the first line is read (at most
`maxRecognitionLineBytes`, policy/limits.json), only its top-level keys and a few constant
values are looked at, and the result is a fixed `HistoryFormat`: nothing of the file is kept or
printed. The line is decoded under the journal decoders' JSON rules and nesting limit
(`strictjson`, `maxNestingDepth`): a line that is not a JSON object, breaks a rule, nests deeper
than the limit or is too long is UNKNOWN, as either reader would refuse it.

The shapes (docs/formats/README.md, "Recognized first lines"):

- native journal v2: `{"kind": "header", "format": "pi-native-journal", ...}`;
- pi session: `{"type": "session", "id": ..., ...}` (every version);
- Claude Code transcript: a record with `sessionId` and `uuid` / `parentUuid`, or a leading
  `{"type": "summary", "leafUuid": ...}`, `{"type": "file-history-snapshot", "snapshot": ...}`
  or `{"type": "queue-operation", "sessionId": ...}` (bookkeeping lines a transcript can open
  with, docs/formats/claude-code.md);
- OpenAI Codex CLI rollout: `{"type": "session_meta", "payload": {...}, ...}`, or the older
  first line `{"id": ..., "timestamp": ..., "instructions": ...}`.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from clearing_analysis import strictjson
from clearing_analysis.policy import limits


class HistoryFormat(enum.StrEnum):
    """The kinds of history file this tool can tell apart by their first line."""

    NATIVE_JOURNAL = "NATIVE_JOURNAL"
    PI_SESSION = "PI_SESSION"
    CLAUDE_CODE = "CLAUDE_CODE"
    CODEX = "CODEX"
    UNKNOWN = "UNKNOWN"


_NATIVE_FORMAT = "pi-native-journal"


def _first_line(path: Path) -> bytes | None:
    """The file's first line (without its newline), or None if unreadable or too long."""
    limit = limits().max_recognition_line_bytes
    try:
        with path.open("rb") as stream:
            line = stream.readline(limit + 1)
    except OSError:
        return None
    line = line.rstrip(b"\r\n")
    if len(line) > limit:
        return None
    return line


def format_of_line(line: bytes) -> HistoryFormat:
    """The kind of history whose first line `line` is (see the module docstring)."""
    try:
        value = strictjson.loads(line, max_depth=limits().max_nesting_depth)
    except strictjson.JsonRejected:
        return HistoryFormat.UNKNOWN
    if not isinstance(value, dict):
        return HistoryFormat.UNKNOWN
    if value.get("kind") == "header" and value.get("format") == _NATIVE_FORMAT:
        return HistoryFormat.NATIVE_JOURNAL
    if value.get("type") == "session" and "id" in value:
        return HistoryFormat.PI_SESSION
    if "sessionId" in value and ("uuid" in value or "parentUuid" in value):
        return HistoryFormat.CLAUDE_CODE
    if value.get("type") == "summary" and "leafUuid" in value:
        return HistoryFormat.CLAUDE_CODE
    if value.get("type") == "file-history-snapshot" and "snapshot" in value:
        return HistoryFormat.CLAUDE_CODE
    if value.get("type") == "queue-operation" and "sessionId" in value:
        return HistoryFormat.CLAUDE_CODE
    if value.get("type") == "session_meta" and isinstance(value.get("payload"), dict):
        return HistoryFormat.CODEX
    if {"id", "timestamp", "instructions"} <= value.keys():
        return HistoryFormat.CODEX
    return HistoryFormat.UNKNOWN


def format_of(path: Path) -> HistoryFormat:
    """The kind of history `path` holds, from its first line."""
    line = _first_line(path)
    return HistoryFormat.UNKNOWN if line is None else format_of_line(line)


def foreign_format(
    paths: Iterable[Path],
    expected: HistoryFormat,
    accepted: frozenset[HistoryFormat] = frozenset(),
) -> HistoryFormat | None:
    """The most frequent recognized format other than `expected` (and the other `accepted`
    formats the command reads) among `paths`, when at least as many files have it as have the
    expected one; else None (ties: enum order)."""
    counts = Counter(format_of(path) for path in paths)
    foreign = [
        (count, fmt)
        for fmt, count in counts.items()
        if fmt not in (expected, HistoryFormat.UNKNOWN) and fmt not in accepted
    ]
    if not foreign:
        return None
    order = list(HistoryFormat)
    count, fmt = max(foreign, key=lambda pair: (pair[0], -order.index(pair[1])))
    return fmt if count >= counts[expected] else None


__all__ = ["HistoryFormat", "foreign_format", "format_of", "format_of_line"]
