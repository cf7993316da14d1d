"""Sidecar: offline refusal, immutable read-only open, schema checks, and the two queries.

Real SQLite files built with the sqlite3 module in a temporary directory (fakes over mocks).
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clearing_analysis.codes.errors import (
    AnalysisError,
    InputInvalidDetail,
    InputInvalidError,
    SidecarNotOfflineDetail,
    SidecarNotOfflineError,
)
from clearing_analysis.identity import ToolIdentity, finalized_tool_id
from clearing_analysis.inputs import sidecar as sidecar_module
from clearing_analysis.inputs.sidecar import (
    INVALID_DETAILS,
    ConversationPolicy,
    SidecarView,
    check_offline,
    open_sidecar,
)
from clearing_analysis.policy import limits

DDL = (Path(__file__).resolve().parents[2] / "policy" / "sidecar.sql").read_text()
TEXT = "export const config = { retryLimit: 3 };\n"
ID_OK = ToolIdentity("conv-1", "turn-1", "run-1", "call-1")
ID_MCP = ToolIdentity("conv-1", "turn-1", "run-1", "call-2")
ID_UNINDEXED = ToolIdentity("conv-1", "turn-2", "run-2", "call-3")
DIGEST = hashlib.sha256(b"server identity").hexdigest()


def _insert(
    db: sqlite3.Connection, identity: ToolIdentity, *, index: bool = True, **row: object
) -> None:
    values: dict[str, object] = {
        "state": "finalized",
        "byte_length": len(TEXT.encode()),
        "sha256": hashlib.sha256(TEXT.encode()).digest(),
        "text": TEXT,
        "redacted": 0,
        "truncated": 0,
        "tombstone": 0,
        "integrity": "ok",
        "captured_at": 5,
        **row,
    }
    columns = ["physical_conversation_id", "host_turn_id", "run_id", "call_id", *values]
    marks = ", ".join("?" * len(columns))
    cursor = db.execute(
        f"INSERT INTO retained_result ({', '.join(columns)}) VALUES ({marks})",
        [*identity, *values.values()],
    )
    if index:
        db.execute(
            "INSERT INTO committed_id_index VALUES (?, ?)",
            (finalized_tool_id(identity), cursor.lastrowid),
        )


def build(path: Path, *, wal: bool = False, ddl: str = DDL, meta: bool = True) -> Path:
    """A small sidecar: one policy, a plain row, an MCP-origin tombstone, an unindexed row."""
    db = sqlite3.connect(path)
    if wal:
        db.execute("PRAGMA journal_mode=WAL")
    db.executescript(ddl)
    if meta:
        db.execute("INSERT INTO sidecar_meta VALUES ('schema_version', '1')")
    db.execute("INSERT INTO conversation_policy VALUES ('conv-1', 1000, 8388608)")
    _insert(db, ID_OK)
    _insert(
        db,
        ID_MCP,
        text=None,
        tombstone=1,
        redacted=1,
        integrity="mismatch",
        origin_server="issue-tracker",
        origin_tool="lookup_issue",
        origin_server_identity_digest=DIGEST,
        origin_read_only_hint=1,
        origin_destructive_hint=0,
    )
    _insert(db, ID_UNINDEXED, index=False, state="committed")
    db.commit()
    db.close()
    return path


@pytest.fixture
def sidecar(tmp_path: Path) -> Path:
    return build(tmp_path / "history.sqlite")


def break_table_root(path: Path, table: str) -> None:
    """Set the type byte of `table`'s root b-tree page to 0, which no valid page has: the
    schema still reads, the structure is damaged."""
    db = sqlite3.connect(path)
    (root,) = db.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    (page_size,) = db.execute("PRAGMA page_size").fetchone()
    db.close()
    data = bytearray(path.read_bytes())
    data[(root - 1) * page_size] = 0x00
    path.write_bytes(bytes(data))


def _code(error: pytest.ExceptionInfo[AnalysisError]) -> tuple[str, object]:
    return error.value.code, error.value.detail


class TestOffline:
    """R-SC-1, R-SC-2: refuse before SQLite opens anything."""

    def test_rollback_journal_database_is_offline(self, sidecar: Path) -> None:
        """A closed rollback-journal database passes and leaves no companion."""
        check_offline(sidecar)
        assert sorted(p.name for p in sidecar.parent.iterdir()) == ["history.sqlite"]

    def test_wal_database_without_companions(self, tmp_path: Path) -> None:
        """A WAL-mode file closed cleanly (no -wal/-shm left) is still SIDECAR_NOT_OFFLINE."""
        path = build(tmp_path / "history.sqlite", wal=True)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["history.sqlite"]
        assert path.read_bytes()[18:20] == b"\x02\x02"
        with pytest.raises(SidecarNotOfflineError) as caught:
            open_sidecar(path)
        assert _code(caught) == ("SIDECAR_NOT_OFFLINE", SidecarNotOfflineDetail.WAL_MODE)

    def test_wal_database_with_live_companions(self, tmp_path: Path) -> None:
        """A WAL database held open by a writer (-wal and -shm present) is refused."""
        path = build(tmp_path / "history.sqlite", wal=True)
        writer = sqlite3.connect(path)
        try:
            writer.execute("INSERT INTO sidecar_meta VALUES ('note', 'x')")
            writer.commit()
            names = {p.name for p in tmp_path.iterdir()}
            assert {"history.sqlite-wal", "history.sqlite-shm"} <= names
            with pytest.raises(SidecarNotOfflineError) as caught:
                open_sidecar(path)
            assert _code(caught) == (
                "SIDECAR_NOT_OFFLINE",
                SidecarNotOfflineDetail.COMPANION_PRESENT,
            )
        finally:
            writer.close()

    @pytest.mark.parametrize(
        "companion",
        [
            "history.sqlite-wal",
            "history.sqlite-shm",
            "history.sqlite-journal",
            "HISTORY.SQLITE-WAL",
            "History.Sqlite-Journal",
        ],
    )
    def test_companion_names_case_insensitive(self, sidecar: Path, companion: str) -> None:
        """Any companion, in any letter case, refuses the sidecar (seed, R-SC-1)."""
        (sidecar.parent / companion).write_bytes(b"")
        with pytest.raises(SidecarNotOfflineError) as caught:
            open_sidecar(sidecar)
        assert _code(caught) == ("SIDECAR_NOT_OFFLINE", SidecarNotOfflineDetail.COMPANION_PRESENT)

    @pytest.mark.parametrize(
        "sibling",
        ["history.sqlite.bak", "history.sqlite-walrus", "history-wal", "other.sqlite-wal", "wal"],
    )
    def test_unrelated_siblings_are_fine(self, sidecar: Path, sibling: str) -> None:
        """Names that are not this sidecar's companions do not matter."""
        (sidecar.parent / sibling).write_bytes(b"")
        open_sidecar(sidecar).close()

    def test_companion_directory_counts(self, sidecar: Path) -> None:
        """A directory named like a companion is present too."""
        (sidecar.parent / "history.sqlite-shm").mkdir()
        with pytest.raises(SidecarNotOfflineError):
            check_offline(sidecar)


