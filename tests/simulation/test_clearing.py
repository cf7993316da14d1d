"""The step-by-step simulation (R-SIM-4, R-SIM-8..10) on hand-built conversations.

Sizes are chosen so every number is exact: a read result of 80,112 characters is 20,028
heuristic tokens, 20,000 net of the 28-token placeholder; ten 100-character reads in a later
turn keep the "ten latest tool starts" window away from the older results.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from clearing_analysis.eligibility import Assessment, count_occurrences
from clearing_analysis.inputs.configs import Api
from clearing_analysis.simulation.run import Simulation
from tests.simulation.scenario import COLD, Conversation, run

BIG = 80_112  # 20,028 tokens: 20,000 net
MIB = 1024 * 1024
PADS = [100] * 10  # ten tool starts of 25 tokens each (net -3: never cleared)


def _rows(simulation: Simulation) -> list[dict[str, object]]:
    return simulation.boundaries.to_dicts()


def _base(tmp_path: Path) -> tuple[Assessment, Simulation]:
    c = Conversation()
    c.turn("t0", reads=[BIG, 400], e_next=100_000)
    c.turn("t1", reads=PADS, e_next=100_000)
    c.quiet("t2")
    c.turn("t3", e_next=160_000)
    c.turn("t4", gap=COLD, e_next=150_000)
    c.turn("t5", gap=COLD, e_next=100_000)
    return run(tmp_path, [c])


def test_cold_pressured_boundary_clears_oldest_unprotected_results(tmp_path: Path) -> None:
    """At t4 (cold, E 160,000 in [150,000, 200,000)) the two results of t0 are cleared,
    oldest first: 20,000 + 72 net tokens; t1's results are protected (recent prompt turn)."""
    _, sim = _base(tmp_path)
    rows = _rows(sim)
    t4 = rows[4]
    assert (t4["estimate"], t4["effective"], t4["cold"], t4["pressured"]) == (
        160_000,
        160_000,
        True,
        True,
    )
    assert (t4["clearing_point"], t4["cleared_results"], t4["admitted_net"]) == (True, 2, 20_072)
    assert t4["admitted_bytes"] == BIG + 400
    assert sim.cleared.get_column("net_tokens").to_list() == [20_000, 72]
    assert [r["cleared_results"] for r in rows] == [0, 0, 0, 0, 2, 0]
    assert rows[0]["gap_ms"] is None  # the first request has no gap


def test_recent_prompt_turns_are_protected(tmp_path: Path) -> None:
    """A large result of t2 (one of the three prompt turns before t4) is not cleared at t4;
    t0's is."""
    c = Conversation()
    c.turn("t0", reads=[BIG], e_next=100_000)
    c.turn("t1", reads=PADS, e_next=100_000)
    c.turn("t2", reads=[BIG], e_next=100_000)
    c.turn("t3", e_next=160_000)
    c.turn("t4", gap=COLD, e_next=100_000)
    _, sim = run(tmp_path, [c])
    assert sim.cleared.select("result_turn", "net_tokens").rows() == [(0, 20_000)]


def test_ten_latest_tool_starts_are_protected(tmp_path: Path) -> None:
    """t0's result is four prompt turns old at t4 but still among the ten latest tool starts
    (nothing started since): protected, nothing cleared."""
    c = Conversation()
    c.turn("t0", reads=[BIG], e_next=100_000)
    c.quiet("t1", "t2")
    c.turn("t3", e_next=160_000)
    c.turn("t4", gap=COLD, e_next=100_000)
    _, sim = run(tmp_path, [c])
    t4 = _rows(sim)[4]
    assert (t4["clearing_point"], t4["cleared_results"]) == (True, 0)


