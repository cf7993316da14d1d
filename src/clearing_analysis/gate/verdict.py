"""Per-API verdicts and the overall verdict (R-G-1..4, R-SIM-10; docs/model.md, "Gate").

Every reason that applies is listed, DEFER reasons and STOP reasons apart, and every criterion
carries its measured value, so a reader sees how far each is from its threshold. The verdict:

- any DEFER reason → DEFER. A failed criterion 1 is REPRESENTATIVENESS_LOW, a failed
  criterion 2 COLD_EVIDENCE_LOW; the others come from retention and identity signals,
  qualification (PAYLOAD_UNQUALIFIED), request usage (USAGE_FALLBACK_EXCESSIVE), the Codex
  transport (CODEX_WIRE_UNPROVEN, always);
- otherwise any failed criterion 3-6 → STOP, with sufficient evidence (R-G-2);
- otherwise BUILD.

Overall: BUILD only if every supplied API builds; otherwise STOP over DEFER (R-G-3).
Denominators are never pooled across APIs.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from fractions import Fraction

import msgspec

from clearing_analysis.eligibility.reasons import ApiSignal
from clearing_analysis.gate.criteria import (
    Comparison,
    Criterion,
    CriterionDetail,
    CriterionId,
    Evidence,
    at_least,
    counted_criterion,
)
from clearing_analysis.inputs.configs import Api
from clearing_analysis.models.pressure import PressureModel
from clearing_analysis.models.rates import exact
from clearing_analysis.numbers import rounded
from clearing_analysis.policy import gate_policy
from clearing_analysis.qualify.verify import ApiQualification


class Verdict(enum.StrEnum):
    """The evidence verdict (never an exit status, R-CLI-3)."""

    BUILD = "BUILD"
    DEFER = "DEFER"
    STOP = "STOP"


class DeferReason(enum.StrEnum):
    """Why the evidence is insufficient (R-G-1); each means DEFER, never STOP."""

    REPRESENTATIVENESS_LOW = "REPRESENTATIVENESS_LOW"
    COLD_EVIDENCE_LOW = "COLD_EVIDENCE_LOW"
    IDENTITY_UNPROVEN = "IDENTITY_UNPROVEN"
    PAYLOAD_UNQUALIFIED = "PAYLOAD_UNQUALIFIED"
    RETENTION_UNMATCHED = "RETENTION_UNMATCHED"
    RETENTION_COVERAGE_LOW = "RETENTION_COVERAGE_LOW"
    USAGE_FALLBACK_EXCESSIVE = "USAGE_FALLBACK_EXCESSIVE"
    CODEX_WIRE_UNPROVEN = "CODEX_WIRE_UNPROVEN"


class StopReason(enum.StrEnum):
    """A failed criterion 3-6 (STOP when no DEFER reason applies, R-G-2)."""

    ADMITTING_SHARE_LOW = "ADMITTING_SHARE_LOW"
    PRESSURE_REDUCTION_LOW = "PRESSURE_REDUCTION_LOW"
    PRESSURE_MODEL_UNDEFINED = "PRESSURE_MODEL_UNDEFINED"
    COST_INCREASE_HIGH = "COST_INCREASE_HIGH"
    UNINTENDED_PAYLOAD_DIFFERENCES = "UNINTENDED_PAYLOAD_DIFFERENCES"


_SIGNAL_REASONS = {
    ApiSignal.IDENTITY_UNPROVEN: DeferReason.IDENTITY_UNPROVEN,
    ApiSignal.RETENTION_UNMATCHED: DeferReason.RETENTION_UNMATCHED,
    ApiSignal.RETENTION_COVERAGE_LOW: DeferReason.RETENTION_COVERAGE_LOW,
}


class CostOutcome(msgspec.Struct, frozen=True):
    """Criterion 5 from the cost model: the worst on/off - 1 over every sensitivity and both
    views (None with `unbounded` when an off arm is zero and its on arm positive). An
    undefined cost model (the pressure model is undefined) leaves it not evaluated."""

    worst_increase: Fraction | None
    unbounded: bool
    defined: bool = True


class GateInputs(msgspec.Struct, frozen=True):
    """Everything the gate reads about one API cohort."""

    api: Api
    evidence: Evidence
    pressure: PressureModel
    supplied_rate: Fraction
    cost: CostOutcome
    signals: tuple[ApiSignal, ...]
    qualification: ApiQualification
    requests: int
    fallback_requests: int


class ApiGate(msgspec.Struct, frozen=True, rename="camel", forbid_unknown_fields=True):
    """One API's verdict, every reason that applies, and all six criteria."""

    verdict: Verdict
    defer_reasons: tuple[DeferReason, ...]
    stop_reasons: tuple[StopReason, ...]
    criteria: tuple[Criterion, ...]


