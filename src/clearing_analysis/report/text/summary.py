"""The one-screen summary that leads the human view (R-CLI-6, R-G-4), for an analysis and an
explore report alike.

An analysis report: at 80 columns it fits in 24 lines for four APIs: the overall verdict; per
API its verdict, the reasons that decided it and the one or two figures behind them, each with
how far it is from its threshold; the prominent limitation codes beside the verdict
(policy/view.json); once, that DEFER takes precedence over STOP; and where to learn what a code
means. An explore report, never a verdict: the fixed statement that explore gives none and
why, the sessions read, then per API the sessions' pressure evidence and the upper bound's two
figures (what the simulation cleared, and the modeled pressure reduction and cost ratio at the
supplied rate). Both close with the informational what-if line (which policy within the cost
limit reduces pressure most, at what cost) and the observed re-fetch line, never gating.

One function lays out each part for either kind (`api_lines`, `summary`); what differs by kind
is matched on it, exhaustively. Everything comes from the report's typed structs, nothing is
recomputed from inputs, and lines are wrapped at spaces only, so a code is never cut or
shortened. The page's summary (report.html.summary) says the same from the same functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import assert_never

import msgspec
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
from clearing_analysis.report import explore_model as em
from clearing_analysis.report import model as rm
from clearing_analysis.report.kinds import AnyApi, AnyReport
from clearing_analysis.report.text.criteria import (
    gap_text,
    lineage_gap_text,
    shown,
    threshold_text,
)
from clearing_analysis.report.text.labels import VERDICT_STYLE, criterion_label, statement_text
from clearing_analysis.report.text.refetches import summary_line as refetch_line
from clearing_analysis.report.text.terminal import number, percent, period_text, undefined_reason
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
    label = criterion_label(criterion.id)
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


def verdict_figures(api: rm.ApiReport) -> list[str]:
    """The one or two figures that decided an analysis report's API verdict, in reason order."""
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


def _counted(count: int, one: str, many: str) -> str:
    """`count` and the noun in the singular or the plural ("1 boundary", "2 boundaries")."""
    return f"{number(count)} {one if count == 1 else many}"


def upper_bound_figures(part: rm.ApiFigures) -> list[str]:
    """What explore's upper-bound simulation cleared, and its pressure and cost at the supplied
    rate."""
    sim, pressure, cost = part.simulation, part.pressure, part.cost
    cleared = (
        f"upper bound: {_counted(sim.cleared_results, 'result', 'results')} cleared at"
        f" {_counted(sim.clearing_points, 'boundary', 'boundaries')},"
        f" {number(sim.admitted_net_tokens)} net tokens"
    )
    at_pressure = next((a for a in pressure.sensitivities if a.rate == pressure.gated_rate), None)
    at_cost = next((a for a in cost.sensitivities if a.rate == pressure.gated_rate), None)
    if not pressure.defined or at_pressure is None or at_cost is None:
        reason = undefined_reason(pressure.undefined_causes)
        return [cleared, f"pressure and cost models undefined ({reason})"]
    models = (
        f"{percent(pressure.gated_rate)} retrieval: pressure {percent(at_pressure.reduction)}"
        f" lower; cost x{number(at_cost.list_price.ratio, 4)} list,"
        f" x{number(at_cost.quota_share.ratio, 4)} quota"
    )
    return [cleared, models]


def figures(part: AnyApi) -> list[str]:
    """The figures under an API's line: the one or two that decided an analysis report's
    verdict, or the upper bound's two of an explore report."""
    match part:
        case rm.ApiReport():
            return verdict_figures(part)
        case em.ApiExplore():
            return upper_bound_figures(part)
        case _:
            assert_never(part)


