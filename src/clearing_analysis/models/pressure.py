"""The compaction-pressure model (R-PM-1..5; docs/model.md, "Pressure").

With native growth G, trigger T, drain P, admitted net savings S, expected retrieved text R and
retrieval rate ρ (all per API cohort):

    off pressure       C_off = G / (T - P)                      compactions over the window
    savings per cycle  S / C_off
    on pressure        C_on  = (G + ρ·R) / (T - P + S / C_off)
    reduction          1 - C_on / C_off

A continuous whole-cycle approximation over frozen continuations: no alternate assistant
behaviour, no quality claim. The summary must fit: summaryInputTokens + S / C_off +
Σ min(500, tokens of each cleared result) / C_off <= T, else no reduction is credited (the
savings leave the denominator; retrieval growth stays, so the on arm is never better than
off). G = 0 or T <= P leaves the model undefined (PRESSURE_MODEL_UNDEFINED), and the model says
which of the two holds (`UndefinedCause`).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import msgspec

from clearing_analysis.models.rates import Sensitivity
from clearing_analysis.models.undefined import UndefinedCause


class PressureInputs(msgspec.Struct, frozen=True):
    """Cohort sums for one API (tokens)."""

    growth: int  # G
    trigger: int  # T
    drain: int  # P
    admitted: int  # S
    retrieved: int  # R: heuristic tokens of the cleared results' JSON-escaped text
    summary_input: int  # the route's summaryInputTokens
    summary_cleared: int  # Σ min(500, tokens) over cleared results

    @property
    def undefined_causes(self) -> tuple[UndefinedCause, ...]:
        """Every cause that leaves the model undefined; none when it is defined."""
        causes = []
        if self.growth <= 0:
            causes.append(UndefinedCause.NO_GROWTH)
        if self.trigger <= self.drain:
            causes.append(UndefinedCause.TRIGGER_NOT_ABOVE_DRAIN)
        return tuple(causes)


class PressureAtRate(msgspec.Struct, frozen=True):
    """On-arm pressure and reduction at one retrieval rate."""

    sensitivity: Sensitivity
    on: Fraction
    reduction: Fraction


class PressureModel(msgspec.Struct, frozen=True):
    """The model's figures; `defined` is False when G = 0 or T <= P (then nothing else is)."""

    defined: bool
    off: Fraction | None
    savings_per_cycle: Fraction | None
    summary_input_per_cycle: Fraction | None
    summary_fits: bool
    at: tuple[PressureAtRate, ...]

    def at_rate(self, rate: Fraction) -> PressureAtRate | None:
        """The figures at `rate`, if it is one of the sensitivities."""
        return next((x for x in self.at if x.sensitivity.rate == rate), None)


def pressure_model(inputs: PressureInputs, rates: Sequence[Sensitivity]) -> PressureModel:
    """Evaluate the model at every sensitivity (see the module docstring)."""
    span = inputs.trigger - inputs.drain
    if inputs.undefined_causes:
        return PressureModel(False, None, None, None, False, ())
    off = Fraction(inputs.growth, span)
    savings = inputs.admitted / off
    summary = inputs.summary_input + savings + inputs.summary_cleared / off
    fits = summary <= inputs.trigger
    credited = savings if fits else Fraction(0)
    at = []
    for sensitivity in rates:
        on = (inputs.growth + sensitivity.rate * inputs.retrieved) / (span + credited)
        at.append(PressureAtRate(sensitivity, on, 1 - on / off))
    return PressureModel(True, off, savings, summary, fits, tuple(at))


__all__ = [
    "PressureAtRate",
    "PressureInputs",
    "PressureModel",
    "UndefinedCause",
    "pressure_model",
]
