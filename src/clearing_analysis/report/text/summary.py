"""The one-screen summary that leads the human view of an analysis report (R-CLI-6, R-G-4).

At 80 columns it fits in 24 lines for four APIs: the overall verdict; per API its verdict,
the reasons that decided it and the one or two figures behind them, each with how far it is
from its threshold; the prominent limitation codes beside the verdict (policy/view.json); once,
that DEFER takes precedence over STOP; and where to learn what a code means. Everything comes
from the report's typed structs (report.model), nothing is recomputed from inputs, and lines
are wrapped at spaces only, so a code is never cut or shortened. After that screen, one
informational line: which what-if policy within the cost limit reduces pressure most, at
what cost (never gating).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text

from clearing_analysis.gate import (
    Criterion,
    CriterionDetail,
    CriterionId,
    DeferReason,
    StopReason,
    Verdict,
)
from clearing_analysis.inputs.configs import Api
from clearing_analysis.policy import gate_policy, view_policy
from clearing_analysis.report import model as rm
from clearing_analysis.report.text.human import (
    CRITERION_LABEL,
    VERDICT_STYLE,
    gap_text,
    lineage_gap_text,
    shown,
    threshold_text,
)
from clearing_analysis.report.text.refetches import summary_line as refetch_line
from clearing_analysis.report.text.terminal import number, percent, period_text
from clearing_analysis.report.text.what_ifs import summary_line
from clearing_analysis.wrapping import INDENT, wrap

# The criterion whose figure a reason stands for.
_REASON_CRITERION: Mapping[DeferReason | StopReason, CriterionId] = {
    DeferReason.REPRESENTATIVENESS_LOW: CriterionId.PRESSURED_BOUNDARIES,
    DeferReason.COLD_EVIDENCE_LOW: CriterionId.COLD_PRESSURED_BOUNDARIES,
    StopReason.ADMITTING_SHARE_LOW: CriterionId.ADMITTING_SHARE,
    StopReason.PRESSURE_REDUCTION_LOW: CriterionId.PRESSURE_REDUCTION,
    StopReason.PRESSURE_MODEL_UNDEFINED: CriterionId.PRESSURE_REDUCTION,
    StopReason.COST_INCREASE_HIGH: CriterionId.COST_INCREASE,
    StopReason.UNINTENDED_PAYLOAD_DIFFERENCES: CriterionId.PAYLOAD_DIFFERENCES,
}
# A BUILD is decided by the benefit and the price: criteria 4 and 5.
_BUILD_FIGURES = (CriterionId.PRESSURE_REDUCTION, CriterionId.COST_INCREASE)
FIGURES_PER_API = 2


def criterion_figure(criterion: Criterion) -> str:
    """One criterion as a summary figure: measured, threshold, and the distance between."""
    label = CRITERION_LABEL[criterion.id]
    if criterion.measured is None:
        detail = "" if criterion.detail is None else f" ({criterion.detail.value})"
        return f"{label} not measured{detail}"
    figure = f"{label} {shown(criterion, criterion.measured)} ({threshold_text(criterion)}"
    gap = gap_text(criterion)
    counted = criterion.lineages is not None and criterion.min_lineages is not None
    figure += f"; {gap})" if gap and not (counted and criterion.passed) else ")"
    if counted:
        plural = "" if criterion.lineages == 1 else "s"
        figure += f" in {criterion.lineages} conversation{plural} (>= {criterion.min_lineages}"
        lineage_gap = lineage_gap_text(criterion)
        figure += f"; {lineage_gap})" if lineage_gap else ")"
    if criterion.detail is CriterionDetail.SUMMARY_DOES_NOT_FIT:
        figure += f" {criterion.detail.value}"
    return figure


def _reason_figure(reason: DeferReason | StopReason, api: rm.ApiReport) -> str | None:
    """The figure behind a reason that is not a criterion's (None: the reason is its figure)."""
    retention, requests = api.retention, api.requests
    if reason is DeferReason.IDENTITY_UNPROVEN:
        return f"proven results {retention.proven} of {retention.candidates} plain-text candidates"
    if reason is DeferReason.RETENTION_UNMATCHED:
        return f"retention matched {retention.matched} of {retention.proven} proven results"
    if reason is DeferReason.RETENTION_COVERAGE_LOW:
        share, floor = retention.matched_share, retention.coverage_floor
        short = "" if share is None else f"; {percent(floor - share)} short"
        return f"retention matched {percent(share)} of proven results (>= {percent(floor)}{short})"
    if reason is DeferReason.USAGE_FALLBACK_EXCESSIVE:
        share, limit = requests.fallback_share, gate_policy().max_fallback_share
        over = "" if share is None else f"; {percent(share - limit)} over"
        return (
            f"usage fallback {percent(share)} of {number(requests.requests)} requests"
            f" (<= {percent(limit)}{over})"
        )
    return None


