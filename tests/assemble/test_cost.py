"""The cost part: its inputs (exact integer sums of the request sums and the cleared rows),
and the part itself from docs/model.md's worked example and hand-built edges (R-CM-2..7)."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction

import msgspec

from clearing_analysis.assemble.cost import CostContext, cost_inputs, cost_part
from clearing_analysis.gate import CostOutcome
from clearing_analysis.inputs.configs import Api, Route, decode_routes
from clearing_analysis.models import PressureInputs, sensitivities
from clearing_analysis.models.cost import CostInputs
from clearing_analysis.models.rates import RateLabel
from clearing_analysis.models.undefined import UndefinedCause
from clearing_analysis.numbers import rounded
from clearing_analysis.report import model as rm
from clearing_analysis.simulation.figures import BoundaryFigures, ClearedFigures
from clearing_analysis.simulation.totals import RequestSums
from tests._figures import boundaries_one, cleared_one
from tests._seed_route import SEED_ROUTE


def _cleared(net: list[int], escaped: list[int], summary: list[int]) -> ClearedFigures:
    return cleared_one(
        {"net_tokens": n, "escaped_tokens": e, "summary_tokens": s}
        for n, e, s in zip(net, escaped, summary, strict=True)
    )


def test_cost_inputs_sum_the_requests_and_the_cleared_rows() -> None:
    """10 requests with 3 fallbacks: 7 observed; two cleared rows of 400 + 600 net, 450 + 650
    escaped and 400 + 500 summary tokens; the growth passed through."""
    requests = RequestSums(
        requests=10,
        fallback=3,
        input=1_000,
        cache_read=2_000,
        cache_write=300,
        output=40,
        fallback_context=5,
        fallback_output=6,
        removed_observed=70,
    )
    got = cost_inputs(requests, _cleared([400, 600], [450, 650], [400, 500]), growth=12_345)
    assert (got.requests, got.observed_requests, got.prefix) == (10, 7, 3_300)
    assert (got.output, got.fallback_context, got.fallback_output, got.removed_observed) == (
        40,
        5,
        6,
        70,
    )
    assert (got.cleared, got.admitted, got.retrieved, got.summary_cleared) == (
        2,
        1_000,
        1_100,
        900,
    )
    assert got.growth == 12_345


def test_cost_inputs_of_no_cleared_row_are_zero() -> None:
    """No cleared row: none cleared and every cleared sum 0 (not null)."""
    got = cost_inputs(RequestSums(), _cleared([], [], []), growth=0)
    assert (got.cleared, got.admitted, got.retrieved, got.summary_cleared) == (0, 0, 0, 0)


# --- The cost part (R-CM-2..7), from docs/model.md §6's worked example -----------------------

ROUTE: Route = decode_routes(json.dumps([SEED_ROUTE]).encode()).by_api[Api.ANTHROPIC_MESSAGES]


def _example_inputs() -> tuple[CostInputs, PressureInputs]:
    """docs/model.md §6: ten observed requests, Σ input 1,000, Σ cacheRead 80,000,
    Σ cacheWrite 9,000 (prefix 90,000, Pfx 9,000), Σ output 2,000, 10,000 cleared tokens
    carried; two cleared results of 10,000 net, 10,500 escaped and 500 summary tokens each
    (S 20,000, R 21,000, Σ summary 1,000); G 320,000 under the seed's route."""
    requests = RequestSums(
        requests=10,
        input=1_000,
        cache_read=80_000,
        cache_write=9_000,
        output=2_000,
        removed_observed=10_000,
    )
    cleared = _cleared([10_000, 10_000], [10_500, 10_500], [500, 500])
    pressure = PressureInputs(
        growth=320_000,
        trigger=200_000,
        drain=40_000,
        admitted=20_000,
        retrieved=21_000,
        summary_input=40_000,
        summary_cleared=1_000,
    )
    return cost_inputs(requests, cleared, growth=320_000), pressure


