"""The informational what-if rows: every reviewed policy in table order, its sums passed
through, its warm rewrite priced per view, its pressure and cost ratios at the fixed rates
(docs/model.md, section 9), never gating."""

from __future__ import annotations

import json
from fractions import Fraction

from clearing_analysis.assemble.cost import cost_inputs
from clearing_analysis.assemble.what_ifs import what_if_rows, what_ifs_part
from clearing_analysis.inputs.configs import Api, decode_routes
from clearing_analysis.models.pressure import PressureInputs
from clearing_analysis.models.rates import RateLabel
from clearing_analysis.models.undefined import UndefinedCause
from clearing_analysis.numbers import rounded
from clearing_analysis.policy import WhatIfId
from clearing_analysis.report import model as rm
from clearing_analysis.simulation.figures import ClearedFigures
from clearing_analysis.simulation.totals import RequestSums
from clearing_analysis.simulation.what_if import PolicySums
from tests._seed_route import SEED_ROUTE

ROUTE = decode_routes(json.dumps([SEED_ROUTE]).encode()).by_api[Api.ANTHROPIC_MESSAGES]
API = Api.ANTHROPIC_MESSAGES

# No growth: the pressure model is undefined, so only the sums and the rewrite are figures.
NO_GROWTH = PressureInputs(
    growth=0,
    trigger=200_000,
    drain=40_000,
    admitted=0,
    retrieved=0,
    summary_input=40_000,
    summary_cleared=0,
)


def _rows(sums: dict[WhatIfId, dict[Api, PolicySums]]) -> tuple[rm.WhatIfPolicy, ...]:
    no_row = ClearedFigures()
    inputs = cost_inputs(RequestSums(requests=4, input=1_000), no_row, 0)
    return what_if_rows(sums, API, ROUTE, inputs, NO_GROWTH)


def _none() -> dict[WhatIfId, dict[Api, PolicySums]]:
    return {policy: {} for policy in WhatIfId}


def test_every_policy_has_a_row_in_table_order() -> None:
    """Eight reviewed policies, the seed's own first; a policy without sums is all zeros
    and no warm share."""
    rows = _rows(_none())
    assert [row.policy for row in rows] == [
        WhatIfId.SEED_COLD_PRE_TURN,
        WhatIfId.ANTHROPIC_CLEAR_TOOL_USES,
        WhatIfId.HAYSTACK_TOOL_RESULT_PRUNING,
        WhatIfId.OPENCODE_PRUNE,
        WhatIfId.JETBRAINS_OBSERVATION_MASKING,
        WhatIfId.INPUT_THRESHOLD_COMPACTOR,
        WhatIfId.OPENCLAW_CACHE_TTL,
        WhatIfId.CLAUDE_CODE_MICROCOMPACT,
    ]
    empty = rows[1]
    assert (empty.clearing_events, empty.cleared_results, empty.warm_share) == (0, 0, None)
    assert (empty.list_price_rewrite, empty.quota_share_rewrite) == (0.0, 0.0)


def test_a_policys_sums_and_rewrite_are_its_own() -> None:
    """4 events of which 1 warm (share 0.25), 1M rewritten prefix tokens at
    max(3, 3.75) - 0.3 = 3.45 per million list price and (1.25 - 0.1) / 10^8 = 1.15e-8
    quota per token; undefined for no growth, with that cause and no compactions."""
    sums = PolicySums(events=4, warm_events=1, cleared=5, admitted=9_000, rewritten=1_000_000)
    table = _none() | {WhatIfId.OPENCODE_PRUNE: {API: sums}}
    row = next(row for row in _rows(table) if row.policy is WhatIfId.OPENCODE_PRUNE)
    assert (row.clearing_events, row.warm_clearing_events, row.warm_share) == (4, 1, 0.25)
    assert (row.cleared_results, row.tokens_removed, row.rewritten_prefix_tokens) == (
        5,
        9_000,
        1_000_000,
    )
    assert (row.list_price_rewrite, row.quota_share_rewrite) == (3.45, 0.0115)
    assert (row.defined, row.undefined_causes, row.compactions_off) == (
        False,
        (UndefinedCause.NO_GROWTH,),
        None,
    )


def test_the_part_never_gates() -> None:
    """The part carries the rows per API and says it is not gating."""
    rows = _rows(_none())
    part = what_ifs_part({API: rows})
    assert part.gating is False
    assert part.per_api == {API: rows}


# docs/model.md §6's cohort, whose pressure model is defined: ten observed requests, Σ input
# 1,000, cacheRead 80,000, cacheWrite 9,000 (Pfx 9,000, list blend 27/40,000,000), output
# 2,000; G = 320,000, so C_off = 320,000 / 160,000 = 2. The gated simulation's own cleared
# sums are replaced by each policy's.
GROWTH = PressureInputs(
    growth=320_000,
    trigger=200_000,
    drain=40_000,
    admitted=0,
    retrieved=0,
    summary_input=40_000,
    summary_cleared=0,
)


