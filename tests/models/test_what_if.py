"""A policy's pressure and cost (models/what_if.py) on the what-ifs' hand-built history
(tests/simulation/scenario.py, docs/model.md section 9): the gated sums, the pressure figures
and the warm rewrite counted by hand, the seed's row equal to the gated models."""

from __future__ import annotations

from fractions import Fraction as F  # noqa: N817  (the formulas read better)

import msgspec
import pytest

from clearing_analysis.eligibility import Assessment
from clearing_analysis.inputs.configs import Route, parse_routes
from clearing_analysis.models import PressureInputs, pressure_model
from clearing_analysis.models.cost import CostInputs, View, Weights, cost_model, view_cost
from clearing_analysis.models.rates import fixed_sensitivities
from clearing_analysis.models.what_if import ClearedSums, WhatIfModel, rewrite_cost, what_if_model
from clearing_analysis.numbers import rounded
from clearing_analysis.policy import WhatIfId, what_if_table
from clearing_analysis.simulation.what_if import PolicySums, run_policy
from tests._seed_route import SEED_ROUTE
from tests.simulation.scenario import WHAT_IF_ESTIMATES, routes, what_if_history

ROUTE: Route = next(iter(routes().by_api.values()))
# Fourteen observed requests (two a turn: E(t), then E(next) - 1), no cache reads or writes,
# no output; G = E(t6) - E(t0) = 120,000 - 1 and no compaction.
INPUT = sum(WHAT_IF_ESTIMATES) + (
    60_000 + 110_000 + 120_000 + 140_000 + 160_000 + 120_000 + 100_000 - 7
)
GATED = CostInputs(
    requests=14,
    observed_requests=14,
    input=INPUT,
    cache_read=0,
    cache_write=0,
    output=0,
    fallback_context=0,
    fallback_output=0,
    removed_observed=320_000,  # tests/simulation/test_what_ifs.py
    cleared=4,
    admitted=80_000,
    retrieved=80_116,
    summary_cleared=4 * 500,
    growth=119_999,
)
PRESSURE = PressureInputs(
    growth=119_999,
    trigger=200_000,
    drain=40_000,
    admitted=80_000,
    retrieved=80_116,
    summary_input=40_000,
    summary_cleared=2_000,
)


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Assessment:
    return what_if_history(tmp_path_factory.mktemp("what-if"))


def _model(assessment: Assessment, policy_id: WhatIfId) -> tuple[PolicySums, WhatIfModel]:
    (sums,) = run_policy(assessment, routes(), what_if_table().get(policy_id)).per_api.values()
    cleared = ClearedSums(
        sums.cleared,
        sums.admitted,
        sums.retrieved,
        sums.summary_cleared,
        sums.removed_observed,
        sums.rewritten,
    )
    return sums, what_if_model(GATED, PRESSURE, ROUTE, cleared)


def test_the_seed_row_is_the_gated_models(history: Assessment) -> None:
    """The seed's sums are the gated inputs counted by hand, so its reduction and cost ratios
    are the gated pressure and cost models' at every fixed rate; it rewrites nothing."""
    sums, model = _model(history, WhatIfId.SEED_COLD_PRE_TURN)
    assert (sums.cleared, sums.admitted, sums.retrieved, sums.summary_cleared) == (
        4,
        80_000,
        80_116,
        2_000,
    )
    pressure = pressure_model(PRESSURE, fixed_sensitivities())
    costs = cost_model(GATED, ROUTE, pressure)
    assert model.rewrite == {View.LIST_PRICE: 0, View.QUOTA_SHARE: 0}
    for at, gated_pressure, gated_cost in zip(model.at, pressure.at, costs.at, strict=True):
        assert at.reduction == gated_pressure.reduction
        assert at.ratios == {view: cost.ratio for view, cost in gated_cost.views.items()}
    assert [at.sensitivity.rate for at in model.at] == [0, F(1, 20), F(1, 5)]