def _pressure_criterion(model: PressureModel, rate: Fraction) -> Criterion:
    threshold = exact(gate_policy().min_pressure_reduction)
    at = model.at_rate(rate)
    if not model.defined or at is None:
        return Criterion(
            id=CriterionId.PRESSURE_REDUCTION,
            passed=False,
            measured=None,
            threshold=rounded(threshold),
            comparison=Comparison.AT_LEAST,
            detail=CriterionDetail.PRESSURE_MODEL_UNDEFINED,
        )
    criterion = at_least(CriterionId.PRESSURE_REDUCTION, at.reduction, threshold)
    if not model.summary_fits:
        return msgspec.structs.replace(criterion, detail=CriterionDetail.SUMMARY_DOES_NOT_FIT)
    return criterion


def _cost_criterion(cost: CostOutcome) -> Criterion:
    threshold = rounded(exact(gate_policy().max_cost_increase))
    if not cost.defined:
        # Only when G = 0 or T <= P: criterion 4 fails with PRESSURE_MODEL_UNDEFINED.
        return Criterion(
            id=CriterionId.COST_INCREASE,
            passed=None,
            measured=None,
            threshold=threshold,
            comparison=Comparison.AT_MOST,
            detail=CriterionDetail.COST_MODEL_UNDEFINED,
        )
    if cost.unbounded or cost.worst_increase is None:
        return Criterion(
            id=CriterionId.COST_INCREASE,
            passed=False,
            measured=None,
            threshold=threshold,
            comparison=Comparison.AT_MOST,
            detail=CriterionDetail.COST_RATIO_UNBOUNDED,
        )
    return Criterion(
        id=CriterionId.COST_INCREASE,
        passed=cost.worst_increase <= exact(gate_policy().max_cost_increase),
        measured=rounded(cost.worst_increase),
        threshold=threshold,
        comparison=Comparison.AT_MOST,
    )


def _payload_criterion(qualification: ApiQualification) -> Criterion:
    if not qualification.qualified or qualification.unintended_differences is None:
        return Criterion(
            id=CriterionId.PAYLOAD_DIFFERENCES,
            passed=None,
            measured=None,
            threshold=0.0,
            comparison=Comparison.AT_MOST,
            detail=CriterionDetail.PAYLOAD_UNQUALIFIED,
        )
    differences = qualification.unintended_differences
    return Criterion(
        id=CriterionId.PAYLOAD_DIFFERENCES,
        passed=differences == 0,
        measured=float(differences),
        threshold=0.0,
        comparison=Comparison.AT_MOST,
    )


def criteria(inputs: GateInputs) -> tuple[Criterion, ...]:
    """All six criteria of one API, in order."""
    policy = gate_policy()
    evidence = inputs.evidence
    return (
        counted_criterion(
            CriterionId.PRESSURED_BOUNDARIES,
            evidence.pressured,
            evidence.pressured_lineages,
            policy.min_pressured_boundaries,
            policy.min_logical_conversations,
        ),
        counted_criterion(
            CriterionId.COLD_PRESSURED_BOUNDARIES,
            evidence.cold_pressured,
            evidence.cold_pressured_lineages,
            policy.min_cold_pressured_boundaries,
            policy.min_logical_conversations,
        ),
        at_least(
            CriterionId.ADMITTING_SHARE,
            evidence.admitting_share,
            exact(policy.min_admitting_share),
        ),
        _pressure_criterion(inputs.pressure, inputs.supplied_rate),
        _cost_criterion(inputs.cost),
        _payload_criterion(inputs.qualification),
    )


