"""The gate (R-G-1..4, R-SIM-10): each criterion, each DEFER and STOP reason, precedence."""

from __future__ import annotations

from fractions import Fraction

import msgspec
import pytest

from clearing_analysis.eligibility.reasons import ApiSignal
from clearing_analysis.gate import (
    CostOutcome,
    CriterionDetail,
    CriterionId,
    DeferReason,
    Evidence,
    GateInputs,
    StopReason,
    Verdict,
    evaluate,
    overall,
)
from clearing_analysis.inputs.configs import Api
from clearing_analysis.models import PressureInputs, pressure_model, sensitivities
from clearing_analysis.qualify.verify import ApiQualification, QualificationDetail

RATE = Fraction(1, 20)
# Reduction 15.625% at 5% (the R-PM-5 example): passes criterion 4.
PASSING_PRESSURE = pressure_model(
    PressureInputs(1_000_000, 200_000, 40_000, 200_000, 250_000, 40_000, 200_000),
    sensitivities(RATE),
)
QUALIFIED = ApiQualification(True, None, 15, 0)
ENOUGH = Evidence(
    boundaries=40,
    pressured=12,
    pressured_lineages=3,
    cold_pressured=10,
    cold_pressured_lineages=3,
    admitting=3,  # 30%
)
BUILDING = GateInputs(
    api=Api.ANTHROPIC_MESSAGES,
    evidence=ENOUGH,
    pressure=PASSING_PRESSURE,
    supplied_rate=RATE,
    cost=CostOutcome(worst_increase=Fraction(1, 20), unbounded=False),
    signals=(),
    qualification=QUALIFIED,
    requests=100,
    fallback_requests=5,
)


def test_all_criteria_passing_builds() -> None:
    """Every criterion at or beyond its threshold (5% cost and 5% fallback included) builds."""
    gate = evaluate(BUILDING)
    assert gate.verdict is Verdict.BUILD
    assert (gate.defer_reasons, gate.stop_reasons) == ((), ())
    assert [c.passed for c in gate.criteria] == [True] * 6
    assert [c.measured for c in gate.criteria] == [12.0, 10.0, 0.3, 0.15625, 0.05, 0.0]


def _with(**changes: object) -> GateInputs:
    return msgspec.structs.replace(BUILDING, **changes)  # type: ignore[arg-type]


def _evidence(**changes: int) -> GateInputs:
    return _with(evidence=msgspec.structs.replace(ENOUGH, **changes))


@pytest.mark.parametrize(
    ("inputs", "reason"),
    [
        (_evidence(pressured=9), DeferReason.REPRESENTATIVENESS_LOW),
        (_evidence(pressured_lineages=2), DeferReason.REPRESENTATIVENESS_LOW),
        (_evidence(cold_pressured=9, admitting=3), DeferReason.COLD_EVIDENCE_LOW),
        (_evidence(cold_pressured_lineages=2), DeferReason.COLD_EVIDENCE_LOW),
        (_with(signals=(ApiSignal.IDENTITY_UNPROVEN,)), DeferReason.IDENTITY_UNPROVEN),
        (_with(signals=(ApiSignal.RETENTION_UNMATCHED,)), DeferReason.RETENTION_UNMATCHED),
        (_with(signals=(ApiSignal.RETENTION_COVERAGE_LOW,)), DeferReason.RETENTION_COVERAGE_LOW),
        (
            _with(qualification=ApiQualification(False, QualificationDetail.MISSING, None, None)),
            DeferReason.PAYLOAD_UNQUALIFIED,
        ),
        (
            _with(
                qualification=ApiQualification(
                    False, QualificationDetail.VERSION_MISMATCH, None, None
                )
            ),
            DeferReason.PAYLOAD_UNQUALIFIED,
        ),
        (_with(fallback_requests=6), DeferReason.USAGE_FALLBACK_EXCESSIVE),
        (_with(api=Api.OPENAI_CODEX_RESPONSES), DeferReason.CODEX_WIRE_UNPROVEN),
    ],
    ids=[
        "9 pressured",
        "2 pressured conversations",
        "9 cold pressured",
        "2 cold conversations",
        "identity unproven",
        "retention unmatched",
        "retention coverage low",
        "qualification missing",
        "qualification stale",
        "fallback just above 5%",
        "codex",
    ],
)
def test_each_defer_reason_defers(inputs: GateInputs, reason: DeferReason) -> None:
    """Each DEFER reason alone turns an otherwise building API into DEFER, never STOP."""
    gate = evaluate(inputs)
    assert gate.verdict is Verdict.DEFER
    assert gate.defer_reasons == (reason,)
    assert gate.stop_reasons == ()


