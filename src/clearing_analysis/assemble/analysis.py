"""Assemble the analysis report from the combined totals of every unit, the models and the
gate: the one place where the gate is evaluated (`evaluate`, `overall`).

The per-API parts come from `assemble.parts`, shared with the explore report; here they are
gated and completed with what only the analysis report holds (eligibility by class, retention,
qualification). Nothing here reads input text.
"""

from __future__ import annotations

from fractions import Fraction

import msgspec

from clearing_analysis.assemble.parts import (
    all_apis,
    api_parts,
    compactions_part,
    eligibility_part,
    escaping_part,
    period_part,
    requests_part,
    simulation_part,
    tool_results_part,
    tool_version,
    usage_breakdown,
    usage_part,
    web_part,
)
from clearing_analysis.assemble.refetch import refetches_part
from clearing_analysis.assemble.what_ifs import what_ifs_part
from clearing_analysis.eligibility.reasons import Limitation
from clearing_analysis.eligibility.totals import Totals
from clearing_analysis.gate import GateInputs, evaluate, overall
from clearing_analysis.inputs.configs import Api, Routes
from clearing_analysis.inputs.period import EVERYTHING, Period
from clearing_analysis.numbers import rounded, share
from clearing_analysis.policy import eligibility_policy
from clearing_analysis.qualify.verify import ApiQualification, QualificationStatus
from clearing_analysis.report import model as rm
from clearing_analysis.simulation.totals import SimulationTotals

STATEMENTS = tuple(rm.Statement)


class Stages(msgspec.Struct, frozen=True):
    """What the report is built from."""

    totals: Totals
    simulation: SimulationTotals
    routes: Routes
    qualification: QualificationStatus
    retrieval_rate: Fraction
    journal_bytes: int
    image_id: str | None  # as the container runtime states it (container/runtime.py)
    period: Period = EVERYTHING  # --since / --until
    usage_by: bool = False  # --by: store the usage tables (docs/report.md)


def _qualification(status: ApiQualification) -> rm.Qualification:
    return rm.Qualification(
        status=(
            rm.QualificationStatusCode.QUALIFIED
            if status.qualified
            else rm.QualificationStatusCode.PAYLOAD_UNQUALIFIED
        ),
        detail=status.detail,
        cases=status.cases,
        unintended_differences=status.unintended_differences,
    )


def _api_report(api: Api, stages: Stages) -> tuple[rm.ApiReport, tuple[rm.WhatIfPolicy, ...]]:
    """The API's gated part, and its informational what-ifs (which the gate never reads)."""
    parts = api_parts(api, stages.totals, stages.simulation, stages.routes, stages.retrieval_rate)
    totals, sums = parts.totals, parts.sums
    qualification = stages.qualification.apis[api]
    requests = sums.requests
    signals = totals.signals
    gate = evaluate(
        GateInputs(
            api=api,
            evidence=parts.gate_evidence,
            pressure=parts.pressure_model,
            supplied_rate=stages.retrieval_rate,
            cost=parts.cost_outcome,
            signals=signals,
            qualification=qualification,
            requests=requests.requests,
            fallback_requests=requests.fallback,
        )
    )
    retention = totals.retention_counts
    report = rm.ApiReport(
        limitations=parts.limitations,
        route_trigger=parts.route_trigger,
        requests=requests_part(requests),
        usage=usage_part(requests, stages.routes.by_api[api]),
        evidence=parts.evidence,
        eligibility=eligibility_part(totals),
        simulation=simulation_part(
            sums.boundaries, sums.cleared, stages.simulation.placeholder_tokens
        ),
        pressure=parts.pressure,
        cost=parts.cost,
        escaping=escaping_part(sums.cleared),
        compactions=compactions_part(sums.checkpoints),
        tool_results=tool_results_part(sums.categories),
        web=web_part(sums.web, totals.redacted_web_envelopes, totals.structured_scan_losses),
        gate=gate,
        retention=rm.Retention(
            candidates=totals.candidates,
            proven=retention.proven,
            matched=retention.matched,
            redacted=retention.redacted,
            truncated=retention.truncated,
            unmatched=retention.unmatched,
            matched_share=share(retention.matched, retention.proven),
            coverage_floor=rounded(eligibility_policy().retention_coverage_floor),
        ),
        qualification=_qualification(qualification),
    )
    return report, parts.what_ifs


def _snapshot(stages: Stages) -> rm.Snapshot:
    totals = stages.totals
    return rm.Snapshot(
        journals_replayed=totals.replayed_journals,
        journal_bytes=stages.journal_bytes,
        skipped_journals=dict(totals.skipped_journals),
        invalid_journal_details=dict(sorted(totals.invalid_details.items())),
        skipped_boundaries=dict(totals.skipped_boundaries),
        boundaries_without_route=dict(totals.boundaries_without_route),
        requests_without_route=totals.requests_without_route,
        requests_outside_period=totals.requests_outside_period,
        compactions_outside_period=totals.compactions_outside_period,
        turns_without_request=totals.turns_without_request,
    )


def build_report(stages: Stages) -> rm.Report:
    """The whole report, APIs in enum order."""
    built = {api: _api_report(api, stages) for api in Api if api in stages.routes.by_api}
    per_api = {api: report for api, (report, _) in built.items()}
    every = all_apis(stages.simulation)
    webs = [report.web for report in per_api.values()]
    verdict = overall(report.gate.verdict for report in per_api.values())
    return rm.Report(
        format=rm.REPORT_FORMAT,
        version=rm.REPORT_VERSION,
        tool_version=tool_version(),
        bound="LOWER",
        pi_ai_version=stages.qualification.pi_ai_version,
        image_id=stages.image_id,
        statements=STATEMENTS,
        limitations=tuple(Limitation),
        retrieval_rate=rounded(stages.retrieval_rate),
        period=period_part(stages.period),
        verdict=verdict,
        snapshot=_snapshot(stages),
        per_api=per_api,
        overall=rm.Overall(
            verdict=verdict,
            tool_results=tool_results_part(every.categories),
            web=web_part(
                every.web,
                sum(w.redacted_web_envelopes for w in webs),
                sum(w.structured_scan_losses for w in webs),
            ),
        ),
        what_ifs_informational=what_ifs_part(
            {api: what_ifs for api, (_, what_ifs) in built.items()}
        ),
        usage_by=(
            usage_breakdown(stages.simulation.usage, stages.routes) if stages.usage_by else None
        ),
        refetches_informational=refetches_part(stages.simulation.refetches, tuple(built)),
    )


__all__ = ["Stages", "build_report"]
