"""Independent units (R-PERF-1, R-PERF-3): grouping by header, exact decomposition, one and
two workers, and the period attestation decided over the whole snapshot."""

from __future__ import annotations

import gc
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

import pytest

from clearing_analysis.eligibility import ExclusionReason, assess, count_occurrences
from clearing_analysis.eligibility.totals import Totals, combine, totals_of
from clearing_analysis.inputs.configs import AgentConfig
from clearing_analysis.inputs.sidecar import open_sidecar
from clearing_analysis.pipeline.pool import UnitPool
from clearing_analysis.pipeline.units import (
    Settings,
    Unit,
    analyze_snapshot,
    default_workers,
    plan_units,
)
from clearing_analysis.replay import JournalSkipReason, replay_journals
from tests.eligibility.helpers import PERIOD, Target, pad, write_target
from tests.replay.builder import JournalBuilder, SidecarBuilder, agent_config, routes


def _pool_of(workers: int) -> AbstractContextManager[UnitPool | None]:
    """A started pool for more than one worker, else None (the units run in this process)."""
    return UnitPool(workers) if workers > 1 else nullcontext()


@pytest.fixture
def sidecar_builder(tmp_path: Path) -> SidecarBuilder:
    """A sidecar with capture enabled for the corpus's conversations p0..p3."""
    return SidecarBuilder(tmp_path / "history.sqlite", capture_enabled=("p0", "p1", "p2", "p3"))


def _write(directory: Path, builders: list[JournalBuilder]) -> list[Path]:
    directory.mkdir(exist_ok=True)
    return [b.write(directory, f"{i:02d}.jsonl") for i, b in enumerate(builders)]


def _unit(paths: list[Path]) -> Unit:
    return Unit(tuple(str(p) for p in paths), tuple(p.stat().st_size for p in paths))


def _plan(paths: list[Path]) -> list[Unit]:
    """The units of `paths`, given as the session gives them: as text, with their sizes."""
    return plan_units([str(p) for p in paths], [p.stat().st_size for p in paths])


def _names(units: list[Unit]) -> list[list[str]]:
    assert all(isinstance(p, str) for unit in units for p in unit.paths)  # kept as text
    return [[Path(p).name for p in unit.paths] for unit in units]


def test_units_are_connected_by_journal_lineage_or_physical_conversation(
    tmp_path: Path,
) -> None:
    """00 and 03 share a journal id, 03 and 05 a lineage, 05 and 01 a physical conversation:
    one unit, in replay order; 02 and 04 stand alone; a file without a header is alone."""
    builders = [
        JournalBuilder(journal_id="a", physical="p1", logical="l1"),
        JournalBuilder(journal_id="b", physical="p4", logical="l4"),
        JournalBuilder(journal_id="c", physical="p2", logical="l2"),
        JournalBuilder(journal_id="a", physical="p3", logical="l3"),
        JournalBuilder(journal_id="d", physical="p5", logical="l5"),
        JournalBuilder(journal_id="e", physical="p4", logical="l3"),
    ]
    paths = _write(tmp_path / "journals", builders)
    headless = tmp_path / "journals" / "06.jsonl"
    headless.write_bytes(b'{"seq": 0, "kind": "turn_start"}\n')
    paths.append(headless)
    units = _plan(paths)
    assert _names(units) == [
        ["00.jsonl", "01.jsonl", "03.jsonl", "05.jsonl"],
        ["02.jsonl"],
        ["04.jsonl"],
        ["06.jsonl"],
    ]
    assert units[0].sizes == tuple(paths[i].stat().st_size for i in (0, 1, 3, 5))


def test_small_components_are_packed_into_units_in_order(tmp_path: Path) -> None:
    """Independent journals are packed in order until a unit holds a 64th of the snapshot:
    the large first journal is a unit alone, the three after it share one."""
    builders = [
        JournalBuilder(journal_id=f"j{i}", physical=f"p{i}", logical=f"l{i}") for i in range(4)
    ]
    paths = _write(tmp_path / "journals", builders)
    units = plan_units([str(p) for p in paths], [1000, 1, 1, 1000])
    assert _names(units) == [["00.jsonl"], ["01.jsonl", "02.jsonl", "03.jsonl"]]
    assert [unit.sizes for unit in units] == [(1000,), (1, 1, 1000)]