class TestInvalid:
    """Files that are not a usable sidecar: INPUT_INVALID with a fixed detail."""

    @pytest.mark.parametrize(
        "content",
        [b"", b"SQLite format 3", b"not a database at all" * 10, b'{"json": true}\n' * 10],
    )
    def test_not_sqlite(self, tmp_path: Path, content: bytes) -> None:
        """A file without the 100-byte SQLite 3 header is SIDECAR_NOT_SQLITE."""
        path = tmp_path / "history.sqlite"
        path.write_bytes(content)
        with pytest.raises(InputInvalidError) as caught:
            open_sidecar(path)
        assert _code(caught) == ("INPUT_INVALID", InputInvalidDetail.SIDECAR_NOT_SQLITE)

    def test_missing_file_or_directory(self, tmp_path: Path) -> None:
        """A missing sidecar, a missing parent or a directory is SIDECAR_UNREADABLE."""
        for path in (tmp_path / "absent.sqlite", tmp_path / "no" / "x.sqlite", tmp_path):
            with pytest.raises(InputInvalidError) as caught:
                open_sidecar(path)
            assert _code(caught) == ("INPUT_INVALID", InputInvalidDetail.SIDECAR_UNREADABLE)

    def test_missing_sidecar_meta(self, tmp_path: Path) -> None:
        """A database without the sidecar_meta table is SIDECAR_SCHEMA."""
        ddl = DDL.replace("CREATE TABLE sidecar_meta", "CREATE TABLE other_meta")
        path = build(tmp_path / "h.sqlite", ddl=ddl, meta=False)
        with pytest.raises(InputInvalidError) as caught:
            open_sidecar(path)
        assert _code(caught) == ("INPUT_INVALID", InputInvalidDetail.SIDECAR_SCHEMA)

    def test_missing_schema_version_row(self, tmp_path: Path) -> None:
        """sidecar_meta without the schema_version row is SIDECAR_SCHEMA."""
        path = build(tmp_path / "h.sqlite", meta=False)
        with pytest.raises(InputInvalidError) as caught:
            open_sidecar(path)
        assert _code(caught) == ("INPUT_INVALID", InputInvalidDetail.SIDECAR_SCHEMA)

    def test_other_schema_version(self, sidecar: Path) -> None:
        """A schema version other than '1' is SIDECAR_SCHEMA."""
        db = sqlite3.connect(sidecar)
        db.execute("UPDATE sidecar_meta SET value = '2'")
        db.commit()
        db.close()
        with pytest.raises(InputInvalidError) as caught:
            open_sidecar(sidecar)
        assert _code(caught) == ("INPUT_INVALID", InputInvalidDetail.SIDECAR_SCHEMA)

    def test_missing_index_table(self, tmp_path: Path) -> None:
        """A database lacking one of the four tables is SIDECAR_SCHEMA at open."""
        path = build(tmp_path / "h.sqlite")
        db = sqlite3.connect(path)
        db.execute("DROP TABLE committed_id_index")
        db.commit()
        db.close()
        with pytest.raises(InputInvalidError) as caught:
            open_sidecar(path)
        assert _code(caught) == ("INPUT_INVALID", InputInvalidDetail.SIDECAR_SCHEMA)

    def test_corrupt_body(self, sidecar: Path) -> None:
        """A valid header over garbage pages is SIDECAR_SCHEMA, not an exception."""
        data = bytearray(sidecar.read_bytes())
        data[100:] = b"\xa5" * (len(data) - 100)
        sidecar.write_bytes(bytes(data))
        with pytest.raises(InputInvalidError) as caught:
            open_sidecar(sidecar)
        assert _code(caught) == ("INPUT_INVALID", InputInvalidDetail.SIDECAR_SCHEMA)

    def test_damaged_page_is_sidecar_damaged(self, sidecar: Path) -> None:
        """A b-tree page whose type byte is broken, under an intact schema, is refused by
        quick_check (it used to open and read as if whole); unchecked, it still opens."""
        break_table_root(sidecar, "retained_result")
        open_sidecar(sidecar, check_structure=False).close()
        with pytest.raises(InputInvalidError) as caught:
            open_sidecar(sidecar)
        assert _code(caught) == ("INPUT_INVALID", InputInvalidDetail.SIDECAR_DAMAGED)

    def test_quick_check_creates_nothing_and_intact_file_opens(self, sidecar: Path) -> None:
        """The structure check of an intact sidecar passes and leaves the directory as it was
        (it reads on the immutable connection, R-SC-3)."""
        before = sorted(p.name for p in sidecar.parent.iterdir())
        with open_sidecar(sidecar) as view:
            assert view.retained(finalized_tool_id(ID_OK)) is not None
        assert sorted(p.name for p in sidecar.parent.iterdir()) == before

    def test_lookalike_table_with_wrong_types(self, tmp_path: Path) -> None:
        """A non-STRICT lookalike storing a digest as text is SIDECAR_SCHEMA on read."""
        ddl = DDL.replace(") STRICT;", ");").replace("CHECK (length(sha256) = 32)", "")
        path = build(tmp_path / "h.sqlite", ddl=ddl)
        db = sqlite3.connect(path)
        db.execute("PRAGMA ignore_check_constraints = ON")
        db.execute("UPDATE retained_result SET sha256 = 'not-bytes', redacted = 'yes'")
        db.execute("UPDATE conversation_policy SET budget_bytes = 'lots'")
        db.commit()
        db.close()
        with open_sidecar(path) as view:
            with pytest.raises(InputInvalidError) as caught:
                view.retained(finalized_tool_id(ID_OK))
            assert _code(caught) == ("INPUT_INVALID", InputInvalidDetail.SIDECAR_SCHEMA)
            with pytest.raises(InputInvalidError):
                view.conversation_policy("conv-1")

    @settings(
        max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    @given(st.binary(min_size=0, max_size=4096))
    def test_fuzzed_body_never_crashes(self, tmp_path: Path, body: bytes) -> None:
        """A real header followed by arbitrary bytes yields a fixed code or an open view."""
        path = tmp_path / "fuzz.sqlite"
        header = bytearray(b"SQLite format 3\x00" + bytes(84))
        header[16:18] = (4096).to_bytes(2, "big")
        header[18:20] = b"\x01\x01"
        path.write_bytes(bytes(header) + body)
        try:
            view = open_sidecar(path)
        except AnalysisError as error:
            assert error.code == "INPUT_INVALID"
        else:
            try:
                view.retained("0" * 64)
                view.conversation_policy("c")
            except InputInvalidError:
                pass
            finally:
                view.close()


def _listing(directory: Path) -> list[tuple[str, int, int]]:
    return sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in directory.iterdir())


