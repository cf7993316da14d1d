"""The one-screen summary (report.text.summary): the deciding reasons and figures of each verdict.

Each case starts from the golden `build` report (tests/golden) and changes one API's gate,
retention, requests or qualification the way the gate would have set them, then reads the
summary's text. Figures come from the report's own fields, with their distance to the fixed
thresholds of policy/gate.json.
"""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest

from clearing_analysis.gate import (
    Criterion,
    CriterionDetail,
    CriterionId,
    DeferReason,
    StopReason,
    Verdict,
)
from clearing_analysis.inputs.configs import Api
from clearing_analysis.qualify.verify import QualificationDetail
from clearing_analysis.report import model as rm
from clearing_analysis.report.encode import decode_report
from clearing_analysis.report.text.summary import (
    figures,
    prominent_limitations,
    summary,
    summary_text,
)

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "report-build.json"
API = Api.ANTHROPIC_MESSAGES


@pytest.fixture(scope="module")
def report() -> rm.Report:
    decoded = decode_report(GOLDEN.read_bytes())
    assert isinstance(decoded, rm.Report)
    return decoded


def _criterion(part: rm.ApiReport, which: CriterionId, **changes: object) -> Criterion:
    found = next(c for c in part.gate.criteria if c.id is which)
    return msgspec.structs.replace(found, **changes)


def _with_gate(
    part: rm.ApiReport,
    verdict: Verdict,
    defer: tuple[DeferReason, ...] = (),
    stop: tuple[StopReason, ...] = (),
    **criteria: Criterion,
) -> rm.ApiReport:
    replaced = tuple(criteria.get(c.id.value, c) for c in part.gate.criteria)
    gate = msgspec.structs.replace(
        part.gate, verdict=verdict, defer_reasons=defer, stop_reasons=stop, criteria=replaced
    )
    return msgspec.structs.replace(part, gate=gate)


def _one_api(report: rm.Report, part: rm.ApiReport) -> rm.Report:
    return msgspec.structs.replace(report, per_api={API: part}, verdict=part.gate.verdict)


def test_build_shows_pressure_and_cost_with_what_they_have_to_spare(report: rm.Report) -> None:
    """A BUILD names all six criteria passing and its two deciding figures, criteria 4 and 5,
    with their margins."""
    part = report.per_api[API]
    pressure = _criterion(part, CriterionId.PRESSURE_REDUCTION, measured=0.189, passed=True)
    cost = _criterion(part, CriterionId.COST_INCREASE, measured=0.012, passed=True)
    built = _with_gate(
        part,
        Verdict.BUILD,
        PRESSURE_REDUCTION=pressure,
        COST_INCREASE=cost,
    )
    text = summary_text(_one_api(report, built), 80)
    assert "anthropic-messages: BUILD, all six criteria pass\n" in text
    assert "  pressure reduction 18.9% (>= 15.0%; 3.9% to spare)\n" in text
    assert "  cost increase (worst) 1.2% (<= 5.0%; 3.8% to spare)\n" in text
    assert "Overall: BUILD" in text
    assert "would STOP" not in text


def test_stop_shows_the_failed_criteria_and_how_far_they_are(report: rm.Report) -> None:
    """A STOP lists its STOP reasons and the figures of the first two, each with its gap."""
    part = report.per_api[API]
    stopped = _with_gate(
        part,
        Verdict.STOP,
        stop=(
            StopReason.ADMITTING_SHARE_LOW,
            StopReason.PRESSURE_REDUCTION_LOW,
            StopReason.COST_INCREASE_HIGH,
        ),
        ADMITTING_SHARE=_criterion(part, CriterionId.ADMITTING_SHARE, measured=0.2, passed=False),
        PRESSURE_REDUCTION=_criterion(part, CriterionId.PRESSURE_REDUCTION, measured=0.1),
        COST_INCREASE=_criterion(part, CriterionId.COST_INCREASE, measured=0.127, passed=False),
    )
    assert figures(stopped) == [
        "admitting >= 20k 20.0% (>= 25.0%; 5.0% short)",
        "pressure reduction 10.0% (>= 15.0%; 5.0% short)",
    ]
    text = summary_text(_one_api(report, stopped), 80)
    assert text.count("anthropic-messages: STOP on ADMITTING_SHARE_LOW") == 1
    assert "COST_INCREASE_HIGH" in text  # every reason is named, two figures are shown