def _corpus(directory: Path) -> list[Path]:
    """Duplicates of both kinds, an interrupted journal and independent conversations."""
    builders = []
    for i in range(8):
        b = JournalBuilder(journal_id=f"j{i % 6}", physical=f"p{i % 4}", logical=f"l{i % 4}")
        b.tool_turn(f"t{i}", [(f"c{i}", "read")])
        b.plain_turn("shared")
        if i == 4:
            b.turn("x")
            b.run("rx", "x")
            b.run_end("rx", "interrupted")
        b.close()
        builders.append(b)
    return _write(directory, builders)


def _settings(
    config: AgentConfig | None = None, *, simulate: bool = False, usage_by: bool = False
) -> Settings:
    return Settings(
        routes(), config, None, simulate, period_attestation_valid=True, usage_by=usage_by
    )


def _whole(paths: list[Path], sidecar: SidecarBuilder, config: AgentConfig | None) -> Totals:
    """The snapshot replayed and assessed as one piece, without units."""
    with open_sidecar(sidecar.path) as view:
        assessment = assess(replay_journals(paths, routes(), view), routes(), config)
    return combine([totals_of(assessment, count_occurrences(assessment))], sorted(routes().by_api))


def test_units_add_up_to_the_whole_snapshot(
    tmp_path: Path, sidecar_builder: SidecarBuilder
) -> None:
    """Splitting into units changes no count: duplicates, skips and per-API totals are those
    of the snapshot replayed as one piece, with one worker and with two."""
    paths = _corpus(tmp_path / "journals")
    sidecar_builder.finish()
    units = _plan(paths)
    assert _names(units) == [
        ["00.jsonl", "02.jsonl", "04.jsonl", "06.jsonl"],
        ["01.jsonl", "03.jsonl", "05.jsonl", "07.jsonl"],
    ]
    whole = _whole(paths, sidecar_builder, None)
    assert whole.skipped_journals[JournalSkipReason.DUPLICATE] == 2
    assert whole.skipped_journals[JournalSkipReason.INTERRUPTED] == 1
    with open_sidecar(sidecar_builder.path) as view:
        for workers in (1, 2):
            with _pool_of(workers) as pool:
                analysis = analyze_snapshot(
                    units,
                    _settings(),
                    sidecar=view,
                    sidecar_path=sidecar_builder.path,
                    pool=pool,
                )
            assert analysis.totals == whole
            assert analysis.simulation is None


def test_simulation_totals_equal_for_one_and_two_workers(
    tmp_path: Path, sidecar_builder: SidecarBuilder
) -> None:
    """The simulated sums and figures come back from spawned workers in unit order."""
    paths = _corpus(tmp_path / "journals")
    sidecar_builder.finish()
    units = _plan(paths)
    with open_sidecar(sidecar_builder.path) as view, UnitPool(2) as pool:
        one, two = (
            analyze_snapshot(
                units,
                _settings(simulate=True, usage_by=True),
                sidecar=view,
                sidecar_path=sidecar_builder.path,
                pool=runner,
            )
            for runner in (None, pool)
        )
    assert one.simulation is not None and two.simulation is not None
    assert one.totals == two.totals
    assert one.simulation.per_api == two.simulation.per_api
    assert one.simulation.usage == two.simulation.usage and one.simulation.usage
    assert one.simulation.refetches == two.simulation.refetches
    assert sum(sums.boundaries.boundaries for sums in one.simulation.per_api.values()) > 0


def test_a_pool_made_before_planning_serves_the_units_and_is_closed_after(
    tmp_path: Path, sidecar_builder: SidecarBuilder
) -> None:
    """A pool made before the units are planned (as the jobs make it), whose workers have
    frozen their import-time heap, gives the same totals as one process and is closed once
    the last unit is back (its workers end before the combination)."""
    paths = _corpus(tmp_path / "journals")
    sidecar_builder.finish()
    units = _plan(paths)
    whole = _whole(paths, sidecar_builder, None)
    with UnitPool(2) as pool, open_sidecar(sidecar_builder.path) as view:
        frozen = [pool.freeze_count() for _ in range(4)]
        analysis = analyze_snapshot(
            units, _settings(), sidecar=view, sidecar_path=sidecar_builder.path, pool=pool
        )
        with pytest.raises(RuntimeError):
            pool.freeze_count()
    assert min(frozen) > 0
    assert analysis.totals == whole


