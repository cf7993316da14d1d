"""Each API's parts put together from one simulation of three APIs: every row reduced into its
own API's figures and every sum its own, so no denominator is pooled across APIs (R-G-3); the
limitations stated beside each API's figures."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from clearing_analysis.assemble.parts import ApiParts, api_parts
from clearing_analysis.eligibility.totals import ApiTotals, Totals
from clearing_analysis.inputs.configs import Api, Routes, decode_routes
from clearing_analysis.models.undefined import UndefinedCause
from clearing_analysis.policy import WhatIfId
from clearing_analysis.report import model as rm
from clearing_analysis.simulation.figures import BoundaryFigures, CheckpointFigures, ClearedFigures
from clearing_analysis.simulation.totals import ApiSimulation, RequestSums, SimulationTotals
from clearing_analysis.simulation.what_if import PolicySums
from tests._figures import boundaries_of, checkpoints_of, cleared_of
from tests._seed_route import SEED_ROUTE

A = Api.ANTHROPIC_MESSAGES
B = Api.OPENAI_RESPONSES
C = Api.OPENAI_COMPLETIONS

# The seed's route for A and B (T 200,000, P 40,000, cold past 330,000 ms, prices 3 / 0.3 /
# 3.75 / 15 per million); C's cache lifetime is unknown.
ROUTES: Routes = decode_routes(
    json.dumps(
        [
            SEED_ROUTE,
            SEED_ROUTE | {"api": B.value},
            SEED_ROUTE | {"api": C.value, "cacheLifetimeMs": "unknown", "cacheMarginMs": 0},
        ]
    ).encode()
)


def _boundary(api: Api, journal: int, turn: int, estimate: int, **flags: Any) -> dict[str, Any]:
    return {
        "api": api.value,
        "journal": journal,
        "conversation": journal,
        "lineage": journal,
        "turn": turn,
        "estimate": estimate,
        "effective": estimate,
        "usage_based": True,
    } | flags


COLD_PRESSURED = {"pressured": True, "cold": True, "cold_pressured": True}


def _simulation() -> SimulationTotals:
    """A: journal 0, E 100,000 then 160,000 (cold pressured, clears one result of 20,000
    net: admits); a threshold compaction at 100,000 tokens, below A's band. B: journals 1
    and 2, E 155,000 and 170,000, both cold pressured, admitting nothing. C: nothing."""
    checkpoint_rows = [
        {
            "journal": 0,
            "api": A.value,
            "before_turn": 2,
            "tokens_before": 100_000,
            "tokens_after": 40_000,
            "trigger": "THRESHOLD",
            "after_request": True,
        }
    ]
    boundaries = boundaries_of(
        [
            _boundary(A, 0, 0, 100_000, gap_ms=None),
            _boundary(
                A,
                0,
                1,
                160_000,
                gap_ms=400_000,
                clearing_point=True,
                cleared_results=1,
                admitted_net=20_000,
                **COLD_PRESSURED,
            ),
            _boundary(B, 1, 0, 155_000, gap_ms=400_000, **COLD_PRESSURED),
            _boundary(B, 2, 0, 170_000, gap_ms=500_000, **COLD_PRESSURED),
        ],
        observed=checkpoint_rows,
    )
    cleared = cleared_of(
        [
            {
                "api": A.value,
                "boundary": 1,
                "net_tokens": 20_000,
                "escaped_tokens": 20_029,
                "summary_tokens": 500,
                "text_bytes": 80_112,
                "escaped_bytes": 80_114,
            }
        ],
    )
    checkpoints = checkpoints_of(checkpoint_rows)
    # A: G = 60,000 + 60,000; B: no growth; 2 and 3 requests, B's with one fallback.
    per_api = {
        A: ApiSimulation(
            requests=RequestSums(
                requests=2, input=10_000, cache_read=140_000, cache_write=10_000, output=1_000
            ),
            boundary_span=60_000,
            compaction_removed=60_000,
        ),
        B: ApiSimulation(requests=RequestSums(requests=3, fallback=1, input=90_000, output=300)),
        C: ApiSimulation(),
    }
    what_ifs: dict[WhatIfId, dict[Api, PolicySums]] = {policy: {} for policy in WhatIfId}
    what_ifs[WhatIfId.OPENCODE_PRUNE] = {
        A: PolicySums(events=1, cleared=1, admitted=20_000),
        B: PolicySums(events=2, warm_events=2, cleared=3, admitted=45_000, rewritten=1_000),
    }
    for api, sums in per_api.items():
        sums.boundaries = boundaries.get(api.value, BoundaryFigures())
        sums.cleared = cleared.get(api.value, ClearedFigures())
        sums.checkpoints = checkpoints.get(api.value, CheckpointFigures())
    return SimulationTotals(
        per_api=per_api,
        placeholder_tokens=28,
        what_ifs=what_ifs,
    )


def _totals() -> Totals:
    """Per-API totals, and two of B's requests with placeholder output tokens."""
    totals = Totals(
        per_api={A: ApiTotals(boundaries=2), B: ApiTotals(boundaries=2), C: ApiTotals()}
    )
    totals.sessions.placeholder_output[B.value] = 2
    return totals


def _parts(api: Api, totals: Totals | None = None) -> ApiParts:
    return api_parts(api, totals or _totals(), _simulation(), ROUTES, Fraction(1, 20))


def _opencode(parts: ApiParts) -> rm.WhatIfPolicy:
    return next(row for row in parts.what_ifs if row.policy is WhatIfId.OPENCODE_PRUNE)


