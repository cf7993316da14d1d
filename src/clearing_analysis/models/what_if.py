"""A named pruning policy's pressure and cost (docs/model.md, section 9): the same pressure and
cost models as the gated figures, fed with what the policy cleared, plus the warm rewrite.

Per API cohort and view v, at each fixed retrieval rate ρ (0%, 5%, 20%):

    pressure          C_off, C_on and the reduction of `pressure.pressure_model`, with S, R and
                      Σ min(500, tokens) of the policy's cleared results
    avoided           C_off − C_on                      compactions over the window
    on_v(ρ)           the cost model's on arm (`cost.view_cost`), with the policy's n_cleared,
                      S, R, Σ min(500, tokens) and removed.observed
    rewrite_v         W · max(0, max(wI, wW) − wR)  W: prefix tokens a warm clearing sends
                                          again instead of reading them from the cache
                                          (summed over the policy's warm events)
    ratio_v(ρ)        (on_v(ρ) + rewrite_v) / off_v

Informational: nothing here reaches the gate. Every figure is an exact `Fraction`.
"""

from __future__ import annotations

from fractions import Fraction

import msgspec

from clearing_analysis.inputs.configs import Route
from clearing_analysis.models.cost import CostInputs, View, Weights, cost_model
from clearing_analysis.models.pressure import PressureInputs, pressure_model
from clearing_analysis.models.rates import Sensitivity, fixed_sensitivities


class ClearedSums(msgspec.Struct, frozen=True):
    """What one policy cleared on one API cohort, and the prefix tokens it rewrote warm."""

    cleared: int  # n_cleared
    admitted: int  # S
    retrieved: int  # R
    summary_cleared: int  # Σ min(500, tokens)
    removed_observed: int  # Σ over observed requests of min(cleared tokens carried, prefix)
    rewritten: int  # W


class WhatIfAtRate(msgspec.Struct, frozen=True):
    """One retrieval rate: pressure and each view's cost ratio (None: unbounded)."""

    sensitivity: Sensitivity
    on: Fraction  # C_on
    reduction: Fraction
    avoided: Fraction  # C_off − C_on
    ratios: dict[View, Fraction | None]


class WhatIfModel(msgspec.Struct, frozen=True):
    """A policy's figures on one API; `defined` False when the pressure model is not."""

    defined: bool
    off: Fraction | None  # C_off
    rewrite: dict[View, Fraction]  # W · max(0, max(wI, wW) − wR) per view
    at: tuple[WhatIfAtRate, ...]


def rewrite_cost(route: Route, view: View, rewritten: int) -> Fraction:
    """W prefix tokens sent again instead of read from the cache, in `view`: at max(wI, wW)
    instead of wR each, as the cost part's warm-rewrite figure."""
    return rewritten * Weights.for_view(route, view).rewrite_over_read


def what_if_model(
    gated: CostInputs, pressure: PressureInputs, route: Route, policy: ClearedSums
) -> WhatIfModel:
    """The policy's figures: the gated cohort's request sums, growth and route, with the
    policy's cleared sums in place of the seed's."""
    inputs = msgspec.structs.replace(
        gated,
        cleared=policy.cleared,
        admitted=policy.admitted,
        retrieved=policy.retrieved,
        summary_cleared=policy.summary_cleared,
        removed_observed=policy.removed_observed,
    )
    rates = fixed_sensitivities()
    pressure_inputs = msgspec.structs.replace(
        pressure,
        admitted=policy.admitted,
        retrieved=policy.retrieved,
        summary_cleared=policy.summary_cleared,
    )
    model = pressure_model(pressure_inputs, rates)
    rewrite = {view: rewrite_cost(route, view, policy.rewritten) for view in View}
    costs = cost_model(inputs, route, model)
    if not model.defined or model.off is None or not costs.defined:
        return WhatIfModel(False, None, rewrite, ())
    at = []
    for pressure_at, cost_at in zip(model.at, costs.at, strict=True):
        ratios: dict[View, Fraction | None] = {}
        for view, cost in cost_at.views.items():
            on = cost.on + rewrite[view]
            ratios[view] = (Fraction(1) if on == 0 else None) if cost.off == 0 else on / cost.off
        at.append(
            WhatIfAtRate(
                pressure_at.sensitivity,
                pressure_at.on,
                pressure_at.reduction,
                model.off - pressure_at.on,
                ratios,
            )
        )
    return WhatIfModel(True, model.off, rewrite, tuple(at))


__all__ = [
    "ClearedSums",
    "WhatIfAtRate",
    "WhatIfModel",
    "rewrite_cost",
    "what_if_model",
]
