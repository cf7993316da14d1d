"""The named pruning policies (policy/what-ifs.json) run through `simulation.what_if`.

The seed's row must reproduce the gated simulation exactly on generated corpora of every
profile used by the simulation's tests; every policy clears only what the seed's eligibility
allows; and on one hand-built history each policy's clearing events, removed tokens and
rewritten prefix tokens are counted by hand (docs/model.md, section 9).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from clearing_analysis.eligibility import Assessment
from clearing_analysis.inputs.configs import (
    Routes,
)
from clearing_analysis.policy import WhatIfId, what_if_table
from clearing_analysis.simulation.run import simulate
from clearing_analysis.simulation.unit import summarize, walk
from clearing_analysis.simulation.what_if import PolicyRun, run_policy, run_what_ifs
from tests.simulation.corpora import assessed_corpus
from tests.simulation.scenario import routes, what_if_history

CASES = [("mixed", 5, 12), ("build", 13, 6), ("redacted", 9, 6)]


@pytest.fixture(scope="module", params=CASES, ids=[f"{p}-{s}" for p, s, _ in CASES])
def assessed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Assessment, Routes]:
    profile, seed, conversations = request.param
    root = tmp_path_factory.mktemp(f"{profile}-{seed}")
    assessment, corpus_routes = assessed_corpus(root, profile, seed, conversations)
    return assessment, corpus_routes


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
    cleared = unit.cleared
    for api, sums in seed.per_api.items():
        rows = [i for i, value in enumerate(cleared["api"]) if value == api.value]
        assert sums.cleared == len(rows)
        assert sums.admitted == sum(cleared["net_tokens"][i] for i in rows)
        assert sums.retrieved == sum(cleared["escaped_tokens"][i] for i in rows)
        assert sums.summary_cleared == sum(cleared["summary_tokens"][i] for i in rows)
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
    no identity or retention shortfall), of an earlier turn than the boundary's, with a positive
    net saving, and cleared once; and some policy clears on every corpus (not vacuous)."""
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


# Per policy, per boundary t0..t6: (results cleared, net tokens removed, rewritten tokens W).
# W = effective after the clearing - the prefix before the first cleared result (E at the
# boundary of the turn that placed it, minus what was cleared of earlier turns); E(t0) = 1.
HAND: dict[WhatIfId, list[tuple[int, int, int]]] = {
    # t5: cold, E 160,000 in [150,000, 200,000); t2's pads are protected (three prompt turns),
    # r0..r3 are not (starts 0..3, fourteen starts before t5): all four cleared, cold: W 0.
    WhatIfId.SEED_COLD_PRE_TURN: [(0, 0, 0)] * 5 + [(4, 80_000, 0), (0, 0, 0)],
    # E >= 100,000 from t2; the last three results are kept. t2: r1..r3 kept, r0 cleared,
    # W = (110,000 - 20,000) - 1. t3: p7..p9 kept, r1..r3 cleared, first r1 (turn 0, prefix 1),
    # W = (120,000 - 20,000 - 60,000) - 1.
    WhatIfId.ANTHROPIC_CLEAR_TOOL_USES: [(0, 0, 0)] * 2
    + [(1, 20_000, 89_999), (3, 60_000, 39_999)]
    + [(0, 0, 0)] * 3,
    # Effective >= 140,000 first at t4 (warm): down to 80,000 takes r0, r1, r2 (r3 stays);
    # W = 80,000 - 1. At t5 the effective occupancy is 100,000: no trigger.
    WhatIfId.HAYSTACK_TOOL_RESULT_PRUNING: [(0, 0, 0)] * 4
    + [(3, 60_000, 79_999)]
    + [(0, 0, 0)] * 2,
    # t3: turns 1..2 kept, and the newest 40,000 tokens (pads 250 + r3 20,028; r2 would pass
    # 40,000); r0, r1 clearable, 40,000 >= 20,000: W = (120,000 - 40,000) - 1. t4: turn 2
    # kept, r3 by the newest tokens; r2 (20,000 >= 20,000) cleared, first r2 of turn 1:
    # prefix 60,000 - 40,000 (r0, r1 cleared), W = (140,000 - 40,000 - 20,000) - 20,000.
    WhatIfId.OPENCODE_PRUNE: [(0, 0, 0)] * 3
    + [(2, 40_000, 79_999), (1, 20_000, 60_000)]
    + [(0, 0, 0)] * 2,
    # Always; the last ten results (the pads from t3) and the first (r0) are kept: r1..r3 at
    # t3, W = (120,000 - 60,000) - 1.
    WhatIfId.JETBRAINS_OBSERVATION_MASKING: [(0, 0, 0)] * 3
    + [(3, 60_000, 59_999)]
    + [(0, 0, 0)] * 3,
    # E >= 35,000 from t1; the tail ends at whichever comes first of the last fifteen results
    # and the newest 25,000 tokens. t1: the tail is r1 (r0 would pass 25,000): r0 cleared,
    # W = (60,000 - 20,000) - 1. t2: the tail is r3: r1, r2 cleared, first r1 (turn 0),
    # W = (110,000 - 20,000 - 40,000) - 1. From t3 the pads and r3 fit 25,000: r3 stays.
    WhatIfId.INPUT_THRESHOLD_COMPACTOR: [(0, 0, 0), (1, 20_000, 39_999), (2, 40_000, 49_999)]
    + [(0, 0, 0)] * 4,
    # Cold only (t5): effective 160,000 >= 100,000, clearable 80,000 >= 12,500, the last
    # three (pads) kept; down to 100,000 takes r0..r2. Cold: W 0.
    WhatIfId.OPENCLAW_CACHE_TTL: [(0, 0, 0)] * 5 + [(3, 60_000, 0), (0, 0, 0)],
}


def test_each_policy_on_a_hand_built_history(tmp_path: Path) -> None:
    """Each policy's clearing events, removed tokens and rewritten tokens, boundary by
    boundary, are the ones counted by hand in HAND; the sums agree with them."""
    assessment = what_if_history(tmp_path)
    assert next(b.estimate for b in assessment.boundaries) == 1
    for policy in what_if_table().policies:
        ran = run_policy(assessment, routes(), policy, trace=True)
        rows = [(t.cleared_results, t.admitted_net, t.rewritten) for t in ran.trace]
        assert rows == HAND[policy.id], policy.id
        (sums,) = ran.per_api.values()
        assert sums.events == sum(1 for n, _, _ in rows if n)
        assert sums.admitted == sum(net for _, net, _ in rows)
        assert sums.rewritten == sum(w for _, _, w in rows)
        cold_events = 1 if rows[5][0] else 0  # t5 alone is cold
        assert sums.warm_events == sums.events - cold_events


def test_removed_observed_on_the_hand_built_history(tmp_path: Path) -> None:
    """Each turn has two observed requests: the first with a 1,000-token prefix, the final
    answer with E(next) - 1. The seed's 80,000 cleared at t5 ride on t5's and t6's:
    min(80,000, 1,000) + 80,000 (119,999 prefix) + 1,000 + 80,000 (99,999) = 162,000."""
    assessment = what_if_history(tmp_path)
    seed = what_if_table().get(WhatIfId.SEED_COLD_PRE_TURN)
    (sums,) = run_policy(assessment, routes(), seed).per_api.values()
    assert sums.removed_observed == 162_000