def _part(
    supplied: Fraction = Fraction(1, 20),
    *,
    inputs: CostInputs | None = None,
    pressure: PressureInputs | None = None,
    route: Route = ROUTE,
    boundaries: BoundaryFigures | None = None,
) -> tuple[CostOutcome, rm.Cost]:
    example_inputs, example_pressure = _example_inputs()
    context = CostContext(
        inputs=example_inputs if inputs is None else inputs,
        route=route,
        pressure_inputs=example_pressure if pressure is None else pressure,
        rates=sensitivities(supplied),
        supplied_rate=supplied,
    )
    return cost_part(context, BoundaryFigures() if boundaries is None else boundaries)


def _components(delta: rm.Delta) -> tuple[float, ...]:
    """The seven signed sub-components as printed."""
    return (
        delta.retained,
        delta.removed.observed,
        delta.removed.extension,
        delta.summary.cycle_change,
        delta.summary.enlarged_summaries,
        delta.retrieval.round_trips,
        delta.retrieval.returned_history,
    )


def _printed(*figures: float) -> Decimal:
    """The printed decimals added exactly, as a reader adds them."""
    return sum((Decimal(repr(figure)) for figure in figures), Decimal(0))


def test_cost_part_of_the_worked_example_at_zero_retrieval() -> None:
    """docs/model.md §6 through the part: blends 6.75e-7 and 2.25e-9, Pfx 9,000, the two
    printed sums, and the list view at 0% as the table gives it, each component on the view's
    15-decimal grid."""
    outcome, part = _part()
    assert (part.defined, part.undefined_causes) == (True, ())
    # list: (1,000·3 + 80,000·0.3 + 9,000·3.75) / 90,000 / 10^6 = 27/40,000,000;
    # quota: (1,000·1 + 80,000·0.1 + 9,000·1.25) / 90,000 / 10^8 = 2.25e-9.
    assert (part.list_price_blend, part.quota_share_blend) == (6.75e-07, 2.25e-09)
    assert part.mean_observed_prefix == 9_000.0
    assert (part.removed_observed_tokens, part.summary_cleared_tokens) == (10_000, 1_000)
    # The fixed rates and the supplied 5%, which is the default's row.
    assert [(at.rate, at.labels) for at in part.sensitivities] == [
        (0.0, (RateLabel.ZERO,)),
        (0.05, (RateLabel.DEFAULT, RateLabel.SUPPLIED)),
        (0.2, (RateLabel.HIGH,)),
    ]
    at0 = part.sensitivities[0]
    # The view's grid: its smallest figure is the 5% round trips, 0.1·(9,000·blend +
    # 100·15/10^6) = 0.0007575 (exponent -4: 11 + 4 = 15 decimals); its largest are below 1
    # (14 + 1 = 15). On it: off = 0.09075 + C_off 2 · cycle 0.3 = 0.69075; retained
    # 27/800 = 0.03375 and removed -27/4,000 = -0.00675 exactly; extension -243/68,000,
    # cycle change -3/85 and enlarged 1,011/17,000 fall short of their total 3,237/68,000 =
    # 0.047602941176470588 (rounds to ...471) by one unit when floored (...765, ...059,
    # ...294 sum to ...470), and the unit goes to the largest remainder, the extension's
    # (-3,573,529,411,764.71 floors to ...765 with 0.29 left): -0.003573529411764, one unit
    # above its own nearest rounding.
    assert at0.list_price.off == 0.69075
    assert _components(at0.list_delta) == (
        0.03375,
        -0.00675,
        -0.003573529411764,
        -0.035294117647059,
        0.059470588235294,
        0.0,
        0.0,
    )
    assert at0.list_delta.total == 0.047602941176471
    assert at0.list_price.on == 0.738352941176471  # 0.69075 + 0.047602941176471
    # 16,736/15,657 = 1.068914862362...: above the 5% threshold.
    assert (at0.list_price.ratio, at0.list_price.increase) == (1.06891486236, 0.0689148623619)
    assert at0.list_price.within_threshold is False
    # The quota weights are the list ones / 300, so the ratio is the same.
    assert (at0.quota_share.off, at0.quota_share.ratio) == (0.0023025, 1.06891486236)
    # Criterion 5 on the exact values: the worst is 20% (docs/model.md §6: 9.58%),
    # (on - off) / off = (11,670,392,421 / 176,364,800,000) / (2,763 / 4,000).
    assert outcome == CostOutcome(
        worst_increase=Fraction(11_670_392_421, 176_364_800_000) / Fraction(2_763, 4_000),
        unbounded=False,
        defined=True,
    )


