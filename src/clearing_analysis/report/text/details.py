"""The details of the human view (R-CLI-6, `--details`), for an analysis and an explore report
alike: per API its evidence, recorded usage, simulation, pressure and cost models, tool results
by class, request gaps, route check and drains, then the tool results over all APIs, the
what-ifs, the re-fetches, what was read and skipped, and the fixed statements.

The figures both report kinds hold are one struct (`rm.ApiFigures`), so one function renders
each part whatever the kind, titled by the report's bound (the analysis report's gated lower
bound, explore's UPPER BOUND); what only one kind holds (an analysis report's verdict, criteria,
retention and qualification; an explore report's sessions and prompt turns) is matched on the
kind, exhaustively. The one-screen summary that leads the view is `summary`; `view` puts them
together. It renders only what the report holds, with rich tables whose columns wrap and never
cut with an ellipsis; colour only when writing to a terminal. Nothing here reads inputs, and no
verdict word is printed for an explore report.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import TypeVar, assert_never

from rich import box
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from clearing_analysis.eligibility.reasons import Bound
from clearing_analysis.gate import ApiGate, Criterion
from clearing_analysis.inputs.configs import Api
from clearing_analysis.report import explore_model as em
from clearing_analysis.report import kinds
from clearing_analysis.report import model as rm
from clearing_analysis.report.kinds import AnyApi, AnyReport
from clearing_analysis.report.text.criteria import (
    gap_text,
    lineage_gap_text,
    shown,
    threshold_text,
)
from clearing_analysis.report.text.labels import (
    VERDICT_STYLE,
    admitting,
    budget,
    criterion_labels,
    statement_text,
)
from clearing_analysis.report.text.refetches import tables as refetch_tables
from clearing_analysis.report.text.tables import (
    column,
    cost_waterfall,
    histogram_table,
    limitation_lines,
    longest_words,
    pairs_table,
    pressure_lines,
    route_trigger_table,
    tool_class_table,
    usage_table,
)
from clearing_analysis.report.text.terminal import number, percent
from clearing_analysis.report.text.what_ifs import tables as what_if_tables


def _outcome(criterion: Criterion) -> Text:
    if criterion.passed is None:
        return Text("-", style="yellow")
    return Text("pass", style="green") if criterion.passed else Text("FAIL", style="red")


def criteria_table(gate: ApiGate) -> Table:
    """Each criterion against its threshold and how far it is from it; criteria 1-2 have a
    second row for their logical conversations (R-G-4). Fits 80 columns, codes kept whole."""
    rows: list[tuple[str | Text, ...]] = []
    labels = criterion_labels()
    for position, criterion in enumerate(gate.criteria, start=1):
        far = gap_text(criterion)
        if criterion.detail is not None:
            far = f"{far} {criterion.detail.value}".strip()
        rows.append(
            (
                f"{position} {labels[criterion.id]}",
                shown(criterion, criterion.measured),
                threshold_text(criterion),
                _outcome(criterion),
                far,
            )
        )
        if criterion.lineages is not None and criterion.min_lineages is not None:
            rows.append(
                (
                    "  in conversations",
                    number(criterion.lineages),
                    f">= {criterion.min_lineages}",
                    "",
                    lineage_gap_text(criterion),
                )
            )
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    headers = (
        ("criterion", "left"),
        ("measured", "right"),
        ("needed", "right"),
        ("result", "left"),
        ("how far", "left"),
    )
    for (header, justify), width in zip(headers, longest_words(rows, len(headers)), strict=True):
        column(table, header, justify, width)
    for row in rows:
        table.add_row(*row)
    return table


def _heading(api: Api, part: AnyApi) -> list[RenderableType]:
    """The API's heading, its limitations with their meanings, and (analysis) its verdict and
    every criterion against its threshold."""
    match part:
        case rm.ApiReport():
            verdict = part.gate.verdict
            heading = Text(f"\n{api.value}: ", style="bold")
            heading.append(verdict.value, style=VERDICT_STYLE[verdict])
            return [heading, *limitation_lines(part.limitations), criteria_table(part.gate)]
        case em.ApiExplore():
            return [Text(f"\n{api.value}", style="bold"), *limitation_lines(part.limitations)]
        case _:
            assert_never(part)


def evidence_table(part: AnyApi) -> Table:
    """The API's counted boundaries and their pressure evidence, with its requests: the
    analysis report's counted boundaries, or the sessions' prompt-turn boundaries."""
    evidence, requests = part.evidence, part.requests
    match part:
        case rm.ApiReport():
            return pairs_table(
                "Evidence (counted boundaries; native E)",
                [
                    ("boundaries", number(evidence.boundaries)),
                    ("logical conversations", number(evidence.logical_conversations)),
                    ("pressured", number(evidence.pressured)),
                    ("cold pressured", number(evidence.cold_pressured)),
                    (f"cold pressured admitting {admitting()}", number(evidence.admitting)),
                    ("requests", number(requests.requests)),
                    ("usage fallback requests", number(requests.fallback)),
                    ("usage fallback share", percent(requests.fallback_share)),
                ],
            )
        case em.ApiExplore():
            return pairs_table(
                "Sessions' evidence (prompt-turn boundaries; native E)",
                [
                    ("requests (assistant messages)", number(requests.requests)),
                    ("usage fallback requests", number(requests.fallback)),
                    ("prompt turns", number(part.prompt_turns)),
                    ("logical conversations", number(evidence.logical_conversations)),
                    ("pressured boundaries", number(evidence.pressured)),
                    ("cold pressured boundaries", number(evidence.cold_pressured)),
                    ("compactions on the resumed paths", number(part.compactions.checkpoints)),
                ],
            )
        case _:
            assert_never(part)


def simulation_table(part: rm.ApiFigures, bound: Bound) -> Table:
    """What the step-by-step simulation cleared, titled by the bound: the gated lower bound
    with its informational per-boundary upper bound, or explore's upper bound with the cold
    pressured boundaries it takes to the admitting threshold."""
    sim = part.simulation
    stops = (f"stopped by the {budget()} budget", number(sim.budget_stops))
    match bound:
        case Bound.LOWER:
            title, mark = "Simulation (lower bound, step by step)", ""
            last = [
                stops,
                ("upper bound net tokens (informational)", number(sim.upper_bound_net_tokens)),
            ]
        case Bound.UPPER:
            title, mark = "Simulation (UPPER BOUND, step by step)", " (upper bound)"
            admitted = f"cold pressured boundaries admitting {admitting()}"
            last = [(admitted, number(part.evidence.admitting)), stops]
        case _:
            assert_never(bound)
    return pairs_table(
        title,
        [
            ("clearing points", number(sim.clearing_points)),
            ("batches", number(sim.batches)),
            ("cleared results", number(sim.cleared_results)),
            (f"admitted net tokens S{mark}", number(sim.admitted_net_tokens)),
            (f"admitted text bytes{mark}", number(sim.admitted_text_bytes)),
            ("retrieved tokens R (escaped)", number(sim.retrieved_tokens)),
            *last,
        ],
    )


def pressure_inputs_table(pressure: rm.Pressure, bound: Bound) -> Table:
    """G, T, P and what the pressure model makes of them; the gated report adds the summary
    input per cycle and the rate it gates at."""
    growth = [
        ("growth G", number(pressure.growth)),
        ("trigger T", number(pressure.trigger)),
        ("drain P", number(pressure.drain)),
        ("savings per cycle S/C", number(pressure.savings_per_cycle, 1)),
    ]
    fits = ("summary fits the trigger", "yes" if pressure.summary_fits else "no")
    match bound:
        case Bound.LOWER:
            return pairs_table(
                "Pressure inputs",
                [
                    *growth,
                    ("summary input per cycle", number(pressure.summary_input_per_cycle, 1)),
                    fits,
                    ("gated at retrieval rate", percent(pressure.gated_rate)),
                ],
            )
        case Bound.UPPER:
            return pairs_table("Pressure model inputs (upper bound)", [*growth, fits])
        case _:
            assert_never(bound)


def models_lines(part: rm.ApiFigures, bound: Bound) -> list[RenderableType]:
    """The pressure model at every rate, then the cost waterfall and the cost ratio at every
    rate, titled by the bound (explore's ratios gate nothing: no "within" column)."""
    pressure = part.pressure
    match bound:
        case Bound.LOWER:
            return [
                *pressure_lines("Pressure model (modeled compaction cycles)", pressure),
                *cost_waterfall(part.cost, pressure.gated_rate),
            ]
        case Bound.UPPER:
            return [
                *pressure_lines("Modeled pressure reduction (UPPER BOUND)", pressure),
                *cost_waterfall(
                    part.cost, pressure.gated_rate, label="UPPER BOUND, modeled", gated=False
                ),
            ]
        case _:
            assert_never(bound)


def tool_results_table(
    title: str, rows: Sequence[rm.ToolClassResults], web: rm.WebYield | None, bound: Bound
) -> Table:
    """Unique results per tool class, those of the bound's eligible set (the lower-bound
    class, or the upper-bound set) and what was cleared of them, then the web subset's row
    (the gated report with its cleared byte share)."""
    match bound:
        case Bound.LOWER:
            header = "lower\nbound"
        case Bound.UPPER:
            header = "eligible"
        case _:
            assert_never(bound)
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
    web_row = None
    if web is not None:
        cleared = number(web.cleared_text_bytes)
        if bound is Bound.LOWER:
            cleared += f" ({percent(web.yield_share)})"
        web_row = (number(web.results), number(web.text_bytes), "", number(web.cleared), cleared)
    return tool_class_table(title, header, cells, web_row)


def drains_table(compactions: rm.Compactions, bound: Bound) -> Table:
    """The drains of the compactions: observed (analysis) or estimated (explore, which pi
    does not record: DRAINS_ESTIMATED)."""
    match bound:
        case Bound.LOWER:
            title = "Observed drains (tokens after compaction)"
        case Bound.UPPER:
            title = "Estimated drains (tokens after compaction)"
        case _:
            assert_never(bound)
    return histogram_table(title, compactions.drains, "tok")


# The per-API tool-results table, and the one over all APIs, as each bound titles them.
def _tool_results_title(bound: Bound, *, all_apis: bool) -> str:
    match bound:
        case Bound.LOWER:
            return "\nCategories, all APIs" if all_apis else "Categories"
        case Bound.UPPER:
            return "\nTool results by class, all APIs" if all_apis else "Tool results by class"
        case _:
            assert_never(bound)


def api_section(api: Api, part: AnyApi, bound: Bound) -> list[RenderableType]:
    """One API's details, whatever the report kind: its heading (and verdict with its
    criteria), the evidence, the recorded usage, the simulation, the pressure and cost models,
    (analysis) retention and qualification, the tool results by class, the request gaps, the
    route check and the drains."""
    tools = tool_results_table(
        _tool_results_title(bound, all_apis=False), part.tool_results, part.web, bound
    )
    after_models: list[RenderableType]
    last: list[RenderableType]
    match part:
        case rm.ApiReport():
            retention, qualification = part.retention, part.qualification
            after_models = [
                pairs_table(
                    "Retention and qualification",
                    [
                        ("plain-text candidates", number(retention.candidates)),
                        ("proven", number(retention.proven)),
                        ("matched (incl. redacted, truncated)", number(retention.matched)),
                        ("matched share", percent(retention.matched_share)),
                        ("qualification", qualification.status.value),
                        (
                            "qualification detail",
                            "-" if qualification.detail is None else qualification.detail,
                        ),
                    ],
                )
            ]
            last = [tools]
        case em.ApiExplore():
            after_models, last = [tools], []
        case _:
            assert_never(part)
    return [
        *_heading(api, part),
        evidence_table(part),
        usage_table(part.requests, part.usage),
        simulation_table(part, bound),
        pressure_inputs_table(part.pressure, bound),
        *models_lines(part, bound),
        *after_models,
        histogram_table("Request gaps", part.evidence.request_gaps_ms, "ms"),
        route_trigger_table(part.route_trigger, part.pressure.trigger),
        drains_table(part.compactions, bound),
        *last,
    ]


_Skip = TypeVar("_Skip", bound=enum.StrEnum)


def _history_rows(counts: rm.HistoryCounts[_Skip]) -> list[tuple[str, str]]:
    """The rows both kinds show of what the history held beside the per-API cohorts."""
    skipped = counts.skipped_boundaries
    return [
        *((f"skipped boundaries {k.value}", number(v)) for k, v in skipped.items()),
        ("requests of an API without a route", number(counts.requests_without_route)),
        ("requests outside the period", number(counts.requests_outside_period)),
        ("compactions outside the period", number(counts.compactions_outside_period)),
    ]


def snapshot_table(snapshot: rm.Snapshot) -> Table:
    """The journals replayed and skipped, then what the history held beside the cohorts."""
    return pairs_table(
        "Snapshot",
        [
            ("journals replayed", number(snapshot.journals_replayed)),
            ("journal bytes", number(snapshot.journal_bytes)),
            *(
                (f"skipped journals {k.value}", number(v))
                for k, v in snapshot.skipped_journals.items()
            ),
            *_history_rows(snapshot),
        ],
    )


def sessions_table(sessions: em.Sessions) -> Table:
    """The sessions read and skipped, what lay beyond their resumed paths, then what the
    history held beside the cohorts."""
    return pairs_table(
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
            *_history_rows(sessions),
        ],
    )