class TestImmutableRead:
    """R-SC-3: the open creates nothing; the view answers replay's two questions."""

    def test_open_query_close_creates_no_file(self, sidecar: Path) -> None:
        """Listing (names, sizes, mtimes) is identical before and after open, queries, close."""
        before = _listing(sidecar.parent)
        view = open_sidecar(sidecar)
        view.retained(finalized_tool_id(ID_OK))
        view.retained(finalized_tool_id(ID_MCP))
        view.conversation_policy("conv-1")
        during = _listing(sidecar.parent)
        view.close()
        assert before == during == _listing(sidecar.parent)

    def test_retained_plain_row(self, sidecar: Path) -> None:
        """The indexed finalized row comes back with bytes, digest, text and flags."""
        with open_sidecar(sidecar) as view:
            row = view.retained(finalized_tool_id(ID_OK))
        assert row is not None
        assert row.state == "finalized"
        assert row.byte_length == len(TEXT.encode())
        assert row.sha256 == hashlib.sha256(TEXT.encode()).digest()
        assert row.text == TEXT
        assert (row.redacted, row.truncated, row.tombstone, row.integrity) == (
            False,
            False,
            False,
            "ok",
        )
        assert row.origin_server is None
        assert row.origin_read_only_hint is None

    def test_retained_tombstone_with_origin(self, sidecar: Path) -> None:
        """Tombstone, redaction, integrity mismatch and captured MCP origin are reported."""
        with open_sidecar(sidecar) as view:
            row = view.retained(finalized_tool_id(ID_MCP))
        assert row is not None
        assert (row.text, row.tombstone, row.redacted, row.integrity) == (
            None,
            True,
            True,
            "mismatch",
        )
        assert (row.origin_server, row.origin_tool) == ("issue-tracker", "lookup_issue")
        assert row.origin_server_identity_digest == DIGEST
        assert (row.origin_read_only_hint, row.origin_destructive_hint) == (True, False)

    def test_unindexed_and_unknown_rows_are_absent(self, sidecar: Path) -> None:
        """A row missing from the committed index, or an unknown id, is None."""
        with open_sidecar(sidecar) as view:
            assert view.retained(finalized_tool_id(ID_UNINDEXED)) is None
            assert view.retained("0" * 64) is None

    def test_identity_is_exact(self, sidecar: Path) -> None:
        """Any change to one identity part misses the row (never text similarity, R-RP-4)."""
        with open_sidecar(sidecar) as view:
            for changed in (
                ID_OK._replace(physical_conversation_id="conv-2"),
                ID_OK._replace(host_turn_id="Turn-1"),
                ID_OK._replace(run_id="run-1 "),
                ID_OK._replace(call_id="call-9"),
            ):
                assert view.retained(finalized_tool_id(changed)) is None

    def test_conversation_policy(self, sidecar: Path) -> None:
        """The policy of a known conversation; None for an unknown one."""
        with open_sidecar(sidecar) as view:
            assert view.conversation_policy("conv-1") == ConversationPolicy(1000, 8388608)
            assert view.conversation_policy("conv-2") is None


