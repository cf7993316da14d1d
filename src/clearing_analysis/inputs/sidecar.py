"""Read the tool-history sidecar (R-SD, R-SC): offline, read-only, immutable.

`open_sidecar` refuses a sidecar that is not offline before SQLite ever sees it, then opens it
with `mode=ro&immutable=1` so that nothing (no lock, journal or shared-memory file) can be
created next to it. `SidecarView` answers the replay stage's two questions: the retained row
for a finalized tool id (through the committed ID index, without copying it), and the policy
of a physical conversation.

Memory is bounded by the file, never by what it declares (R-REL-7; docs/security.md states the
bound): the connection is opened under SQLite limits (no value longer than
`maxSidecarValueBytes`, short statements, shallow expressions, few columns), with a small page
cache and no memory map; the schema is checked against policy/sidecar.sql before any row is
read, so that nothing computes a value when it is read (views, triggers, virtual tables and
generated columns are refused); and every read is capped by the schema's keys: a lookup by key
returns at most one row, and a row several ids name is read once.
"""

from __future__ import annotations

import functools
import sqlite3
import threading
import urllib.parse
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import msgspec

from clearing_analysis.codes.errors import (
    InputInvalidDetail,
    InputInvalidError,
    SidecarNotOfflineDetail,
    SidecarNotOfflineError,
)
from clearing_analysis.identity import ToolIdentity
from clearing_analysis.policy import limits, read_policy_bytes

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
        InputInvalidDetail.SIDECAR_COMPUTED_SCHEMA,
        InputInvalidDetail.SIDECAR_VALUE_TOO_LARGE,
    }
)


class ConversationPolicy(msgspec.Struct, frozen=True):
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


# Ids per IN (...) query: below SQLite's historical limit of 999 bound parameters. A lookup's
# keys are padded with NULL (which no key equals) up to the next of a few fixed sizes, so that
# each query has one of a few texts: the sqlite3 module caches a prepared statement by its
# text, and reuses it instead of preparing one per batch length.
_BATCH = 500
_BATCH_SIZES = (8, 16, 32, 64, 128, 256, _BATCH)
# The columns of a row, `row_id` first, as `_retained_row` takes them.
_SELECT_ROWS = (
    "SELECT row_id, physical_conversation_id, host_turn_id, run_id, call_id, state,"
    " byte_length, sha256, text, redacted, truncated, tombstone, integrity, origin_server,"
    " origin_tool, origin_server_identity_digest, origin_read_only_hint,"
    " origin_destructive_hint FROM retained_result WHERE row_id IN"
)
_SELECT_INDEX = "SELECT finalized_id, row_id FROM committed_id_index WHERE finalized_id IN"
_SELECT_ONE = (
    "SELECT r.row_id, r.physical_conversation_id, r.host_turn_id, r.run_id, r.call_id,"
    " r.state, r.byte_length, r.sha256, r.text, r.redacted, r.truncated, r.tombstone,"
    " r.integrity, r.origin_server, r.origin_tool, r.origin_server_identity_digest,"
    " r.origin_read_only_hint, r.origin_destructive_hint"
    " FROM committed_id_index AS i JOIN retained_result AS r ON r.row_id = i.row_id"
    " WHERE i.finalized_id = ?"
)


def _in_list(select: str, size: int) -> str:
    """`select` ... `IN (?, ..., ?)` with `size` placeholders."""
    return f"{select} ({','.join('?' * size)})"


# The statement texts, made once: (size, SQL) per batch size, for each lookup.
_BATCHED: dict[str, tuple[tuple[int, str], ...]] = {
    select: tuple((size, _in_list(select, size)) for size in _BATCH_SIZES)
    for select in (_SELECT_INDEX, _SELECT_ROWS)
}

# SQLite errors, and text (a row's or SQLite's own error message about a corrupt schema) that
# is not valid UTF-8: both mean a broken file, a fixed code, never ANALYZER_FAULT (R-REL-1).
_SQLITE_FAILURES = (sqlite3.Error, UnicodeDecodeError)


