"""The pressure model (R-PM-1..5): the worked example digit for digit, edges, sensitivities."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clearing_analysis.models import (
    PressureInputs,
    RateLabel,
    pressure_model,
    sensitivities,
)
from clearing_analysis.models.undefined import UndefinedCause

WORKED = PressureInputs(
    growth=1_000_000,
    trigger=200_000,
    drain=40_000,
    admitted=200_000,
    retrieved=250_000,
    summary_input=40_000,
    summary_cleared=200_000,  # 400 cleared results at the 500-token cap: 32,000 per cycle
)


def test_worked_example_of_the_requirements() -> None:
    """R-PM-5: C_off 6.25, S/C 32,000, on 5.2734375 and 15.625% at 5%, 5.46875 and 12.5% at
    20%; summary input 104,000 fits T, so the reduction is credited."""
    model = pressure_model(WORKED, sensitivities(Fraction(1, 20)))
    assert model.defined
    assert model.off == Fraction(25, 4)
    assert model.savings_per_cycle == 32_000
    assert model.summary_input_per_cycle == 104_000
    assert model.summary_fits
    at5 = model.at_rate(Fraction(1, 20))
    at20 = model.at_rate(Fraction(1, 5))
    assert at5 is not None and at20 is not None
    assert at5.on == Fraction("5.2734375")
    assert at5.reduction == Fraction("0.15625")
    assert at20.on == Fraction("5.46875")
    assert at20.reduction == Fraction("0.125")


NO_GROWTH, NO_SPAN = UndefinedCause.NO_GROWTH, UndefinedCause.TRIGGER_NOT_ABOVE_DRAIN


@pytest.mark.parametrize(
    ("growth", "trigger", "drain", "causes"),
    [
        (0, 200_000, 40_000, (NO_GROWTH,)),
        (1_000, 40_000, 40_000, (NO_SPAN,)),
        (1_000, 30_000, 40_000, (NO_SPAN,)),
        (-5, 200_000, 0, (NO_GROWTH,)),
        (0, 30_000, 40_000, (NO_GROWTH, NO_SPAN)),
    ],
    ids=["no growth", "trigger equals drain", "trigger below drain", "negative growth", "both"],
)
def test_undefined_without_growth_or_span(
    growth: int, trigger: int, drain: int, causes: tuple[UndefinedCause, ...]
) -> None:
    """G <= 0 or T <= P leaves the model undefined: no figure at any rate, and the inputs say
    which of the two holds (every one that does)."""
    inputs = PressureInputs(growth, trigger, drain, 10, 10, 0, 0)
    model = pressure_model(inputs, sensitivities(Fraction(1, 20)))
    assert not model.defined
    assert model.off is None and model.at == ()
    assert inputs.undefined_causes == causes
    assert PressureInputs(1, 200_000, 40_000, 0, 0, 0, 0).undefined_causes == ()


def test_summary_that_does_not_fit_credits_no_reduction() -> None:
    """When summaryInputTokens + S/C + capped cleared tokens / C exceed T, savings leave the
    denominator: at 0% retrieval the reduction is exactly 0, and negative above it."""
    inputs = PressureInputs(1_000_000, 200_000, 40_000, 200_000, 250_000, 150_000, 200_000)
    model = pressure_model(inputs, sensitivities(Fraction(1, 20)))
    assert model.summary_input_per_cycle == 150_000 + 32_000 + 32_000
    assert not model.summary_fits
    at0 = model.at_rate(Fraction(0))
    at5 = model.at_rate(Fraction(1, 20))
    assert at0 is not None and at5 is not None
    assert at0.reduction == 0
    assert at5.reduction == Fraction(-1, 80)  # 1 - 1,012,500 / 1,000,000


def test_sensitivities_deduplicate_and_keep_labels() -> None:
    """The supplied rate joins the fixed 0 / 5% / 20% rows; equal values share one row."""
    assert [(s.rate, s.labels) for s in sensitivities(Fraction(1, 5))] == [
        (Fraction(0), (RateLabel.ZERO,)),
        (Fraction(1, 20), (RateLabel.DEFAULT,)),
        (Fraction(1, 5), (RateLabel.HIGH, RateLabel.SUPPLIED)),
    ]
    assert [s.rate for s in sensitivities(Fraction(1, 10))] == [
        Fraction(0),
        Fraction(1, 20),
        Fraction(1, 10),
        Fraction(1, 5),
    ]


@given(
    growth=st.integers(1, 10**9),
    span=st.integers(1, 10**6),
    drain=st.integers(0, 10**6),
    admitted=st.integers(0, 10**8),
    retrieved=st.integers(0, 10**8),
)
def test_reduction_falls_as_retrieval_rises(
    growth: int, span: int, drain: int, admitted: int, retrieved: int
) -> None:
    """More retrieval never lowers on-arm pressure; with nothing retrieved or cleared the two
    arms are equal."""
    inputs = PressureInputs(growth, drain + span, drain, admitted, retrieved, 0, 0)
    model = pressure_model(inputs, sensitivities(Fraction(1, 2)))
    reductions = [at.reduction for at in model.at]
    assert reductions == sorted(reductions, reverse=True)
    if admitted == 0 and retrieved == 0:
        assert all(r == 0 for r in reductions)