def test_cost_part_components_add_up_to_on_minus_off_in_both_views() -> None:
    """At every rate and in both views, the printed components add up digit for digit to
    the printed total and to on - off, each pair to its subtotal, and off prints the same at
    every rate (numbers.apportion on one grid per view)."""
    _, part = _part()
    for view in ("list", "quota"):
        offs = set()
        for at in part.sensitivities:
            figures, delta = (
                (at.list_price, at.list_delta)
                if view == "list"
                else (at.quota_share, at.quota_share_delta)
            )
            offs.add(figures.off)
            assert _printed(*_components(delta)) == _printed(delta.total)
            assert _printed(figures.on) - _printed(figures.off) == _printed(delta.total)
            assert _printed(delta.removed.observed, delta.removed.extension) == _printed(
                delta.removed.total
            )
            assert _printed(delta.summary.cycle_change, delta.summary.enlarged_summaries) == (
                _printed(delta.summary.total)
            )
            assert _printed(delta.retrieval.round_trips, delta.retrieval.returned_history) == (
                _printed(delta.retrieval.total)
            )
        assert len(offs) == 1, view


def test_cost_part_summary_input_halved_and_doubled_at_the_supplied_rate() -> None:
    """Supplied 20%: with summaryInputTokens 20,000 or 80,000 only the cycle cost moves,
    0.3 to 0.24 or 0.42, in off (C_off 2 cycles) and in the cycle change (C_on - C_off =
    1,621/850 - 2 = -79/850); the summary still fits T (20,000 or 80,000 + 10,000 + 500)."""
    _, part = _part(Fraction(1, 5))
    gated = Fraction(11_670_392_421, 176_364_800_000)  # on - off at 20% (docs/model.md §6)
    off = Fraction(2_763, 4_000)
    fewer_cycles = Fraction(79, 850)

    def ratio(cycle_change: Fraction) -> float:
        # cycle moves by cycle_change: off by 2·cycle_change, on - off by -79/850·cycle_change
        return rounded(1 + (gated - fewer_cycles * cycle_change) / (off + 2 * cycle_change))

    sensitivity = part.summary_input_informational
    assert sensitivity.gating is False
    assert sensitivity.halved == rm.SummaryInputFigures(
        summary_input_tokens=20_000,
        list_price_ratio=ratio(Fraction(-6, 100)),  # 20,000 fewer tokens at 3 per million
        quota_share_ratio=ratio(Fraction(-6, 100)),
    )
    assert sensitivity.doubled == rm.SummaryInputFigures(
        summary_input_tokens=80_000,
        list_price_ratio=ratio(Fraction(12, 100)),  # 40,000 more at 3 per million
        quota_share_ratio=ratio(Fraction(12, 100)),
    )


def test_cost_part_warm_rewrite_counts_warm_and_unknown_gap_pressured_boundaries() -> None:
    """Pressured boundaries of 150,000 (warm, 10 s gap) and 160,000 tokens (unknown gap),
    a cold pressured one and an unpressured warm one: 310,000 prefix tokens rewritten at
    max(3, 3.75) - 0.3 = 3.45 per million (1.0695) and (1.25 - 0.1) / 10^8 per token
    (0.003565); with an unknown cache lifetime both count as of unknown gap."""
    boundaries = boundaries_one(
        [
            {"pressured": True, "cold": False, "gap_ms": 10_000, "estimate": 150_000},
            {"pressured": True, "cold": False, "gap_ms": None, "estimate": 160_000},
            {"pressured": True, "cold": True, "gap_ms": 400_000, "estimate": 170_000},
            {"pressured": False, "cold": False, "gap_ms": 5, "estimate": 1_000},
        ]
    )
    rewrite = _part(boundaries=boundaries)[1].warm_rewrite_informational
    assert rewrite == rm.WarmRewrite(
        gating=False,
        warm_pressured_boundaries=1,
        unknown_gap_pressured_boundaries=1,
        prefix_tokens=310_000,
        list_price_cost=1.0695,
        quota_share_cost=0.003565,
    )
    unknown = msgspec.structs.replace(ROUTE, cache_lifetime_ms="unknown")
    rewrite = _part(route=unknown, boundaries=boundaries)[1].warm_rewrite_informational
    assert (rewrite.warm_pressured_boundaries, rewrite.unknown_gap_pressured_boundaries) == (0, 2)


