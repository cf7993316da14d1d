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

import ctypes
import dataclasses
import gc
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, replace
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from clearing_analysis import interrupts
from clearing_analysis.codes.errors import (
    AnalysisError,
    SidecarNotOfflineError,
    SnapshotChangedDetail,
    SnapshotChangedError,
)
from clearing_analysis.eligibility import Assessment, Bound, assess, count_occurrences
from clearing_analysis.eligibility.totals import Totals, combine, totals_of
from clearing_analysis.inputs.configs import AgentConfig, AppAllowlist, Routes
from clearing_analysis.inputs.period import EVERYTHING, Period
from clearing_analysis.inputs.sidecar import SidecarView, open_sidecar
from clearing_analysis.journal.header import PHYSICAL_KEY_PREFIX, grouping_keys
from clearing_analysis.replay.arguments import ArgumentKey
from clearing_analysis.replay.journal_replay import replay_journal
from clearing_analysis.replay.merge import merge
from clearing_analysis.replay.model import JournalOutcome
from clearing_analysis.replay.pi_replay import replay_history

if TYPE_CHECKING:  # imported where it runs: the evidence-only replay never loads the simulation
    from clearing_analysis.simulation.totals import Combiner, SimulationTotals
    from clearing_analysis.simulation.unit import UnitSimulation


@dataclass(frozen=True, slots=True)
class Unit:
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


@dataclass(frozen=True, slots=True)
class Settings:
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
    argument_key: ArgumentKey | None = dataclasses.field(default_factory=ArgumentKey.generate)
    # --by: the combination keeps the usage by journal, day and model (one row per journal:
    # what grows with the corpus, so only when the tables are asked for).
    usage_by: bool = False


@dataclass(frozen=True, slots=True)
class UnitOutput:
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


# Per-process state of a pool worker: its own read-only sidecar view (none for pi sessions),
# opened by its first unit, or the fixed error opening it gave.
_worker_started = False
_worker_sidecar: tuple[Path, SidecarView] | None = None
_worker_error: AnalysisError | None = None


def _init_worker(parent: int) -> None:
    """A spawned worker's start: end with the parent, then import what a unit needs (the
    simulation's plain-Python half too), then freeze the import-time heap, so the cycle
    collector's full passes during replay never walk the modules' objects again (they live as
    long as the process)."""
    global _worker_started  # noqa: PLW0603  (one per process)
    _end_with_parent(parent)
    import clearing_analysis.simulation.unit  # noqa: F401, PLC0415

    gc.freeze()
    _worker_started = True


# prctl(2) option: the signal this process gets when the thread that made it ends.
_PR_SET_PDEATHSIG = 1


def _end_with_parent(parent: int) -> None:
    """A worker ignores SIGINT (a Ctrl-C reaches the whole process group: the parent decides,
    and ends the workers), writes nothing on stderr (its own is /dev/null, as it was spawned:
    anything a worker has to say reaches the parent as a result or a fixed error) and is
    killed when its parent ends, however it ends (Linux's parent-death signal, SIGKILL); if
    the parent ended before that was set, the worker leaves at once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a pending one, held since the spawn, too
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    devnull = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
    os.dup2(devnull, 2)
    os.close(devnull)
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent:
        os._exit(0)


def _started() -> None:
    """A task that does nothing: submitted once per worker so that every process is spawned
    when the pool is made, not when the first units arrive."""


def _worker_view(sidecar_path: Path | None) -> SidecarView | None:
    """This worker's view of the sidecar, opened once (at its first unit: the main process has
    checked the file's structure by then and submits no unit before)."""
    global _worker_sidecar, _worker_error  # noqa: PLW0603  (one per process)
    if sidecar_path is None:  # pi sessions (explore) are replayed without a sidecar
        return None
    if _worker_error is not None:
        raise _worker_error
    if _worker_sidecar is not None and _worker_sidecar[0] == sidecar_path:
        return _worker_sidecar[1]
    try:
        view = open_sidecar(sidecar_path, check_structure=False)
    except SidecarNotOfflineError:
        # The session found the sidecar offline before replay began: a companion that appears
        # later is a snapshot change, the code a single-process run reports too (R-FS-7).
        _worker_error = SnapshotChangedError(SnapshotChangedDetail.COMPANION_CHANGED)
        raise _worker_error from None
    except AnalysisError as error:
        # Kept, so that every later unit of this worker fails with the same fixed code, which
        # reaches the parent as itself (R-REL-1).
        _worker_error = error
        raise
    if _worker_sidecar is not None:
        _worker_sidecar[1].close()
    _worker_sidecar = (sidecar_path, view)
    return view


def _in_worker(task: tuple[Unit, Settings, Path | None]) -> UnitOutput:
    if not _worker_started:
        raise RuntimeError("unit worker used before initialization")
    unit, settings, sidecar_path = task
    return analyze_unit(unit, settings, _worker_view(sidecar_path))


