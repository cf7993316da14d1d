"""Read the tool-history sidecar (R-SD, R-SC): offline, read-only, immutable.

`open_sidecar` refuses a sidecar that is not offline before SQLite ever sees it, then opens it
with `mode=ro&immutable=1` so that nothing (no lock, journal or shared-memory file) can be
created next to it. `SidecarView` answers the replay stage's two questions: the retained row
for a finalized tool id (through the committed ID index, without copying it), and the policy
of a physical conversation.
"""

from __future__ import annotations

import sqlite3
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import msgspec

from clearing_analysis.errors import (
    InputInvalidDetail,
    InputInvalidError,
    SidecarNotOfflineDetail,
    SidecarNotOfflineError,
)
from clearing_analysis.identity import ToolIdentity

SQLITE_HEADER_MAGIC = b"SQLite format 3\x00"
COMPANION_SUFFIXES = ("-wal", "-shm", "-journal")
WAL_FORMAT_VERSION = 2
SCHEMA_VERSION = "1"
REQUIRED_TABLES = frozenset(
    {"sidecar_meta", "conversation_policy", "retained_result", "committed_id_index"}
)


# The INPUT_INVALID details this module raises; with every SidecarNotOfflineDetail they are
# the sidecar's codes (docs/formats/reason-codes.md, "Sidecar").
INVALID_DETAILS: frozenset[InputInvalidDetail] = frozenset(
    {
        InputInvalidDetail.SIDECAR_UNREADABLE,
        InputInvalidDetail.SIDECAR_NOT_SQLITE,
        InputInvalidDetail.SIDECAR_SCHEMA,
        InputInvalidDetail.SIDECAR_DAMAGED,
    }
)


@dataclass(frozen=True, slots=True)
class ConversationPolicy:
    """Capture policy of one physical conversation."""

    capture_enabled_since: int
    budget_bytes: int


class RetainedRow(msgspec.Struct, frozen=True, gc=False):
    """One retained tool result, as the writer stored it. Never printed.

    `identity` is the row's own identity columns: a row is identity-linked to a journal result
    only when they equal the result's finalized identity (R-SIM-9), whatever the index says.
    One is made per tool result a journal holds, so it is a struct the cycle collector never
    tracks (it holds only text, bytes, flags and the identity's four strings).
    """

    identity: ToolIdentity
    state: str
    byte_length: int
    sha256: bytes
    text: str | None
    redacted: bool
    truncated: bool
    tombstone: bool
    integrity: str
    origin_server: str | None
    origin_tool: str | None
    origin_server_identity_digest: str | None
    origin_read_only_hint: bool | None
    origin_destructive_hint: bool | None


def companion_present(sidecar: Path) -> bool:
    """Whether any -wal/-shm/-journal companion exists, names compared case-insensitively."""
    wanted = {(sidecar.name + suffix).casefold() for suffix in COMPANION_SUFFIXES}
    try:
        with_names = [entry.name for entry in sidecar.parent.iterdir()]
    except OSError:
        raise InputInvalidError(InputInvalidDetail.SIDECAR_UNREADABLE) from None
    return any(name.casefold() in wanted for name in with_names)


def check_offline(sidecar: Path) -> None:
    """Refuse a sidecar that is not a checkpointed, rollback-journal-mode SQLite file."""
    if companion_present(sidecar):
        raise SidecarNotOfflineError(SidecarNotOfflineDetail.COMPANION_PRESENT)
    try:
        with sidecar.open("rb") as stream:
            header = stream.read(100)
    except OSError:
        raise InputInvalidError(InputInvalidDetail.SIDECAR_UNREADABLE) from None
    if len(header) < 100 or not header.startswith(SQLITE_HEADER_MAGIC):
        raise InputInvalidError(InputInvalidDetail.SIDECAR_NOT_SQLITE)
    if header[18] == WAL_FORMAT_VERSION or header[19] == WAL_FORMAT_VERSION:
        raise SidecarNotOfflineError(SidecarNotOfflineDetail.WAL_MODE)


