"""Write DIR/history.sqlite: the sidecar DDL from policy/sidecar.sql, rows batched.

The file is created with the exact reviewed DDL, `schema_version` '1', rollback-journal mode
(`journal_mode=DELETE`), and closed cleanly, so no -wal/-shm/-journal companion is left
(R-SC-1, R-SC-2). Rows are inserted with explicit row ids in one transaction per batch; the same
operations in the same order give a byte-identical database file.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import msgspec

from clearing_analysis.identity import ToolIdentity, finalized_tool_id
from clearing_analysis.policy import read_policy_bytes

BATCH_ROWS = 2_000


class RetentionRow(msgspec.Struct, frozen=True):
    """One retained result as the (fictional) writer stored it, defect already applied."""

    identity: ToolIdentity
    state: str
    byte_length: int
    sha256: bytes
    text: str | None
    redacted: bool
    truncated: bool
    tombstone: bool
    integrity: str
    captured_at: int
    origin: tuple[str, str, str, bool | None, bool | None] | None
    indexed: bool
    # The identity whose finalized id the index maps to this row (None: the row's own).
    index_identity: ToolIdentity | None = None


def clean_row(
    identity: ToolIdentity,
    text: str,
    captured_at: int,
    origin: tuple[str, str, str, bool | None, bool | None] | None,
) -> RetentionRow:
    """A finalized, indexed, byte-identical row for `text`."""
    raw = text.encode()
    return RetentionRow(
        identity=identity,
        state="finalized",
        byte_length=len(raw),
        sha256=hashlib.sha256(raw).digest(),
        text=text,
        redacted=False,
        truncated=False,
        tombstone=False,
        integrity="ok",
        captured_at=captured_at,
        origin=origin,
        indexed=True,
    )


class SidecarWriter:
    """Creates the sidecar and appends conversation policies and retained rows."""

    def __init__(self, path: Path) -> None:
        # isolation_level=None: transactions are explicit, so batching is ours to decide.
        self._db = sqlite3.connect(path, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=DELETE")
        self._db.execute("PRAGMA synchronous=OFF")
        self._db.executescript(read_policy_bytes("sidecar.sql").decode())
        self._db.execute("INSERT INTO sidecar_meta (key, value) VALUES ('schema_version', '1')")
        self._next_row_id = 1
        self._rows: list[tuple[object, ...]] = []
        self._index: list[tuple[str, int]] = []
        self._policies: list[tuple[str, int, int]] = []

    def policy(self, physical_conversation_id: str, enabled_since: int, budget: int) -> None:
        """Record the capture policy of one physical conversation."""
        self._policies.append((physical_conversation_id, enabled_since, budget))

    def add(self, rows: Sequence[RetentionRow]) -> None:
        """Queue rows; they are written in batches."""
        for row in rows:
            row_id = self._next_row_id
            self._next_row_id += 1
            origin = row.origin or (None, None, None, None, None)
            self._rows.append(
                (
                    row_id,
                    *row.identity,
                    row.state,
                    row.byte_length,
                    row.sha256,
                    row.text,
                    int(row.redacted),
                    int(row.truncated),
                    int(row.tombstone),
                    row.integrity,
                    row.captured_at,
                    origin[0],
                    origin[1],
                    origin[2],
                    None if origin[3] is None else int(origin[3]),
                    None if origin[4] is None else int(origin[4]),
                )
            )
            if row.indexed:
                indexed_as = row.index_identity or row.identity
                self._index.append((finalized_tool_id(indexed_as), row_id))
        if len(self._rows) >= BATCH_ROWS:
            self.flush()

    def flush(self) -> None:
        """Write queued rows in one transaction."""
        if not (self._rows or self._policies):
            return
        db = self._db
        db.execute("BEGIN")
        db.executemany("INSERT INTO conversation_policy VALUES (?, ?, ?)", self._policies)
        db.executemany(
            "INSERT INTO retained_result VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            self._rows,
        )
        db.executemany("INSERT INTO committed_id_index VALUES (?, ?)", self._index)
        db.execute("COMMIT")
        self._rows.clear()
        self._index.clear()
        self._policies.clear()

    def close(self) -> None:
        """Flush and close; the database is left in rollback-journal mode with no companion."""
        self.flush()
        self._db.close()