def _for_unit(settings: Settings, unit: Unit) -> Settings:
    """The settings a worker needs for one unit: the per-run proofs of its conversations."""
    if settings.agent_config is None:
        return settings
    return replace(
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


class UnitPool:
    """Spawned worker processes for units, all started when the pool is made.

    Made as soon as the number of workers is known, before the main process plans the units
    and checks the sidecar, so that the workers' start (an interpreter and the analyzer's
    imports each) runs meanwhile instead of after. Spawned, not forked: a parent that loaded
    polars (a library caller, the demo's journal summary) runs its thread pool, and a forked
    child that calls into it waits forever on threads it did not inherit.

    Workers end with their parent and print nothing (R-REL-6, docs/security.md): they are
    spawned with SIGINT blocked and stderr on /dev/null (`_quiet_spawn`), then ignore SIGINT
    and get SIGKILL when the parent ends (`_end_with_parent`). An interrupt or an error in the
    parent while the pool is open kills the workers at once (they would otherwise finish the
    unit they hold), and multiprocessing's resource tracker, left without a process that
    holds its pipe, removes the pool's semaphores and ends silently. The parent-death signal
    follows the thread that spawned the workers: the thread that makes a pool outlives it
    (the CLI makes it in the main thread).
    """

    def __init__(self, workers: int) -> None:
        if workers < 2:
            raise RuntimeError("a unit pool has at least two workers")
        before = set(multiprocessing.active_children())
        executor: ProcessPoolExecutor | None = None
        try:
            with _quiet_spawn():
                executor = ProcessPoolExecutor(
                    max_workers=workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_init_worker,
                    initargs=(os.getpid(),),
                )
                for _ in range(workers):  # each submission spawns one more process
                    executor.submit(_started)
        except BaseException:  # an interrupt held during the start arrives here
            _kill(set(multiprocessing.active_children()) - before)
            if executor is not None:
                executor.shutdown(wait=True, cancel_futures=True)
            raise
        self._executor = executor
        # The pool's own processes (multiprocessing's resource tracker is not among them).
        self._workers = set(multiprocessing.active_children()) - before

    def __enter__(self) -> UnitPool:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is not None:
            # Interrupted or failed: the units still running are of no use, and the workers
            # ignore SIGINT, so they are ended here rather than waited for.
            _kill(self._workers)
        self.close()

    def close(self) -> None:
        """End the workers (at once, if they are still starting); closing again does nothing."""
        self._executor.shutdown(wait=True, cancel_futures=True)

    def freeze_count(self) -> int:
        """How many objects one of the workers has frozen (`gc.get_freeze_count`)."""
        count: int = self._executor.submit(gc.get_freeze_count).result()
        return count

    def map(self, tasks: Sequence[tuple[Unit, Settings, Path | None]]) -> Iterator[UnitOutput]:
        """The outputs of `tasks`, in submission order (all submitted at once).

        Leaving the outputs early cancels nothing from this thread: the pool's shutdown
        cancels what has not started, in the executor's own thread. `Executor.map` would
        cancel the rest from here, and when an interrupt has just killed the workers, Python
        3.11's executor thread then sets an error on a cancelled future and prints an
        InvalidStateError traceback to stderr (R-REL-6)."""
        futures = [self._executor.submit(_in_worker, task) for task in tasks]
        return (future.result() for future in futures)


def _kill(processes: set[BaseProcess]) -> None:
    for process in processes:
        if process.is_alive():
            process.kill()


@contextmanager
def _quiet_spawn() -> Iterator[None]:
    """What the workers (and multiprocessing's resource tracker) inherit while they are
    spawned: SIGINT blocked, so that a Ctrl-C during their start never reaches their
    interpreter before they ignore it, and stderr on /dev/null, so that nothing a starting
    worker or the tracker might print (an interpreter's message, the tracker's warnings when
    it cleans up after a parent that was killed) reaches the caller's stderr, and no process
    the parent leaves holds that stderr open. The parent's own SIGINT and SIGTERM wait until
    the start is over (`interrupts.deferred`)."""
    with interrupts.deferred():
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            saved = os.dup(2)
        except OSError:  # no stderr at all: the workers inherit none either
            saved = None
        try:
            if saved is not None:
                devnull = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
                os.dup2(devnull, 2)
                os.close(devnull)
            yield
        finally:
            if saved is not None:
                os.dup2(saved, 2)
                os.close(saved)
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def unit_pool(workers: int) -> AbstractContextManager[UnitPool | None]:
    """A started `UnitPool` for more than one worker; None (work in this process) for one."""
    return UnitPool(workers) if workers > 1 else nullcontext()


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
    pool: UnitPool | None,
) -> Generator[UnitOutput, None, None]:
    if pool is None or len(units) < 2:
        with _frozen_heap():
            for unit in units:
                yield analyze_unit(unit, settings, sidecar)
        return
    # map() yields in submission order: the combination below sees the units in order.
    yield from pool.map([(unit, _for_unit(settings, unit), sidecar_path) for unit in units])


@dataclass(frozen=True, slots=True)
class SnapshotAnalysis:
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
    workers: int = 1,
    pool: UnitPool | None = None,
    progress: Progress | None = None,
) -> SnapshotAnalysis:
    """Every unit, combined in order; a second pass when a period attestation is void. The
    units run in `pool` when one is given, else in a pool of `workers` made here when that is
    more than one, else in this process. A pool is closed once its last unit is back, so its
    workers are gone before the units are combined."""
    if workers < 1:
        raise RuntimeError("workers must be at least 1")
    if pool is None and workers > 1:
        with UnitPool(workers) as own:
            return analyze_snapshot(
                units,
                settings,
                sidecar=sidecar,
                sidecar_path=sidecar_path,
                workers=workers,
                pool=own,
                progress=progress,
            )
    done = _pass(
        units, settings, sidecar=sidecar, sidecar_path=sidecar_path, pool=pool, progress=progress
    )
    period = settings.agent_config is not None and settings.agent_config.per_run is None
    if period and len(done.fingerprints) > 1 and settings.period_attestation_valid:
        del done
        void = dataclasses.replace(settings, period_attestation_valid=False)
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


@dataclass
class _Pass:
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
    pool: UnitPool | None,
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
    "UnitPool",
    "analyze_snapshot",
    "analyze_unit",
    "default_workers",
    "plan_units",
    "unit_pool",
]
