"""Independent units of a snapshot: replayed, assessed and simulated apart, combined in order.

Every decision that spans journals involves journals that share something in their header:
DUPLICATE journals share a journal id, DUPLICATE boundaries a lineage (logical conversation),
prompt-run counts, unique results, budgets and batches a physical conversation. So the
journals are grouped by the connected components of "shares a journal id, a lineage or a
physical conversation id", read from each file's first line; components are packed in order
into **units** of min(8 MiB, snapshot / 64) or more (a union of independent components is
still independent). A unit keeps the global replay order (R-CLI-2) of its journals; units are
ordered by their first journal.

Each unit is replayed, merged, assessed and (for `analyze`) simulated on its own, in this
process or in a pool worker, and reduced to numbers (`eligibility.totals`,
`simulation.totals`): a worker returns counts and small numeric tables, never the replayed
objects, and holds one unit at a time, so memory follows the largest unit rather than the
corpus (R-PERF-1; docs/performance.md measures what still grows). The parent combines the
units in order, so the result is the same for any number of workers (R-PERF-3). Workers are
spawned interpreters: a script that calls the jobs with more than one worker must guard its
entry point with `if __name__ == "__main__":`, as multiprocessing requires.

One decision needs the whole snapshot: a period attestation is void when the replayed runs show
more than one toolset fingerprint (R-EL-3). Units are first assessed with the attestation
holding and report their fingerprints; if it turns out void, every unit is assessed again with
it void (a second pass, only for a period attestation whose configuration changed).
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import msgspec

from clearing_analysis.eligibility import Assessment, Bound, assess, count_occurrences
from clearing_analysis.eligibility.totals import Totals, combine, totals_of
from clearing_analysis.inputs.configs import AgentConfig, AppAllowlist, Routes
from clearing_analysis.inputs.period import EVERYTHING, Period
from clearing_analysis.inputs.sidecar import SidecarView
from clearing_analysis.journal.header import PHYSICAL_KEY_PREFIX, grouping_keys
from clearing_analysis.replay.arguments import ArgumentKey
from clearing_analysis.replay.journal_replay import replay_journal
from clearing_analysis.replay.merge import merge
from clearing_analysis.replay.model import JournalOutcome
from clearing_analysis.replay.pi_replay import replay_history

if TYPE_CHECKING:  # imported where it runs: the evidence-only replay never loads the simulation
    from clearing_analysis.simulation.totals import Combiner, SimulationTotals
    from clearing_analysis.simulation.unit import UnitSimulation


class Unit(msgspec.Struct, frozen=True):
    """Journals (in replay order) that only decide things among themselves, and the physical
    conversations their headers name (all the per-run proofs they can ask about). The paths
    are text, made pathlib paths only while their unit runs: the units live through the run,
    and a pathlib path costs about half a kilobyte a file."""

    paths: tuple[str, ...]
    sizes: tuple[int, ...]
    physical_conversation_ids: frozenset[str] = frozenset()


# Components are packed into units of at least min(8 MiB, snapshot / 64) journal bytes: the
# simulation's table operations cost about the same for a small component as for a large one,
# so thousands of tiny units would spend their time in that fixed cost, while a small snapshot
# still splits into enough units to keep every worker busy. A function of the snapshot alone,
# so the units (and the report) are the same for any number of workers.
_UNIT_FILL_BYTES = 8 * 1024 * 1024
_UNITS_PER_SNAPSHOT = 64


GroupingKeys = Callable[[Path], tuple[str, ...]]
"""The keys a file shares with related files (a native journal's header ids,
`journal.header.grouping_keys`; an imported history's, `histories.grouping_keys`)."""


def plan_units(
    paths: Sequence[str], sizes: Sequence[int], keys: GroupingKeys = grouping_keys
) -> list[Unit]:
    """Group the journals into units, in deterministic order: the connected components of
    shared `keys` (union-find), packed in order of their first journal (see
    _UNIT_FILL_BYTES), each unit keeping the global order of its journals."""
    parent = list(range(len(paths)))

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    owner: dict[str, int] = {}
    physical: list[list[str]] = [[] for _ in paths]
    for index, path in enumerate(paths):
        for key in keys(Path(path)):
            if key.startswith(PHYSICAL_KEY_PREFIX):
                physical[index].append(key.removeprefix(PHYSICAL_KEY_PREFIX))
            other = owner.setdefault(key, index)
            if other != index:
                low, high = sorted((root(index), root(other)))
                parent[high] = low
    components: dict[int, list[int]] = {}
    for index in range(len(paths)):
        components.setdefault(root(index), []).append(index)
    fill = min(_UNIT_FILL_BYTES, sum(sizes) // _UNITS_PER_SNAPSHOT)
    packed: list[list[int]] = []
    filled = fill
    for _, members in sorted(components.items()):
        if filled >= fill:
            packed.append([])
            filled = 0
        packed[-1].extend(members)
        filled += sum(sizes[i] for i in members)
    return [
        Unit(
            tuple(paths[i] for i in group),
            tuple(sizes[i] for i in group),
            frozenset(p for i in group for p in physical[i]),
        )
        for group in (sorted(members) for members in packed)
    ]


class Settings(msgspec.Struct, frozen=True):
    """What every unit is analyzed with."""

    routes: Routes
    agent_config: AgentConfig | None
    app_allowlist: AppAllowlist | None
    simulate: bool
    period_attestation_valid: bool
    # explore: imported histories (no sidecar), each file read by the adapter of its format,
    # cleared from the upper bound (docs/explore.md).
    imported: bool = False
    bound: Bound = Bound.LOWER
    # --since / --until: what lies outside is skipped and counted (inputs.period).
    period: Period = EVERYTHING
    # The run's key for argument digests (R-RF-1): made in memory with the settings, reaching
    # the workers in memory with each unit's, never written (replay.arguments).
    argument_key: ArgumentKey | None = msgspec.field(default_factory=ArgumentKey.generate)
    # --by: the combination keeps the usage by journal, day and model (one row per journal:
    # what grows with the corpus, so only when the tables are asked for).
    usage_by: bool = False


class UnitOutput(msgspec.Struct, frozen=True):
    """A unit reduced to numbers, and the toolset fingerprints its runs showed."""

    totals: Totals
    simulation: UnitSimulation | None
    fingerprints: frozenset[str]


def _replayed(
    unit: Unit, settings: Settings, sidecar: SidecarView | None
) -> Iterator[JournalOutcome]:
    if settings.imported:
        # Each file read by the adapter of its own format (pi sessions, Claude Code, R-SRC-1).
        for path in unit.paths:
            yield replay_history(
                Path(path), settings.routes, settings.period, argument_key=settings.argument_key
            )
        return
    if sidecar is None:
        raise RuntimeError("native journals are replayed against the sidecar")
    for path in unit.paths:
        yield replay_journal(
            Path(path),
            settings.routes,
            sidecar,
            settings.period,
            argument_key=settings.argument_key,
        )


def analyze_unit(unit: Unit, settings: Settings, sidecar: SidecarView | None) -> UnitOutput:
    """Replay, merge, assess and (optionally) simulate one unit; reduce it to numbers."""
    replayed = merge(_replayed(unit, settings, sidecar))
    assessment: Assessment = assess(
        replayed,
        settings.routes,
        settings.agent_config,
        settings.app_allowlist,
        period_attestation_valid=settings.period_attestation_valid,
        bound=settings.bound,
        period=settings.period,
    )
    fingerprints = frozenset(
        fp for merged in replayed.journals for fp in merged.journal.toolset_fingerprints
    )
    if not settings.simulate:
        return UnitOutput(totals_of(assessment, count_occurrences(assessment)), None, fingerprints)
    # Plain Python, no polars; the evidence-only replay command never loads the simulation.
    from clearing_analysis.simulation import unit as simulation  # noqa: PLC0415

    walked = simulation.walk(assessment, settings.routes)
    totals = totals_of(assessment, walked.occurrences)
    return UnitOutput(totals, simulation.summarize(walked), fingerprints)


def _for_unit(settings: Settings, unit: Unit) -> Settings:
    """The settings a worker needs for one unit: the per-run proofs of its conversations."""
    if settings.agent_config is None:
        return settings
    return msgspec.structs.replace(
        settings, agent_config=settings.agent_config.restricted_to(unit.physical_conversation_ids)
    )


# Below this many journal bytes a single process is done before a pool's workers have
# started (a spawned worker imports the analyzer: a few tenths of a second of a core).
_POOL_MIN_BYTES = 32 * 1024 * 1024


def default_workers(total_bytes: int) -> int:
    """One worker per available core, or one for a snapshot too small to repay a pool."""
    if total_bytes < _POOL_MIN_BYTES:
        return 1
    return max(1, len(os.sched_getaffinity(0)))


class UnitRunner(Protocol):
    """What runs units in other processes (`pipeline.pool.UnitPool`, which imports this
    module: this one never imports it, so a run in one process never loads multiprocessing)."""

    def map(self, tasks: Sequence[tuple[Unit, Settings, Path | None]]) -> Iterator[UnitOutput]:
        """The outputs of `tasks`, in submission order."""
        ...

    def close(self) -> None:
        """End the workers; closing again does nothing."""
        ...


@contextmanager
def _frozen_heap() -> Iterator[None]:
    """Units replayed in this process: what exists before them (modules, inputs, the session)
    lives through the run, so it is frozen out of the cycle collector's full passes while the
    units make their many short-lived objects, and handed back to it afterwards."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _outputs(
    units: Sequence[Unit],
    settings: Settings,
    sidecar: SidecarView | None,
    sidecar_path: Path | None,
    pool: UnitRunner | None,
) -> Generator[UnitOutput, None, None]:
    if pool is None or len(units) < 2:
        with _frozen_heap():
            for unit in units:
                yield analyze_unit(unit, settings, sidecar)
        return
    # map() yields in submission order: the combination below sees the units in order.
    yield from pool.map([(unit, _for_unit(settings, unit), sidecar_path) for unit in units])


class SnapshotAnalysis(msgspec.Struct, frozen=True):
    """The combined totals (and simulation) of every unit of a snapshot."""

    totals: Totals
    simulation: SimulationTotals | None


Progress = Callable[[int, int], None]
"""Called with (journals done, bytes done) after each unit."""


def analyze_snapshot(
    units: Sequence[Unit],
    settings: Settings,
    *,
    sidecar: SidecarView | None,
    sidecar_path: Path | None,
    pool: UnitRunner | None = None,
    progress: Progress | None = None,
) -> SnapshotAnalysis:
    """Every unit, combined in order; a second pass when a period attestation is void. The
    units run in `pool` when one is given, else in this process. A pool is closed once its
    last unit is back, so its workers are gone before the units are combined."""
    done = _pass(
        units, settings, sidecar=sidecar, sidecar_path=sidecar_path, pool=pool, progress=progress
    )
    period = settings.agent_config is not None and settings.agent_config.per_run is None
    if period and len(done.fingerprints) > 1 and settings.period_attestation_valid:
        del done
        void = msgspec.structs.replace(settings, period_attestation_valid=False)
        done = _pass(
            units, void, sidecar=sidecar, sidecar_path=sidecar_path, pool=pool, progress=None
        )
    if pool is not None:
        pool.close()  # every unit is back: the workers end before the combination
    totals = done.totals
    if not settings.simulate:
        return SnapshotAnalysis(totals, None)
    from clearing_analysis.simulation.totals import Combiner  # noqa: PLC0415

    if done.simulation is None:  # no unit at all
        done.simulation = Combiner(sorted(settings.routes.by_api), usage=settings.usage_by)
    from clearing_analysis.policy import placeholder_text  # noqa: PLC0415
    from clearing_analysis.replay.heuristic import text_tokens  # noqa: PLC0415

    return SnapshotAnalysis(totals, done.simulation.result(text_tokens(placeholder_text())))


class _Pass(msgspec.Struct):
    """One pass over the units: their totals, the fingerprints they showed, and (for
    `analyze`) their simulations, each combined as it arrived (in unit order), so that memory
    holds the sums, never one entry per unit (a snapshot of 100,000 tiny files is 100,000
    units)."""

    totals: Totals
    fingerprints: set[str]
    simulation: Combiner | None


def _pass(
    units: Sequence[Unit],
    settings: Settings,
    *,
    sidecar: SidecarView | None,
    sidecar_path: Path | None,
    pool: UnitRunner | None,
    progress: Progress | None,
) -> _Pass:
    done = _Pass(combine((), sorted(settings.routes.by_api)), set(), None)
    journals = done_bytes = 0
    outputs = _outputs(units, settings, sidecar, sidecar_path, pool)
    try:
        for unit, output in zip(units, outputs, strict=True):
            done.totals.add(output.totals)
            done.fingerprints |= output.fingerprints
            if output.simulation is not None:
                if done.simulation is None:
                    from clearing_analysis.simulation.totals import Combiner  # noqa: PLC0415

                    done.simulation = Combiner(
                        sorted(settings.routes.by_api), usage=settings.usage_by
                    )
                done.simulation.add(output.simulation)  # sums and figures: no row is kept
            journals += len(unit.paths)
            done_bytes += sum(unit.sizes)
            if progress is not None:
                progress(journals, done_bytes)
    finally:
        # A pass that ends early (an error, an interrupt) ends its units' generator now, not
        # when a kept traceback lets it go: the heap it froze is handed back at once.
        outputs.close()
    return done


__all__ = [
    "GroupingKeys",
    "Settings",
    "SnapshotAnalysis",
    "Unit",
    "UnitOutput",
    "UnitRunner",
    "analyze_snapshot",
    "analyze_unit",
    "default_workers",
    "plan_units",
]