def test_row_text_that_is_not_utf8_is_input_invalid(sidecar: Path) -> None:
    """A retained row whose TEXT bytes are not UTF-8 (a corrupt file) is SIDECAR_SCHEMA."""
    db = sqlite3.connect(sidecar)
    db.execute("UPDATE retained_result SET text = CAST(x'6f6bff' AS TEXT) WHERE call_id = 'call-1'")
    db.commit()
    db.close()
    with open_sidecar(sidecar) as view, pytest.raises(InputInvalidError) as error:
        view.retained(finalized_tool_id(ID_OK))
    assert _code(error) == ("INPUT_INVALID", InputInvalidDetail.SIDECAR_SCHEMA)


def test_finalized_id_definition() -> None:
    """The finalized id is sha256 of the compact UTF-8 JSON array, as sidecar.md states."""
    identity = ToolIdentity("c\u00e9", "t", "r", "x")
    expected = hashlib.sha256('["c\u00e9","t","r","x"]'.encode()).hexdigest()
    assert finalized_tool_id(identity) == expected


def test_every_sidecar_code_is_tested() -> None:
    """Each sidecar detail (SIDECAR_NOT_OFFLINE's, and INPUT_INVALID's for the sidecar) appears
    in an assertion of this module (docs/formats/reason-codes.md lists the same set)."""
    source = Path(__file__).read_text()
    codes = {*SidecarNotOfflineDetail, *INVALID_DETAILS}
    assert {c for c in codes if f"{type(c).__name__}.{c.name})" in source} == codes