def _reason_text(reason: DeferReason | StopReason, api: rm.ApiReport) -> str:
    """A reason as the verdict line names it: PAYLOAD_UNQUALIFIED with its qualification
    detail, which says why (a missing record, a stale one, a harness this installation lacks)."""
    detail = api.qualification.detail
    if reason is DeferReason.PAYLOAD_UNQUALIFIED and detail is not None:
        return f"{reason.value} ({detail.value})"
    return reason.value


def figures(api: rm.ApiReport) -> list[str]:
    """The one or two figures that decided the API's verdict, in reason order."""
    gate = api.gate
    by_id = {criterion.id: criterion for criterion in gate.criteria}
    if gate.verdict is Verdict.BUILD:
        return [criterion_figure(by_id[criterion]) for criterion in _BUILD_FIGURES]
    reasons: Sequence[DeferReason | StopReason] = (
        gate.defer_reasons if gate.verdict is Verdict.DEFER else gate.stop_reasons
    )
    found: list[str] = []
    for reason in reasons:
        criterion = _REASON_CRITERION.get(reason)
        text = (
            criterion_figure(by_id[criterion])
            if criterion is not None
            else _reason_figure(reason, api)
        )
        if text is not None and text not in found:
            found.append(text)
    return found[:FIGURES_PER_API]


def api_limitations(report: rm.Report, api: Api) -> tuple[str, ...]:
    """The limitation codes that concern one API: the report's own, which concern every API,
    then the API's (ROUTE_TRIGGER_CONTRADICTED, CACHE_LIFETIME_UNKNOWN)."""
    own = report.per_api[api].limitations if api in report.per_api else ()
    return tuple(limitation.value for limitation in (*report.limitations, *own))


def prominent_limitations(
    report: rm.Report, api: Api, prominent: frozenset[str] | None = None
) -> tuple[str, ...]:
    """The API's limitation codes that policy/view.json (or `prominent`) marks prominent, the
    route check's with the trigger the compactions imply."""
    marked = view_policy().prominent_limitations if prominent is None else prominent
    route = report.per_api[api].route_trigger if api in report.per_api else None
    return tuple(
        limitation_label(code, route) for code in api_limitations(report, api) if code in marked
    )


def limitation_label(code: str, route: rm.RouteTrigger | None) -> str:
    """A limitation code as the summary prints it: ROUTE_TRIGGER_CONTRADICTED with the range
    of triggers the observed compactions imply (docs/model.md), CACHE_LIFETIME_UNKNOWN with
    what to do (no gap can be cold until the route states the lifetime)."""
    if code == rm.ApiLimitation.CACHE_LIFETIME_UNKNOWN:
        return f"{code} (no gap can be cold: set cacheLifetimeMs from the provider's docs)"
    if code != rm.ApiLimitation.ROUTE_TRIGGER_CONTRADICTED or route is None:
        return code
    low, below = route.implied_trigger_at_least, route.implied_trigger_below
    if low is None or below is None:
        return code
    if low >= below:
        return f"{code} (no single trigger explains the compactions)"
    return f"{code} (compactions imply a trigger from {number(low)} to below {number(below)})"


def _styled(lines: list[str], word: str, style: str) -> list[Text]:
    """Text lines with the first occurrence of `word` on the first line styled."""
    texts = [Text(line) for line in lines]
    start = lines[0].find(word)
    texts[0].stylize(style, start, start + len(word))
    return texts


