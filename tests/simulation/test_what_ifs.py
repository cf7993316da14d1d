"""The named pruning policies (policy/what-ifs.json) run through `simulation.what_if`.

The seed's row must reproduce the gated simulation exactly on generated corpora of every
profile used by the simulation's tests; every policy clears only what the seed's eligibility
allows; and on one hand-built history each policy's clearing events, removed tokens and
rewritten prefix tokens are counted by hand (docs/model.md, section 9).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import msgspec

from clearing_analysis.eligibility import Assessment, ContextTally
from clearing_analysis.inputs.configs import (
    Routes,
)
from clearing_analysis.policy import ClearingPoint, WhatIfId, what_if_table
from clearing_analysis.simulation.clearing import journal_context
from clearing_analysis.simulation.run import simulate
from clearing_analysis.simulation.unit import summarize, walk
from clearing_analysis.simulation.what_if import (
    JournalFacts,
    PolicyRun,
    Setting,
    TurnPoints,
    run_policy,
    run_what_ifs,
)
from clearing_analysis.toolclass import ToolClass
from tests.replay.builder import usage
from tests.simulation import reference
from tests.simulation.scenario import (
    PLACEHOLDER_TOKENS,
    WHAT_IF_ESTIMATES,
    Conversation,
    routes,
    run,
    what_if_history,
)


def _seed(assessment: Assessment, corpus_routes: Routes) -> PolicyRun:
    policy = what_if_table().get(WhatIfId.SEED_COLD_PRE_TURN)
    return run_policy(assessment, corpus_routes, policy, trace=True)


def test_the_seed_row_is_the_gated_simulation(assessed: tuple[Assessment, Routes]) -> None:
    """Boundary by boundary (effective occupancy, clearing point, results, net tokens, bytes,
    budget) and result by result, the seed's row equals the gated simulation's tables."""
    assessment, corpus_routes = assessed
    seed = _seed(assessment, corpus_routes)
    tables = simulate(assessment, corpus_routes)
    names = [
        "effective",
        "clearing_point",
        "cleared_results",
        "admitted_net",
        "admitted_bytes",
        "budget_stopped",
        "budget_left",
    ]
    expected = list(zip(*(tables.boundaries.get_column(n).to_list() for n in names), strict=True))
    traced = [
        (
            t.effective,
            t.clears,
            t.cleared_results,
            t.admitted_net,
            t.admitted_bytes,
            t.budget_stopped,
            t.budget_left,
        )
        for t in seed.trace
    ]
    assert traced == expected
    assert seed.cleared_net == tables.cleared.get_column("net_tokens").to_list()
    assert traced  # not vacuous: every corpus has counted boundaries
    assert all(t.rewritten == 0 for t in seed.trace)  # cold only: never rewrites a warm prefix


def test_the_seed_rows_sums_are_the_cost_models_inputs(
    assessed: tuple[Assessment, Routes],
) -> None:
    """Per API, the seed row's n_cleared, S, R, Σ min(500, tokens) and removed.observed are the
    sums the gated pipeline hands the cost and pressure models."""
    assessment, corpus_routes = assessed
    seed = _seed(assessment, corpus_routes)
    unit = summarize(walk(assessment, corpus_routes))
    for api, sums in seed.per_api.items():
        cleared = unit.per_api[api].cleared
        assert sums.cleared == cleared.results
        assert sums.admitted == cleared.net_tokens
        assert sums.retrieved == cleared.escaped_tokens
        assert sums.summary_cleared == cleared.summary_tokens
        assert sums.removed_observed == unit.per_api[api].requests.removed_observed
        assert sums.warm_events == 0


def test_the_policies_in_lockstep_are_each_policy_alone(
    assessed: tuple[Assessment, Routes],
) -> None:
    """`run_what_ifs` walks every policy in lockstep over one shared context tally per
    journal; each policy's sums are exactly those of the policy run alone."""
    assessment, corpus_routes = assessed
    together = run_what_ifs(assessment, corpus_routes)
    assert list(together) == [policy.id for policy in what_if_table().policies]
    for policy in what_if_table().policies:
        alone = run_policy(assessment, corpus_routes, policy).per_api
        assert together[policy.id] == alone, policy.id
    assert any(sums.cleared for per_api in together.values() for sums in per_api.values())


