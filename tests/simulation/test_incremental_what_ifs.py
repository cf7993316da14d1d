"""The what-ifs' shared and incremental structures against their definitions.

A boundary's clearing points, their cold gaps, observed requests, protection window and the
highest E over them are made once for every policy (`what_if.TurnPoints`); a journal's layout
once, by the gated walk (`clearing.JournalLayout`), and its lower-bound slots once for every
policy (`what_if.JournalFacts`); a scan links past absent slots at once and sums its weights
only when first asked (`slots.SlotScan`, `slots.Fenwick.of`); a policy's walk that has counted
nothing of its journal skips the boundaries where it cannot clear. On generated corpora, on
seeded random histories (those of tests/simulation/test_incremental_walks.py), some read over a
bounded period, and on random sequences, each equals what it stands for, computed afresh.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clearing_analysis.eligibility import Assessment, ContextTally, assess
from clearing_analysis.eligibility.assess import routed_api
from clearing_analysis.eligibility.context import protection
from clearing_analysis.inputs.configs import Routes, parse_agent_config
from clearing_analysis.inputs.period import Period
from clearing_analysis.policy import eligibility_policy, placeholder_text, what_if_table
from clearing_analysis.replay.heuristic import text_tokens
from clearing_analysis.replay.model import RequestUsage, ToolResult
from clearing_analysis.simulation import what_if
from clearing_analysis.simulation.clearing import (
    ClearedInContext,
    Columns,
    ConversationSimulator,
    JournalLayout,
    is_cold,
    journal_context,
    usage_is_fallback,
)
from clearing_analysis.simulation.slots import Fenwick, SlotScan
from tests.simulation import reference
from tests.simulation.test_incremental_walks import ROUTES, _random_history

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PLACEHOLDER = text_tokens(placeholder_text())


def _carried_from(results: Sequence[ToolResult], checkpoints_before: int) -> int:
    """The first slot a request with `checkpoints_before` still carries, from each result's
    own checkpoint (`compacted_by`): the size when it carries none."""
    carried = [
        slot
        for slot, result in enumerate(results)
        if result.compacted_by is None or result.compacted_by >= checkpoints_before
    ]
    return carried[0] if carried else len(results)


def _observed(
    assessment: Assessment, results: Sequence[ToolResult], request: RequestUsage
) -> what_if.Observed | None:
    """A request as removed.observed counts it, as the gated walk decides it (R-CM-7, R-CM-8)."""
    api = routed_api(request.api, assessment.per_api)
    if (
        api is None
        or usage_is_fallback(request)
        or not assessment.period.contains(request.timestamp)
    ):
        return None
    prefix = request.input + request.cache_read + request.cache_write
    return what_if.Observed(api, prefix, _carried_from(results, request.checkpoints_before))


def _first_slot(holds: Sequence[bool]) -> int:
    """The first slot whose result holds a property (`holds`, slot by slot), or the size."""
    return next((slot for slot, held in enumerate(holds) if held), len(holds))


def _assert_turn_points(assessment: Assessment, routes: Routes) -> int:
    """Every boundary's shared clearing points equal their definitions; how many points."""
    setting = what_if.Setting.of(assessment, dict(routes.by_api))
    eligibility = eligibility_policy()
    listed: dict[int, ContextTally] = {}
    checked = 0
    for boundary in sorted(assessment.boundaries, key=lambda b: (b.journal, b.replayed.turn_index)):
        journal = boundary.journal
        if journal not in listed:
            listed[journal] = journal_context(assessment, journal, PLACEHOLDER)
        listed[journal].advance(boundary.replayed)
        facts = what_if.JournalFacts.of(assessment, journal, PLACEHOLDER)
        points = what_if.TurnPoints(facts, boundary, setting)
        definitions = reference.TurnPoints(
            reference.JournalFacts.of(assessment, journal, PLACEHOLDER), boundary, listed[journal]
        )
        results, replayed = facts.results, boundary.replayed
        requests = replayed.requests
        route = routes.by_api[boundary.api]
        in_period = [0] + [
            k for k in range(1, len(requests)) if assessment.period.contains(requests[k].timestamp)
        ]
        assert [point.request for point in points.every] == in_period
        assert points.first == points.every[0]
        for point in points.every:
            definition = definitions[point.request]
            assert point.in_context() == definition.in_context()
            assert point.size() == len(definition.in_context())
            assert (
                point.estimate,
                point.gap_ms,
                point.checkpoints_before,
                point.compacted_since_first,
            ) == (
                definition.estimate,
                definition.gap_ms,
                definition.checkpoints_before,
                definition.compacted_since_first,
            )
            assert point.cold == is_cold(route, definition.gap_ms)
            dropped = _carried_from(results, point.checkpoints_before)
            assert point.drop_from == (dropped if point.compacted_since_first else -1)
            expected = (
                _observed(assessment, results, requests[point.request])
                if point.request < len(requests)
                else None
            )
            assert point.observed == expected
            assert points[point.request] == point  # the same, made alone
            checked += 1
        assert points.every_estimate == max(point.estimate for point in points.every)
        assert points.every_cold == any(point.cold for point in points.every)
        assert points.every_drops == any(point.compacted_since_first for point in points.every)
        assert points.observed == [_observed(assessment, results, r) for r in requests]
        assert points.counted_observed == [o for o in points.observed if o is not None]
        turn, starts = replayed.turn_index, replayed.tool_starts_before
        assert points.protection_window == _first_slot(
            [
                r.turn_index >= turn - eligibility.protected_prompt_turns
                or r.start_index >= starts - eligibility.protected_tool_starts
                for r in results
            ]
        )
        assert points.later_turns == _first_slot([r.turn_index > turn for r in results])
        assert all(
            protection(results[slot], replayed) is None
            for slot in range(min(points.protection_window, len(results)))
        )
    return checked