def _defined_rows(sums: dict[WhatIfId, dict[Api, PolicySums]]) -> tuple[rm.WhatIfPolicy, ...]:
    no_row = ClearedFigures()
    requests = RequestSums(
        requests=10, input=1_000, cache_read=80_000, cache_write=9_000, output=2_000
    )
    return what_if_rows(sums, API, ROUTE, cost_inputs(requests, no_row, 320_000), GROWTH)


def test_a_policys_pressure_and_ratios_when_the_model_is_defined() -> None:
    """A policy that cleared the worked example's 2 results (S 20,000, R 21,000, Σ summary
    1,000, 10,000 tokens carried) and rewrote 100,000 prefix tokens in 1 of its 2 events:
    C_off 2 and, at 0, 5% and 20%, the pressure model's C_on, its reduction and the
    compactions avoided; each ratio is (on + rewrite) / off, the same in both views (the
    quota weights are the list ones / 300)."""
    sums = PolicySums(
        events=2,
        warm_events=1,
        cleared=2,
        admitted=20_000,
        retrieved=21_000,
        summary_cleared=1_000,
        removed_observed=10_000,
        rewritten=100_000,
    )
    table = _none() | {WhatIfId.HAYSTACK_TOOL_RESULT_PRUNING: {API: sums}}
    rows = _defined_rows(table)
    row = next(r for r in rows if r.policy is WhatIfId.HAYSTACK_TOOL_RESULT_PRUNING)
    assert (row.defined, row.undefined_causes, row.compactions_off) == (True, (), 2.0)
    assert (row.warm_share, row.tokens_removed) == (0.5, 20_000)
    # 100,000 · (3.75 - 0.3) / 10^6 and 100,000 · (1.25 - 0.1) / 10^8.
    assert (row.list_price_rewrite, row.quota_share_rewrite) == (0.345, 0.00115)
    # Only the fixed rates (the supplied one is the gate's, not the what-ifs').
    assert [(at.rate, at.labels) for at in row.sensitivities] == [
        (0.0, (RateLabel.ZERO,)),
        (0.05, (RateLabel.DEFAULT,)),
        (0.2, (RateLabel.HIGH,)),
    ]
    # S / C_off = 10,000 (summary 40,000 + 10,000 + 500 fits T): C_on at rate r = (320,000 +
    # r · 21,000) / 170,000 = 32/17, 32,105/17,000, 1,621/850; avoided 2 - C_on, reduction
    # 1 - C_on / 2.
    at0, at5, at20 = row.sensitivities
    assert (at0.compactions_avoided, at0.pressure_reduction) == (
        rounded(Fraction(2, 17)),
        rounded(Fraction(1, 17)),
    )
    assert (at5.compactions_avoided, at5.pressure_reduction) == (
        rounded(Fraction(1_895, 17_000)),
        rounded(Fraction(1_895, 34_000)),
    )
    assert (at20.compactions_avoided, at20.pressure_reduction) == (
        rounded(Fraction(79, 850)),
        rounded(Fraction(79, 1_700)),
    )
    off = Fraction(2_763, 4_000)  # 0.09075 of requests + 2 cycles of 0.3 (docs/model.md §6)
    rewrite = Fraction(345, 1_000)
    # At 0: on - off = 3,237/68,000 (docs/model.md §6's components).
    on0 = off + Fraction(3_237, 68_000)
    # At 5%, every component of docs/model.md §6 with C_on = 32,105/17,000:
    blend, c_on = Fraction(27, 40_000_000), Fraction(32_105, 17_000)
    on5 = off + (
        Fraction(27, 800)  # retained: 10 · 10,000 / 2 · blend
        - 10_000 * blend  # removed, observed
        - c_on * Fraction(10, 320_000) * 10_000 * 9_000 * blend  # removed, extension
        + (c_on - 2) * Fraction(3, 10)  # summary, cycle change
        + (c_on * 10_000 + 1_000) * Fraction(3, 1_000_000)  # summary, enlarged
        + Fraction(1, 20) * 2 * (9_000 * blend + 100 * Fraction(15, 1_000_000))  # round trips
        + Fraction(1, 20) * 21_000 * blend * (10 / c_on) / 2  # returned history
    )
    # At 20%: on - off = 11,670,392,421 / 176,364,800,000 (docs/model.md §6).
    on20 = off + Fraction(11_670_392_421, 176_364_800_000)
    for at, on in ((at0, on0), (at5, on5), (at20, on20)):
        expected = rounded((on + rewrite) / off)
        assert (at.list_price_ratio, at.quota_share_ratio) == (expected, expected)
    # 24,556/15,657 at 0: (50,208 + 23,460) / 46,971 in 68,000ths.
    assert at0.list_price_ratio == 1.56837197420


def test_a_policy_that_cleared_nothing_changes_nothing_when_defined() -> None:
    """With the model defined, a policy without sums saves nothing per cycle: C_on = C_off,
    no compaction avoided, no reduction, and on = off, a ratio of 1 at every rate."""
    row = _defined_rows(_none())[1]
    assert (row.defined, row.compactions_off, row.clearing_events) == (True, 2.0, 0)
    assert [
        (at.compactions_avoided, at.pressure_reduction, at.list_price_ratio, at.quota_share_ratio)
        for at in row.sensitivities
    ] == [(0.0, 0.0, 1.0, 1.0)] * 3