_TEXT_COLUMN = (
    "    text                     TEXT,           -- complete retained text; NULL when tombstoned\n"
)


def _with_text_column(definition: str) -> str:
    """The DDL with retained_result.text declared as `definition`."""
    assert _TEXT_COLUMN in DDL
    return DDL.replace(_TEXT_COLUMN, f"    text {definition},\n")


def _computed(path: Path, extra: str, *, ddl: str = DDL) -> Path:
    """A sidecar built as usual, then `extra` SQL run on it (a view, a trigger, ...)."""
    build(path, ddl=ddl)
    db = sqlite3.connect(path)
    db.executescript(extra)
    db.commit()
    db.close()
    return path


def generated_text(path: Path, size: int, stored: str = "VIRTUAL", rows: int = 30) -> Path:
    """The 45 KB attack: every row's text a generated column of `size` bytes, computed when
    read. Written with a tiny generated value, then the schema's text edited to `size`, as an
    attacker would (the insert itself would compute the value)."""
    db = sqlite3.connect(path)
    definition = "TEXT GENERATED ALWAYS AS (CAST(zeroblob(8) AS TEXT)) " + stored
    db.executescript(_with_text_column(definition))
    db.execute("INSERT INTO sidecar_meta VALUES ('schema_version', '1')")
    db.execute("INSERT INTO conversation_policy VALUES ('conv-1', 1000, 8388608)")
    for call in range(rows):
        identity = ToolIdentity("conv-1", "turn-1", "run-1", f"call-{call}")
        cursor = db.execute(
            "INSERT INTO retained_result (physical_conversation_id, host_turn_id, run_id, call_id,"
            " state, byte_length, sha256, redacted, truncated, tombstone, integrity, captured_at)"
            " VALUES (?, ?, ?, ?, 'finalized', 1, ?, 0, 0, 0, 'ok', 5)",
            (*identity, bytes(32)),
        )
        db.execute(
            "INSERT INTO committed_id_index VALUES (?, ?)",
            (finalized_tool_id(identity), cursor.lastrowid),
        )
    db.commit()
    db.execute("PRAGMA writable_schema = ON")
    db.execute(
        "UPDATE sqlite_master SET sql = replace(sql, 'zeroblob(8)', ?) WHERE name = ?",
        (f"zeroblob({size})", "retained_result"),
    )
    db.commit()
    db.close()
    return path