def test_later_boundary_uses_effective_occupancy(tmp_path: Path) -> None:
    """t5 is cold and pressured by native E (150,000) but its effective occupancy is
    129,928 after the earlier clearing: no clearing, yet it stays in criterion 3's
    denominator with 0 admitted (R-SIM-10)."""
    _, sim = _base(tmp_path)
    t5 = _rows(sim)[5]
    assert (t5["estimate"], t5["effective"]) == (150_000, 150_000 - 20_072)
    assert (t5["cold_pressured"], t5["clearing_point"], t5["admitted_net"]) == (True, False, 0)


def test_warm_or_unpressured_boundaries_never_clear(tmp_path: Path) -> None:
    """A warm boundary in the band, and cold ones below the band or at T, clear nothing."""
    c = Conversation()
    c.turn("t0", reads=[BIG], e_next=100_000)
    c.turn("t1", reads=PADS, e_next=100_000)
    c.quiet("t2")
    c.turn("t3", e_next=170_000)
    c.turn("t4", e_next=149_999)  # warm, in band
    c.turn("t5", gap=COLD, e_next=200_000)  # cold, below the band
    c.turn("t6", gap=COLD, e_next=100_000)  # cold, at T: not pressured
    _, sim = run(tmp_path, [c])
    rows = _rows(sim)
    assert [(r["cold"], r["pressured"]) for r in rows[4:]] == [
        (False, True),
        (True, False),
        (True, False),
    ]
    assert sim.cleared.height == 0


def test_results_with_no_net_saving_are_skipped_not_stopping(tmp_path: Path) -> None:
    """A 25-token result (net -3) is never cleared; the larger one after it still is."""
    c = Conversation()
    c.turn("t0", reads=[100, BIG], e_next=100_000)
    c.turn("t1", reads=PADS, e_next=100_000)
    c.quiet("t2")
    c.turn("t3", e_next=160_000)
    c.turn("t4", gap=COLD, e_next=100_000)
    _, sim = run(tmp_path, [c])
    assert sim.cleared.get_column("net_tokens").to_list() == [20_000]


def test_budget_stops_at_the_first_result_that_does_not_fit(tmp_path: Path) -> None:
    """Three 3 MiB results and a small one: two fit the 8 MiB budget, the third does not and
    clearing stops there, so the small fourth is not cleared either."""
    c = Conversation()
    c.turn("t0", reads=[3 * MIB, 3 * MIB, 3 * MIB, BIG], e_next=100_000)
    c.turn("t1", reads=PADS, e_next=100_000)
    c.quiet("t2")
    c.turn("t3", e_next=160_000)
    c.turn("t4", gap=COLD, e_next=100_000)
    _, sim = run(tmp_path, [c])
    t4 = _rows(sim)[4]
    assert (t4["cleared_results"], t4["budget_stopped"]) == (2, True)
    assert t4["admitted_bytes"] == 6 * MIB


def _batches(tmp_path: Path, *, checkpoint: bool) -> tuple[Assessment, Simulation]:
    c = Conversation()
    c.turn("t0", reads=[BIG], e_next=100_000)
    c.turn("t1", reads=PADS, e_next=100_000)
    c.quiet("t2")
    c.turn("t3", e_next=160_000)
    c.turn("t4", gap=COLD, e_next=100_000)  # clears t0's result (the first batch)
    c.turn("t5", reads=[BIG], e_next=100_000)
    c.turn("t6", reads=PADS, e_next=100_000)
    if checkpoint:
        c.checkpoint(keep_from_turn="t5")  # compacts t0's cleared placeholder away
    c.turn("t7", e_next=175_000)
    c.turn("t8", gap=COLD, e_next=175_000)  # 8 - 4 = 4 completed prompt runs: closed
    c.turn("t9", gap=COLD, e_next=100_000)  # 9 - 4 = 5: open
    return run(tmp_path, [c])