def test_no_policy_clears_what_the_seed_forbids(assessed: tuple[Assessment, Routes]) -> None:
    """Every result any policy clears is of the seed's lower-bound class (no fixed exclusion,
    no identity or retention shortfall), with a positive net saving, and cleared once; and
    some policy clears on every corpus (not vacuous)."""
    assessment, corpus_routes = assessed
    lower: set[str] = set()
    for position, merged in enumerate(assessment.replay.journals):
        for slot, result in enumerate(merged.journal.results):
            result_class = assessment.classes[position][slot]
            if result_class.fixed is None and result_class.shortfall is None:
                lower.add(result.finalized_id)
    total = 0
    for policy in what_if_table().policies:
        ran = run_policy(assessment, corpus_routes, policy, trace=True)
        ids = [result.finalized_id for result in ran.cleared_results]
        assert set(ids) <= lower, policy.id
        assert len(ids) == len(set(ids)), policy.id
        assert all(net > 0 for net in ran.cleared_net), policy.id
        total += len(ids)
    assert total > 0


# Per policy, its clearing events by (turn, request) (request 0: the boundary; 1: before the
# turn's final answer, EVERY_REQUEST policies only): (results cleared, net tokens removed,
# rewritten tokens W). Every other clearing point clears nothing. W = effective after the
# clearing - the prefix before the first cleared result (E just before it joined the context:
# r0 1, r1 20,029, r2 60,000, r3 80,028; minus what was cleared before it). E before the final
# answer is E(t) + the turn's results: t0 40,057, t1 100,056, t2 110,250, later E(t).
HAND: dict[WhatIfId, dict[tuple[int, int], tuple[int, int, int]]] = {
    # t5: cold, E 160,000 in [150,000, 200,000); t2's pads are protected (three prompt turns),
    # r0..r3 are not (starts 0..3, fourteen starts before t5): all four cleared, cold: W 0.
    WhatIfId.SEED_COLD_PRE_TURN: {(5, 0): (4, 80_000, 0)},
    # E >= 100,000 first before t1's answer, with r2, r3 in context: r1..r3 the last three, r0
    # cleared, W = 100,056 - 20,000 - 1. At t2's boundary r1..r3 are still the last three;
    # before its answer the pads are: r1..r3 cleared, W = (110,250 - 20,000 - 60,000) -
    # (20,029 - 20,000).
    WhatIfId.ANTHROPIC_CLEAR_TOOL_USES: {
        (1, 1): (1, 20_000, 80_055),
        (2, 1): (3, 60_000, 30_221),
    },
    # Effective >= 140,000 first at t4's boundary (warm): down to 80,000 takes r0, r1, r2 (r3
    # stays); W = 80,000 - 1. Later the effective occupancy is at most 100,000.
    WhatIfId.HAYSTACK_TOOL_RESULT_PRUNING: {(4, 0): (3, 60_000, 79_999)},
    # Prompt turns only. t3: turns 1..2 kept, and the newest 40,000 tokens (pads 250 + r3
    # 20,028; r2 would pass 40,000); r0, r1 clearable, 40,000 >= 20,000: W = (120,000 -
    # 40,000) - 1. t4: turn 2 kept, r3 by the newest tokens; r2 (20,000 >= 20,000) cleared:
    # prefix 60,000 - 40,000 (r0, r1 cleared), W = (140,000 - 40,000 - 20,000) - 20,000.
    WhatIfId.OPENCODE_PRUNE: {(3, 0): (2, 40_000, 79_999), (4, 0): (1, 20_000, 60_000)},
    # Always; the last ten results and the first (r0) are kept: nothing until the pads are
    # placed, then before t2's answer r1..r3, W = 110,250 - 60,000 - 20,029.
    WhatIfId.JETBRAINS_OBSERVATION_MASKING: {(2, 1): (3, 60_000, 30_221)},
    # E >= 35,000 first before t0's answer; the tail ends at whichever comes first of the last
    # fifteen results and the newest 25,000 tokens. There the tail is r1 (r0 would pass
    # 25,000): r0 cleared, W = 40,057 - 20,000 - 1. Before t1's answer the tail is r3: r1, r2
    # cleared, W = (100,056 - 20,000 - 40,000) - (20,029 - 20,000). From t2's answer on the
    # pads and r3 fit 25,000: r3 stays.
    WhatIfId.INPUT_THRESHOLD_COMPACTOR: {
        (0, 1): (1, 20_000, 20_056),
        (1, 1): (2, 40_000, 40_027),
    },
    # Cold only: t5's boundary alone (its answer follows 1 s later, warm): effective 160,000
    # >= 100,000, clearable 80,000 >= 12,500, the last three (pads) kept; down to 100,000
    # takes r0..r2. Cold: W 0.
    WhatIfId.OPENCLAW_CACHE_TTL: {(5, 0): (3, 60_000, 0)},
    # Within 20,000 of T = 200,000: effective >= 180,000, which this history never reaches
    # (at most 160,000); a route with a lower trigger is counted below.
    WhatIfId.CLAUDE_CODE_MICROCOMPACT: {},
}
TURNS = 7


