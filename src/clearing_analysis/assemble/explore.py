"""Assemble the explore report from the combined totals and the upper-bound simulation.

The per-API figures are the analysis report's (`report.model.ApiFigures`), from the same
functions (`assemble.parts`), over the figures of the same simulation run with `Bound.UPPER`;
nothing here calls the gate (docs/explore.md).
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
from clearing_analysis.eligibility.reasons import (
    UPPER_BOUND_REASONS,
    ExclusionReason,
)
from clearing_analysis.eligibility.totals import Totals
from clearing_analysis.inputs.configs import Api, Routes
from clearing_analysis.inputs.period import EVERYTHING, Period
from clearing_analysis.numbers import rounded
from clearing_analysis.pisession.read import Unrecognized
from clearing_analysis.policy import TranscriptOnlyCode
from clearing_analysis.replay.model import BoundarySkipReason, JournalSkipReason
from clearing_analysis.report import explore_model as em
from clearing_analysis.report import model as rm
from clearing_analysis.simulation.totals import SimulationTotals

STATEMENTS = tuple(em.ExploreStatement)
LIMITATIONS = tuple(em.ExploreLimitation)
# Reasons that can apply under the upper bound: the fixed exclusions and protection.
_EXCLUSIONS = tuple(r for r in ExclusionReason if r not in UPPER_BOUND_REASONS)


class ExploreStages(msgspec.Struct, frozen=True):
    """What the explore report is built from."""

    totals: Totals
    simulation: SimulationTotals
    routes: Routes
    retrieval_rate: Fraction
    session_bytes: int
    period: Period = EVERYTHING  # --since / --until
    usage_by: bool = False  # --by: store the usage tables (docs/report.md)


def _api(api: Api, stages: ExploreStages) -> tuple[em.ApiExplore, tuple[rm.WhatIfPolicy, ...]]:
    """The API's part, and its informational what-ifs."""
    parts = api_parts(api, stages.totals, stages.simulation, stages.routes, stages.retrieval_rate)
    totals, sums = parts.totals, parts.sums
    requests = sums.requests
    explored = em.ApiExplore(
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
        prompt_turns=totals.boundaries,
    )
    return explored, parts.what_ifs


def _sessions(stages: ExploreStages) -> em.Sessions:
    totals = stages.totals
    sessions = totals.sessions
    return em.Sessions(
        sessions_read=totals.replayed_journals,
        session_bytes=stages.session_bytes,
        by_version={version: sessions.by_version[int(version)] for version in ("1", "2", "3")},
        skipped_sessions={
            skip: totals.skipped_journals[JournalSkipReason(skip.value)] for skip in em.SessionSkip
        },
        invalid_session_details=dict(sorted(totals.invalid_details.items())),
        entries=sessions.entries,
        off_path_entries=sessions.off_path_entries,
        branched_sessions=sessions.branched,
        unrecognized={code: sessions.unrecognized[code.value] for code in Unrecognized},
        transcript_only_messages={
            code: sessions.transcript_only[code.value] for code in TranscriptOnlyCode
        },
        skipped_boundaries={
            skip: totals.skipped_boundaries[BoundarySkipReason(skip.value)]
            for skip in em.BoundarySkip
        },
        boundaries_without_route=dict(totals.boundaries_without_route),
        requests_without_route=totals.requests_without_route,
        requests_outside_period=totals.requests_outside_period,
        compactions_outside_period=totals.compactions_outside_period,
        turns_without_request=totals.turns_without_request,
        by_format={fmt: sessions.by_format[fmt.value] for fmt in em.SessionFormat},
        torn_final_lines=sessions.torn_final_lines,
        synthetic_messages=sessions.synthetic_messages,
        placeholder_output_requests=sum(sessions.placeholder_output.values()),
    )


def build_explore(stages: ExploreStages) -> em.ExploreReport:
    """The whole explore report, APIs in enum order; no gate is evaluated."""
    built = {api: _api(api, stages) for api in Api if api in stages.routes.by_api}
    per_api = {api: explored for api, (explored, _) in built.items()}
    every = all_apis(stages.simulation)
    return em.ExploreReport(
        format=em.EXPLORE_FORMAT,
        version=em.EXPLORE_VERSION,
        tool_version=tool_version(),
        gating=False,
        bound="UPPER",
        statements=STATEMENTS,
        limitations=LIMITATIONS,
        retrieval_rate=rounded(stages.retrieval_rate),
        period=period_part(stages.period),
        sessions=_sessions(stages),
        per_api=per_api,
        tool_results_all_apis=tool_results_part(every.categories),
        what_ifs_informational=what_ifs_part(
            {api: what_ifs for api, (_, what_ifs) in built.items()}
        ),
        usage_by=(
            usage_breakdown(stages.simulation.usage, stages.routes) if stages.usage_by else None
        ),
        refetches_informational=refetches_part(stages.simulation.refetches, tuple(built)),
    )


__all__ = ["ExploreStages", "build_explore"]