def test_batches_need_five_completed_prompt_runs(tmp_path: Path) -> None:
    """After the batch at t4 (4 completed prompt runs before it), t8 (8 runs) is closed and
    t9 (9 runs) is open, although both are cold with effective occupancy in the band."""
    _, sim = _batches(tmp_path, checkpoint=False)
    rows = _rows(sim)
    assert [r["batch_open"] for r in rows[4:]] == [True, False, False, False, False, True]
    assert [r["effective"] for r in rows[8:]] == [155_000, 155_000]
    assert [r["clearing_point"] for r in rows[8:]] == [False, True]
    assert sim.cleared.get_column("net_tokens").to_list() == [20_000, 20_000]


def _pins(tmp_path: Path, *, checkpoint: bool) -> Simulation:
    """T = 4,000,000 so that a cleared 3 MiB result (786,404 net) can stay in context while a
    later boundary is still in the band: the 8 MiB budget then decides."""
    c = Conversation()
    c.turn("t0", reads=[3 * MIB], e_next=100_000)
    c.turn("t1", reads=PADS, e_next=100_000)
    c.quiet("t2")
    c.turn("t3", e_next=3_500_000)
    c.turn("t4", gap=COLD, e_next=100_000)  # clears t0 (3 MiB pinned)
    c.turn("t5", reads=[6 * MIB], e_next=100_000)
    c.turn("t6", reads=PADS, e_next=100_000)
    if checkpoint:
        c.checkpoint(keep_from_turn="t5")
    c.quiet("t7", "t8")
    c.turn("t9", e_next=3_900_000)
    c.turn("t10", gap=COLD, e_next=100_000)
    return run(tmp_path, [c], trigger=4_000_000)[1]


def test_compaction_releases_the_pin_not_the_count(tmp_path: Path) -> None:
    """While t0's cleared 3 MiB result is in context, 5 MiB remain and t5's 6 MiB result does
    not fit; once a checkpoint compacts t0's placeholder away its pin returns and t5's result
    is cleared. t0 stays counted once either way."""
    released = _pins(tmp_path / "released", checkpoint=True)
    pinned = _pins(tmp_path / "pinned", checkpoint=False)
    assert released.cleared.get_column("text_bytes").to_list() == [3 * MIB, 6 * MIB]
    assert pinned.cleared.get_column("text_bytes").to_list() == [3 * MIB]
    last = _rows(pinned)[10]
    assert (last["clearing_point"], last["budget_stopped"]) == (True, True)


def test_requests_carry_cleared_tokens_until_compacted(tmp_path: Path) -> None:
    """Requests of t4..t6 carry t0's cleared net tokens; after the checkpoint that compacts
    it, none do until the next clearing (R-CM-7 removed.observed)."""
    _, sim = _batches(tmp_path, checkpoint=True)
    net = 20_000
    carried = (
        sim.requests.group_by("boundary", maintain_order=True)
        .agg(pl.col("cleared_tokens_carried").max())
        .get_column("cleared_tokens_carried")
        .to_list()
    )
    assert carried[:4] == [0, 0, 0, 0]
    assert carried[4:7] == [net, net, net]
    assert carried[7:9] == [0, 0]
    assert carried[9] == net  # t9 cleared t5's result


def test_occurrence_counts_agree_with_the_replay_summary(tmp_path: Path) -> None:
    """The simulation counts every occurrence where it arises: the same counts as the
    replay summary's independent sweep."""
    assessment, sim = _batches(tmp_path, checkpoint=True)
    expected = count_occurrences(assessment)[Api.ANTHROPIC_MESSAGES]
    got = sim.occurrences[Api.ANTHROPIC_MESSAGES]
    assert (got.by_class, got.by_reason) == (expected.by_class, expected.by_reason)
    assert got.total > 0


def test_growth_spans_the_counted_window_plus_compaction(tmp_path: Path) -> None:
    """G = E(last) - E(first) + (tokensBefore - tokensAfter) of the checkpoint between them."""
    assessment, sim = _batches(tmp_path, checkpoint=True)
    estimates = [b.estimate for b in assessment.boundaries]
    growth = sim.growth[Api.ANTHROPIC_MESSAGES]
    assert growth.boundary_span == estimates[-1] - estimates[0]
    assert growth.compaction_removed == 190_000 - 30_000
    assert growth.total == growth.boundary_span + 160_000
    assert len(growth.checkpoints) == 1