def _read_failure(error: BaseException) -> InputInvalidError:
    """The fixed code of a failed read: a value over SQLite's length limit is
    SIDECAR_VALUE_TOO_LARGE, anything else SIDECAR_SCHEMA."""
    if getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_TOOBIG:
        return InputInvalidError(InputInvalidDetail.SIDECAR_VALUE_TOO_LARGE)
    return InputInvalidError(InputInvalidDetail.SIDECAR_SCHEMA)


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
            row = self._db.execute(_SELECT_ONE, (finalized_id,)).fetchone()
        except _SQLITE_FAILURES as error:
            raise _read_failure(error) from None
        return None if row is None else _retained_row(row)

    def retained_many(self, finalized_ids: Sequence[str]) -> dict[str, RetainedRow]:
        """The rows the committed ID index maps any of `finalized_ids` to, by id: one query per
        `_BATCH` ids instead of one per id (the index is read, never copied).

        The index is read first (ids and row addresses only), then each row it names once: a
        row that several ids name is one object, so the rows held are at most the rows stored,
        whatever the index says. A key names at most one row: a lookup of k keys that returns
        more rows than k finds a repeated key, which only a damaged file holds
        (SIDECAR_DAMAGED)."""
        addresses: dict[str, int] = {}
        unique = sorted(set(finalized_ids))
        for start in range(0, len(unique), _BATCH):
            for finalized_id, row_id in self._at_most(
                _SELECT_INDEX, unique[start : start + _BATCH]
            ):
                # sqlite3 returns exact types (int, str, bytes, float, None), never a subclass.
                if type(finalized_id) is not str or type(row_id) is not int:
                    raise InputInvalidError(InputInvalidDetail.SIDECAR_SCHEMA)
                addresses[finalized_id] = row_id
        by_row: dict[object, RetainedRow] = {}
        row_ids = sorted(set(addresses.values()))
        for start in range(0, len(row_ids), _BATCH):
            for row in self._at_most(_SELECT_ROWS, row_ids[start : start + _BATCH]):
                if row[0] in by_row:
                    raise InputInvalidError(InputInvalidDetail.SIDECAR_DAMAGED)
                by_row[row[0]] = _retained_row(row)
        return {
            finalized_id: by_row[row_id]
            for finalized_id, row_id in addresses.items()
            if row_id in by_row
        }

    def _at_most(self, select: str, keys: list[Any]) -> list[tuple[Any, ...]]:
        """The rows of `select` ... `IN (keys)`: at most one per key (SIDECAR_DAMAGED when
        more come back), fetched no further than one past that. The keys (at most `_BATCH`)
        are padded with NULL to the next batch size: NULL equals no key, so the rows are the
        same, and the statement is one of a few the connection keeps prepared."""
        count = len(keys)
        if count == 0:
            return []
        size, statement = next(batch for batch in _BATCHED[select] if count <= batch[0])
        try:
            cursor = self._db.execute(statement, keys + keys[-1:] * (size - count))
            found = cursor.fetchmany(count + 1)
        except _SQLITE_FAILURES as error:
            raise _read_failure(error) from None
        if len(found) > count:
            raise InputInvalidError(InputInvalidDetail.SIDECAR_DAMAGED)
        return found

    def conversation_policy(self, physical_conversation_id: str) -> ConversationPolicy | None:
        """The capture policy of one conversation (a copy: callers keep only touched ones)."""
        try:
            row = self._db.execute(
                "SELECT capture_enabled_since, budget_bytes FROM conversation_policy"
                " WHERE physical_conversation_id = ?",
                (physical_conversation_id,),
            ).fetchone()
        except _SQLITE_FAILURES as error:
            raise _read_failure(error) from None
        if row is None:
            return None
        since, budget = row
        if not (_is_count(since) and _is_count(budget)):
            raise InputInvalidError(InputInvalidDetail.SIDECAR_SCHEMA)
        return ConversationPolicy(since, budget)


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


_FLAGS = (0, 1)
_STATES = ("committed", "finalized")
_INTEGRITY = ("ok", "mismatch")