COMPUTED: dict[str, Callable[[Path], Path]] = {
    "generated-text-column": lambda p: generated_text(p, 300_000_000),
    "stored-generated-text": lambda p: generated_text(p, 8, stored="STORED"),
    "generated-column-elsewhere": lambda p: _computed(
        p, "CREATE TABLE notes (a TEXT, b TEXT GENERATED ALWAYS AS (upper(a)) VIRTUAL);"
    ),
    "view": lambda p: _computed(p, "CREATE VIEW v AS SELECT zeroblob(1000000000) AS z;"),
    "trigger": lambda p: _computed(
        p,
        "CREATE TRIGGER t AFTER INSERT ON sidecar_meta BEGIN DELETE FROM conversation_policy; END;",
    ),
    "virtual-table": lambda p: _computed(p, "CREATE VIRTUAL TABLE r USING rtree(id, x0, x1);"),
}


class TestBoundedSchema:
    """The schema is checked against policy/sidecar.sql before any row is read (R-REL-7)."""

    @pytest.mark.parametrize("name", sorted(COMPUTED))
    def test_what_computes_values_when_read_is_refused(self, tmp_path: Path, name: str) -> None:
        """A view, a trigger, a virtual table or a generated column anywhere in the schema:
        SIDECAR_COMPUTED_SCHEMA at open, before any row is read."""
        path = COMPUTED[name](tmp_path / "history.sqlite")
        with pytest.raises(InputInvalidError) as caught:
            open_sidecar(path)
        assert _code(caught) == ("INPUT_INVALID", InputInvalidDetail.SIDECAR_COMPUTED_SCHEMA)

    @pytest.mark.parametrize(
        "ddl",
        [
            _with_text_column("TEXT DEFAULT 'x'"),
            _with_text_column("ANY"),
            _with_text_column("TEXT, extra TEXT"),
            DDL.replace("finalized_id TEXT PRIMARY KEY NOT NULL", "finalized_id TEXT NOT NULL"),
            DDL.replace(
                "physical_conversation_id TEXT PRIMARY KEY NOT NULL,\n    capture",
                "physical_conversation_id TEXT NOT NULL,\n    capture",
            ),
        ],
        ids=["default", "other-type", "extra-column", "index-without-key", "policy-without-key"],
    )
    def test_a_required_table_unlike_the_ddl_is_sidecar_schema(
        self, tmp_path: Path, ddl: str
    ) -> None:
        """A default, another type, an extra column or a missing key in one of the four
        tables: SIDECAR_SCHEMA at open (a key bounds what a lookup returns)."""
        path = build(tmp_path / "h.sqlite", ddl=ddl)
        with pytest.raises(InputInvalidError) as caught:
            open_sidecar(path)
        assert _code(caught) == ("INPUT_INVALID", InputInvalidDetail.SIDECAR_SCHEMA)

    def test_the_ddl_with_other_whitespace_case_and_extra_tables_opens(
        self, tmp_path: Path
    ) -> None:
        """The DDL as another writer may spell it (lower-case types, no STRICT) with a table
        and an index of its own opens and reads."""
        ddl = DDL.replace(" TEXT ", " text ").replace(") STRICT;", ");")
        path = _computed(
            tmp_path / "h.sqlite",
            "CREATE TABLE writer_state (k TEXT, v BLOB); CREATE INDEX by_v ON writer_state (v);",
            ddl=ddl,
        )
        with open_sidecar(path) as view:
            assert view.retained(finalized_tool_id(ID_OK)) is not None


