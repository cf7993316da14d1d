"""The cost model (R-CM-1..7; docs/model.md, "Cost"): two views, signed exactly additive deltas.

Per API cohort and view v, with weights (wI, wR, wW, wO) = prices / 10^6 in the list-price view
and quota weights / quotaBudget in the quota-share view:

    off       = Σ request costs (observed usage; else the labeled uncached fallback:
                context heuristic · wI + own heuristic · wO)
                + C_off · (summaryInputTokens · wI + summaryOutputTokens · wO + P · wW)
    blend     = (Σ input · wI + Σ cacheRead · wR + Σ cacheWrite · wW) / Σ prefix   (observed)
    Pfx       = Σ prefix / observed requests            (prefix = input + cacheRead + cacheWrite)
    removed   = observed + extension
      observed  = − Σ over observed requests of min(cleared tokens still in context, prefix) · blend
      extension = − C_on · (N / G) · (S / C_off) · min(S / C_off, Pfx) · blend
    retained  = + N · S / (2 · C_off) · blend
    summary   = cycle change + enlarged summaries
      cycle change      = (C_on − C_off) · (summaryInputTokens · wI
                          + summaryOutputTokens · wO + P · wW)
      enlarged summaries = (C_on · S / C_off + Σ min(500, tokens)) · wI
    retrieval(ρ) = round trips + returned history
      round trips       = ρ · n_cleared · (Pfx · blend + retrievalOutputTokens · wO)
      returned history  = ρ · R · blend · (N / C_on) / 2
    on        = off + retained + removed + summary + retrieval            (exactly)

C_on is the pressure model's at the same ρ. Every figure is a `Fraction`; nothing is rounded
here. A zero-prefix request contributes zero ordinary prefix delta (its min(·, prefix) is 0).
"""

from __future__ import annotations

import enum
from fractions import Fraction

import msgspec

from clearing_analysis.inputs.configs import Route, TokenWeights
from clearing_analysis.models.pressure import PressureModel
from clearing_analysis.models.rates import Sensitivity, exact
from clearing_analysis.policy import simulation_policy

PER_MILLION = 1_000_000


class View(enum.StrEnum):
    """The two cost views (R-CM-2)."""

    LIST_PRICE = "LIST_PRICE"  # currency, prices per million tokens
    QUOTA_SHARE = "QUOTA_SHARE"  # share of the subscription's quota budget


class Weights(msgspec.Struct, frozen=True):
    """Per-token weights of one view."""

    input: Fraction
    cache_read: Fraction
    cache_write: Fraction
    output: Fraction

    @classmethod
    def of(cls, weights: TokenWeights, divisor: Fraction) -> Weights:
        """Route weights divided by `divisor` (10^6 for prices, quotaBudget for quota)."""
        return cls(
            exact(weights.input) / divisor,
            exact(weights.cache_read) / divisor,
            exact(weights.cache_write) / divisor,
            exact(weights.output) / divisor,
        )

    @classmethod
    def for_view(cls, route: Route, view: View) -> Weights:
        """The weights of `view` for `route`."""
        if view is View.LIST_PRICE:
            return cls.of(route.prices, Fraction(PER_MILLION))
        return cls.of(route.quota, exact(route.quota_budget))

    @property
    def rewrite_over_read(self) -> Fraction:
        """What a prefix token costs more when a rewritten prompt sends it again instead of
        reading it from the cache: it is billed at least as uncached input, as a cache write
        where the provider bills writes at a premium (max(wI, wW)), instead of as a read;
        never negative. A route whose cache writes are free (implicit caching) still pays
        input for a miss."""
        return max(Fraction(0), max(self.input, self.cache_write) - self.cache_read)


class CostInputs(msgspec.Struct, frozen=True):
    """Integer sums over one API cohort's requests and cleared results."""

    requests: int  # N: every assistant message of the cohort's counted boundaries
    observed_requests: int
    input: int  # Σ over observed requests
    cache_read: int
    cache_write: int
    output: int
    fallback_context: int  # Σ context heuristic tokens over fallback requests
    fallback_output: int  # Σ own heuristic tokens over fallback requests
    removed_observed: int  # Σ over observed requests of min(cleared tokens carried, prefix)
    cleared: int  # n_cleared
    admitted: int  # S
    retrieved: int  # R
    summary_cleared: int  # Σ min(500, tokens)
    growth: int  # G

    @property
    def prefix(self) -> int:
        """Σ observed prefix tokens (input + cacheRead + cacheWrite)."""
        return self.input + self.cache_read + self.cache_write