def test_a_warm_policy_by_hand(history: Assessment) -> None:
    """Anthropic's clear_tool_uses: S = 80,000, R = 80,116, four results, W = 110,276.
    C_off = 119,999 / 160,000; C_on = (119,999 + rho * 80,116) / (160,000 + S / C_off);
    the rewrite costs W * (3.75 - 0.3) / 10^6 at list price, W * (1.25 - 0.1) / 10^8 in quota
    share; the ratio is (on + rewrite) / off, with off = 1,519,994 * 3 / 10^6 + C_off *
    (40,000 * 3 + 2,000 * 15 + 40,000 * 3.75) / 10^6 at list price."""
    sums, model = _model(history, WhatIfId.ANTHROPIC_CLEAR_TOOL_USES)
    assert INPUT == 1_519_994
    assert (sums.events, sums.warm_events, sums.rewritten) == (2, 2, 110_276)
    off = F(119_999, 160_000)
    assert model.off == off
    assert model.rewrite == {
        View.LIST_PRICE: F(110_276 * 345, 10**8),
        View.QUOTA_SHARE: F(110_276 * 115, 10**10),
    }
    list_off = F(INPUT * 3, 10**6) + off * F(40_000 * 3 + 2_000 * 15 + 150_000, 10**6)
    for at in model.at:
        rho = at.sensitivity.rate
        on = (119_999 + rho * 80_116) / (160_000 + 80_000 / off)
        assert (at.on, at.reduction, at.avoided) == (on, 1 - on / off, off - on)
        priced = view_cost(
            _policy_inputs(sums),
            ROUTE,
            Weights.for_view(ROUTE, View.LIST_PRICE),
            cycles_off=off,
            cycles_on=on,
            rate=rho,
        )
        assert priced.off == list_off
        assert at.ratios[View.LIST_PRICE] == (priced.on + F(110_276 * 345, 10**8)) / list_off


def _policy_inputs(sums: PolicySums) -> CostInputs:
    return msgspec.structs.replace(
        GATED,
        removed_observed=sums.removed_observed,
        cleared=sums.cleared,
        admitted=sums.admitted,
        retrieved=sums.retrieved,
        summary_cleared=sums.summary_cleared,
    )


def test_a_cold_policy_rewrites_nothing(history: Assessment) -> None:
    """OpenClaw's cache-ttl clears only at the cold t5: no warm event, no rewrite cost, and
    three results (S = 60,000) reduce pressure less than the seed's four."""
    sums, model = _model(history, WhatIfId.OPENCLAW_CACHE_TTL)
    _, seed = _model(history, WhatIfId.SEED_COLD_PRE_TURN)
    assert (sums.warm_events, sums.rewritten, sums.admitted) == (0, 0, 60_000)
    assert model.rewrite == {View.LIST_PRICE: 0, View.QUOTA_SHARE: 0}
    assert all(a.reduction < b.reduction for a, b in zip(model.at, seed.at, strict=True))


def test_the_worked_example_digit_for_digit(history: Assessment) -> None:
    """docs/model.md, section 9: Anthropic's row as the page prints it, 12 significant
    digits, and the seed's list-price ratio beside it."""
    sums, model = _model(history, WhatIfId.ANTHROPIC_CLEAR_TOOL_USES)
    _, seed = _model(history, WhatIfId.SEED_COLD_PRE_TURN)
    assert sums.removed_observed == 760_000
    assert model.off is not None and rounded(model.off) == 0.74999375
    at = model.at[1]
    assert at.sensitivity.rate == F(1, 20)
    assert (rounded(at.reduction), rounded(at.avoided)) == (0.379972899864, 0.284977300068)
    assert (rounded(seed.at[1].reduction), rounded(seed.at[1].avoided)) == (
        0.379972899864,
        0.284977300068,
    )
    assert rounded(model.rewrite[View.LIST_PRICE]) == 0.3804522
    assert rounded(model.rewrite[View.QUOTA_SHARE]) == 0.001268174
    list_price = at.ratios[View.LIST_PRICE]
    seed_list_price = seed.at[1].ratios[View.LIST_PRICE]
    assert list_price is not None and seed_list_price is not None
    assert (rounded(list_price), rounded(seed_list_price)) == (0.750110214234, 0.946463757082)


def test_a_rewrite_on_an_implicitly_cached_route_pays_input() -> None:
    """On a route whose cache writes are free (implicit caching), a warm clearing's W
    rewritten tokens still cost uncached input instead of a read: W * (1.25 - 0.125) / 10^6
    at list price, W * (1 - 0.1) / 10^8 in quota share, not 0."""
    prices = {"input": 1.25, "cacheRead": 0.125, "cacheWrite": 0, "output": 10}
    quota = {"input": 1, "cacheRead": 0.1, "cacheWrite": 0, "output": 8}
    entry = {**SEED_ROUTE, "api": "openai-responses", "prices": prices, "quota": quota}
    (route,) = parse_routes([entry]).by_api.values()
    assert rewrite_cost(route, View.LIST_PRICE, 1_000_000) == F(1125, 1000)
    assert rewrite_cost(route, View.QUOTA_SHARE, 1_000_000) == F(9, 1000)
