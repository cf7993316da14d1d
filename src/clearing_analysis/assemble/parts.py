"""The per-API parts both report kinds build alike, from the simulation's per-API figures and
the units' totals: evidence, simulation, pressure, cost, the route check, compactions, tool
results by class, web yield, escaping, requests and usage (`report.model.ApiFigures`: the
analysis report gates on them, explore only shows them).

Every figure is one API's own (`simulation.figures` reduces each unit's rows per API), so no
denominator is pooled across APIs (R-G-3). Nothing here reads input text, and nothing here
loads polars: the rows were reduced where they were made.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import msgspec

import clearing_analysis
from clearing_analysis.assemble.cost import CostContext, cost_inputs, cost_part
from clearing_analysis.assemble.what_ifs import what_if_rows
from clearing_analysis.eligibility.totals import ApiTotals, Totals
from clearing_analysis.gate import CostOutcome
from clearing_analysis.gate import Evidence as GateEvidence
from clearing_analysis.inputs.configs import Api, Route, Routes
from clearing_analysis.inputs.period import Period
from clearing_analysis.models import PressureInputs, PressureModel, pressure_model, sensitivities
from clearing_analysis.models.cost import View, Weights
from clearing_analysis.models.route_check import TriggerCheck, check_trigger
from clearing_analysis.numbers import rounded, share
from clearing_analysis.policy import histogram_edges
from clearing_analysis.report import model as rm
from clearing_analysis.simulation.figures import (
    BoundaryFigures,
    Buckets,
    CheckpointFigures,
    ClearedFigures,
)
from clearing_analysis.simulation.totals import (
    ApiSimulation,
    CategorySums,
    RequestSums,
    SimulationTotals,
    UsageKey,
)
from clearing_analysis.toolclass import ToolClass


def tool_version() -> str:
    """The clearing-analysis version (a package version, never a path): the package's own
    `__version__`, which a test holds equal to pyproject.toml's and the installed metadata's.
    Read from the package, not through importlib.metadata, whose import alone costs about 0.03
    CPU-s of a small run's start (docs/performance.md, "Start-up"), and which gave a run from
    a checkout that was never installed another version."""
    return clearing_analysis.__version__


def histogram(buckets: Buckets) -> rm.Histogram:
    """The report's histogram of `buckets` (the same edges and counts)."""
    return rm.Histogram(buckets.edges, tuple(buckets.counts), buckets.below, buckets.unknown)


def bucketed(values: Iterable[int | None], edges: Sequence[int]) -> rm.Histogram:
    """The report's histogram of `values` by `edges`."""
    buckets = Buckets.over(edges)
    buckets.extend(values)
    return histogram(buckets)


def evidence_part(boundaries: BoundaryFigures, route: Route) -> tuple[GateEvidence, rm.Evidence]:
    gate = GateEvidence(
        boundaries=boundaries.boundaries,
        pressured=boundaries.pressured,
        pressured_lineages=boundaries.pressured_lineages,
        cold_pressured=boundaries.cold_pressured,
        cold_pressured_lineages=boundaries.cold_pressured_lineages,
        admitting=boundaries.admitting,
    )
    evidence = rm.Evidence(
        boundaries=gate.boundaries,
        logical_conversations=boundaries.lineages,
        pressured=gate.pressured,
        pressured_logical_conversations=gate.pressured_lineages,
        cold_pressured=gate.cold_pressured,
        cold_pressured_logical_conversations=gate.cold_pressured_lineages,
        admitting=gate.admitting,
        admitting_share=rounded(gate.admitting_share),
        request_gaps_ms=histogram(boundaries.request_gaps_ms),
        cold_gap_ms=(
            None
            if route.cache_lifetime_ms == "unknown"
            else route.cache_lifetime_ms + route.cache_margin_ms
        ),
        estimates=histogram(boundaries.estimates),
        cold_estimates=histogram(boundaries.cold_estimates),
    )
    return gate, evidence