def test_defer_shows_counts_conversations_and_the_would_stop_codes(report: rm.Report) -> None:
    """A DEFER on criteria 1-2 shows each count and its conversations against their
    minimums, names the STOP reasons it would have once the evidence suffices, and the
    view says once that DEFER takes precedence over STOP."""
    text = summary_text(report, 80)
    assert (
        "  pressured boundaries 12 (>= 10; 2 to spare) in 2 conversations (>= 3; 1 short)\n"
    ) in text
    assert "  cold pressured 8 (>= 10; 2 short) in 2 conversations (>= 3; 1 short)\n" in text
    assert "would STOP on PRESSURE_REDUCTION_LOW" in " ".join(text.split())
    assert text.count("DEFER takes precedence over STOP") == 1


@pytest.mark.parametrize(
    ("reason", "change", "expected"),
    [
        (
            DeferReason.USAGE_FALLBACK_EXCESSIVE,
            {"requests": rm.Requests(requests=200, fallback=14, fallback_share=0.07)},
            "usage fallback 7.0% of 200 requests (<= 5.0%; 2.0% over)",
        ),
        (
            DeferReason.RETENTION_COVERAGE_LOW,
            {"retention": {"matched_share": 0.4}},
            "retention matched 40.0% of proven results (>= 50.0%; 10.0% short)",
        ),
        (
            DeferReason.RETENTION_UNMATCHED,
            {"retention": {"matched": 0, "proven": 31}},
            "retention matched 0 of 31 proven results",
        ),
        (
            DeferReason.IDENTITY_UNPROVEN,
            {"retention": {"proven": 0, "candidates": 57}},
            "proven results 0 of 57 plain-text candidates",
        ),
    ],
)
def test_each_defer_reason_has_its_figure(
    report: rm.Report, reason: DeferReason, change: dict[str, object], expected: str
) -> None:
    """The DEFER reasons that are not criteria show the report field that decided them."""
    part = report.per_api[API]
    if "retention" in change:
        fields = change.pop("retention")
        assert isinstance(fields, dict)
        change["retention"] = msgspec.structs.replace(part.retention, **fields)
    assert part.qualification.detail is QualificationDetail.MISSING
    deferred = _with_gate(msgspec.structs.replace(part, **change), Verdict.DEFER, defer=(reason,))
    assert figures(deferred) == [expected]


def test_payload_unqualified_names_its_detail_on_the_verdict_line(report: rm.Report) -> None:
    """PAYLOAD_UNQUALIFIED carries the qualification detail beside it (MISSING here; a stale
    record or a copy without the harness says so the same way), whatever figures follow."""
    text = summary_text(report, 200)
    assert text.count("PAYLOAD_UNQUALIFIED (MISSING)") == len(report.per_api)
    part = report.per_api[API]
    stale = msgspec.structs.replace(
        part.qualification, detail=QualificationDetail.HARNESS_UNAVAILABLE
    )
    changed = _one_api(report, msgspec.structs.replace(part, qualification=stale))
    assert "PAYLOAD_UNQUALIFIED (HARNESS_UNAVAILABLE)" in summary_text(changed, 80)