# Ids per IN (...) query: below SQLite's historical limit of 999 bound parameters.
_BATCH = 500
_SELECT_MANY = (
    "SELECT i.finalized_id, r.physical_conversation_id, r.host_turn_id, r.run_id, r.call_id,"
    " r.state, r.byte_length, r.sha256, r.text, r.redacted, r.truncated, r.tombstone,"
    " r.integrity, r.origin_server, r.origin_tool, r.origin_server_identity_digest,"
    " r.origin_read_only_hint, r.origin_destructive_hint"
    " FROM committed_id_index AS i JOIN retained_result AS r ON r.row_id = i.row_id"
    " WHERE i.finalized_id IN"
)

# SQLite errors, and text (a row's or SQLite's own error message about a corrupt schema) that
# is not valid UTF-8: both mean a broken file, a fixed code, never ANALYZER_FAULT (R-REL-1).
_SQLITE_FAILURES = (sqlite3.Error, UnicodeDecodeError)


class SidecarView:
    """Read-only queries over an opened sidecar. Use as a context manager."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._db = connection

    def __enter__(self) -> SidecarView:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def retained(self, finalized_id: str) -> RetainedRow | None:
        """The row the committed ID index maps `finalized_id` to, if any."""
        try:
            row = self._db.execute(
                "SELECT r.physical_conversation_id, r.host_turn_id, r.run_id, r.call_id,"
                " r.state, r.byte_length, r.sha256, r.text, r.redacted, r.truncated,"
                " r.tombstone, r.integrity, r.origin_server, r.origin_tool,"
                " r.origin_server_identity_digest, r.origin_read_only_hint,"
                " r.origin_destructive_hint"
                " FROM committed_id_index AS i JOIN retained_result AS r ON r.row_id = i.row_id"
                " WHERE i.finalized_id = ?",
                (finalized_id,),
            ).fetchone()
        except _SQLITE_FAILURES:
            raise InputInvalidError(InputInvalidDetail.SIDECAR_SCHEMA) from None
        return None if row is None else _retained_row(row)

    def retained_many(self, finalized_ids: Sequence[str]) -> dict[str, RetainedRow]:
        """The rows the committed ID index maps any of `finalized_ids` to, by id: one query per
        `_BATCH` ids instead of one per id (the index is read, never copied)."""
        rows: dict[str, RetainedRow] = {}
        unique = sorted(set(finalized_ids))
        for start in range(0, len(unique), _BATCH):
            chunk = unique[start : start + _BATCH]
            marks = ",".join("?" * len(chunk))
            query = f"{_SELECT_MANY} ({marks})"  # placeholders only: no input in the text
            try:
                found = self._db.execute(query, chunk).fetchall()
            except _SQLITE_FAILURES:
                raise InputInvalidError(InputInvalidDetail.SIDECAR_SCHEMA) from None
            for finalized_id, *values in found:
                if not isinstance(finalized_id, str):
                    raise InputInvalidError(InputInvalidDetail.SIDECAR_SCHEMA)
                rows[finalized_id] = _retained_row(tuple(values))
        return rows

    def conversation_policy(self, physical_conversation_id: str) -> ConversationPolicy | None:
        """The capture policy of one conversation (a copy: callers keep only touched ones)."""
        try:
            row = self._db.execute(
                "SELECT capture_enabled_since, budget_bytes FROM conversation_policy"
                " WHERE physical_conversation_id = ?",
                (physical_conversation_id,),
            ).fetchone()
        except _SQLITE_FAILURES:
            raise InputInvalidError(InputInvalidDetail.SIDECAR_SCHEMA) from None
        if row is None:
            return None
        since, budget = row
        if not (_is_count(since) and _is_count(budget)):
            raise InputInvalidError(InputInvalidDetail.SIDECAR_SCHEMA)
        return ConversationPolicy(since, budget)


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_flag(value: object) -> bool:
    return isinstance(value, int) and value in (0, 1)


def _optional_text(value: object) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise InputInvalidError(InputInvalidDetail.SIDECAR_SCHEMA)


def _optional_flag(value: object) -> bool | None:
    if value is None:
        return None
    if not _is_flag(value):
        raise InputInvalidError(InputInvalidDetail.SIDECAR_SCHEMA)
    return bool(value)


_FLAGS = (0, 1)
_STATES = ("committed", "finalized")
_INTEGRITY = ("ok", "mismatch")


def _retained_row(row: tuple[object, ...]) -> RetainedRow:
    """Typed row, or SIDECAR_SCHEMA when a value breaks policy/sidecar.sql.

    The DDL's STRICT tables and CHECKs already guarantee this for a conforming writer; the
    checks repeat them because the file is untrusted input (a non-STRICT lookalike table would
    otherwise hand us a wrong type and crash later instead of yielding a fixed code). They run
    once per tool result, so they are spelled out inline rather than as a call per column.
    """
    (
        physical,
        turn,
        run,
        call,
        state,
        byte_length,
        sha256,
        text,
        redacted,
        truncated,
        tombstone,
        integrity,
        server,
        tool,
        digest,
        read_only,
        destructive,
    ) = row
    if not (
        isinstance(physical, str)
        and isinstance(turn, str)
        and isinstance(run, str)
        and isinstance(call, str)
        and isinstance(state, str)
        and state in _STATES
        and isinstance(byte_length, int)
        and not isinstance(byte_length, bool)
        and byte_length >= 0
        and isinstance(sha256, bytes)
        and len(sha256) == 32
        and isinstance(redacted, int)
        and redacted in _FLAGS
        and isinstance(truncated, int)
        and truncated in _FLAGS
        and isinstance(tombstone, int)
        and tombstone in _FLAGS
        and isinstance(integrity, str)
        and integrity in _INTEGRITY
    ):
        raise InputInvalidError(InputInvalidDetail.SIDECAR_SCHEMA)
    return RetainedRow(
        identity=ToolIdentity(physical, turn, run, call),
        state=state,
        byte_length=byte_length,
        sha256=sha256,
        text=_optional_text(text),
        redacted=bool(redacted),
        truncated=bool(truncated),
        tombstone=bool(tombstone),
        integrity=integrity,
        origin_server=_optional_text(server),
        origin_tool=_optional_text(tool),
        origin_server_identity_digest=_optional_text(digest),
        origin_read_only_hint=_optional_flag(read_only),
        origin_destructive_hint=_optional_flag(destructive),
    )


def _structure_intact(connection: sqlite3.Connection) -> bool:
    """`PRAGMA quick_check`: SQLite keeps no checksums, so a damaged page may still read. The
    check walks every b-tree page, cell and freelist entry and every row's record format (not
    the index contents, which `integrity_check` would compare at several times the cost). It
    answers the single row 'ok' on an intact file; it reads, never writes."""
    try:
        rows = connection.execute("PRAGMA quick_check").fetchall()
    except _SQLITE_FAILURES:
        return False
    return rows == [("ok",)]


def open_sidecar(sidecar: Path, *, check_structure: bool = True) -> SidecarView:
    """Check the sidecar is offline, then open it read-only and immutable.

    The four tables of policy/sidecar.sql must exist and `sidecar_meta` must name schema
    version 1; otherwise INPUT_INVALID (SIDECAR_SCHEMA), with the connection closed. Then, with
    `check_structure` (the default; a replay worker opening a sidecar its parent has checked
    passes False), the file's structure must be intact (`PRAGMA quick_check` on the same
    immutable connection); otherwise INPUT_INVALID (SIDECAR_DAMAGED). Damage inside a row's
    content that leaves the structure whole is not found here: it stays a retention integrity
    mismatch when the row is compared (docs/formats/sidecar.md).
    """
    check_offline(sidecar)
    # immutable=1: SQLite takes no lock and creates no journal or shared-memory file (R-SC-3).
    uri = "file:" + urllib.parse.quote(str(sidecar.resolve())) + "?mode=ro&immutable=1"
    try:
        connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
    except _SQLITE_FAILURES:
        raise InputInvalidError(InputInvalidDetail.SIDECAR_UNREADABLE) from None
    try:
        tables = {
            name
            for (name,) in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
            ).fetchall()
        }
        version = None
        if tables >= REQUIRED_TABLES:
            version = connection.execute(
                "SELECT value FROM sidecar_meta WHERE key = 'schema_version'"
            ).fetchone()
    except _SQLITE_FAILURES:
        version = None
    if version is None or version[0] != SCHEMA_VERSION:
        connection.close()
        raise InputInvalidError(InputInvalidDetail.SIDECAR_SCHEMA)
    if check_structure and not _structure_intact(connection):
        connection.close()
        raise InputInvalidError(InputInvalidDetail.SIDECAR_DAMAGED)
    return SidecarView(connection)