def _assert_same_what_ifs(assessment: Assessment, routes: Routes) -> None:
    """Every policy alone (sums, trace, cleared results) and all in lockstep, with and
    without the gated walk's layouts: the same as the definition."""
    for policy in what_if_table().policies:
        ran = what_if.run_policy(assessment, routes, policy, trace=True)
        defined = reference.run_policy(assessment, routes, policy, trace=True)
        assert (ran.per_api, ran.trace, ran.cleared_net) == (
            defined.per_api,
            defined.trace,
            defined.cleared_net,
        ), policy.id
    gated = ConversationSimulator(assessment, dict(routes.by_api), Columns(), {}, PLACEHOLDER)
    gated_layouts = {
        journal: JournalLayout.of(assessment.replay.journals[journal].journal.results)
        for journal in {boundary.journal for boundary in assessment.boundaries}
    }
    gated.layouts.update(gated_layouts)
    expected = reference.run_what_ifs(assessment, routes)
    assert what_if.run_what_ifs(assessment, routes) == expected
    assert what_if.run_what_ifs(assessment, routes, gated.layouts) == expected


def _halfway(assessment: Assessment) -> Period:
    """A period that leaves out the first and last quarter of the history's requests."""
    times = sorted(
        request.timestamp
        for merged in assessment.replay.journals
        for boundary in merged.journal.boundaries
        for request in boundary.requests
    )
    return Period(since_ms=times[len(times) // 4], until_ms=times[3 * len(times) // 4])


def test_turn_points_are_their_definitions(assessed: tuple[Assessment, Routes]) -> None:
    """On every generated corpus, each boundary's shared clearing points (context, E, gap,
    cold, checkpoints, observed request), their highest E, cold and compaction flags, its
    observed requests, protection window and first later slot: as defined afresh."""
    assert _assert_turn_points(*assessed) > 0


def test_turn_points_and_walks_on_random_histories_and_periods(tmp_path: Path) -> None:
    """On seeded random histories (results out of order, checkpoints inside turns,
    re-prompts, resumed copies), assessed whole and over a bounded period (requests outside
    it are no clearing point and count in no removed.observed): the shared clearing points as
    defined afresh, and every policy's walk equal to the definition."""
    config = parse_agent_config({"builtins": ["read", "grep", "web_fetch"], "mcpTools": "none"})
    points = 0
    for seed in range(6):
        (tmp_path / str(seed)).mkdir()
        whole = _random_history(tmp_path / str(seed), seed)
        bounded = assess(whole.replay, ROUTES, config, period=_halfway(whole))
        assert bounded.requests_outside_period > 0  # not vacuous
        for assessment in (whole, bounded):
            points += _assert_turn_points(assessment, ROUTES)
            _assert_same_what_ifs(assessment, ROUTES)
    assert points > 0


def test_journal_facts_are_their_definitions(assessed: tuple[Assessment, Routes]) -> None:
    """A journal's facts, over its own layout or the gated walk's: its slots by finalized id,
    its net tokens, and per API cohort the lower-bound slots with a positive net saving."""
    assessment, _ = assessed
    for journal in {boundary.journal for boundary in assessment.boundaries}:
        results = assessment.replay.journals[journal].journal.results
        classes, cohorts = assessment.classes[journal], assessment.cohorts[journal]
        layout = JournalLayout.of(results)
        for facts in (
            what_if.JournalFacts.of(assessment, journal, PLACEHOLDER),
            what_if.JournalFacts.of(assessment, journal, PLACEHOLDER, layout),
        ):
            assert facts.slots == {r.finalized_id: slot for slot, r in enumerate(results)}
            assert facts.net == [r.tokens - PLACEHOLDER for r in results]
            for api in assessment.per_api:
                lower = [
                    slot
                    for slot, result in enumerate(results)
                    if cohorts[slot] == api
                    and classes[slot].fixed is None
                    and classes[slot].shortfall is None
                    and result.tokens - PLACEHOLDER > 0
                ]
                assert list(facts.lower.get(api, ())) == lower


@st.composite
def _scans(draw: st.DrawFn) -> tuple[int, list[int], list[int], list[tuple[str, int, int]]]:
    """A journal size, its present slots, their weights and a sequence of operations."""
    size = draw(st.integers(0, 40))
    present = sorted(draw(st.sets(st.integers(0, max(0, size - 1)), max_size=size))) if size else []
    weights = draw(st.lists(st.integers(0, 50), min_size=size, max_size=size))
    slot = st.integers(0, size)
    operation = st.tuples(st.sampled_from(("remove", "next", "weight")), slot, slot)
    return size, present, weights, draw(st.lists(operation, max_size=60))


@SETTINGS
@given(_scans())
def test_a_scan_holds_what_a_set_holds(
    case: tuple[int, list[int], list[int], list[tuple[str, int, int]]],
) -> None:
    """Under any removals, `next_at` finds the first slot still there at or after a slot
    and `weight` sums the weights of those in a range (its tree made when first asked), as
    a set of the slots still there says."""
    size, present, weights, operations = case
    scan = SlotScan(size, present, weights)
    there = set(present)
    for name, first, second in operations:
        if name == "remove" and first < size:
            scan.remove(first)
            there.discard(first)
        elif name == "next":
            assert scan.next_at(first) == min((s for s in there if s >= first), default=size)
        else:
            start, end = sorted((first, second))
            assert scan.weight(start, end) == sum(weights[s] for s in there if start <= s < end)
            assert list(scan.present(start, end)) == sorted(s for s in there if start <= s < end)


@SETTINGS
@given(st.lists(st.integers(-1000, 1000), max_size=80))
def test_a_tree_made_at_once_is_the_tree_added_to(weights: list[int]) -> None:
    """`Fenwick.of` sums every prefix and range as adding each weight in turn does."""
    at_once, added = Fenwick.of(weights), Fenwick(len(weights))
    for slot, weight in enumerate(weights):
        added.add(slot, weight)
    for end in range(len(weights) + 1):
        assert at_once.prefix(end) == added.prefix(end) == sum(weights[:end])
        for start in range(end + 1):
            assert at_once.range(start, end) == added.range(start, end)


def _same(every: ClearedInContext, skipping: ClearedInContext, size: int) -> None:
    assert [every.is_member(s) for s in range(size)] == [skipping.is_member(s) for s in range(size)]
    assert (every.net, every.count) == (skipping.net, skipping.count)
    assert [every.below(s) for s in range(size + 1)] == [skipping.below(s) for s in range(size + 1)]


def test_cleared_results_skip_boundaries_while_nothing_is_counted() -> None:
    """Cleared results in context that skip the moves to the boundaries before anything of
    the journal is counted (a what-if walk where it cannot clear) then hold the same members,
    net tokens and sums below each slot as those moved to every boundary; after each move the
    members are the counted slots of the context."""
    rng = random.Random(7)
    for _ in range(400):
        size = rng.randint(1, 30)
        boundaries = rng.randint(2, 8)
        los = sorted(rng.randint(0, size) for _ in range(boundaries))
        his = sorted(rng.randint(0, size) for _ in range(boundaries))
        counted = bytearray(size)
        net = [rng.randint(1, 9) for _ in range(size)]
        every, skipping = ClearedInContext(size), ClearedInContext(size)
        counting = False
        for lo, hi in zip(los, (max(lo, hi) for lo, hi in zip(los, his, strict=True)), strict=True):
            counting = counting or rng.random() < 0.4
            every.move(lo, hi, counted, net.__getitem__)
            assert [s for s in range(size) if every.is_member(s)] == [
                s for s in range(lo, hi) if counted[s]
            ]
            if not counting:
                continue
            skipping.move(lo, hi, counted, net.__getitem__)
            _same(every, skipping, size)
            for slot in rng.sample(range(size), rng.randint(0, size)):
                if counted[slot]:
                    continue
                counted[slot] = 1
                mine = slot >= lo and rng.random() < 0.5  # cleared here, else by another copy
                for cleared in (every, skipping):
                    if mine:
                        cleared.add(slot, net[slot])
                    else:
                        cleared.arrived.append(slot)
            _same(every, skipping, size)
