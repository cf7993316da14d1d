"""The pressure part from hand-built sums (R-PM-1..5): docs/model.md §4's worked example
through the part, the supplied rate among the sensitivities, a summary that does not fit, and
the undefined model."""

from __future__ import annotations

import json
from fractions import Fraction

from clearing_analysis.assemble.parts import pressure_part
from clearing_analysis.inputs.configs import Api, Route, decode_routes
from clearing_analysis.models import PressureInputs
from clearing_analysis.models.rates import RateLabel
from clearing_analysis.models.undefined import UndefinedCause
from clearing_analysis.report import model as rm
from clearing_analysis.simulation.figures import ClearedFigures
from clearing_analysis.simulation.totals import ApiSimulation
from tests._figures import cleared_one
from tests._seed_route import SEED_ROUTE

API = Api.ANTHROPIC_MESSAGES


def _route(**changes: object) -> Route:
    """The seed's route: T 200,000, P 40,000, summaryInputTokens 40,000."""
    return decode_routes(json.dumps([SEED_ROUTE | changes]).encode()).by_api[API]


def _sums(span: int, removed: int, cleared: ClearedFigures) -> ApiSimulation:
    sums = ApiSimulation(cleared=cleared)
    sums.boundary_span, sums.compaction_removed = span, removed
    return sums


def _cleared(results: int) -> ClearedFigures:
    """`results` cleared results of 500 net, 625 escaped and 500 summary tokens each."""
    row = {"net_tokens": 500, "escaped_tokens": 625, "summary_tokens": 500}
    return cleared_one([row] * results)


def test_pressure_part_of_the_worked_example() -> None:
    """docs/model.md §4: G = span 900,000 + removed 100,000; 400 results give S 200,000,
    R 250,000, Σ summary 200,000; C_off 6.25, 32,000 saved per cycle, summary input
    104,000 <= T; reductions 1/6, 15.625% and 12.5% at 0, 5% (gated) and 20%."""
    inputs, model, part = pressure_part(
        _route(), _sums(900_000, 100_000, _cleared(400)), Fraction(1, 20)
    )
    assert inputs == PressureInputs(
        growth=1_000_000,
        trigger=200_000,
        drain=40_000,
        admitted=200_000,
        retrieved=250_000,
        summary_input=40_000,
        summary_cleared=200_000,
    )
    assert model.defined and model.off == Fraction(25, 4)
    assert (part.defined, part.undefined_causes) == (True, ())
    assert (part.growth, part.boundary_span, part.compaction_removed) == (
        1_000_000,
        900_000,
        100_000,
    )
    assert (part.trigger, part.drain, part.admitted, part.retrieved) == (
        200_000,
        40_000,
        200_000,
        250_000,
    )
    # C_off = 1,000,000 / 160,000; S / C_off = 200,000 / 6.25; 40,000 + 32,000 + 200,000 / 6.25.
    assert (part.off, part.savings_per_cycle, part.summary_input_per_cycle) == (
        6.25,
        32_000.0,
        104_000.0,
    )
    assert (part.summary_fits, part.gated_rate) == (True, 0.05)
    assert part.sensitivities == (
        # C_on(0) = 1,000,000 / 192,000 = 125/24; 1 - (125/24) / 6.25 = 1/6.
        rm.PressureAtRate(
            rate=0.0, labels=(RateLabel.ZERO,), on=5.20833333333, reduction=0.166666666667
        ),
        # (1,000,000 + 0.05 · 250,000) / 192,000 = 5.2734375; 1 - 5.2734375 / 6.25.
        rm.PressureAtRate(
            rate=0.05,
            labels=(RateLabel.DEFAULT, RateLabel.SUPPLIED),
            on=5.2734375,
            reduction=0.15625,
        ),
        # 1,050,000 / 192,000 = 5.46875; 1 - 5.46875 / 6.25.
        rm.PressureAtRate(rate=0.2, labels=(RateLabel.HIGH,), on=5.46875, reduction=0.125),
    )


def test_a_supplied_rate_of_its_own_is_a_fourth_sensitivity_and_the_gated_one() -> None:
    """Supplied 10%: a row between 5% and 20%, C_on = 1,025,000 / 192,000 = 1,025/192,
    reduction 1 - (1,025/192) / (25/4) = 7/48; the gated rate is 0.1."""
    _, _, part = pressure_part(_route(), _sums(900_000, 100_000, _cleared(400)), Fraction(1, 10))
    assert part.gated_rate == 0.1
    assert [(at.rate, at.labels) for at in part.sensitivities] == [
        (0.0, (RateLabel.ZERO,)),
        (0.05, (RateLabel.DEFAULT,)),
        (0.1, (RateLabel.SUPPLIED,)),
        (0.2, (RateLabel.HIGH,)),
    ]
    supplied = part.sensitivities[2]
    assert (supplied.on, supplied.reduction) == (5.33854166667, 0.145833333333)


def test_a_summary_that_does_not_fit_credits_no_reduction() -> None:
    """summaryInputTokens 180,000: 180,000 + 32,000 + 32,000 = 244,000 > T, so the savings
    leave the denominator: C_on(0) = C_off (reduction 0), C_on(20%) = 1,050,000 / 160,000 =
    6.5625 (reduction -5%)."""
    _, _, part = pressure_part(
        _route(summaryInputTokens=180_000),
        _sums(900_000, 100_000, _cleared(400)),
        Fraction(1, 20),
    )
    assert (part.summary_input_per_cycle, part.summary_fits) == (244_000.0, False)
    at0, at5, at20 = part.sensitivities
    assert (at0.on, at0.reduction) == (6.25, 0.0)
    # (1,000,000 + 12,500) / 160,000 = 6.328125; 1 - 6.328125 / 6.25 = -0.0125.
    assert (at5.on, at5.reduction) == (6.328125, -0.0125)
    assert (at20.on, at20.reduction) == (6.5625, -0.05)


def test_no_growth_leaves_the_pressure_part_undefined() -> None:
    """No span and nothing compacted: G = 0, the model undefined with NO_GROWTH, no modeled
    figure and no rate; the sums and the gated rate are still stated."""
    _, model, part = pressure_part(_route(), _sums(0, 0, _cleared(2)), Fraction(1, 20))
    assert model.defined is False
    assert (part.defined, part.undefined_causes) == (False, (UndefinedCause.NO_GROWTH,))
    assert (part.growth, part.admitted, part.retrieved) == (0, 1_000, 1_250)
    assert (part.off, part.savings_per_cycle, part.summary_input_per_cycle) == (None, None, None)
    assert (part.summary_fits, part.sensitivities, part.gated_rate) == (False, (), 0.05)