def _retained_row(row: tuple[Any, ...]) -> RetainedRow:
    """Typed row (the columns of `_SELECT_ROWS`, `row_id` first), or SIDECAR_SCHEMA when a
    value breaks policy/sidecar.sql.

    The DDL's STRICT tables and CHECKs already guarantee this for a conforming writer; the
    checks repeat them because the file is untrusted input (a non-STRICT lookalike table would
    otherwise hand us a wrong type and crash later instead of yielding a fixed code). They run
    once per tool result, so they are one expression rather than a call per column; sqlite3
    returns exact types (int, float, str, bytes, None: never bool or a subclass), so a type is
    compared with `is`.
    """
    (
        _,
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
        type(physical) is str
        and type(turn) is str
        and type(run) is str
        and type(call) is str
        and type(state) is str
        and state in _STATES
        and type(byte_length) is int
        and byte_length >= 0
        and type(sha256) is bytes
        and len(sha256) == 32
        and (text is None or type(text) is str)
        and type(redacted) is int
        and redacted in _FLAGS
        and type(truncated) is int
        and truncated in _FLAGS
        and type(tombstone) is int
        and tombstone in _FLAGS
        and type(integrity) is str
        and integrity in _INTEGRITY
        and (server is None or type(server) is str)
        and (tool is None or type(tool) is str)
        and (digest is None or type(digest) is str)
        and (read_only is None or (type(read_only) is int and read_only in _FLAGS))
        and (destructive is None or (type(destructive) is int and destructive in _FLAGS))
    ):
        raise InputInvalidError(InputInvalidDetail.SIDECAR_SCHEMA)
    return RetainedRow(
        ToolIdentity(physical, turn, run, call),
        state,
        byte_length,
        sha256,
        text,
        redacted == 1,
        truncated == 1,
        tombstone == 1,
        integrity,
        server,
        tool,
        digest,
        None if read_only is None else read_only == 1,
        None if destructive is None else destructive == 1,
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


# SQLite's limits on the sidecar's connection, set before its first statement (so that the
# schema is parsed under them too). Each bounds what one statement or row can make SQLite
# build; every one is far above what the analyzer's own statements and policy/sidecar.sql
# need (the widest table has 19 columns, the longest statement about 1,600 bytes and 1,600
# VDBE operations), and what goes past one is refused, never truncated.
_SQLITE_LIMITS: dict[int, int] = {
    sqlite3.SQLITE_LIMIT_SQL_LENGTH: 1 << 20,  # a statement, the schema's CREATEs included
    sqlite3.SQLITE_LIMIT_COLUMN: 64,  # columns of a table, index or result
    sqlite3.SQLITE_LIMIT_EXPR_DEPTH: 100,
    sqlite3.SQLITE_LIMIT_COMPOUND_SELECT: 2,
    sqlite3.SQLITE_LIMIT_VDBE_OP: 1_000_000,  # a statement's program
    sqlite3.SQLITE_LIMIT_FUNCTION_ARG: 8,
    sqlite3.SQLITE_LIMIT_ATTACHED: 0,
    sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH: 64,
    sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER: _BATCH,
    sqlite3.SQLITE_LIMIT_TRIGGER_DEPTH: 0,
    sqlite3.SQLITE_LIMIT_WORKER_THREADS: 0,
}
# The page cache: 2 MiB whatever the file's header suggests (its "default cache size" field is
# the writer's to set); no memory map, so the file never counts against the address space.
_PRAGMAS = ("PRAGMA cache_size = -2048", "PRAGMA mmap_size = 0", "PRAGMA trusted_schema = OFF")


def _limited(connection: sqlite3.Connection) -> None:
    """Put the connection under the limits above, the value length from policy/limits.json."""
    connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, limits().max_sidecar_value_bytes)
    for limit, value in _SQLITE_LIMITS.items():
        connection.setlimit(limit, value)


@functools.cache
def _expected_columns() -> dict[str, tuple[tuple[object, ...], ...]]:
    """`PRAGMA table_xinfo` of each table of policy/sidecar.sql, as SQLite reports it."""
    reference = sqlite3.connect(":memory:")
    try:
        reference.executescript(read_policy_bytes("sidecar.sql").decode("utf-8"))
        return {
            table: tuple(reference.execute(f"PRAGMA table_xinfo({table})").fetchall())
            for table in sorted(REQUIRED_TABLES)
        }
    finally:
        reference.close()


# `PRAGMA table_xinfo`'s `hidden` column: 2 and 3 mark generated columns (virtual, stored).
_GENERATED = (2, 3)
_VIRTUAL_TABLE = "CREATE VIRTUAL TABLE"


def _check_schema(connection: sqlite3.Connection) -> None:
    """The schema before any row: nothing that computes values when read (a view, a trigger,
    a virtual table or a generated column anywhere: SIDECAR_COMPUTED_SCHEMA), and the four
    tables of policy/sidecar.sql with exactly its columns, types, NOT NULLs and keys and no
    default (SIDECAR_SCHEMA). Other tables and indexes may be there; they are never read."""
    entries = connection.execute("SELECT type, name, sql FROM sqlite_master").fetchall()
    tables: list[str] = []
    for kind, name, sql in entries:
        if kind in ("view", "trigger"):
            raise InputInvalidError(InputInvalidDetail.SIDECAR_COMPUTED_SCHEMA)
        if kind != "table":
            continue
        if not isinstance(name, str) or not isinstance(sql, str):
            raise InputInvalidError(InputInvalidDetail.SIDECAR_SCHEMA)
        if " ".join(sql.split()[:3]).upper() == _VIRTUAL_TABLE:
            raise InputInvalidError(InputInvalidDetail.SIDECAR_COMPUTED_SCHEMA)
        tables.append(name)
    for name in tables:
        # The name comes from the file: quoted as an identifier, never spliced as SQL text.
        quoted = '"' + name.replace('"', '""') + '"'
        columns = connection.execute(f"PRAGMA table_xinfo({quoted})").fetchall()
        if any(column[6] in _GENERATED for column in columns):
            raise InputInvalidError(InputInvalidDetail.SIDECAR_COMPUTED_SCHEMA)
    expected = _expected_columns()
    for name, wanted in expected.items():
        if name not in tables:
            raise InputInvalidError(InputInvalidDetail.SIDECAR_SCHEMA)
        found = connection.execute(f"PRAGMA table_xinfo({name})").fetchall()
        if tuple(map(_column_key, found)) != tuple(map(_column_key, wanted)):
            raise InputInvalidError(InputInvalidDetail.SIDECAR_SCHEMA)