def api_limitations(report: AnyReport, api: Api) -> tuple[str, ...]:
    """The limitation codes that concern one API: an analysis report's own, which concern
    every API, then the API's (ROUTE_TRIGGER_CONTRADICTED, CACHE_LIFETIME_UNKNOWN, ...); an
    explore report's API's own."""
    match report:
        case rm.Report():
            own = report.per_api[api].limitations if api in report.per_api else ()
            return tuple(limitation.value for limitation in (*report.limitations, *own))
        case em.ExploreReport():
            mine = report.per_api[api].limitations if api in report.per_api else ()
            return tuple(limitation.value for limitation in mine)
        case _:
            assert_never(report)


def prominent_limitations(
    report: AnyReport, api: Api, prominent: frozenset[str] | None = None
) -> tuple[str, ...]:
    """The API's limitation codes that policy/view.json (or `prominent`) marks prominent, the
    route check's with the trigger the compactions imply."""
    marked = view_policy().prominent_limitations if prominent is None else prominent
    route = report.per_api[api].route_trigger if api in report.per_api else None
    return tuple(
        limitation_label(code, route) for code in api_limitations(report, api) if code in marked
    )


def _verdict_head(report: rm.Report, api: Api) -> tuple[str, bool]:
    part = report.per_api[api]
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
    return head, would_stop


def _evidence_head(report: em.ExploreReport, api: Api) -> str:
    evidence = report.per_api[api].evidence
    conversations = _counted(evidence.logical_conversations, "conversation", "conversations")
    return (
        f"{api.value}: {number(evidence.pressured)} pressured boundaries,"
        f" {number(evidence.cold_pressured)} cold, in {conversations}"
    )


def api_head(
    report: AnyReport, api: Api, prominent: frozenset[str] | None = None
) -> tuple[str, bool]:
    """The API's line unwrapped, and whether it would STOP once evidence suffices: an analysis
    report's verdict (its reasons, what it would STOP on), an explore report's pressure
    evidence (never a verdict); then the prominent limitations."""
    match report:
        case rm.Report():
            head, would_stop = _verdict_head(report, api)
        case em.ExploreReport():
            head, would_stop = _evidence_head(report, api), False
        case _:
            assert_never(report)
    limitations = prominent_limitations(report, api, prominent)
    if limitations:
        head += "; limitations " + " ".join(limitations)
    return head, would_stop


class ApiLine(msgspec.Struct, frozen=True):
    """One API in the summary, whatever the report kind: its line unwrapped, the verdict word
    to style in it (None for explore), whether it would STOP once evidence suffices, and the
    figures under it."""

    head: str
    verdict: Verdict | None
    would_stop: bool
    figures: tuple[str, ...]


def api_lines(report: AnyReport, prominent: frozenset[str] | None = None) -> list[ApiLine]:
    """Every API of the report in the seed's API order, as the summary and the page show it."""
    parts: list[tuple[Api, AnyApi, Verdict | None]]
    match report:
        case rm.Report():
            parts = [(a, p, p.gate.verdict) for a, p in rm.in_api_order(report.per_api)]
        case em.ExploreReport():
            parts = [(a, p, None) for a, p in rm.in_api_order(report.per_api)]
        case _:
            assert_never(report)
    found: list[ApiLine] = []
    for api, part, verdict in parts:
        head, would_stop = api_head(report, api, prominent)
        found.append(ApiLine(head, verdict, would_stop, tuple(figures(part))))
    return found


OVERALL_RULE = "BUILD only when every API builds; otherwise STOP over DEFER"
PRECEDENCE = 'DEFER takes precedence over STOP; "would STOP" applies once evidence suffices.'
UPPER_BOUND_NOTE = "Every figure is an upper bound: identity and retention are assumed."


def heading(report: AnyReport) -> str:
    """The summary's first line unwrapped: the versions, the supplied rate and the period."""
    rate = f"retrieval rate {percent(report.retrieval_rate)}"
    match report:
        case rm.Report():
            pi_ai = report.pi_ai_version or "not installed"
            text = f"clearing-analysis {report.tool_version}   pi-ai {pi_ai}   {rate}"
        case em.ExploreReport():
            text = f"clearing-analysis explore {report.tool_version}   {rate}"
        case _:
            assert_never(report)
    period = period_text(report.period)
    return text if period is None else f"{text}   {period}"