def _counts(parts: ApiParts) -> tuple[int, int, int]:
    """The boundaries, cleared results and observed checkpoints an API's parts read."""
    sums = parts.sums
    return sums.boundaries.boundaries, sums.cleared.results, sums.checkpoints.checkpoints


def test_each_api_reads_only_its_own_rows_and_sums() -> None:
    """A's parts hold its 2 boundaries, 1 cleared row, 1 checkpoint, its totals and sums; B's
    its 2 boundaries and nothing cleared or compacted; C's nothing."""
    totals, simulation = _totals(), _simulation()
    a = api_parts(A, totals, simulation, ROUTES, Fraction(1, 20))
    assert _counts(a) == (2, 1, 1) and a.evidence.boundaries == 2
    assert a.totals is totals.per_api[A] and a.sums is simulation.per_api[A]
    b = api_parts(B, totals, simulation, ROUTES, Fraction(1, 20))
    assert _counts(b) == (2, 0, 0) and b.evidence.boundaries == 2
    assert (a.gate_evidence.cold_pressured, b.gate_evidence.cold_pressured) == (1, 2)
    c = api_parts(C, totals, simulation, ROUTES, Fraction(1, 20))
    assert (*_counts(c), c.evidence.boundaries, c.gate_evidence.cold_pressured) == (0, 0, 0, 0, 0)


def test_the_admitting_share_is_each_apis_own() -> None:
    """A admits at 1 of its 1 cold pressured boundaries, B at 0 of 2: shares 1 and 0, not
    the pooled 1 of 3."""
    a, b = _parts(A), _parts(B)
    assert (a.gate_evidence.cold_pressured, a.gate_evidence.admitting) == (1, 1)
    assert (b.gate_evidence.cold_pressured, b.gate_evidence.admitting) == (2, 0)
    assert (a.evidence.admitting_share, b.evidence.admitting_share) == (1.0, 0.0)
    assert (a.evidence.logical_conversations, b.evidence.logical_conversations) == (1, 2)


def test_pressure_and_cost_are_each_apis_own() -> None:
    """A: G 120,000 and S 20,000 of its own: C_off = 120,000 / 160,000 = 0.75, its cost
    defined with its blend (10,000·3 + 140,000·0.3 + 10,000·3.75) / 160,000 / 10^6 =
    6.84375e-7 and Pfx 160,000 / 2 = 80,000. B: no growth of its own and none of A's
    20,000 admitted, so its pressure and cost are undefined (NO_GROWTH)."""
    a, b = _parts(A), _parts(B)
    assert (a.pressure.defined, a.pressure.growth, a.pressure.admitted) == (True, 120_000, 20_000)
    assert a.pressure.off == 0.75
    assert (a.cost.defined, a.cost_outcome.defined) == (True, True)
    assert (a.cost.list_price_blend, a.cost.mean_observed_prefix) == (6.84375e-07, 80_000.0)
    assert (b.pressure.defined, b.pressure.growth, b.pressure.admitted) == (False, 0, 0)
    assert b.pressure.undefined_causes == (UndefinedCause.NO_GROWTH,)
    assert (b.cost.defined, b.cost.undefined_causes) == (False, (UndefinedCause.NO_GROWTH,))
    assert b.cost_outcome.defined is False


def test_the_route_check_reads_each_apis_compactions_and_growth() -> None:
    """A: its one threshold compaction at 100,000 < 0.75 · 200,000 is below the band, and
    E grew 60,000 from turn 0 to 1 (the overshoot); B: no compaction, E of different
    journals never adjacent, so no overshoot."""
    a, b = _parts(A), _parts(B)
    assert (a.route_trigger.threshold_compactions, a.route_trigger.below_band) == (1, 1)
    assert a.route_trigger.overshoot_tokens == 60_000
    assert (b.route_trigger.threshold_compactions, b.route_trigger.overshoot_tokens) == (0, 0)


def test_each_api_states_its_own_limitations() -> None:
    """A's trigger is contradicted, B's output tokens are placeholders, C's cache lifetime
    is unknown (so no cold gap): each on its own API only."""
    a, b, c = _parts(A), _parts(B), _parts(C)
    assert a.limitations == (rm.ApiLimitation.ROUTE_TRIGGER_CONTRADICTED,)
    assert b.limitations == (rm.ApiLimitation.OUTPUT_TOKENS_PLACEHOLDER,)
    assert c.limitations == (rm.ApiLimitation.CACHE_LIFETIME_UNKNOWN,)
    assert (a.evidence.cold_gap_ms, c.evidence.cold_gap_ms) == (330_000, None)


def test_each_apis_what_ifs_are_its_policies_sums_on_its_own_model() -> None:
    """opencode's prune cleared 1 result on A and 3 (2 events, both warm) on B: each row its
    API's sums; defined on A (G > 0), undefined on B as B's pressure is; a policy without
    sums on an API is a row of zeros."""
    a, b = _opencode(_parts(A)), _opencode(_parts(B))
    assert (a.clearing_events, a.cleared_results, a.tokens_removed, a.warm_share) == (
        1,
        1,
        20_000,
        0.0,
    )
    assert (b.clearing_events, b.cleared_results, b.tokens_removed, b.warm_share) == (
        2,
        3,
        45_000,
        1.0,
    )
    # B rewrote 1,000 prefix tokens at max(3, 3.75) - 0.3 = 3.45 per million.
    assert (a.list_price_rewrite, b.list_price_rewrite) == (0.0, 0.00345)
    assert (a.defined, b.defined, b.undefined_causes) == (True, False, (UndefinedCause.NO_GROWTH,))
    assert len(_parts(C).what_ifs) == len(WhatIfId)
    assert _opencode(_parts(C)).clearing_events == 0