def _column_key(column: tuple[object, ...]) -> tuple[object, ...]:
    """What must equal the DDL's in a column: name and declared type (case aside), NOT NULL,
    default, primary key position, hidden."""
    cid, name, declared, notnull, default, pk, hidden = column
    folded = declared.upper() if isinstance(declared, str) else declared
    return (cid, name, folded, notnull, default, pk, hidden)


def _connect(sidecar: Path) -> sqlite3.Connection:
    """A read-only, immutable connection under the analyzer's limits and pragmas."""
    # immutable=1: SQLite takes no lock and creates no journal or shared-memory file (R-SC-3).
    uri = "file:" + urllib.parse.quote(str(sidecar.resolve())) + "?mode=ro&immutable=1"
    try:
        connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
    except _SQLITE_FAILURES:
        raise InputInvalidError(InputInvalidDetail.SIDECAR_UNREADABLE) from None
    try:
        _limited(connection)
        for pragma in _PRAGMAS:
            connection.execute(pragma)
    except _SQLITE_FAILURES as error:
        connection.close()
        raise _read_failure(error) from None
    return connection


class StructureCheck:
    """The sidecar's `PRAGMA quick_check` on a connection of its own, in a thread, so that it
    runs while the units are replayed instead of before them (SQLite releases the interpreter
    lock while it steps, so the check takes a core the replay does not wait for).

    `wait` blocks until the check is done and refuses a damaged file (INPUT_INVALID
    SIDECAR_DAMAGED); `cancel` interrupts it (an interrupted run reports nothing about the
    file). Either closes the check's connection; `open_sidecar`'s docstring says what the check
    finds."""

    def __init__(self, sidecar: Path) -> None:
        self._connection = _connect(sidecar)
        self._intact = False
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="sidecar-quick-check", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._intact = _structure_intact(self._connection)
        except BaseException as failure:  # raised by `wait` in the caller's thread, not printed
            self._failure = failure

    def wait(self) -> None:
        """The check's answer: return when the structure is intact, else SIDECAR_DAMAGED (an
        unexpected failure of the check is raised here as it was)."""
        self._thread.join()
        self._connection.close()
        if self._failure is not None:
            raise self._failure
        if not self._intact:
            raise InputInvalidError(InputInvalidDetail.SIDECAR_DAMAGED)

    def cancel(self) -> None:
        """Stop the check and close its connection."""
        self._connection.interrupt()
        self._thread.join()
        self._connection.close()


def open_sidecar(sidecar: Path, *, check_structure: bool = True) -> SidecarView:
    """Check the sidecar is offline, then open it read-only and immutable.

    The connection is put under SQLite limits and a fixed page cache before its first
    statement. The schema must then hold nothing that computes values when read
    (INPUT_INVALID SIDECAR_COMPUTED_SCHEMA) and the four tables of policy/sidecar.sql with
    their columns, and `sidecar_meta` must name schema version 1; otherwise INPUT_INVALID
    (SIDECAR_SCHEMA), with the connection closed. Then, with `check_structure` (the default; a
    replay worker opening a sidecar its parent has checked passes False), the file's structure
    must be intact (`PRAGMA quick_check` on the same immutable connection); otherwise
    INPUT_INVALID (SIDECAR_DAMAGED). Damage inside a row's content that leaves the structure
    whole is not found here: it stays a retention integrity mismatch when the row is compared
    (docs/formats/sidecar.md).
    """
    check_offline(sidecar)
    connection = _connect(sidecar)
    try:
        _check_schema(connection)
        version = connection.execute(
            "SELECT value FROM sidecar_meta WHERE key = 'schema_version'"
        ).fetchone()
    except InputInvalidError:
        connection.close()
        raise
    except _SQLITE_FAILURES as error:
        connection.close()
        raise _read_failure(error) from None
    if version is None or version[0] != SCHEMA_VERSION:
        connection.close()
        raise InputInvalidError(InputInvalidDetail.SIDECAR_SCHEMA)
    if check_structure and not _structure_intact(connection):
        connection.close()
        raise InputInvalidError(InputInvalidDetail.SIDECAR_DAMAGED)
    return SidecarView(connection)
