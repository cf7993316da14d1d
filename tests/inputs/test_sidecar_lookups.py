"""The batched sidecar lookup (R-RP-1, R-REL-7): `retained_many` answers exactly what one
lookup per id answers, for any set of ids, whichever prepared batch size serves it.

`retained_many` pads each batch of keys to one of a few fixed sizes (repeating its last key),
so that its statement texts are few and stay prepared; these tests hold it to `retained`, the
one-id lookup, on a real SQLite file (built with the sqlite3 module, no mocks) whose rows vary
in every column the lookup reads, with ids that several index entries share, index entries
that name no row, rows no entry names and ids no entry holds.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clearing_analysis.identity import ToolIdentity, finalized_tool_id
from clearing_analysis.inputs import sidecar as sidecar_module
from clearing_analysis.inputs.sidecar import RetainedRow, SidecarView, open_sidecar
from clearing_analysis.policy import read_policy_bytes

ROWS = 700  # more than one batch of `_BATCH` ids
ALIASES = 120  # index entries that name a row another entry names too
DANGLING = 40  # index entries whose row does not exist


def _identity(n: int) -> ToolIdentity:
    return ToolIdentity(f"conv-{n % 7}", f"turn-{n % 13}", f"run-{n}", f"call-{n}")


def _alias(n: int) -> str:
    return finalized_tool_id(ToolIdentity("conv-alias", "turn", "run", f"alias-{n}"))


def _dangling(n: int) -> str:
    return finalized_tool_id(ToolIdentity("conv-dangling", "turn", "run", f"call-{n}"))


UNKNOWN = [hashlib.sha256(f"unknown-{n}".encode()).hexdigest() for n in range(60)]
INDEXED = [finalized_tool_id(_identity(n)) for n in range(ROWS) if n % 11 != 5]
POOL = [
    *INDEXED,
    *(_alias(n) for n in range(ALIASES)),
    *(_dangling(n) for n in range(DANGLING)),
    *UNKNOWN,
]


def _build(path: Path) -> Path:
    """ROWS rows (every 11th unindexed), each column varied: states, flags, tombstones without
    text, captured origins with and without hints; then the alias and dangling entries."""
    db = sqlite3.connect(path)
    db.executescript(read_policy_bytes("sidecar.sql").decode())
    db.execute("INSERT INTO sidecar_meta VALUES ('schema_version', '1')")
    for n in range(ROWS):
        text = f"result {n} " + "\u00e9\U0001f600" * (n % 3) + "x" * (n % 97)
        tombstone = n % 17 == 3
        origin = (
            (f"server-{n % 5}", f"tool-{n % 3}", "d" * 64, (None, 0, 1)[n % 3], (1, None, 0)[n % 3])
            if n % 4 == 1
            else (None, None, None, None, None)
        )
        db.execute(
            "INSERT INTO retained_result VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                n + 1,
                *_identity(n),
                "committed" if n % 9 == 2 else "finalized",
                len(text.encode()),
                hashlib.sha256(text.encode()).digest(),
                None if tombstone else text,
                int(n % 5 == 1),
                int(n % 7 == 4),
                int(tombstone),
                "mismatch" if n % 19 == 6 else "ok",
                n,
                *origin,
            ),
        )
        if n % 11 != 5:
            db.execute(
                "INSERT INTO committed_id_index VALUES (?, ?)",
                (finalized_tool_id(_identity(n)), n + 1),
            )
    db.executemany(
        "INSERT INTO committed_id_index VALUES (?, ?)",
        [(_alias(n), 1 + n % 9) for n in range(ALIASES)],
    )
    db.executemany(
        "INSERT INTO committed_id_index VALUES (?, ?)",
        [(_dangling(n), ROWS + 100 + n) for n in range(DANGLING)],
    )
    db.commit()
    db.close()
    return path


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SidecarView]:
    """The module's sidecar, opened (and structure-checked) once."""
    path = _build(tmp_path_factory.mktemp("sidecar") / "history.sqlite")
    with open_sidecar(path) as opened:
        yield opened


def _one_by_one(view: SidecarView, ids: list[str]) -> dict[str, RetainedRow]:
    found = {finalized_id: view.retained(finalized_id) for finalized_id in ids}
    return {finalized_id: row for finalized_id, row in found.items() if row is not None}


def _same_rows(view: SidecarView, ids: list[str]) -> None:
    """`retained_many(ids)` equals the one-id lookups, and a row several ids name is one
    object."""
    batched = view.retained_many(ids)
    assert batched == _one_by_one(view, ids)
    # Rows that are equal are one stored row (each row's identity columns are its own).
    by_row: dict[tuple[object, ...], int] = {}
    for row in batched.values():
        assert by_row.setdefault(msgspec.structs.astuple(row), id(row)) == id(row)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(POOL), max_size=2 * sidecar_module._BATCH + 100))
def test_batched_lookups_equal_one_lookup_per_id(view: SidecarView, ids: list[str]) -> None:
    """Any list of ids (repeats, aliases, dangling entries, unknown ids, any length up to two
    batches and more): the batched rows are the one-id lookups' rows."""
    _same_rows(view, ids)


def _edges() -> list[int]:
    sizes = sidecar_module._BATCH_SIZES
    counts = {1, 2, 2 * sidecar_module._BATCH + 1, len(INDEXED)}
    counts |= {size + step for size in sizes for step in (-1, 0, 1)}
    return sorted(count for count in counts if 0 < count <= len(INDEXED))


@pytest.mark.parametrize("count", _edges())
def test_every_batch_size_returns_every_row(view: SidecarView, count: int) -> None:
    """At each padded size's edges (one below, at, one above), and across batches: `count`
    indexed ids give `count` rows, the one-id lookups' rows."""
    ids = INDEXED[:count]
    rows = view.retained_many(ids)
    assert len(rows) == count
    assert rows == _one_by_one(view, ids)


def test_no_ids_no_query(view: SidecarView) -> None:
    """An empty lookup is an empty answer."""
    assert view.retained_many([]) == {}


def test_batch_sizes_stay_within_the_bound_parameter_limit() -> None:
    """The padded sizes rise to `_BATCH`, which the connection's variable limit admits."""
    sizes = sidecar_module._BATCH_SIZES
    assert list(sizes) == sorted(set(sizes))
    assert sizes[-1] == sidecar_module._BATCH
    assert sidecar_module._SQLITE_LIMITS[sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER] >= sizes[-1]