def simulation_part(
    boundaries: BoundaryFigures, cleared: ClearedFigures, placeholder_tokens: int
) -> rm.Simulation:
    return rm.Simulation(
        clearing_points=boundaries.clearing_points,
        batches=boundaries.batches,
        cleared_results=cleared.results,
        admitted_net_tokens=cleared.net_tokens,
        admitted_text_bytes=cleared.text_bytes,
        retrieved_tokens=cleared.escaped_tokens,
        budget_stops=boundaries.budget_stops,
        placeholder_tokens=placeholder_tokens,
        admitted_per_batch=histogram(boundaries.admitted_per_batch),
        upper_bound_net_tokens=boundaries.upper_bound_net_tokens,
        upper_bound_admitting=boundaries.upper_bound_admitting,
    )


def pressure_part(
    route: Route, sums: ApiSimulation, rate: Fraction
) -> tuple[PressureInputs, PressureModel, rm.Pressure]:
    growth = sums.boundary_span + sums.compaction_removed
    cleared = sums.cleared
    inputs = PressureInputs(
        growth=growth,
        trigger=route.trigger_tokens,
        drain=route.drain_tokens,
        admitted=cleared.net_tokens,
        retrieved=cleared.escaped_tokens,
        summary_input=route.summary_input_tokens,
        summary_cleared=cleared.summary_tokens,
    )
    model = pressure_model(inputs, sensitivities(rate))
    report = rm.Pressure(
        defined=model.defined,
        undefined_causes=inputs.undefined_causes,
        growth=growth,
        boundary_span=sums.boundary_span,
        compaction_removed=sums.compaction_removed,
        trigger=inputs.trigger,
        drain=inputs.drain,
        admitted=inputs.admitted,
        retrieved=inputs.retrieved,
        off=None if model.off is None else rounded(model.off),
        savings_per_cycle=(
            None if model.savings_per_cycle is None else rounded(model.savings_per_cycle)
        ),
        summary_input_per_cycle=(
            None
            if model.summary_input_per_cycle is None
            else rounded(model.summary_input_per_cycle)
        ),
        summary_fits=model.summary_fits,
        gated_rate=rounded(rate),
        sensitivities=tuple(
            rm.PressureAtRate(
                rate=rounded(at.sensitivity.rate),
                labels=at.sensitivity.labels,
                on=rounded(at.on),
                reduction=rounded(at.reduction),
            )
            for at in model.at
        ),
    )
    return inputs, model, report


def compactions_part(checkpoints: CheckpointFigures) -> rm.Compactions:
    """Checkpoints inside the window, by trigger, beside the model (R-PM-3)."""
    return rm.Compactions(
        checkpoints=checkpoints.checkpoints,
        by_trigger=dict(sorted(checkpoints.by_trigger.items())),
        tokens_before=histogram(checkpoints.tokens_before),
        drains=histogram(checkpoints.tokens_after),
        summary_tokens=histogram(checkpoints.summary_tokens),
    )


def eligibility_part(totals: ApiTotals) -> rm.Eligibility:
    """Result-boundary occurrences by class and reason (R-EL-8)."""
    occurrences = totals.occurrences
    return rm.Eligibility(
        exclusion_unit="result-boundary occurrence",
        occurrences=occurrences.total,
        by_class=dict(occurrences.by_class),
        by_reason=dict(occurrences.by_reason),
    )


def tool_results_part(
    categories: Mapping[ToolClass, CategorySums],
) -> tuple[rm.ToolClassResults, ...]:
    """Unique results per tool class, those of the simulation's eligible set (its "lower-bound
    class", which under `Bound.UPPER` is the upper-bound set) and what it cleared of them."""
    return tuple(
        rm.ToolClassResults(
            tool_class=tool_class,
            results=sums.results,
            text_bytes=sums.text_bytes,
            eligible=sums.lower_bound_class,
            cleared=sums.cleared,
            cleared_text_bytes=sums.cleared_text_bytes,
        )
        for tool_class, sums in categories.items()
    )


def web_part(web: CategorySums, redacted: int, losses: int) -> rm.WebYield:
    return rm.WebYield(
        results=web.results,
        text_bytes=web.text_bytes,
        cleared=web.cleared,
        cleared_text_bytes=web.cleared_text_bytes,
        yield_share=share(web.cleared_text_bytes, web.text_bytes),
        redacted_web_envelopes=redacted,
        structured_scan_losses=losses,
    )