class Delta(msgspec.Struct, frozen=True):
    """The signed components of on − off; `total` is their exact sum."""

    retained: Fraction
    removed_observed: Fraction
    removed_extension: Fraction
    summary_cycle_change: Fraction
    summary_enlarged: Fraction
    retrieval_round_trips: Fraction
    retrieval_returned_history: Fraction

    @property
    def removed(self) -> Fraction:
        """observed + extension."""
        return self.removed_observed + self.removed_extension

    @property
    def summary(self) -> Fraction:
        """cycle change + enlarged summaries."""
        return self.summary_cycle_change + self.summary_enlarged

    @property
    def retrieval(self) -> Fraction:
        """round trips + returned history."""
        return self.retrieval_round_trips + self.retrieval_returned_history

    @property
    def total(self) -> Fraction:
        """retained + removed + summary + retrieval."""
        return self.retained + self.removed + self.summary + self.retrieval


class ViewCost(msgspec.Struct, frozen=True):
    """One view at one retrieval rate."""

    off: Fraction
    delta: Delta

    @property
    def on(self) -> Fraction:
        """off + Σ components, exactly."""
        return self.off + self.delta.total

    @property
    def ratio(self) -> Fraction | None:
        """on / off; None (unbounded) when off is 0 and on positive; 1 when both are 0."""
        if self.off == 0:
            return Fraction(1) if self.on == 0 else None
        return self.on / self.off


def blend_rate(inputs: CostInputs, weights: Weights) -> Fraction:
    """The observed token-weighted prefix rate (output excluded); 0 with no observed prefix."""
    if inputs.prefix == 0:
        return Fraction(0)
    priced = (
        inputs.input * weights.input
        + inputs.cache_read * weights.cache_read
        + inputs.cache_write * weights.cache_write
    )
    return priced / inputs.prefix


def mean_prefix(inputs: CostInputs) -> Fraction:
    """Pfx: the plain mean observed prefix per observed request (0 with none)."""
    if inputs.observed_requests == 0:
        return Fraction(0)
    return Fraction(inputs.prefix, inputs.observed_requests)


def off_cost(inputs: CostInputs, route: Route, weights: Weights, cycles_off: Fraction) -> Fraction:
    """The off arm: observed request costs, the labeled fallback, summaries and drain recaches."""
    requests = (
        inputs.input * weights.input
        + inputs.cache_read * weights.cache_read
        + inputs.cache_write * weights.cache_write
        + inputs.output * weights.output
        + inputs.fallback_context * weights.input
        + inputs.fallback_output * weights.output
    )
    return requests + cycles_off * summary_cycle_cost(route, weights)


def summary_cycle_cost(route: Route, weights: Weights) -> Fraction:
    """One compaction cycle: the summarizer's input and output, and the drain's recache."""
    return (
        route.summary_input_tokens * weights.input
        + route.summary_output_tokens * weights.output
        + route.drain_tokens * weights.cache_write
    )


def view_cost(
    inputs: CostInputs,
    route: Route,
    weights: Weights,
    *,
    cycles_off: Fraction,
    cycles_on: Fraction,
    rate: Fraction,
) -> ViewCost:
    """Off and the signed components at one retrieval rate (see the module docstring)."""
    blend = blend_rate(inputs, weights)
    pfx = mean_prefix(inputs)
    n = inputs.requests
    per_cycle = inputs.admitted / cycles_off  # S / C_off
    extension_requests = cycles_on * Fraction(n, inputs.growth) * per_cycle
    retrieval_output = simulation_policy().retrieval_output_tokens
    delta = Delta(
        retained=n * per_cycle / 2 * blend,
        removed_observed=-inputs.removed_observed * blend,
        removed_extension=-extension_requests * min(per_cycle, pfx) * blend,
        summary_cycle_change=(cycles_on - cycles_off) * summary_cycle_cost(route, weights),
        summary_enlarged=(cycles_on * per_cycle + inputs.summary_cleared) * weights.input,
        retrieval_round_trips=rate
        * inputs.cleared
        * (pfx * blend + retrieval_output * weights.output),
        retrieval_returned_history=rate * inputs.retrieved * blend * (n / cycles_on) / 2,
    )
    return ViewCost(off_cost(inputs, route, weights, cycles_off), delta)


