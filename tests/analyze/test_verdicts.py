"""Hand-written corpora through `analyze_job`: exact criteria, every DEFER and STOP reason.

The base corpus (tests/analyze/scenario.py) passes criteria 1-4 and 6 with the numbers below;
each variant changes one knob.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import msgspec
import pytest

from clearing_analysis.gate import CriterionId, DeferReason, StopReason
from clearing_analysis.inputs.requests import AnalyzeRequest
from clearing_analysis.numbers import rounded
from clearing_analysis.pipeline.jobs import analyze_job
from clearing_analysis.qualify.record import DifferenceCategory, QualificationRecord, encode_record
from clearing_analysis.report.model import ApiReport
from tests.analyze.scenario import Scenario, write
from tests.simulation.scenario import WARM

G = 3 * (100_000 - 1)
S = 3 * 20_000
R = 3 * 20_029
SPAN = 200_000 - 40_000
OFF = Fraction(G, SPAN)
EXPECTED_REDUCTION = 1 - (G + Fraction(1, 20) * R) / (SPAN + S / OFF) / OFF


def _record(tmp_path: Path, record: QualificationRecord, differences: int = 0) -> Path:
    if differences:
        apis = {
            api: msgspec.structs.replace(
                summary,
                unintended_differences=differences,
                by_category={
                    **summary.by_category,
                    DifferenceCategory.OTHER_LEAF: differences,
                },
            )
            for api, summary in record.apis.items()
        }
        record = msgspec.structs.replace(record, apis=apis)
    path = tmp_path / "qualification.json"
    path.write_bytes(encode_record(record))
    return path


def _analyze(tmp_path: Path, scenario: Scenario, qualification: Path | None) -> ApiReport:
    paths = write(scenario, tmp_path / "corpus")
    job = analyze_job(
        AnalyzeRequest(
            journals=(paths["journals"],),
            sidecar=paths["sidecar"],
            routes=paths["routes"],
            agent_config=paths.get("agent_config"),
            qualification=qualification,
        )
    )
    assert json.loads(job.data)["verdict"] == job.report.verdict.value
    (report,) = job.report.per_api.values()
    return report


@pytest.mark.node
def test_base_corpus_criteria_are_exact(tmp_path: Path, real_record: QualificationRecord) -> None:
    """12 pressured and 12 cold pressured boundaries across 3 conversations, 3 of them
    admitting (25%), reduction 15.83% at 5%, worst cost increase 4.84% (at 20%), zero payload
    differences: every criterion passes and the API builds."""
    report = _analyze(tmp_path, Scenario(), _record(tmp_path, real_record))
    by_id = {c.id: c for c in report.gate.criteria}
    assert (
        by_id[CriterionId.PRESSURED_BOUNDARIES].measured,
        by_id[CriterionId.PRESSURED_BOUNDARIES].lineages,
    ) == (12.0, 3)
    assert (
        by_id[CriterionId.COLD_PRESSURED_BOUNDARIES].measured,
        by_id[CriterionId.COLD_PRESSURED_BOUNDARIES].lineages,
    ) == (12.0, 3)
    assert by_id[CriterionId.ADMITTING_SHARE].measured == 0.25
    assert by_id[CriterionId.PRESSURE_REDUCTION].measured == rounded(EXPECTED_REDUCTION)
    assert by_id[CriterionId.PAYLOAD_DIFFERENCES].measured == 0.0
    assert by_id[CriterionId.COST_INCREASE].measured == 0.0483902359422
    assert [c.passed for c in report.gate.criteria] == [True] * 6
    assert report.gate.verdict.value == "BUILD"
    assert (report.gate.defer_reasons, report.gate.stop_reasons) == ((), ())
    assert (report.pressure.growth, report.pressure.admitted, report.pressure.retrieved) == (
        G,
        S,
        R,
    )
    assert report.simulation.cleared_results == 3


@pytest.mark.parametrize(
    ("scenario", "defer"),
    [
        (Scenario(lineages=2), {DeferReason.REPRESENTATIVENESS_LOW, DeferReason.COLD_EVIDENCE_LOW}),
        (Scenario(cold_gap=WARM), {DeferReason.COLD_EVIDENCE_LOW}),
        (Scenario(agent_config=None), {DeferReason.IDENTITY_UNPROVEN}),
        (Scenario(retain=False), {DeferReason.RETENTION_UNMATCHED}),
        (Scenario(retain_share=3), {DeferReason.RETENTION_COVERAGE_LOW}),
        (Scenario(failed_requests=2), {DeferReason.USAGE_FALLBACK_EXCESSIVE}),  # 6 of 87
        (Scenario(api="openai-codex-responses"), {DeferReason.CODEX_WIRE_UNPROVEN}),
    ],
    ids=[
        "two conversations",
        "warm gaps",
        "no agent config",
        "nothing retained",
        "a third retained",
        "two failed requests per conversation",
        "codex",
    ],
)
@pytest.mark.node
def test_each_defer_reason_from_a_corpus(
    tmp_path: Path,
    real_record: QualificationRecord,
    scenario: Scenario,
    defer: set[DeferReason],
) -> None:
    """Each variant DEFERs with exactly its reasons."""
    report = _analyze(tmp_path, scenario, _record(tmp_path, real_record))
    assert report.gate.verdict.value == "DEFER"
    assert set(report.gate.defer_reasons) == defer


def test_missing_qualification_is_payload_unqualified(tmp_path: Path) -> None:
    """No --qualification: PAYLOAD_UNQUALIFIED (DEFER), criterion 6 not evaluated."""
    report = _analyze(tmp_path, Scenario(), None)
    assert DeferReason.PAYLOAD_UNQUALIFIED in report.gate.defer_reasons
    payload = next(c for c in report.gate.criteria if c.id is CriterionId.PAYLOAD_DIFFERENCES)
    assert payload.passed is None


@pytest.mark.parametrize(
    ("scenario", "differences", "stop"),
    [
        (Scenario(big=80_000), 0, StopReason.ADMITTING_SHARE_LOW),  # 19,972 net each
        (Scenario(final_estimate=190_000), 0, StopReason.PRESSURE_REDUCTION_LOW),
        (Scenario(route={"drainTokens": 200_000}), 0, StopReason.PRESSURE_MODEL_UNDEFINED),
        (Scenario(), 2, StopReason.UNINTENDED_PAYLOAD_DIFFERENCES),
        (Scenario(busy=0), 0, StopReason.COST_INCREASE_HIGH),
    ],
    ids=[
        "admitting just under 20,000",
        "too much growth",
        "drain equals trigger",
        "payload differences",
        "too few requests carry the savings",
    ],
)
@pytest.mark.node
def test_each_stop_criterion_from_a_corpus(
    tmp_path: Path,
    real_record: QualificationRecord,
    scenario: Scenario,
    differences: int,
    stop: StopReason,
) -> None:
    """Each variant fails exactly one of criteria 3-6 and STOPs with that reason."""
    report = _analyze(tmp_path, scenario, _record(tmp_path, real_record, differences))
    assert report.gate.stop_reasons == (stop,)
    assert report.gate.defer_reasons == ()
    assert report.gate.verdict.value == "STOP"
