"""SIGINT and SIGTERM around the steps that must not be cut in two (R-REL-6).

Python runs a signal's handler in the main thread between two bytecodes, so a Ctrl-C raises
KeyboardInterrupt wherever the main thread happens to be. Two steps must not be cut there:
- giving a run's outputs their names (`inputs.output.create_all`): an interrupt that arrives
  while the names are given must take back the names already given, never leave half a run;
- starting pool workers (`pipeline.pool.UnitPool`): the interrupt must come after the start,
  when the pool is known and can be ended, not inside the executor's own bookkeeping.

`deferred()` records SIGINT and SIGTERM inside a block instead of acting on them (a signal
whose handler is SIG_IGN is left alone). On leaving, the handlers from before are back and
each recorded signal is raised again (`signal.raise_signal`), so that it acts exactly as it
would have: KeyboardInterrupt under the CLI, SIGTERM's default action in a bare library call.
A block that reached its point of no return calls `settle()`: what arrives from then on came
too late to change the outcome and is dropped.

`command()` is the CLI's scope of one command: SIGTERM acts as SIGINT does (KeyboardInterrupt,
then the `INTERRUPTED` line and exit 130), and once a deferred block has settled both signals
are ignored until the command returns, because the run is complete by then. Outside `command()`
a settled block simply restores the handlers.

Handlers can only be set from the main thread; elsewhere both are plain blocks (signals are
handled in the main thread anyway).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM)

_Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None


class Deferred:
    """What arrived while a `deferred()` block ran."""

    def __init__(self) -> None:
        self.arrived: list[int] = []
        self.settled = False

    @property
    def interrupted(self) -> bool:
        """Whether SIGINT or SIGTERM arrived (and was held) so far."""
        return bool(self.arrived)

    def settle(self) -> None:
        """The block is past its point of no return: later signals are dropped."""
        self.settled = True

    def _record(self, signum: int, _frame: FrameType | None) -> None:
        if not self.settled:
            self.arrived.append(signum)


# Whether a CLI command (`command()`) is running in this process.
_in_command = False


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _restore(previous: dict[int, _Handler]) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, signal.SIG_DFL if handler is None else handler)


@contextmanager
def deferred() -> Iterator[Deferred]:
    """Hold SIGINT and SIGTERM for the block; then act on them as they would have acted,
    unless the block settled (module docstring)."""
    held = Deferred()
    if not _in_main_thread():
        yield held
        return
    previous: dict[int, _Handler] = {}
    for signum in SIGNALS:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            previous[signum] = signal.signal(signum, held._record)
    try:
        yield held
    finally:
        if held.settled and _in_command:
            # The run is complete: an interrupt from now on until the command returns is
            # ignored (command() puts the handlers back).
            for ignored in previous:
                signal.signal(ignored, signal.SIG_IGN)
        else:
            _restore(previous)
            if not held.settled:
                for arrived in dict.fromkeys(held.arrived):
                    signal.raise_signal(arrived)


@contextmanager
def command() -> Iterator[None]:
    """The scope of one CLI command: SIGTERM raises KeyboardInterrupt as SIGINT does, and a
    settled `deferred()` block makes both ignored until the scope ends."""
    global _in_command  # noqa: PLW0603  (one command runs at a time in a process)
    if not _in_main_thread():
        yield
        return
    previous: dict[int, _Handler] = {signum: signal.getsignal(signum) for signum in SIGNALS}
    if previous[signal.SIGTERM] is not signal.SIG_IGN:  # an inherited "ignore" is respected
        signal.signal(signal.SIGTERM, signal.default_int_handler)
    outer, _in_command = _in_command, True
    try:
        yield
    finally:
        _in_command = outer
        _restore(previous)


__all__ = ["SIGNALS", "Deferred", "command", "deferred"]
