"""SIGINT and SIGTERM around the steps that must not be cut in two (`interrupts`, R-REL-6):
held inside `deferred()`, acted on when it ends unless it settled, SIGTERM an interrupt in a
command, and nothing acted on after a command's outputs are in place. Real signals, raised
at this process (`signal.raise_signal`)."""

from __future__ import annotations

import signal

import pytest

from clearing_analysis import interrupts


def test_a_held_interrupt_acts_when_the_block_ends() -> None:
    """SIGINT inside the block is recorded, the block runs on, and KeyboardInterrupt comes
    as it ends; the handler from before is back."""
    before = signal.getsignal(signal.SIGINT)
    ran_on = False
    with pytest.raises(KeyboardInterrupt), interrupts.deferred() as held:
        signal.raise_signal(signal.SIGINT)
        assert held.interrupted
        ran_on = True
    assert ran_on
    assert signal.getsignal(signal.SIGINT) is before


def test_a_settled_block_drops_what_comes_after() -> None:
    """After `settle()` (the block's point of no return) an interrupt is dropped."""
    with interrupts.deferred() as held:
        held.settle()
        signal.raise_signal(signal.SIGINT)
    assert not held.interrupted


def test_an_ignored_signal_stays_ignored() -> None:
    """A signal the process ignores is not held (nor raised) by the block."""
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with interrupts.deferred() as held:
            signal.raise_signal(signal.SIGINT)
        assert not held.interrupted
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


def test_sigterm_is_an_interrupt_in_a_command() -> None:
    """Inside `command()` SIGTERM raises KeyboardInterrupt, as Ctrl-C does; its default
    comes back when the command ends."""
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), interrupts.command():
        signal.raise_signal(signal.SIGTERM)
    assert signal.getsignal(signal.SIGTERM) is before


def test_after_a_command_s_outputs_are_in_place_interrupts_are_ignored() -> None:
    """A settled block inside a command leaves SIGINT and SIGTERM ignored until the command
    returns (the run is complete), then the handlers from before the command are back."""
    before = (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM))
    with interrupts.command():
        with interrupts.deferred() as held:
            held.settle()
        signal.raise_signal(signal.SIGINT)
        signal.raise_signal(signal.SIGTERM)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