def details(report: AnyReport) -> list[RenderableType]:
    """The details that follow the summary (`--details`): (explore) the sessions read; per
    API every part (`api_section`); the tool results over all APIs; the what-ifs and the
    re-fetches; (analysis) the snapshot; the fixed statements and the limitations."""
    bound = kinds.bound(report)
    title = _tool_results_title(bound, all_apis=True)
    before: list[RenderableType]
    after: list[RenderableType]
    apis: list[tuple[Api, AnyApi]]
    statements: list[str]
    match report:
        case rm.Report():
            before, after = [], [snapshot_table(report.snapshot)]
            apis = list(rm.in_api_order(report.per_api))
            every = tool_results_table(
                title, report.overall.tool_results, report.overall.web, bound
            )
            statements = [statement_text(s) for s in report.statements]
        case em.ExploreReport():
            before, after = [sessions_table(report.sessions)], []
            apis = list(rm.in_api_order(report.per_api))
            every = tool_results_table(title, report.tool_results_all_apis, None, bound)
            # The summary leads with NEVER_A_VERDICT; the notes do not repeat it.
            statements = [
                statement_text(s)
                for s in report.statements
                if s is not em.ExploreStatement.NEVER_A_VERDICT
            ]
        case _:
            assert_never(report)
    parts = [*before]
    for api, part in apis:
        parts.extend(api_section(api, part, bound))
    parts.append(every)
    parts.extend(what_if_tables(report.what_ifs_informational))
    if report.refetches_informational is not None:
        parts.extend(refetch_tables(report.refetches_informational))
    parts.extend(after)
    notes = [*statements, *(f"Limitation: {limitation.value}" for limitation in report.limitations)]
    parts.append(Text("\n".join(notes)))
    return parts


__all__ = [
    "api_section",
    "criteria_table",
    "details",
    "drains_table",
    "evidence_table",
    "models_lines",
    "pressure_inputs_table",
    "sessions_table",
    "simulation_table",
    "snapshot_table",
    "tool_results_table",
]