def escaping_part(cleared: ClearedFigures) -> rm.Escaping:
    return rm.Escaping(
        cleared.text_bytes, cleared.escaped_bytes, share(cleared.escaped_bytes, cleared.text_bytes)
    )


def period_part(period: Period) -> rm.AnalyzedPeriod:
    """The period the run analyzed, as both reports state it."""
    return rm.AnalyzedPeriod(since_ms=period.since_ms, until_ms=period.until_ms)


def requests_part(requests: RequestSums) -> rm.Requests:
    return rm.Requests(
        requests=requests.requests,
        fallback=requests.fallback,
        fallback_share=share(requests.fallback, requests.requests),
    )


def recorded_list_price(requests: RequestSums, route: Route) -> Fraction:
    """The recorded usage at the route's list prices (per million tokens): what the history
    cost as recorded, without the fallback's estimate or any modeled summary (R-CM-1)."""
    weights = Weights.for_view(route, View.LIST_PRICE)
    return (
        requests.input * weights.input
        + requests.cache_read * weights.cache_read
        + requests.cache_write * weights.cache_write
        + requests.output * weights.output
    )


def usage_part(requests: RequestSums, route: Route) -> rm.ObservedUsage:
    """The usage recorded over one API's requests (each request on the API its own message
    names, R-CM-8), summed as recorded, and its list-price cost (R-CM-1)."""
    return rm.ObservedUsage(
        observed_requests=requests.requests - requests.fallback,
        input=requests.input,
        output=requests.output,
        cache_read=requests.cache_read,
        cache_write=requests.cache_write,
        list_price_cost=rounded(recorded_list_price(requests, route)),
    )


class _UsageRow(msgspec.Struct):
    """One row of a usage table while it is summed: exact cost, rounded once at the end."""

    sums: RequestSums = msgspec.field(default_factory=RequestSums)
    cost: Fraction = Fraction(0)

    def columns(self) -> dict[str, Any]:
        sums = self.sums
        return {
            "requests": sums.requests,
            "input": sums.input,
            "cache_read": sums.cache_read,
            "cache_write": sums.cache_write,
            "output": sums.output,
            "list_price_cost": rounded(self.cost),
        }


def _utc_day(day: int) -> str:
    """Days since 1970-01-01 as the UTC calendar day YYYY-MM-DD."""
    return (datetime.date(1970, 1, 1) + datetime.timedelta(days=day)).isoformat()


def usage_breakdown(usage: Mapping[UsageKey, RequestSums], routes: Routes) -> rm.UsageBreakdown:
    """The usage tables of `--by` (docs/report.md): the request sums by session, by UTC day and
    by catalog model, each request priced at the route of its own API (R-CM-8), as
    `usage_part` prices an API's. Sessions are numbered from 1 in journal order (merge order,
    units in plan order: the same for any number of workers), days ascend, catalog models are
    sorted with the unlisted ones last."""
    sessions: dict[int, _UsageRow] = {}
    days: dict[int, _UsageRow] = {}
    models: dict[str | None, _UsageRow] = {}
    for (api_value, journal, day, model), sums in usage.items():
        cost = recorded_list_price(sums, routes.by_api[Api(api_value)])
        rows = (
            sessions.setdefault(journal, _UsageRow()),
            days.setdefault(day, _UsageRow()),
            models.setdefault(model, _UsageRow()),
        )
        for row in rows:
            row.sums.add(sums)
            row.cost += cost
    return rm.UsageBreakdown(
        by_session=tuple(
            rm.SessionUsage(session=ordinal, **sessions[journal].columns())
            for ordinal, journal in enumerate(sorted(sessions), start=1)
        ),
        by_day=tuple(rm.DayUsage(day=_utc_day(day), **days[day].columns()) for day in sorted(days)),
        by_model=tuple(
            rm.ModelUsage(model=model, **models[model].columns())
            for model in sorted(models, key=lambda model: (model is None, model or ""))
        ),
    )


