"""The sidecar's structure check (`PRAGMA quick_check`) runs once per run, in the process that
starts the replay, in a thread beside the units (`StructureCheck`); pool workers open the
checked file without repeating it (R-SC-3, docs/formats/sidecar.md step 6).

Observed on real files, without mocks: the sidecar below is damaged only in a table the
analyzer never reads (an extra table the DDL allows), so `quick_check` refuses it while every
lookup still reads. A worker that checked the structure again would refuse it too; the
workers give the units' totals, and the run as a whole is refused by the one check in the
main process, with or without a pool.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from clearing_analysis.codes.errors import InputInvalidDetail, InputInvalidError
from clearing_analysis.inputs.configs import parse_routes
from clearing_analysis.inputs.requests import AnalyzeRequest
from clearing_analysis.inputs.session import InputSession
from clearing_analysis.inputs.sidecar import StructureCheck, open_sidecar
from clearing_analysis.pipeline.jobs import analyze_job
from clearing_analysis.pipeline.pool import UnitPool
from clearing_analysis.pipeline.units import Settings, analyze_snapshot, plan_units
from tests.synth.corpora import make_corpus


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small synthetic corpus whose sidecar is damaged in an extra, never-read table."""
    corpus = make_corpus(tmp_path_factory, "build", 6)
    sidecar = corpus / "history.sqlite"
    db = sqlite3.connect(sidecar)
    db.execute("CREATE TABLE writer_notes (k TEXT, v TEXT)")
    db.executemany(
        "INSERT INTO writer_notes VALUES (?, ?)", [(str(n), "x" * 50) for n in range(50)]
    )
    db.commit()
    (root,) = db.execute(
        "SELECT rootpage FROM sqlite_master WHERE name = 'writer_notes'"
    ).fetchone()
    (page_size,) = db.execute("PRAGMA page_size").fetchone()
    db.close()
    data = bytearray(sidecar.read_bytes())
    data[(root - 1) * page_size] = 0x00  # no valid b-tree page has this type byte
    sidecar.write_bytes(bytes(data))
    return corpus


def test_the_damage_is_seen_by_the_structure_check_alone(corpus: Path) -> None:
    """The main process's open refuses the file (SIDECAR_DAMAGED); unchecked, it opens and
    its rows read."""
    sidecar = corpus / "history.sqlite"
    with pytest.raises(InputInvalidError) as caught:
        open_sidecar(sidecar)
    assert caught.value.detail is InputInvalidDetail.SIDECAR_DAMAGED
    with open_sidecar(sidecar, check_structure=False) as view:
        assert view.retained_many(["0" * 64]) == {}


def test_pool_workers_never_run_the_structure_check(corpus: Path) -> None:
    """Spawned workers analyze every unit against the damaged file (they open it unchecked,
    as the parent has checked it) and give the totals of one process."""
    sidecar = corpus / "history.sqlite"
    journals = sorted((corpus / "journals").iterdir())
    units = plan_units([str(p) for p in journals], [path.stat().st_size for path in journals])
    assert len(units) >= 2
    routes = parse_routes(json.loads((corpus / "routes.json").read_text()))
    settings = Settings(routes, None, None, False, period_attestation_valid=True)
    with open_sidecar(sidecar, check_structure=False) as view:
        alone = analyze_snapshot(units, settings, sidecar=view, sidecar_path=sidecar)
    with UnitPool(2) as pool:
        pooled = analyze_snapshot(units, settings, sidecar=None, sidecar_path=sidecar, pool=pool)
    assert pooled.totals == alone.totals
    assert pooled.totals.replayed_journals > 0


@pytest.mark.parametrize("workers", [1, 2])
def test_the_run_is_refused_by_the_one_check(corpus: Path, tmp_path: Path, workers: int) -> None:
    """`analyze` with one worker or a pool: INPUT_INVALID SIDECAR_DAMAGED, from the check the
    main process runs beside the units."""
    copy = tmp_path / "corpus"
    shutil.copytree(corpus, copy)
    request = AnalyzeRequest(
        journals=(copy / "journals",),
        sidecar=copy / "history.sqlite",
        routes=copy / "routes.json",
        workers=workers,
    )
    with pytest.raises(InputInvalidError) as caught:
        analyze_job(request)
    assert caught.value.detail is InputInvalidDetail.SIDECAR_DAMAGED


def test_the_check_beside_the_units_answers_when_waited_for(corpus: Path, tmp_path: Path) -> None:
    """On the damaged file the thread's check refuses when waited for; on an intact copy (the
    extra table dropped) it returns; cancelled, it says nothing."""
    with pytest.raises(InputInvalidError) as caught:
        StructureCheck(corpus / "history.sqlite").wait()
    assert caught.value.detail is InputInvalidDetail.SIDECAR_DAMAGED
    StructureCheck(corpus / "history.sqlite").cancel()
    intact = _copy(corpus, tmp_path, damaged=False)
    StructureCheck(intact / "history.sqlite").wait()


def _copy(corpus: Path, tmp_path: Path, *, damaged: bool) -> Path:
    """A copy of the corpus; without the damage, its sidecar rebuilt from the readable tables."""
    copy = tmp_path / ("damaged" if damaged else "intact")
    shutil.copytree(corpus, copy)
    if not damaged:
        sidecar = copy / "history.sqlite"
        rebuilt = copy / "rebuilt.sqlite"
        source = sqlite3.connect(f"file:{sidecar}?mode=ro", uri=True)
        target = sqlite3.connect(rebuilt)
        for (sql,) in source.execute(
            "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name != 'writer_notes'"
        ).fetchall():
            target.execute(sql)
        for (name,) in source.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'writer_notes'"
        ).fetchall():
            rows = source.execute(f'SELECT * FROM "{name}"').fetchall()
            if rows:
                marks = ", ".join("?" * len(rows[0]))
                target.executemany(f'INSERT INTO "{name}" VALUES ({marks})', rows)
        target.commit()
        source.close()
        target.close()
        rebuilt.replace(sidecar)
    return copy


class _UnitError(Exception):
    """What a unit that read the damage might raise."""


@pytest.mark.parametrize("damaged", [True, False])
def test_an_error_in_the_replay_gives_way_to_the_damage(
    corpus: Path, tmp_path: Path, damaged: bool
) -> None:
    """An error raised while the units run becomes SIDECAR_DAMAGED when the file is damaged
    (as when the check ran before them), and stays itself when the file is intact."""
    copy = _copy(corpus, tmp_path, damaged=damaged)
    request = AnalyzeRequest(
        journals=(copy / "journals",), sidecar=copy / "history.sqlite", routes=copy / "routes.json"
    )
    session = InputSession.open(request)
    expected: type[Exception] = InputInvalidError if damaged else _UnitError
    with pytest.raises(expected) as caught, session.sidecar_checked_meanwhile() as view:
        assert view.retained_many(["0" * 64]) == {}
        raise _UnitError
    if damaged:
        assert isinstance(caught.value, InputInvalidError)
        assert caught.value.detail is InputInvalidDetail.SIDECAR_DAMAGED