def sessions_line(report: em.ExploreReport) -> str:
    """How many sessions were read (and their bytes) and skipped."""
    sessions = report.sessions
    skipped = sum(sessions.skipped_sessions.values())
    return (
        f"sessions read {number(sessions.sessions_read)} ({number(sessions.session_bytes)} bytes),"
        f" skipped {number(skipped)}"
    )


def _opening(report: AnyReport, width: int) -> list[Text]:
    """What follows the heading: the overall verdict and its rule, or explore's statement that
    it gives none, the sessions read and a blank line."""
    match report:
        case rm.Report():
            overall = f"Overall: {report.verdict.value} ({OVERALL_RULE})"
            return _styled(wrap(overall, width), report.verdict.value, "bold")
        case em.ExploreReport():
            banner = statement_text(em.ExploreStatement.NEVER_A_VERDICT)
            return [
                *(Text(line, style="bold yellow") for line in wrap(banner, width)),
                *(Text(line) for line in wrap(sessions_line(report), width)),
                Text(),
            ]
        case _:
            assert_never(report)


def closing_notes(report: AnyReport, rows: Sequence[ApiLine]) -> list[str]:
    """The notes after the APIs: an analysis report's precedence of DEFER over STOP when an API
    would STOP, that figures are modeled and where the codes and tables are; an explore
    report's upper bound, where the tables and the codes are."""
    match report:
        case rm.Report():
            precedence = [PRECEDENCE] if any(row.would_stop for row in rows) else []
            return [
                *precedence,
                "Figures are modeled. Codes: clearing-analysis explain CODE. Tables: --details",
            ]
        case em.ExploreReport():
            return [
                UPPER_BOUND_NOTE,
                "Every table and the sessions read: --details.",
                "What a code means and what to do: clearing-analysis explain CODE",
            ]
        case _:
            assert_never(report)


def summary(
    report: AnyReport,
    width: int,
    *,
    prominent: frozenset[str] | None = None,
    notes: bool = True,
) -> list[Text]:
    """The summary's lines for a terminal `width` columns wide (see the module docstring);
    `notes=False` leaves out the closing notes and the re-fetch line (the demo prints them
    once)."""
    lines = [Text(line) for line in wrap(heading(report), width)]
    lines.extend(_opening(report, width))
    rows = api_lines(report, prominent)
    for row in rows:
        head = wrap(row.head, width)
        if row.verdict is None:
            lines.extend(Text(line) for line in head)
        else:
            lines.extend(_styled(head, row.verdict.value, VERDICT_STYLE[row.verdict]))
        for figure in row.figures:
            lines.extend(Text(line) for line in wrap(figure, width, INDENT, INDENT * 2))
    if notes:
        for note in closing_notes(report, rows):
            lines.extend(Text(line) for line in wrap(note, width))
    # After the one-screen verdicts and notes: the informational what-ifs, never gating.
    lines.extend(Text(line) for line in wrap(summary_line(report.what_ifs_informational), width))
    # The observed re-fetch share (informational, never gating), with the closing notes: the
    # demo, which prints them once, prints it once.
    refetch = refetch_line(report.refetches_informational, report.retrieval_rate)
    if notes and refetch is not None:
        lines.extend(Text(line) for line in wrap(refetch, width))
    return lines


def summary_text(report: AnyReport, width: int) -> str:
    """The summary as plain text (no colour), one newline after each line."""
    return "".join(f"{line.plain}\n" for line in summary(report, width))


__all__ = [
    "OVERALL_RULE",
    "PRECEDENCE",
    "UPPER_BOUND_NOTE",
    "ApiLine",
    "api_head",
    "api_limitations",
    "api_lines",
    "closing_notes",
    "criterion_figure",
    "figures",
    "heading",
    "limitation_label",
    "prominent_limitations",
    "sessions_line",
    "summary",
    "summary_text",
    "upper_bound_figures",
    "verdict_figures",
]
