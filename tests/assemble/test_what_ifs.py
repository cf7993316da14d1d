"""The informational what-if rows: every reviewed policy in table order, its sums passed
through, its warm rewrite priced per view, never gating."""

from __future__ import annotations

import json

import polars as pl

from clearing_analysis.assemble.cost import cost_inputs
from clearing_analysis.assemble.what_ifs import what_if_rows, what_ifs_part
from clearing_analysis.inputs.configs import Api, decode_routes
from clearing_analysis.models.pressure import PressureInputs
from clearing_analysis.models.undefined import UndefinedCause
from clearing_analysis.policy import WhatIfId
from clearing_analysis.report import model as rm
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
    no_row = pl.DataFrame(
        schema={"net_tokens": pl.Int64, "escaped_tokens": pl.Int64, "summary_tokens": pl.Int64}
    )
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