def test_codex_wire_alone_has_no_figure_and_undefined_models_say_so(report: rm.Report) -> None:
    """CODEX_WIRE_UNPROVEN is its own explanation (no figure); a criterion without a
    measurement says which detail stands in for it."""
    part = report.per_api[API]
    codex = _with_gate(part, Verdict.DEFER, defer=(DeferReason.CODEX_WIRE_UNPROVEN,))
    assert figures(codex) == []
    undefined = _criterion(
        part,
        CriterionId.PRESSURE_REDUCTION,
        measured=None,
        passed=False,
        detail=CriterionDetail.PRESSURE_MODEL_UNDEFINED,
    )
    stopped = _with_gate(
        part,
        Verdict.STOP,
        stop=(StopReason.PRESSURE_MODEL_UNDEFINED,),
        PRESSURE_REDUCTION=undefined,
    )
    assert figures(stopped) == ["pressure reduction not measured (PRESSURE_MODEL_UNDEFINED)"]


def test_prominent_limitations_sit_on_each_verdict_line(report: rm.Report) -> None:
    """A limitation code marked prominent (policy/view.json, here given directly) is shown on
    the verdict line of every API it concerns; unmarked ones are not in the summary."""
    assert report.limitations == (rm.Limitation.APPROVAL_STATE_UNATTESTED,)
    assert prominent_limitations(report, API) == ()  # nothing is marked today
    marked = frozenset({"APPROVAL_STATE_UNATTESTED"})
    assert prominent_limitations(report, API, marked) == ("APPROVAL_STATE_UNATTESTED",)
    plain = summary_text(report, 200)
    assert "APPROVAL_STATE_UNATTESTED" not in plain
    lines = [line.plain for line in summary(report, 200, prominent=marked)]
    verdict_lines = [line for line in lines if line.split(":")[0] in {a.value for a in Api}]
    assert len(verdict_lines) == len(report.per_api)
    assert all(line.endswith("; limitations APPROVAL_STATE_UNATTESTED") for line in verdict_lines)


def test_apis_follow_the_seed_order_whatever_the_file_order(report: rm.Report) -> None:
    """A saved report's keys are sorted; the summary lists APIs as analyze builds them."""
    assert list(report.per_api) != list(Api)  # sorted in the file: codex before completions
    text = summary_text(report, 80)
    heads = [line.split(":")[0] for line in text.splitlines() if not line.startswith(" ")]
    assert [head for head in heads if head in {a.value for a in Api}] == [a.value for a in Api]


def test_lines_wrap_at_spaces_only(report: rm.Report) -> None:
    """At any width from 40 columns no line is wider than the width (a word longer than the
    line excepted) and every code printed is whole."""
    codes = {r.value for part in report.per_api.values() for r in part.gate.defer_reasons}
    for width in (40, 60, 80, 120):
        text = summary_text(report, width)
        for line in text.splitlines():
            assert len(line) <= width or len(line.split()) == 1
        for code in codes:
            assert re.search(rf"(?<![A-Z_]){code}(?![A-Z_])", text), (width, code)


def test_explore_counts_conversations_in_the_singular_and_the_plural(tmp_path: Path) -> None:
    """The explore summary's head line reads "in 1 conversation", "in 2 conversations", and
    its upper-bound line "1 result cleared at 1 boundary", "2 results cleared at 2
    boundaries" (the real pi sessions read "in 1 conversations" and "at 1 boundaries")."""
    from clearing_analysis.report import explore_model as em
    from clearing_analysis.report.text.summary import summary
    from tests.report._saved import explore_report_bytes

    explored = decode_report(explore_report_bytes(tmp_path))
    assert isinstance(explored, em.ExploreReport)
    for count, wanted in (
        (1, (r"in 1 conversation\b(?!s)", r"\b1 result cleared at 1 boundary,")),
        (2, (r"in 2 conversations\b", r"\b2 results cleared at 2 boundaries,")),
    ):
        per_api = {
            api: msgspec.structs.replace(
                part,
                evidence=msgspec.structs.replace(part.evidence, logical_conversations=count),
                simulation=msgspec.structs.replace(
                    part.simulation, cleared_results=count, clearing_points=count
                ),
            )
            for api, part in explored.per_api.items()
        }
        edited = msgspec.structs.replace(explored, per_api=per_api)
        text = "\n".join(line.plain for line in summary(edited, 200))
        for pattern in wanted:
            assert re.search(pattern, text), text
