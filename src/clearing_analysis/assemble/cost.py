"""The report's cost part: sums from the simulation's tables into the cost model, then each
figure rounded so that the printed components add up exactly (`numbers.apportion`).

Rounding: each view has one decimal grid for its off arm, on arms and components at every rate
(`numbers.shared_grid`: 12 significant digits of its smallest figure, at most 15 of its
largest). The off arm is rounded to it on its own, so it prints the same at every rate; the
seven signed sub-components are put on it by largest remainder, so they add up to their
rounded exact total; `on` is printed as off + that total, so a reader who adds the printed
components gets the printed on - off digit for digit. Other figures are rounded to 12
significant digits each. Ratios and the gate use the exact values.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import msgspec

from clearing_analysis.gate import CostOutcome
from clearing_analysis.inputs.configs import Route
from clearing_analysis.models import PressureInputs, Sensitivity, pressure_model
from clearing_analysis.models.cost import (
    CostAtRate,
    CostInputs,
    CostModel,
    Delta,
    View,
    ViewCost,
    Weights,
    blend_rate,
    cost_model,
    mean_prefix,
)
from clearing_analysis.models.rates import exact
from clearing_analysis.numbers import Rounded, apportion, on_grid, rounded, shared_grid
from clearing_analysis.policy import gate_policy
from clearing_analysis.report import model as rm
from clearing_analysis.simulation.figures import BoundaryFigures, ClearedFigures
from clearing_analysis.simulation.totals import RequestSums


def cost_inputs(requests: RequestSums, cleared: ClearedFigures, growth: int) -> CostInputs:
    """Exact integer sums of one API: its request sums and its cleared results' sums."""
    return CostInputs(
        requests=requests.requests,
        observed_requests=requests.requests - requests.fallback,
        input=requests.input,
        cache_read=requests.cache_read,
        cache_write=requests.cache_write,
        output=requests.output,
        fallback_context=requests.fallback_context,
        fallback_output=requests.fallback_output,
        removed_observed=requests.removed_observed,
        cleared=cleared.results,
        admitted=cleared.net_tokens,
        retrieved=cleared.escaped_tokens,
        summary_cleared=cleared.summary_tokens,
        growth=growth,
    )


def _ratio(on: Fraction, off: Fraction) -> Rounded | None:
    """on / off: None (unbounded) for zero off and positive on, 1 for zero over zero."""
    if off == 0:
        return 1.0 if on == 0 else None
    return rounded(on / off)


def _components(delta: Delta) -> list[Fraction]:
    """The seven signed sub-components, in the report's order."""
    return [
        delta.retained,
        delta.removed_observed,
        delta.removed_extension,
        delta.summary_cycle_change,
        delta.summary_enlarged,
        delta.retrieval_round_trips,
        delta.retrieval_returned_history,
    ]


def _view_grid(model: CostModel, view: View) -> int:
    """One grid for a view's off arm, on arms and components at every rate (`shared_grid`), so
    off prints the same at every rate and on - off is the printed components' sum."""
    figures: list[Fraction] = []
    for at in model.at:
        cost = at.views[view]
        figures += [cost.off, cost.on, *_components(cost.delta)]
    return shared_grid(figures)


def _view(cost: ViewCost, decimals: int) -> tuple[rm.ViewFigures, rm.Delta]:
    (off,) = apportion([cost.off], decimals)
    k = apportion(_components(cost.delta), decimals)
    total = sum(k)
    ratio = cost.ratio
    threshold = exact(gate_policy().max_cost_increase)

    def grid(units: int) -> Rounded:
        return on_grid(units, decimals)

    figures = rm.ViewFigures(
        off=grid(off),
        on=grid(off + total),
        ratio=None if ratio is None else rounded(ratio),
        increase=None if ratio is None else rounded(ratio - 1),
        within_threshold=ratio is not None and ratio - 1 <= threshold,
    )
    printed = rm.Delta(
        retained=grid(k[0]),
        removed=rm.RemovedDelta(grid(k[1] + k[2]), grid(k[1]), grid(k[2])),
        summary=rm.SummaryDelta(grid(k[3] + k[4]), grid(k[3]), grid(k[4])),
        retrieval=rm.RetrievalDelta(grid(k[5] + k[6]), grid(k[5]), grid(k[6])),
        total=grid(total),
    )
    return figures, printed


def _at_rate(at: CostAtRate, grids: dict[View, int]) -> rm.CostAtRate:
    list_figures, list_delta = _view(at.views[View.LIST_PRICE], grids[View.LIST_PRICE])
    quota_figures, quota_delta = _view(at.views[View.QUOTA_SHARE], grids[View.QUOTA_SHARE])
    return rm.CostAtRate(
        rate=rounded(at.sensitivity.rate),
        labels=at.sensitivity.labels,
        list_price=list_figures,
        quota_share=quota_figures,
        list_delta=list_delta,
        quota_share_delta=quota_delta,
    )