def test_each_policy_on_a_hand_built_history(tmp_path: Path) -> None:
    """Each policy's clearing events, removed tokens and rewritten tokens, clearing point by
    clearing point, are the ones counted by hand in HAND: one point per boundary for a
    prompt-turn policy, one before each of a turn's two requests for the others; the sums
    agree with them."""
    assessment = what_if_history(tmp_path)
    assert tuple(b.estimate for b in assessment.boundaries) == WHAT_IF_ESTIMATES
    for policy in what_if_table().policies:
        ran = run_policy(assessment, routes(), policy, trace=True)
        per_turn = 2 if policy.when is ClearingPoint.EVERY_REQUEST else 1
        assert len(ran.trace) == TURNS * per_turn, policy.id
        rows = {
            (index // per_turn, t.request): (t.cleared_results, t.admitted_net, t.rewritten)
            for index, t in enumerate(ran.trace)
        }
        assert all(
            request == index % per_turn
            for (index, request) in enumerate(t.request for t in ran.trace)
        )
        events = {point: row for point, row in rows.items() if row[0]}
        assert events == HAND[policy.id], policy.id
        (sums,) = ran.per_api.values()
        assert sums.events == len(events)
        assert sums.admitted == sum(net for _, net, _ in events.values())
        assert sums.rewritten == sum(w for _, _, w in events.values())
        cold_events = 1 if (5, 0) in events else 0  # t5's boundary alone is cold
        assert sums.warm_events == sums.events - cold_events


def test_claude_code_microcompact_by_hand(tmp_path: Path) -> None:
    """Under T = 155,000 (a Claude Code route's trigger) microcompact may clear from effective
    135,000 on: first at t4's boundary (140,000, warm). The last three results are pads and the
    newest 40,000 result tokens reach back to r3 (250 + 20,028; r2 would pass 40,000): their
    union keeps r3 and the pads, so r0..r2 are clearable, 60,000 >= 20,000, all cleared; W =
    (140,000 - 60,000) - 1. From t4's answer on the effective occupancy is at most 100,000.
    Under T = 170,000 (from 150,000) the first point is t5's cold boundary: the same three, W 0."""
    assessment = what_if_history(tmp_path)
    policy = what_if_table().get(WhatIfId.CLAUDE_CODE_MICROCOMPACT)
    cases = ((155_000, {(4, 0): (3, 60_000, 79_999)}), (170_000, {(5, 0): (3, 60_000, 0)}))
    for trigger, expected in cases:
        ran = run_policy(assessment, routes(trigger), policy, trace=True)
        rows = {
            (index // 2, t.request): (t.cleared_results, t.admitted_net, t.rewritten)
            for index, t in enumerate(ran.trace)
            if t.cleared_results
        }
        assert rows == expected, trigger
        (sums,) = ran.per_api.values()
        assert (sums.events, sums.cleared, sums.admitted) == (1, 3, 60_000)


def test_claude_code_microcompact_needs_its_saving(tmp_path: Path) -> None:
    """The 20,000-token saving is part of the trigger: with it raised above the 60,000 net
    tokens clearable at t4, nothing is cleared anywhere under T = 155,000."""
    assessment = what_if_history(tmp_path)
    policy = what_if_table().get(WhatIfId.CLAUDE_CODE_MICROCOMPACT)
    trigger = msgspec.structs.replace(policy.trigger, clearable_at_least_tokens=60_001)
    stricter = msgspec.structs.replace(policy, trigger=trigger)
    (sums,) = run_policy(assessment, routes(155_000), stricter).per_api.values()
    assert (sums.events, sums.cleared) == (0, 0)


def test_claude_code_microcompact_clears_read_only_builtins_only(
    assessed: tuple[Assessment, Routes],
) -> None:
    """Microcompact clears read-only built-ins' results only (its read, search and web tools):
    with its trigger opened (no saving needed, within 20,000 of a low T) and no result-token
    tail, every result it clears is a read-only built-in's, while the same policy without the
    class rule also clears the app results captured origin proves."""
    assessment, corpus_routes = assessed
    low = Routes(
        by_api={
            api: msgspec.structs.replace(route, trigger_tokens=60_000)
            for api, route in corpus_routes.by_api.items()
        }
    )
    policy = what_if_table().get(WhatIfId.CLAUDE_CODE_MICROCOMPACT)
    assert policy.keep.only_read_only_builtins
    opened = msgspec.structs.replace(
        policy,
        trigger=msgspec.structs.replace(policy.trigger, clearable_at_least_tokens=0),
        keep=msgspec.structs.replace(policy.keep, newest_result_tokens=0),
    )
    cleared = run_policy(assessment, low, opened, trace=True).cleared_results
    assert cleared
    assert {r.tool_class for r in cleared} == {ToolClass.READ_ONLY_BUILTIN}
    any_class = msgspec.structs.replace(
        opened, keep=msgspec.structs.replace(opened.keep, only_read_only_builtins=False)
    )
    unruled = run_policy(assessment, low, any_class, trace=True).cleared_results
    assert {r.finalized_id for r in cleared} <= {r.finalized_id for r in unruled}
    assert ToolClass.APP in {r.tool_class for r in unruled}  # not vacuous


def test_removed_observed_on_the_hand_built_history(tmp_path: Path) -> None:
    """Each turn has two observed requests: the first with E(t) as its prefix, the final
    answer with E(next) - 1; every prefix is at least 59,999. What a policy has cleared by a
    request rides on it: the seed's 80,000 cleared at t5 on t5's and t6's four requests,
    320,000. Anthropic's r0, cleared before t1's answer, rides on that answer and t2's first
    request (20,000 each), and with r1..r3, cleared before t2's answer, on that answer and the
    eight requests of t3..t6 (80,000 each): 760,000. The input-threshold compactor's r0,
    cleared before t0's answer, rides on it and t1's first request; r0..r2 on t1's answer and
    the ten requests of t2..t6: 2 * 20,000 + 11 * 60,000 = 700,000."""
    assessment = what_if_history(tmp_path)
    expected = {
        WhatIfId.SEED_COLD_PRE_TURN: 320_000,
        WhatIfId.ANTHROPIC_CLEAR_TOOL_USES: 760_000,
        WhatIfId.INPUT_THRESHOLD_COMPACTOR: 700_000,
    }
    for policy_id, removed in expected.items():
        policy = what_if_table().get(policy_id)
        (sums,) = run_policy(assessment, routes(), policy).per_api.values()
        assert sums.removed_observed == removed, policy_id


def test_a_checkpoint_inside_a_turn(tmp_path: Path) -> None:
    """One turn, three requests: A places r0, r1; B places r2; then a checkpoint keeps r1 on
    and compacts r0 away; then the final answer C. The input-threshold compactor (E >= 35,000,
    the tail r's newest 25,000 tokens) clears r0 before B (E = 1,000 + 2 * 20,028; W =
    41,056 - 20,000 - 1,000, the prefix before r0 being A's usage). Before C, E restarts from
    the checkpoint (the 2-token summary, then r1, B's 2 tokens and r2 as heuristic text:
    40,060); r0 is out of the context and of the effective occupancy, so r1 alone is cleared,
    with a prefix of 0 (the checkpoint came after it): W = 40,060 - 20,000. removed.observed:
    r0 rides on B (20,000 of its 50,000 prefix), r1 on C."""
    c = Conversation()
    b = c.builder
    b.turn("t0", at=b.clock + 5_000)
    b.run("t0-r", "t0")
    text = "x" * 80_112
    seqs = {}

    def read(*calls: str, prefix: int) -> None:
        b.assistant(
            "t0-r", "", calls=[(call, "read", {}) for call in calls], use=usage(prefix, prefix)
        )
        for call in calls:
            b.call_start("t0-r", call, "read")
            b.call_end("t0-r", call)
            seqs[call] = b.result("t0-r", call, "read", text=text)

    read("c0", "c1", prefix=1_000)
    read("c2", prefix=50_000)
    b.checkpoint("summary", first_kept=seqs["c1"])
    b.assistant("t0-r", "done", use=usage(100_000, 100_000))
    b.run_end("t0-r")
    c.retained.extend(((c.physical, "t0", "t0-r", call), text) for call in ("c0", "c1", "c2"))
    assessment, _ = run(tmp_path, [c])
    (boundary,) = assessment.boundaries
    setting = Setting.of(assessment, dict(routes().by_api))
    points = TurnPoints(JournalFacts.of(assessment, 0, PLACEHOLDER_TOKENS), boundary, setting)
    assert len(points) == 3
    assert [points[k].in_context() for k in range(3)] == [[], [0, 1], [1, 2]]
    assert [points[k].estimate for k in range(3)] == [1, 41_056, 40_060]
    policy = what_if_table().get(WhatIfId.INPUT_THRESHOLD_COMPACTOR)
    ran = run_policy(assessment, routes(), policy, trace=True)
    rows = [(t.request, t.effective, t.cleared_results, t.rewritten) for t in ran.trace]
    assert rows == [(0, 1, 0, 0), (1, 41_056, 1, 20_056), (2, 40_060, 1, 20_060)]
    assert [result.identity.call_id for result in ran.cleared_results] == ["c0", "c1"]
    (sums,) = ran.per_api.values()
    assert sums.removed_observed == 40_000


def test_each_points_context_is_its_definitions(
    assessed: tuple[Assessment, Routes],
) -> None:
    """At every clearing point of every counted boundary, the context as ranges of slots is
    exactly the list the first implementation made (tests/simulation/reference.py): the
    boundary's context, then the turn's results placed before the request, less those a
    checkpoint inside the turn compacted; ascending (the keep rules read a tail as every slot
    from its first on)."""
    assessment, corpus_routes = assessed
    setting = Setting.of(assessment, dict(corpus_routes.by_api))
    listed: dict[int, ContextTally] = {}
    facts: dict[int, JournalFacts] = {}
    listed_facts: dict[int, reference.JournalFacts] = {}
    mid_turn = 0
    for boundary in sorted(assessment.boundaries, key=lambda b: (b.journal, b.replayed.turn_index)):
        journal = boundary.journal
        if journal not in listed:
            listed[journal] = journal_context(assessment, journal, PLACEHOLDER_TOKENS)
            facts[journal] = JournalFacts.of(assessment, journal, PLACEHOLDER_TOKENS)
            listed_facts[journal] = reference.JournalFacts.of(
                assessment, journal, PLACEHOLDER_TOKENS
            )
        listed[journal].advance(boundary.replayed)
        points = TurnPoints(facts[journal], boundary, setting)
        definitions = reference.TurnPoints(listed_facts[journal], boundary, listed[journal])
        for k in range(len(points)):
            in_context = points[k].in_context()
            assert in_context == definitions[k].in_context()
            assert all(a < b for a, b in itertools.pairwise(in_context))
            assert points[k].size() == len(in_context)
            mid_turn += k > 0 and len(in_context) > len(points[0].in_context())
    assert mid_turn  # not vacuous: some later request sees the turn's own results