def test_cost_part_is_undefined_with_the_pressure_model_and_copies_its_causes() -> None:
    """No growth and T = P: no cost figure, no rate, no summary-input figure, the pressure
    inputs' two causes copied; the two printed sums still pass through; criterion 5 not
    evaluated."""
    inputs, _ = _example_inputs()
    pressure = PressureInputs(
        growth=0,
        trigger=40_000,
        drain=40_000,
        admitted=20_000,
        retrieved=21_000,
        summary_input=40_000,
        summary_cleared=1_000,
    )
    outcome, part = _part(inputs=msgspec.structs.replace(inputs, growth=0), pressure=pressure)
    assert outcome == CostOutcome(worst_increase=None, unbounded=False, defined=False)
    assert part.defined is False
    assert part.undefined_causes == (
        UndefinedCause.NO_GROWTH,
        UndefinedCause.TRIGGER_NOT_ABOVE_DRAIN,
    )
    assert (part.list_price_blend, part.quota_share_blend, part.mean_observed_prefix) == (
        None,
        None,
        None,
    )
    assert (part.removed_observed_tokens, part.summary_cleared_tokens) == (10_000, 1_000)
    assert part.sensitivities == ()
    assert part.all_uncached_informational.sensitivities == ()
    summary = part.summary_input_informational
    assert (summary.halved, summary.doubled) == (None, None)


def test_cost_part_ratio_is_null_over_zero_off_and_one_for_zero_over_zero() -> None:
    """A route that prices only output and has no summary: no request, so off is 0 at every
    rate; two cleared results make on 0 at 0% (ratio 1, within the threshold) but
    rate · 2 · 100 output tokens at 5% and 20% (ratio null, unbounded: criterion 5 fails)."""
    route = decode_routes(
        json.dumps(
            [
                SEED_ROUTE
                | {
                    "summaryInputTokens": 0,
                    "summaryOutputTokens": 0,
                    "prices": {"input": 0, "cacheRead": 0, "cacheWrite": 0, "output": 15},
                    "quota": {"input": 0, "cacheRead": 0, "cacheWrite": 0, "output": 5},
                }
            ]
        ).encode()
    ).by_api[Api.ANTHROPIC_MESSAGES]
    _, example_pressure = _example_inputs()
    no_request = cost_inputs(
        RequestSums(), _cleared([10_000, 10_000], [10_500, 10_500], [500, 500]), 320_000
    )
    outcome, part = _part(
        inputs=no_request,
        pressure=msgspec.structs.replace(example_pressure, summary_input=0),
        route=route,
    )
    assert outcome == CostOutcome(worst_increase=None, unbounded=True, defined=True)
    at0, at5, at20 = part.sensitivities
    assert (at0.list_price.off, at0.list_price.on) == (0.0, 0.0)
    assert (at0.list_price.ratio, at0.list_price.increase) == (1.0, 0.0)
    assert at0.list_price.within_threshold is True
    # 0.05 · 2 · 100 · 15 / 10^6 = 0.00015; at 20%, 0.0006; in quota, 5 / 10^8 per token.
    assert (at5.list_price.off, at5.list_price.on, at20.list_price.on) == (0.0, 0.00015, 0.0006)
    assert (at5.quota_share.on, at20.quota_share.on) == (5e-07, 2e-06)
    for at in (at5, at20):
        for figures in (at.list_price, at.quota_share):
            assert (figures.ratio, figures.increase, figures.within_threshold) == (
                None,
                None,
                False,
            )
    # The all-uncached arm prices the same round trips: 1 at 0%, null above.
    uncached = part.all_uncached_informational.sensitivities
    assert [(at.list_price_ratio, at.quota_share_ratio) for at in uncached] == [
        (1.0, 1.0),
        (None, None),
        (None, None),
    ]
