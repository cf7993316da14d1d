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
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from clearing_analysis.errors import InputInvalidError, SidecarNotOfflineError

SQLITE_HEADER_MAGIC = b"SQLite format 3\x00"
COMPANION_SUFFIXES = ("-wal", "-shm", "-journal")
WAL_FORMAT_VERSION = 2


@dataclass(frozen=True, slots=True)
class ConversationPolicy:
    """Capture policy of one physical conversation."""

    capture_enabled_since: int
    budget_bytes: int


@dataclass(frozen=True, slots=True)
class RetainedRow:
    """One retained tool result, as the writer stored it. Never printed."""

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
        raise InputInvalidError("SIDECAR_UNREADABLE") from None
    return any(name.casefold() in wanted for name in with_names)


def check_offline(sidecar: Path) -> None:
    """Refuse a sidecar that is not a checkpointed, rollback-journal-mode SQLite file."""
    if companion_present(sidecar):
        raise SidecarNotOfflineError("COMPANION_PRESENT")
    try:
        with sidecar.open("rb") as stream:
            header = stream.read(100)
    except OSError:
        raise InputInvalidError("SIDECAR_UNREADABLE") from None
    if len(header) < 100 or not header.startswith(SQLITE_HEADER_MAGIC):
        raise InputInvalidError("SIDECAR_NOT_SQLITE")
    if header[18] == WAL_FORMAT_VERSION or header[19] == WAL_FORMAT_VERSION:
        raise SidecarNotOfflineError("WAL_MODE")


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
                "SELECT r.state, r.byte_length, r.sha256, r.text, r.redacted, r.truncated,"
                " r.tombstone, r.integrity, r.origin_server, r.origin_tool,"
                " r.origin_server_identity_digest, r.origin_read_only_hint,"
                " r.origin_destructive_hint"
                " FROM committed_id_index AS i JOIN retained_result AS r ON r.row_id = i.row_id"
                " WHERE i.finalized_id = ?",
                (finalized_id,),
            ).fetchone()
        except sqlite3.Error:
            raise InputInvalidError("SIDECAR_SCHEMA") from None
        if row is None:
            return None
        return RetainedRow(
            state=row[0],
            byte_length=row[1],
            sha256=bytes(row[2]),
            text=row[3],
            redacted=bool(row[4]),
            truncated=bool(row[5]),
            tombstone=bool(row[6]),
            integrity=row[7],
            origin_server=row[8],
            origin_tool=row[9],
            origin_server_identity_digest=row[10],
            origin_read_only_hint=None if row[11] is None else bool(row[11]),
            origin_destructive_hint=None if row[12] is None else bool(row[12]),
        )

    def conversation_policy(self, physical_conversation_id: str) -> ConversationPolicy | None:
        """The capture policy of one conversation (a copy: callers keep only touched ones)."""
        try:
            row = self._db.execute(
                "SELECT capture_enabled_since, budget_bytes FROM conversation_policy"
                " WHERE physical_conversation_id = ?",
                (physical_conversation_id,),
            ).fetchone()
        except sqlite3.Error:
            raise InputInvalidError("SIDECAR_SCHEMA") from None
        return None if row is None else ConversationPolicy(row[0], row[1])


def open_sidecar(sidecar: Path) -> SidecarView:
    """Check the sidecar is offline, then open it read-only and immutable."""
    check_offline(sidecar)
    uri = "file:" + urllib.parse.quote(str(sidecar.resolve())) + "?mode=ro&immutable=1"
    try:
        connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
        version = connection.execute(
            "SELECT value FROM sidecar_meta WHERE key = 'schema_version'"
        ).fetchone()
    except sqlite3.Error:
        raise InputInvalidError("SIDECAR_SCHEMA") from None
    if version is None or version[0] != "1":
        connection.close()
        raise InputInvalidError("SIDECAR_SCHEMA")
    return SidecarView(connection)
