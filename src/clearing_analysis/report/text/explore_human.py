"""The details of an explore report's human view (`--details`), in the manner of
`analyze`'s (`human`); the one-screen summary that leads it is `explore_summary`.

Per API the sessions' evidence and, under "upper bound" titles, the simulation, the pressure
model and the cost waterfall in both views. It renders only what the report holds; nothing
here reads inputs, and no verdict word (BUILD / DEFER / STOP) is ever printed.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from clearing_analysis.report import explore_model as em
from clearing_analysis.report import model as rm
from clearing_analysis.report.text.human import (
    cost_waterfall,
    histogram_table,
    limitation_lines,
    pairs_table,
    pressure_lines,
    route_trigger_table,
    tool_class_table,
    usage_table,
)
from clearing_analysis.report.text.refetches import tables as refetch_tables
from clearing_analysis.report.text.terminal import number
from clearing_analysis.report.text.what_ifs import tables

STATEMENT_TEXT = {
    em.ExploreStatement.NEVER_A_VERDICT: (
        "Exploration only: never a verdict. Session histories (pi, Claude Code, Codex) prove"
        " neither a tool's identity nor "
        "the retention of its result, which the decision gate needs; run `analyze` on native "
        "journals with the tool-history sidecar for that."
    ),
    em.ExploreStatement.UPPER_BOUND_ONLY: (
        "Every opportunity, pressure and cost figure is an upper bound: identity and retention "
        "are assumed, and what pi does not record is taken in the favourable direction."
    ),
    em.ExploreStatement.MODELED_NOT_OBSERVED: (
        "All opportunity, pressure and cost figures are modeled, not observed savings."
    ),
    em.ExploreStatement.NO_QUALITY_INFERENCE: "No quality improvement is inferred.",
    em.ExploreStatement.FROZEN_CONTINUATIONS: (
        "The models replay frozen continuations: no alternate assistant behaviour."
    ),
    em.ExploreStatement.DRAINS_ESTIMATED: (
        "pi records no tokens after a compaction: drains are estimates of the compacted context."
    ),
    em.ExploreStatement.DEFAULT_RETRIEVAL_RATE_PENDING: (
        "The default 5% retrieval rate is pending lookup-pilot evidence: 0%, 5%, 20% and the "
        "supplied rate are all reported."
    ),
}


def _tool_results(
    title: str, rows: Sequence[rm.ToolClassResults], web: rm.WebYield | None
) -> Table:
    cells = [
        (
            row.tool_class.value,
            number(row.results),
            number(row.text_bytes),
            number(row.eligible),
            number(row.cleared),
            number(row.cleared_text_bytes),
        )
        for row in rows
    ]
    web_row = (
        None
        if web is None
        else (
            number(web.results),
            number(web.text_bytes),
            "",
            number(web.cleared),
            number(web.cleared_text_bytes),
        )
    )
    return tool_class_table(title, "eligible", cells, web_row)


def _api_section(api: str, report: em.ApiExplore) -> list[RenderableType]:
    evidence = report.evidence
    sim = report.simulation
    pressure = report.pressure
    parts: list[RenderableType] = [Text(f"\n{api}", style="bold")]
    parts.extend(limitation_lines(report.limitations))
    parts.append(
        pairs_table(
            "Sessions' evidence (prompt-turn boundaries; native E)",
            [
                ("requests (assistant messages)", number(report.requests.requests)),
                ("usage fallback requests", number(report.requests.fallback)),
                ("prompt turns", number(report.prompt_turns)),
                ("logical conversations", number(evidence.logical_conversations)),
                ("pressured boundaries", number(evidence.pressured)),
                ("cold pressured boundaries", number(evidence.cold_pressured)),
                ("compactions on the resumed paths", number(report.compactions.checkpoints)),
            ],
        )
    )
    parts.append(usage_table(report.requests, report.usage))
    parts.append(
        pairs_table(
            "Simulation (UPPER BOUND, step by step)",
            [
                ("clearing points", number(sim.clearing_points)),
                ("batches", number(sim.batches)),
                ("cleared results", number(sim.cleared_results)),
                ("admitted net tokens S (upper bound)", number(sim.admitted_net_tokens)),
                ("admitted text bytes (upper bound)", number(sim.admitted_text_bytes)),
                ("retrieved tokens R (escaped)", number(sim.retrieved_tokens)),
                (
                    "cold pressured boundaries admitting >= 20k",
                    number(evidence.admitting),
                ),
                ("stopped by the 8 MiB budget", number(sim.budget_stops)),
            ],
        )
    )
    parts.append(
        pairs_table(
            "Pressure model inputs (upper bound)",
            [
                ("growth G", number(pressure.growth)),
                ("trigger T", number(pressure.trigger)),
                ("drain P", number(pressure.drain)),
                ("savings per cycle S/C", number(pressure.savings_per_cycle, 1)),
                ("summary fits the trigger", "yes" if pressure.summary_fits else "no"),
            ],
        )
    )
    parts.extend(pressure_lines("Modeled pressure reduction (UPPER BOUND)", pressure))
    parts.extend(
        cost_waterfall(report.cost, pressure.gated_rate, label="UPPER BOUND, modeled", gated=False)
    )
    parts.append(_tool_results("Tool results by class", report.tool_results, report.web))
    parts.append(histogram_table("Request gaps", evidence.request_gaps_ms, "ms"))
    parts.append(route_trigger_table(report.route_trigger, pressure.trigger))
    parts.append(
        histogram_table(
            "Estimated drains (tokens after compaction)", report.compactions.drains, "tok"
        )
    )
    return parts


def details(report: em.ExploreReport) -> list[RenderableType]:
    """The details that follow the summary (`--details`): the sessions read and skipped, per
    API the evidence and the upper-bound models, the tool results, the statements."""
    sessions = report.sessions
    parts: list[RenderableType] = [
        pairs_table(
            "Sessions",
            [
                ("sessions read", number(sessions.sessions_read)),
                ("session bytes", number(sessions.session_bytes)),
                *((f"format version {k}", number(v)) for k, v in sessions.by_version.items()),
                *(
                    (f"skipped sessions {k.value}", number(v))
                    for k, v in sessions.skipped_sessions.items()
                ),
                ("entries on other branches (not counted)", number(sessions.off_path_entries)),
                ("sessions with several branches", number(sessions.branched_sessions)),
                *(
                    (f"unrecognized {k.value} (left out)", number(v))
                    for k, v in sessions.unrecognized.items()
                ),
                *(
                    (f"not requests: {k.value}", number(v))
                    for k, v in sessions.transcript_only_messages.items()
                ),
                *(
                    (f"skipped boundaries {k.value}", number(v))
                    for k, v in sessions.skipped_boundaries.items()
                ),
                ("requests of an API without a route", number(sessions.requests_without_route)),
                ("requests outside the period", number(sessions.requests_outside_period)),
                ("compactions outside the period", number(sessions.compactions_outside_period)),
            ],
        )
    ]
    for api, api_report in rm.in_api_order(report.per_api):
        parts.extend(_api_section(api.value, api_report))
    parts.append(
        _tool_results("\nTool results by class, all APIs", report.tool_results_all_apis, None)
    )
    parts.extend(tables(report.what_ifs_informational))
    if report.refetches_informational is not None:
        parts.extend(refetch_tables(report.refetches_informational))
    notes = [
        STATEMENT_TEXT[s] for s in report.statements if s is not em.ExploreStatement.NEVER_A_VERDICT
    ]
    notes += [f"Limitation: {limitation.value}" for limitation in report.limitations]
    parts.append(Text("\n".join(notes)))
    return parts


__all__ = ["STATEMENT_TEXT", "details"]