class TestBoundedReads:
    """Reads are capped by the schema's keys and SQLite's value length limit (R-REL-7)."""

    def test_a_value_longer_than_the_limit_is_value_too_large(
        self, monkeypatch: pytest.MonkeyPatch, sidecar: Path
    ) -> None:
        """With the longest value just above the schema's longest statement, a row whose text
        is longer is SIDECAR_VALUE_TOO_LARGE when read, by either lookup; a row without text
        still reads."""
        db = sqlite3.connect(sidecar)
        (longest,) = db.execute("SELECT max(length(sql)) FROM sqlite_master").fetchone()
        longer = "x" * 4 * longest
        db.execute("UPDATE retained_result SET text = ? WHERE call_id = 'call-1'", (longer,))
        db.commit()
        db.close()
        small = msgspec.structs.replace(limits(), max_sidecar_value_bytes=2 * longest)
        monkeypatch.setattr(sidecar_module, "limits", lambda: small)
        too_large = ("INPUT_INVALID", InputInvalidDetail.SIDECAR_VALUE_TOO_LARGE)
        with open_sidecar(sidecar) as view:
            assert view.retained(finalized_tool_id(ID_MCP)) is not None  # text NULL
            with pytest.raises(InputInvalidError) as caught:
                view.retained(finalized_tool_id(ID_OK))
            assert _code(caught) == too_large
            with pytest.raises(InputInvalidError) as caught:
                view.retained_many([finalized_tool_id(ID_OK)])
            assert _code(caught) == too_large

    def test_a_row_many_ids_name_is_read_once(self, sidecar: Path) -> None:
        """Ids that the index points at one row get one and the same row object: what is held
        is at most what is stored, however many ids name it."""
        ids = [finalized_tool_id(ID_OK._replace(call_id=f"alias-{n}")) for n in range(600)]
        db = sqlite3.connect(sidecar)
        (row_id,) = db.execute(
            "SELECT row_id FROM committed_id_index WHERE finalized_id = ?",
            (finalized_tool_id(ID_OK),),
        ).fetchone()
        db.executemany("INSERT INTO committed_id_index VALUES (?, ?)", [(i, row_id) for i in ids])
        db.commit()
        db.close()
        with open_sidecar(sidecar) as view:
            rows = view.retained_many([*ids, finalized_tool_id(ID_OK), "0" * 64])
        assert len(rows) == 601
        assert len({id(row) for row in rows.values()}) == 1

    def test_a_repeated_key_is_damage(self) -> None:
        """A lookup that returns more rows than it asked keys for (a key repeated, which the
        DDL's primary key forbids: only a damaged file holds one) is SIDECAR_DAMAGED."""
        db = sqlite3.connect(":memory:", check_same_thread=False)
        db.executescript(DDL.replace("finalized_id TEXT PRIMARY KEY NOT NULL", "finalized_id TEXT"))
        _insert(db, ID_OK)
        (row_id,) = db.execute("SELECT row_id FROM retained_result").fetchone()
        repeated = (finalized_tool_id(ID_OK), row_id)
        db.execute("INSERT INTO committed_id_index VALUES (?, ?)", repeated)
        view = SidecarView(db)
        with pytest.raises(InputInvalidError) as caught:
            view.retained_many([finalized_tool_id(ID_OK)])
        assert _code(caught) == ("INPUT_INVALID", InputInvalidDetail.SIDECAR_DAMAGED)
        view.close()