class ApiParts(msgspec.Struct, frozen=True):
    """One API's share of the simulation and the parts every report builds from it alike:
    evidence, pressure and cost (the analysis report gates on them, explore only shows them)."""

    totals: ApiTotals
    sums: ApiSimulation
    gate_evidence: GateEvidence
    evidence: rm.Evidence
    pressure_model: PressureModel
    pressure: rm.Pressure
    cost_outcome: CostOutcome
    cost: rm.Cost
    route_trigger: rm.RouteTrigger
    limitations: tuple[rm.ApiLimitation, ...]
    what_ifs: tuple[rm.WhatIfPolicy, ...]  # informational, never gating


def api_parts(
    api: Api, totals: Totals, simulation: SimulationTotals, routes: Routes, rate: Fraction
) -> ApiParts:
    """Each API filtered on its own, so that no denominator is pooled across APIs (R-G-3)."""
    route = routes.by_api[api]
    sums = simulation.per_api[api]
    boundaries = sums.boundaries
    gate_evidence, evidence = evidence_part(boundaries, route)
    pressure_inputs, model, pressure = pressure_part(route, sums, rate)
    gated_cost_inputs = cost_inputs(sums.requests, sums.cleared, pressure_inputs.growth)
    cost_outcome, cost = cost_part(
        CostContext(
            inputs=gated_cost_inputs,
            route=route,
            pressure_inputs=pressure_inputs,
            rates=sensitivities(rate),
            supplied_rate=rate,
        ),
        boundaries,
    )
    threshold = sums.checkpoints.threshold_tokens_before
    check = check_trigger(route.trigger_tokens, threshold, boundaries.overshoot)
    limitations = [rm.ApiLimitation.ROUTE_TRIGGER_CONTRADICTED] if check.contradicted else []
    if route.cache_lifetime_ms == "unknown":
        limitations.append(rm.ApiLimitation.CACHE_LIFETIME_UNKNOWN)
    if totals.sessions.placeholder_output[api.value]:
        limitations.append(rm.ApiLimitation.OUTPUT_TOKENS_PLACEHOLDER)
    return ApiParts(
        totals=totals.per_api[api],
        sums=sums,
        gate_evidence=gate_evidence,
        evidence=evidence,
        pressure_model=model,
        pressure=pressure,
        cost_outcome=cost_outcome,
        cost=cost,
        route_trigger=route_trigger_part(check, route.trigger_tokens, threshold),
        limitations=tuple(limitations),
        what_ifs=what_if_rows(simulation.what_ifs, api, route, gated_cost_inputs, pressure_inputs),
    )


def route_trigger_part(
    check: TriggerCheck, trigger: int, threshold_tokens_before: Sequence[int]
) -> rm.RouteTrigger:
    """The route check as the report states it, with the tokensBefore of the threshold
    compactions that followed a request as percentages of T (rounded down)."""
    return rm.RouteTrigger(
        threshold_compactions=check.compactions,
        below_band=check.below_band,
        below_trigger=check.below_trigger,
        beyond_overshoot=check.beyond_overshoot,
        overshoot_tokens=check.overshoot,
        tolerance_tokens=check.tolerance,
        tokens_before_percent_of_trigger=bucketed(
            (tokens * 100 // trigger for tokens in threshold_tokens_before),
            histogram_edges().trigger_percent,
        ),
        implied_trigger_at_least=check.implied_at_least,
        implied_trigger_below=check.implied_below,
    )


def all_apis(simulation: SimulationTotals) -> ApiSimulation:
    """The per-API sums added up, for the all-APIs tables."""
    every = ApiSimulation()
    for sums in simulation.per_api.values():
        every.add(sums)
    return every


__all__ = [
    "ApiParts",
    "all_apis",
    "api_parts",
    "bucketed",
    "compactions_part",
    "eligibility_part",
    "escaping_part",
    "evidence_part",
    "histogram",
    "period_part",
    "pressure_part",
    "requests_part",
    "route_trigger_part",
    "simulation_part",
    "tool_results_part",
    "tool_version",
    "web_part",
]