def api_head(
    report: rm.Report, api: Api, part: rm.ApiReport, prominent: frozenset[str] | None = None
) -> tuple[str, bool]:
    """The API's verdict line (its reasons, what it would STOP on, its prominent limitations)
    unwrapped, and whether it would STOP once evidence suffices."""
    gate = part.gate
    if gate.verdict is Verdict.BUILD:
        head = f"{api.value}: BUILD, all six criteria pass"
    else:
        reasons = gate.defer_reasons if gate.verdict is Verdict.DEFER else gate.stop_reasons
        head = f"{api.value}: {gate.verdict.value} on " + " ".join(
            _reason_text(reason, part) for reason in reasons
        )
    would_stop = gate.verdict is Verdict.DEFER and bool(gate.stop_reasons)
    if would_stop:
        head += "; would STOP on " + " ".join(r.value for r in gate.stop_reasons)
    limitations = prominent_limitations(report, api, prominent)
    if limitations:
        head += "; limitations " + " ".join(limitations)
    return head, would_stop


def _api_lines(
    report: rm.Report, api: Api, part: rm.ApiReport, width: int, prominent: frozenset[str] | None
) -> tuple[list[Text], bool]:
    """The API's verdict line(s), its figures, and whether it would STOP once sufficient."""
    head, would_stop = api_head(report, api, part, prominent)
    verdict = part.gate.verdict
    lines = _styled(wrap(head, width), verdict.value, VERDICT_STYLE[verdict])
    for figure in figures(part):
        lines.extend(Text(line) for line in wrap(figure, width, INDENT, INDENT * 2))
    return lines, would_stop


OVERALL_RULE = "BUILD only when every API builds; otherwise STOP over DEFER"
PRECEDENCE = 'DEFER takes precedence over STOP; "would STOP" applies once evidence suffices.'


def summary(
    report: rm.Report,
    width: int,
    *,
    prominent: frozenset[str] | None = None,
    notes: bool = True,
) -> list[Text]:
    """The summary's lines for a terminal `width` columns wide (see the module docstring);
    `notes=False` leaves out the closing notes (the demo prints them once)."""
    heading = (
        f"clearing-analysis {report.tool_version}   pi-ai {report.pi_ai_version or 'not installed'}"
        f"   retrieval rate {percent(report.retrieval_rate)}"
    )
    period = period_text(report.period)
    if period is not None:
        heading += f"   {period}"
    lines = [Text(line) for line in wrap(heading, width)]
    overall = f"Overall: {report.verdict.value} ({OVERALL_RULE})"
    lines.extend(_styled(wrap(overall, width), report.verdict.value, "bold"))
    any_would_stop = False
    for api, part in rm.in_api_order(report.per_api):
        api_lines, would_stop = _api_lines(report, api, part, width, prominent)
        lines.extend(api_lines)
        any_would_stop |= would_stop
    if notes:
        closing = []
        if any_would_stop:
            closing.append(PRECEDENCE)
        closing.append(
            "Figures are modeled. Codes: clearing-analysis explain CODE. Tables: --details"
        )
        for note in closing:
            lines.extend(Text(line) for line in wrap(note, width))
    # After the one-screen verdicts and notes: the informational what-ifs, never gating.
    what_if = summary_line(report.what_ifs_informational)
    lines.extend(Text(line) for line in wrap(what_if, width))
    # The observed re-fetch share (informational, never gating), with the closing notes: the
    # demo, which prints them once, prints it once.
    refetch = refetch_line(report.refetches_informational, report.retrieval_rate)
    if notes and refetch is not None:
        lines.extend(Text(line) for line in wrap(refetch, width))
    return lines


def summary_text(report: rm.Report, width: int) -> str:
    """The summary as plain text (no colour), one newline after each line."""
    return "".join(f"{line.plain}\n" for line in summary(report, width))


__all__ = [
    "OVERALL_RULE",
    "PRECEDENCE",
    "api_head",
    "api_limitations",
    "criterion_figure",
    "figures",
    "prominent_limitations",
    "summary",
    "summary_text",
]