def test_units_in_this_process_hand_the_heap_back(
    tmp_path: Path, sidecar_builder: SidecarBuilder
) -> None:
    """The heap frozen while units replay in this process is unfrozen afterwards, so a caller's
    objects stay collectable: nothing is left frozen beyond what was before. (Less may be: the
    unfreeze also hands back what a replay earlier in this process froze once, through
    `journal_replay._freeze_heap_once`, which is why the count is compared with <=.)"""
    paths = _corpus(tmp_path / "journals")
    sidecar_builder.finish()
    units = _plan(paths)
    before = gc.get_freeze_count()
    with open_sidecar(sidecar_builder.path) as view:
        analyze_snapshot(units, _settings(), sidecar=view, sidecar_path=sidecar_builder.path)
    assert gc.get_freeze_count() <= before


def _period_corpus(directory: Path, later_fingerprint: str) -> list[Path]:
    """The target read result in p1 (fingerprint fp-1) and a separate conversation p2."""
    target = JournalBuilder(journal_id="j1", physical="p1", logical="l1")
    write_target(target, Target(fingerprint="fp-1"))
    pad(target, "fp-1")
    target.close()
    later = JournalBuilder(journal_id="j2", physical="p2", logical="l2")
    later.tool_turn("u1", [("x", "read")], fingerprint=later_fingerprint)
    later.close()
    return _write(directory, [target, later])


def test_a_toolset_change_in_another_unit_voids_the_period_attestation(
    tmp_path: Path,
) -> None:
    """R-EL-3 over the whole snapshot: the second fingerprint lives in a unit of its own, and
    the units are assessed again with the attestation void, as the whole snapshot is."""
    for later_fingerprint, proven in (("fp-2", False), ("fp-1", True)):
        root = tmp_path / later_fingerprint
        root.mkdir()
        paths = _period_corpus(root / "journals", later_fingerprint)
        sidecar = SidecarBuilder(root / "history.sqlite", capture_enabled=("p1", "p2"))
        sidecar.finish()
        units = _plan(paths)
        assert len(units) == 2
        config = agent_config(PERIOD)
        whole = _whole(paths, sidecar, config)
        with open_sidecar(sidecar.path) as view:
            analysis = analyze_snapshot(
                units, _settings(config), sidecar=view, sidecar_path=sidecar.path
            )
        assert analysis.totals == whole
        unproven = sum(
            api.occurrences.by_reason[ExclusionReason.IDENTITY_UNPROVEN]
            for api in whole.per_api.values()
        )
        assert (unproven == 0) is proven


def test_default_workers_keeps_small_snapshots_in_one_process() -> None:
    """A pool is started by default only when the snapshot is large enough to repay it."""
    assert default_workers(1024) == 1
    assert default_workers(1 << 40) >= 1


def test_leaving_a_pools_outputs_early_cancels_nothing_from_the_callers_thread(
    tmp_path: Path, sidecar_builder: SidecarBuilder
) -> None:
    """The caller stops after the first output with many units still queued: none of their
    futures is cancelled from the caller's thread (the pool's shutdown cancels them in the
    executor's own thread). Futures cancelled from here are what made Python 3.11's executor
    thread, once an interrupt had killed the workers, set an error on a cancelled future and
    print an InvalidStateError traceback to stderr."""
    paths = _corpus(tmp_path / "journals")
    sidecar_builder.finish()
    units = _plan(paths) * 40  # many queued units
    with UnitPool(2) as pool:
        outputs = pool.map([(unit, _settings(), sidecar_builder.path) for unit in units])
        next(outputs)
        del outputs  # the generator closes, as when the job leaves its loop
        # The executor's own record of the units not yet done (a private attribute: the
        # only place the state of the queued units can be read).
        queued = list(pool._executor._pending_work_items.values())
        assert queued  # not vacuous: units were still queued
        assert not any(item.future.cancelled() for item in queued)