@pytest.mark.parametrize(
    ("inputs", "reason", "criterion"),
    [
        (_evidence(admitting=2), StopReason.ADMITTING_SHARE_LOW, CriterionId.ADMITTING_SHARE),
        (
            _with(
                pressure=pressure_model(
                    PressureInputs(1_000_000, 200_000, 40_000, 100_000, 0, 0, 0),
                    sensitivities(RATE),
                )
            ),
            StopReason.PRESSURE_REDUCTION_LOW,
            CriterionId.PRESSURE_REDUCTION,
        ),
        (
            _with(pressure=pressure_model(PressureInputs(0, 200_000, 40_000, 0, 0, 0, 0), ())),
            StopReason.PRESSURE_MODEL_UNDEFINED,
            CriterionId.PRESSURE_REDUCTION,
        ),
        (
            _with(cost=CostOutcome(Fraction(51, 1000), unbounded=False)),
            StopReason.COST_INCREASE_HIGH,
            CriterionId.COST_INCREASE,
        ),
        (
            _with(cost=CostOutcome(None, unbounded=True)),
            StopReason.COST_INCREASE_HIGH,
            CriterionId.COST_INCREASE,
        ),
        (
            _with(qualification=ApiQualification(True, None, 15, 2)),
            StopReason.UNINTENDED_PAYLOAD_DIFFERENCES,
            CriterionId.PAYLOAD_DIFFERENCES,
        ),
    ],
    ids=[
        "20% admitting",
        "9% reduction",
        "undefined pressure",
        "5.1% cost",
        "unbounded cost",
        "2 payload differences",
    ],
)
def test_each_failed_criterion_stops(
    inputs: GateInputs, reason: StopReason, criterion: CriterionId
) -> None:
    """With sufficient evidence, each failed criterion 3-6 alone is STOP, with its reason."""
    gate = evaluate(inputs)
    assert gate.verdict is Verdict.STOP
    assert gate.stop_reasons == (reason,)
    assert gate.defer_reasons == ()
    failed = [c.id for c in gate.criteria if c.passed is False]
    assert failed == [criterion]


def test_defer_takes_precedence_and_all_reasons_are_listed() -> None:
    """Insufficient evidence DEFERs even when a later criterion fails; both are listed."""
    gate = evaluate(_evidence(cold_pressured=0, cold_pressured_lineages=0, admitting=0))
    assert gate.verdict is Verdict.DEFER
    assert gate.defer_reasons == (DeferReason.COLD_EVIDENCE_LOW,)
    # No cold pressured boundary: share 0, criterion 3 fails too (R-SIM-10).
    assert gate.stop_reasons == (StopReason.ADMITTING_SHARE_LOW,)
    share = next(c for c in gate.criteria if c.id is CriterionId.ADMITTING_SHARE)
    assert (share.measured, share.passed) == (0.0, False)


def test_not_evaluated_criteria_are_reported_as_such() -> None:
    """An unqualified API's payload criterion and an undefined cost model are None, with
    their detail; the undefined cost model adds no DEFER reason of its own."""
    gate = evaluate(
        _with(
            cost=CostOutcome(None, unbounded=False, defined=False),
            qualification=ApiQualification(False, QualificationDetail.MISSING, None, None),
        )
    )
    by_id = {c.id: c for c in gate.criteria}
    assert gate.defer_reasons == (DeferReason.PAYLOAD_UNQUALIFIED,)
    assert by_id[CriterionId.COST_INCREASE].passed is None
    assert by_id[CriterionId.COST_INCREASE].detail is CriterionDetail.COST_MODEL_UNDEFINED
    assert by_id[CriterionId.PAYLOAD_DIFFERENCES].passed is None
    assert by_id[CriterionId.PAYLOAD_DIFFERENCES].detail is CriterionDetail.PAYLOAD_UNQUALIFIED


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        ([Verdict.BUILD, Verdict.BUILD], Verdict.BUILD),
        ([Verdict.BUILD, Verdict.DEFER], Verdict.DEFER),
        ([Verdict.DEFER, Verdict.STOP, Verdict.BUILD], Verdict.STOP),
        ([Verdict.DEFER], Verdict.DEFER),
    ],
)
def test_overall_verdict(verdicts: list[Verdict], expected: Verdict) -> None:
    """BUILD only when every API builds; otherwise STOP over DEFER."""
    assert overall(verdicts) is expected