def uncached_on(
    inputs: CostInputs,
    route: Route,
    weights: Weights,
    *,
    cycles_on: Fraction,
    rate: Fraction,
    on_arm: ViewCost,
) -> Fraction:
    """allUncachedInformational's on arm (R-CM-6): request prefixes, retrieval round trips and
    drain recaches repriced at no less than uncached input (max(wI, blend): a higher observed
    write-premium blend is never discounted). Informational, never gated."""
    blend = blend_rate(inputs, weights)
    floor = max(weights.input, blend)
    delta = on_arm.delta
    # The on arm's prefix tokens: observed, plus what the blend-priced components add or take
    # away (each is tokens · blend, so dividing by the blend recovers the tokens).
    changed = delta.retained + delta.removed + delta.retrieval_returned_history
    prefix_tokens = inputs.prefix + (changed / blend if blend else Fraction(0))
    requests = (
        prefix_tokens * floor
        + inputs.output * weights.output
        + inputs.fallback_context * weights.input
        + inputs.fallback_output * weights.output
    )
    summaries = cycles_on * (
        route.summary_input_tokens * weights.input
        + route.summary_output_tokens * weights.output
        + route.drain_tokens * max(weights.input, weights.cache_write)
    )
    retrieval_output = simulation_policy().retrieval_output_tokens
    round_trips = (
        rate * inputs.cleared * (mean_prefix(inputs) * floor + retrieval_output * weights.output)
    )
    return requests + summaries + delta.summary_enlarged + round_trips


class CostAtRate(msgspec.Struct, frozen=True):
    """Both views at one retrieval rate, with the informational all-uncached on arms."""

    sensitivity: Sensitivity
    views: dict[View, ViewCost]
    uncached_on: dict[View, Fraction]


class CostModel(msgspec.Struct, frozen=True):
    """The cost model of one API: None figures when the pressure model is undefined."""

    defined: bool
    at: tuple[CostAtRate, ...]

    def worst_increase(self) -> tuple[Fraction | None, bool]:
        """(max over rates and views of ratio − 1, unbounded?) for criterion 5."""
        worst: Fraction | None = None
        for at in self.at:
            for cost in at.views.values():
                ratio = cost.ratio
                if ratio is None:
                    return None, True
                increase = ratio - 1
                worst = increase if worst is None else max(worst, increase)
        return worst, False


def cost_model(inputs: CostInputs, route: Route, pressure: PressureModel) -> CostModel:
    """Both views at every sensitivity of `pressure` (undefined when it is)."""
    if not pressure.defined or pressure.off is None or inputs.growth <= 0:
        return CostModel(False, ())
    at = []
    for pressure_at in pressure.at:
        rate = pressure_at.sensitivity.rate
        views: dict[View, ViewCost] = {}
        uncached: dict[View, Fraction] = {}
        for view in View:
            weights = Weights.for_view(route, view)
            cost = view_cost(
                inputs,
                route,
                weights,
                cycles_off=pressure.off,
                cycles_on=pressure_at.on,
                rate=rate,
            )
            views[view] = cost
            uncached[view] = uncached_on(
                inputs, route, weights, cycles_on=pressure_at.on, rate=rate, on_arm=cost
            )
        at.append(CostAtRate(pressure_at.sensitivity, views, uncached))
    return CostModel(True, tuple(at))


__all__ = [
    "CostAtRate",
    "CostInputs",
    "CostModel",
    "Delta",
    "View",
    "ViewCost",
    "Weights",
    "blend_rate",
    "cost_model",
    "mean_prefix",
    "off_cost",
    "view_cost",
]
