"""Spawned worker processes for the units of a snapshot (`pipeline.units`), used when a run
has more than one worker.

Kept apart from `pipeline.units` so that a run in one process never imports multiprocessing,
concurrent.futures or ctypes (docs/performance.md, "Start-up"): the jobs import this module
only to make a pool, and `units` never imports it (`units.UnitRunner` is the protocol
`units.analyze_snapshot` runs units through). A worker runs `units.analyze_unit` on one unit
at a time and returns its numbers (`units.UnitOutput`).
"""

from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import TracebackType

from clearing_analysis import interrupts
from clearing_analysis.codes.errors import (
    AnalysisError,
    SidecarNotOfflineError,
    SnapshotChangedDetail,
    SnapshotChangedError,
)
from clearing_analysis.inputs.sidecar import SidecarView, open_sidecar
from clearing_analysis.pipeline.units import Settings, Unit, UnitOutput, analyze_unit

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


__all__ = ["UnitPool"]
