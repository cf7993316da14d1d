"""Replay, assessment and the simulation do work near-linear in a history (R-REL-7), counted
without a clock: the Python lines executed in those stages per entry must stay about the same
when the history is four times longer. The walks as first written executed 2.4 times more
lines per entry on a linear pi session four times longer, and 3.9 times more on a journal whose
every turn ends in a checkpoint that keeps from the first entry (where compaction re-walked
the whole context); a logarithmic factor (tree sums) and a few more policies triggering on the
longer history stay well under the bound. bench/history measures the time itself.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from clearing_analysis.eligibility import Bound, assess
from clearing_analysis.inputs.configs import parse_agent_config, parse_routes
from clearing_analysis.inputs.sidecar import open_sidecar
from clearing_analysis.replay.journal_replay import replay_journal
from clearing_analysis.replay.merge import merge
from clearing_analysis.replay.pi_replay import replay_pi_session
from clearing_analysis.simulation.unit import walk
from tests._seed_route import SEED_ROUTE
from tests.pisession.builder import Session, usage
from tests.replay.builder import JournalBuilder, SidecarBuilder

ROUTES = parse_routes([SEED_ROUTE])
WATCHED = ("/clearing_analysis/replay/", "/clearing_analysis/eligibility/", "/simulation/")
# Lines per entry at four times the size, at most this multiple of those at the size.
GROWTH_BOUND = 1.5


def _lines_executed(work: Callable[[], Any]) -> int:
    """Lines executed by `work` in the replay, eligibility and simulation modules."""
    lines = 0

    def local(frame: FrameType, event: str, _arg: object) -> Any:
        nonlocal lines
        if event == "line":
            lines += 1
        return local

    def watch(frame: FrameType, _event: str, _arg: object) -> Any:
        return local if any(part in frame.f_code.co_filename for part in WATCHED) else None

    sys.settrace(watch)
    try:
        work()
    finally:
        sys.settrace(None)
    return lines


def _linear_session(path: Path, entries: int) -> Path:
    """A linear pi session of `entries` entries: prompt, read call, its result, answer."""
    session = Session()
    for turn in range(entries // 4):
        session.tick(400_000)
        session.user(f"turn {turn}")
        (call,) = session.assistant(["read"], usage_=usage(100 + turn, 10))
        session.result(call, "read", text=f"line {turn} " * 50)
        session.assistant(usage_=usage(100 + turn, 10))
    return session.write(path)


def _explore_lines(tmp_path: Path, entries: int) -> float:
    path = _linear_session(tmp_path / f"{entries}.jsonl", entries)

    def work() -> None:
        replayed = merge([replay_pi_session(path, ROUTES)])
        walk(assess(replayed, ROUTES, None, None, bound=Bound.UPPER), ROUTES)

    return _lines_executed(work) / entries


def _checkpointed_lines(tmp_path: Path, turns: int) -> float:
    """A native journal of `turns` read turns, each followed by a checkpoint that keeps from
    the first entry (nothing is ever compacted away), every result retained."""
    directory = tmp_path / str(turns)
    directory.mkdir()
    journal = JournalBuilder()
    sidecar = SidecarBuilder(directory / "history.sqlite", capture_enabled=("p1",))
    for turn in range(turns):
        run = journal.tool_turn(f"t{turn}", [(f"c{turn}", "read")], text="x" * 1500)
        sidecar.retain(("p1", f"t{turn}", run, f"c{turn}"), f"{'x' * 1500} c{turn}")
        journal.checkpoint("summary", first_kept=1)
    journal.close()
    path = journal.write(directory)
    config = parse_agent_config({"builtins": ["read"], "mcpTools": "none"})
    with open_sidecar(sidecar.finish()) as view:

        def work() -> None:
            replayed = merge([replay_journal(path, ROUTES, view)])
            walk(assess(replayed, ROUTES, config, None), ROUTES)

        return _lines_executed(work) / turns


def test_a_linear_session_four_times_longer_costs_the_same_per_entry(tmp_path: Path) -> None:
    """explore's stages on a linear pi session of 300 and 1,200 entries: about the same lines
    per entry."""
    small, large = _explore_lines(tmp_path, 300), _explore_lines(tmp_path, 1200)
    assert large <= GROWTH_BOUND * small, (small, large)


def test_checkpoints_keeping_everything_cost_the_same_per_turn(tmp_path: Path) -> None:
    """analyze's stages on a journal of 100 and 400 turns, each ending in a checkpoint that
    keeps from the first entry: about the same lines per turn."""
    small, large = _checkpointed_lines(tmp_path, 100), _checkpointed_lines(tmp_path, 400)
    assert large <= GROWTH_BOUND * small, (small, large)