def _fallback_excessive(inputs: GateInputs) -> bool:
    if inputs.requests == 0:
        return False
    share = Fraction(inputs.fallback_requests, inputs.requests)
    return share > exact(gate_policy().max_fallback_share)


def _defer_reasons(inputs: GateInputs, outcomes: dict[CriterionId, Criterion]) -> list[DeferReason]:
    reasons: list[DeferReason] = []
    if not outcomes[CriterionId.PRESSURED_BOUNDARIES].passed:
        reasons.append(DeferReason.REPRESENTATIVENESS_LOW)
    if not outcomes[CriterionId.COLD_PRESSURED_BOUNDARIES].passed:
        reasons.append(DeferReason.COLD_EVIDENCE_LOW)
    reasons.extend(_SIGNAL_REASONS[signal] for signal in inputs.signals)
    if outcomes[CriterionId.PAYLOAD_DIFFERENCES].detail is CriterionDetail.PAYLOAD_UNQUALIFIED:
        reasons.append(DeferReason.PAYLOAD_UNQUALIFIED)
    if _fallback_excessive(inputs):
        reasons.append(DeferReason.USAGE_FALLBACK_EXCESSIVE)
    if inputs.api is Api.OPENAI_CODEX_RESPONSES:
        # Offline payload comparison cannot establish acceptance, signatures or delivery over
        # any Codex transport: wire-unproven, whatever the evidence (seed).
        reasons.append(DeferReason.CODEX_WIRE_UNPROVEN)
    return sorted(set(reasons), key=list(DeferReason).index)


def _stop_reasons(outcomes: dict[CriterionId, Criterion]) -> list[StopReason]:
    reasons: list[StopReason] = []
    if outcomes[CriterionId.ADMITTING_SHARE].passed is False:
        reasons.append(StopReason.ADMITTING_SHARE_LOW)
    pressure = outcomes[CriterionId.PRESSURE_REDUCTION]
    if pressure.detail is CriterionDetail.PRESSURE_MODEL_UNDEFINED:
        reasons.append(StopReason.PRESSURE_MODEL_UNDEFINED)
    elif pressure.passed is False:
        reasons.append(StopReason.PRESSURE_REDUCTION_LOW)
    if outcomes[CriterionId.COST_INCREASE].passed is False:
        reasons.append(StopReason.COST_INCREASE_HIGH)
    if outcomes[CriterionId.PAYLOAD_DIFFERENCES].passed is False:
        reasons.append(StopReason.UNINTENDED_PAYLOAD_DIFFERENCES)
    return reasons


def evaluate(inputs: GateInputs) -> ApiGate:
    """The API's criteria, reasons and verdict (see the module docstring)."""
    outcomes = criteria(inputs)
    by_id = {criterion.id: criterion for criterion in outcomes}
    defer = _defer_reasons(inputs, by_id)
    stop = _stop_reasons(by_id)
    if defer:
        verdict = Verdict.DEFER
    elif stop:
        verdict = Verdict.STOP
    else:
        verdict = Verdict.BUILD
    return ApiGate(verdict, tuple(defer), tuple(stop), outcomes)


def overall(verdicts: Iterable[Verdict]) -> Verdict:
    """BUILD only if every API builds; otherwise STOP over DEFER (R-G-3)."""
    seen = list(verdicts)
    if seen and all(v is Verdict.BUILD for v in seen):
        return Verdict.BUILD
    if Verdict.STOP in seen:
        return Verdict.STOP
    return Verdict.DEFER


__all__ = [
    "ApiGate",
    "CostOutcome",
    "DeferReason",
    "GateInputs",
    "StopReason",
    "Verdict",
    "criteria",
    "evaluate",
    "overall",
]
