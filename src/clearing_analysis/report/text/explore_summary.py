"""The one-screen summary that leads the human view of an explore report (docs/explore.md).

Never a verdict: it opens with the fixed statement that explore gives none and why, then per
API the sessions' pressure evidence and the upper bound's two figures (what the simulation
cleared, and the modeled pressure reduction and cost ratio at the supplied rate). Everything
comes from the report's typed structs; lines wrap at spaces only, so codes are never cut. It
closes with the informational what-if line (which policy within the cost limit reduces
pressure most, at what cost).
"""

from __future__ import annotations

from rich.text import Text

from clearing_analysis.inputs.configs import Api
from clearing_analysis.policy import view_policy
from clearing_analysis.report import explore_model as em
from clearing_analysis.report import model as rm
from clearing_analysis.report.text.explore_human import STATEMENT_TEXT
from clearing_analysis.report.text.refetches import summary_line as refetch_line
from clearing_analysis.report.text.summary import limitation_label
from clearing_analysis.report.text.terminal import number, percent, period_text, undefined_reason
from clearing_analysis.report.text.what_ifs import summary_line
from clearing_analysis.wrapping import INDENT, wrap


def _counted(count: int, one: str, many: str) -> str:
    """`count` and the noun in the singular or the plural ("1 boundary", "2 boundaries")."""
    return f"{number(count)} {one if count == 1 else many}"


def upper_bound_figures(part: em.ApiExplore) -> list[str]:
    """What the upper-bound simulation cleared, and its pressure and cost at the supplied rate."""
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


def sessions_line(report: em.ExploreReport) -> str:
    """How many sessions were read (and their bytes) and skipped."""
    sessions = report.sessions
    skipped = sum(sessions.skipped_sessions.values())
    return (
        f"sessions read {number(sessions.sessions_read)} ({number(sessions.session_bytes)} bytes),"
        f" skipped {number(skipped)}"
    )


def api_head(api: Api, part: em.ApiExplore) -> str:
    """The API's line: its pressure evidence and its prominent limitations, unwrapped."""
    evidence = part.evidence
    conversations = _counted(evidence.logical_conversations, "conversation", "conversations")
    head = (
        f"{api.value}: {number(evidence.pressured)} pressured boundaries,"
        f" {number(evidence.cold_pressured)} cold, in {conversations}"
    )
    marked = view_policy().prominent_limitations
    limitations = [
        limitation_label(code.value, part.route_trigger)
        for code in part.limitations
        if code.value in marked
    ]
    if limitations:
        head += "; limitations " + " ".join(limitations)
    return head


UPPER_BOUND_NOTE = "Every figure is an upper bound: identity and retention are assumed."


def summary(report: em.ExploreReport, width: int) -> list[Text]:
    """The summary's lines for a terminal `width` columns wide (see the module docstring)."""
    heading = (
        f"clearing-analysis explore {report.tool_version}"
        f"   retrieval rate {percent(report.retrieval_rate)}"
    )
    period = period_text(report.period)
    if period is not None:
        heading += f"   {period}"
    lines = [Text(line) for line in wrap(heading, width)]
    banner = STATEMENT_TEXT[em.ExploreStatement.NEVER_A_VERDICT]
    lines.extend(Text(line, style="bold yellow") for line in wrap(banner, width))
    lines.extend(Text(line) for line in wrap(sessions_line(report), width))
    lines.append(Text())
    for api, part in rm.in_api_order(report.per_api):
        lines.extend(Text(line) for line in wrap(api_head(api, part), width))
        for figure in upper_bound_figures(part):
            lines.extend(Text(line) for line in wrap(figure, width, INDENT, INDENT * 2))
    notes = (
        UPPER_BOUND_NOTE,
        "Every table and the sessions read: --details.",
        "What a code means and what to do: clearing-analysis explain CODE",
    )
    for note in notes:
        lines.extend(Text(line) for line in wrap(note, width))
    lines.extend(Text(line) for line in wrap(summary_line(report.what_ifs_informational), width))
    refetch = refetch_line(report.refetches_informational, report.retrieval_rate)
    if refetch is not None:
        lines.extend(Text(line) for line in wrap(refetch, width))
    return lines


__all__ = ["UPPER_BOUND_NOTE", "api_head", "sessions_line", "summary", "upper_bound_figures"]