def test_a_trailing_compaction_counts_and_ends_the_window(tmp_path: Path) -> None:
    """A checkpoint after the last counted boundary (the history ended after compacting) is
    observed, and extends the window: G = tokensAfter(trailing) - E(first) + the removals of
    both checkpoints = E(first) to the trailing one's tokensBefore, plus the earlier removal.
    Before, it was dropped: one observed checkpoint instead of two, G short of the last turn's
    growth."""
    c = Conversation()
    c.turn("t0", reads=[BIG], e_next=100_000)
    c.turn("t1", e_next=120_000)
    c.checkpoint(keep_from_turn=None)  # 190,000 -> 30,000, shaping t2
    c.turn("t2", e_next=150_000)
    c.checkpoint(keep_from_turn=None)  # trailing: no boundary after it
    assessment, sim = run(tmp_path, [c])
    estimates = [b.estimate for b in assessment.boundaries]
    growth = sim.growth[Api.ANTHROPIC_MESSAGES]
    assert len(growth.checkpoints) == 2
    assert growth.boundary_span == 30_000 - estimates[0]
    assert growth.compaction_removed == 2 * (190_000 - 30_000)
    assert growth.total == 190_000 - estimates[0] + 160_000


def test_errored_request_with_usage_is_costed_from_it(tmp_path: Path) -> None:
    """R-CM-1: an errored (or aborted) request that reports usage is an observed request, its
    counts in the cost sums; only the all-zero usage of a failed request is a fallback."""
    billed = {"input": 7_000, "output": 30, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}
    c = Conversation()
    c.turn("t0", e_next=100_000, failed=1, failed_usage=billed)
    c.turn("t1", e_next=100_000, failed=1)
    _, sim = run(tmp_path, [c])
    assert sim.requests.select("input", "output", "fallback").rows() == [
        (7_000, 30, False),  # t0's errored request, billed
        (1_000, 0, False),
        (99_999, 0, False),
        (0, 0, True),  # t1's errored request, no usage: the labeled fallback
        (1_000, 0, False),
        (99_999, 0, False),
    ]


def test_a_resumed_copy_compacting_a_cleared_result_releases_its_pin(tmp_path: Path) -> None:
    """R-SIM-4 decision: pins belong to the physical conversation. The original journal clears
    t0's 3 MiB result at t4 and ends; its resumed copy (same physical conversation, t0-t4
    copied, so DUPLICATE there) compacts t0's copy away, and t10's 6 MiB result then fits the
    budget. Keyed by journal file, the pin would never return and t10 would stop at the budget."""
    original = Conversation()
    original.turn("t0", reads=[3 * MIB], e_next=100_000)
    original.turn("t1", reads=PADS, e_next=100_000)
    original.quiet("t2")
    original.turn("t3", e_next=3_500_000)
    original.turn("t4", gap=COLD, e_next=100_000)  # clears t0 (3 MiB pinned)
    copy = Conversation(journal_id="j-p1-resumed")
    copy.builder.copy_records(original.builder, len(original.builder.records))
    copy.last_final = original.last_final
    copy.turn("t5", reads=[6 * MIB], e_next=100_000)
    copy.turn("t6", reads=PADS, e_next=100_000)
    copy.checkpoint(keep_from_turn="t5")  # compacts the copy of t0's placeholder away
    copy.quiet("t7", "t8")
    copy.turn("t9", e_next=3_900_000)
    copy.turn("t10", gap=COLD, e_next=100_000)
    _, sim = run(tmp_path, [original, copy], trigger=4_000_000)
    assert sim.cleared.get_column("text_bytes").to_list() == [3 * MIB, 6 * MIB]
    last = _rows(sim)[-1]
    assert (last["clearing_point"], last["budget_stopped"]) == (True, False)
    assert last["budget_left"] == 8 * MIB - 6 * MIB