def _uncached(model: CostModel) -> rm.AllUncached:
    return rm.AllUncached(
        gating=False,
        sensitivities=tuple(
            rm.UncachedAtRate(
                rate=rounded(at.sensitivity.rate),
                labels=at.sensitivity.labels,
                list_price_on=rounded(at.uncached_on[View.LIST_PRICE]),
                list_price_ratio=_ratio(
                    at.uncached_on[View.LIST_PRICE], at.views[View.LIST_PRICE].off
                ),
                quota_share_on=rounded(at.uncached_on[View.QUOTA_SHARE]),
                quota_share_ratio=_ratio(
                    at.uncached_on[View.QUOTA_SHARE], at.views[View.QUOTA_SHARE].off
                ),
            )
            for at in model.at
        ),
    )


def _warm_rewrite(boundaries: BoundaryFigures, route: Route) -> rm.WarmRewrite:
    """Warm or unknown-gap pressured boundaries and the cost of rewriting their prefix: with
    the cache's lifetime unknown, every gap is."""
    pressured = boundaries.warm_pressured
    if route.cache_lifetime_ms == "unknown":
        unknown = pressured
    else:
        unknown = boundaries.warm_pressured_unknown_gap
    tokens = boundaries.warm_pressured_tokens

    def extra(view: View) -> Rounded:
        return rounded(tokens * Weights.for_view(route, view).rewrite_over_read)

    return rm.WarmRewrite(
        gating=False,
        warm_pressured_boundaries=pressured - unknown,
        unknown_gap_pressured_boundaries=unknown,
        prefix_tokens=tokens,
        list_price_cost=extra(View.LIST_PRICE),
        quota_share_cost=extra(View.QUOTA_SHARE),
    )


class CostContext(msgspec.Struct, frozen=True):
    """What the cost part is computed from, for one API."""

    inputs: CostInputs
    route: Route
    pressure_inputs: PressureInputs
    rates: Sequence[Sensitivity]
    supplied_rate: Fraction


def _model(context: CostContext, summary_input: int) -> CostModel:
    route = msgspec.structs.replace(context.route, summary_input_tokens=summary_input)
    pressure = pressure_model(
        msgspec.structs.replace(context.pressure_inputs, summary_input=summary_input), context.rates
    )
    return cost_model(context.inputs, route, pressure)


def _summary_figures(context: CostContext, tokens: int) -> rm.SummaryInputFigures | None:
    model = _model(context, tokens)
    at = next((a for a in model.at if a.sensitivity.rate == context.supplied_rate), None)
    if at is None:
        return None
    list_ratio = at.views[View.LIST_PRICE].ratio
    quota_ratio = at.views[View.QUOTA_SHARE].ratio
    return rm.SummaryInputFigures(
        summary_input_tokens=tokens,
        list_price_ratio=None if list_ratio is None else rounded(list_ratio),
        quota_share_ratio=None if quota_ratio is None else rounded(quota_ratio),
    )


def cost_part(context: CostContext, boundaries: BoundaryFigures) -> tuple[CostOutcome, rm.Cost]:
    """Criterion 5's outcome and the report's cost part."""
    route = context.route
    model = _model(context, route.summary_input_tokens)
    worst, unbounded = model.worst_increase()
    inputs = context.inputs
    blends = {view: blend_rate(inputs, Weights.for_view(route, view)) for view in View}
    defined = model.defined
    summary_tokens = route.summary_input_tokens
    grids = {view: _view_grid(model, view) for view in View}
    report = rm.Cost(
        defined=defined,
        undefined_causes=context.pressure_inputs.undefined_causes,
        list_price_blend=rounded(blends[View.LIST_PRICE]) if defined else None,
        quota_share_blend=rounded(blends[View.QUOTA_SHARE]) if defined else None,
        mean_observed_prefix=rounded(mean_prefix(inputs)) if defined else None,
        removed_observed_tokens=inputs.removed_observed,
        summary_cleared_tokens=inputs.summary_cleared,
        sensitivities=tuple(_at_rate(at, grids) for at in model.at),
        all_uncached_informational=_uncached(model),
        warm_rewrite_informational=_warm_rewrite(boundaries, route),
        summary_input_informational=rm.SummaryInputSensitivity(
            gating=False,
            halved=_summary_figures(context, summary_tokens // 2),
            doubled=_summary_figures(context, summary_tokens * 2),
        ),
    )
    outcome = CostOutcome(worst_increase=worst, unbounded=unbounded, defined=defined)
    return outcome, report


__all__ = ["CostContext", "cost_inputs", "cost_part"]
