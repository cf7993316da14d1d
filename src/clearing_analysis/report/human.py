"""The human view of a report (R-CLI-6): the verdicts first, then each criterion against its
threshold with how far it is from passing, then the evidence tables and histograms.

It renders only what the report holds (the same typed objects as the JSON), with rich tables;
colour only when writing to a terminal. Nothing here reads inputs.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from clearing_analysis.gate import ApiGate, Comparison, Criterion, CriterionId, Verdict
from clearing_analysis.report import model as rm
from clearing_analysis.report.validate import histogram_consistent

_VERDICT_STYLE = {
    Verdict.BUILD: "bold green",
    Verdict.DEFER: "bold yellow",
    Verdict.STOP: "bold red",
}
_CRITERION_TEXT = {
    CriterionId.PRESSURED_BOUNDARIES: "1 pressured boundaries",
    CriterionId.COLD_PRESSURED_BOUNDARIES: "2 cold pressured",
    CriterionId.ADMITTING_SHARE: "3 admitting >= 20k",
    CriterionId.PRESSURE_REDUCTION: "4 pressure reduction",
    CriterionId.COST_INCREASE: "5 cost increase (worst)",
    CriterionId.PAYLOAD_DIFFERENCES: "6 payload differences",
}
_STATEMENT_TEXT = {
    rm.Statement.MODELED_NOT_OBSERVED: (
        "All opportunity, pressure and cost figures are modeled, not observed savings."
    ),
    rm.Statement.NO_QUALITY_INFERENCE: "No quality improvement is inferred.",
    rm.Statement.FROZEN_CONTINUATIONS: (
        "The models replay frozen continuations: no alternate assistant behaviour."
    ),
    rm.Statement.UPPER_BOUNDS_INFORMATIONAL: (
        "Per-boundary upper bounds (unproven identity included) are informational only."
    ),
}


def number(value: float | int | None, digits: int = 0) -> str:
    """A figure with thousands separators; an integer is formatted as an integer, never
    through a float (which a very long one would overflow)."""
    if value is None:
        return "-"
    if isinstance(value, int):
        return f"{value:,}" + ("." + "0" * digits if digits else "")
    if digits == 0 and value.is_integer():
        return f"{int(value):,}"
    return f"{value:,.{digits}f}"


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _is_fraction(criterion: Criterion) -> bool:
    return criterion.id in {
        CriterionId.ADMITTING_SHARE,
        CriterionId.PRESSURE_REDUCTION,
        CriterionId.COST_INCREASE,
    }


def _show(criterion: Criterion, value: float | None) -> str:
    return percent(value) if _is_fraction(criterion) else number(value)


def _outcome(criterion: Criterion) -> Text:
    if criterion.passed is None:
        return Text("not evaluated", style="yellow")
    return Text("pass", style="green") if criterion.passed else Text("FAIL", style="red")


def _distance(criterion: Criterion) -> str:
    """How far a failed criterion is from passing, in its own unit."""
    if criterion.passed is not False or criterion.measured is None:
        return ""
    gap = criterion.threshold - criterion.measured
    if criterion.comparison is Comparison.AT_MOST:
        gap = criterion.measured - criterion.threshold
        return f"{_show(criterion, gap)} over"
    parts = [] if gap <= 0 else [f"{_show(criterion, gap)} short"]
    lineages, minimum = criterion.lineages, criterion.min_lineages
    if lineages is not None and minimum is not None and lineages < minimum:
        missing = minimum - lineages
        parts.append(f"{missing} conversation{'' if missing == 1 else 's'} short")
    return ", ".join(parts)


def _criteria_table(gate: ApiGate) -> Table:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for header, justify in (
        ("criterion", "left"),
        ("measured", "right"),
        ("threshold", "right"),
        ("conversations", "right"),
        ("result", "left"),
        ("to pass", "left"),
        ("note", "left"),
    ):
        table.add_column(header, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for criterion in gate.criteria:
        sign = ">=" if criterion.comparison is Comparison.AT_LEAST else "<="
        conversations = (
            "-"
            if criterion.lineages is None
            else f"{criterion.lineages} (>= {criterion.min_lineages})"
        )
        table.add_row(
            _CRITERION_TEXT[criterion.id],
            _show(criterion, criterion.measured),
            f"{sign} {_show(criterion, criterion.threshold)}",
            conversations,
            _outcome(criterion),
            _distance(criterion),
            "" if criterion.detail is None else criterion.detail.value,
        )
    return table


def pairs_table(title: str, rows: Sequence[tuple[str, str]]) -> Table:
    table = Table(title=title, title_justify="left", box=box.SIMPLE, show_header=False)
    table.add_column("figure")
    table.add_column("value", justify="right")
    for name, value in rows:
        table.add_row(name, value)
    return table


def histogram_table(title: str, histogram: rm.Histogram, unit: str) -> Table:
    """One row per bucket with a bar. A histogram that breaks its invariants (which a saved
    report's decoding already refused: report.validate) shows one row saying so, never a
    partial or shifted table."""
    table = Table(title=title, title_justify="left", box=box.SIMPLE, show_header=False)
    table.add_column("from")
    table.add_column("count", justify="right")
    table.add_column("bar")
    if not histogram_consistent(histogram):
        table.add_row("inconsistent histogram: not shown", "", "")
        return table
    peak = max([*histogram.counts, histogram.below, histogram.unknown, 1])
    rows: list[tuple[str, int]] = []
    if histogram.below:
        rows.append((f"< {histogram.edges[0]:,} {unit}", histogram.below))
    rows.extend(
        (f">= {edge:,} {unit}", count)
        for edge, count in zip(histogram.edges, histogram.counts, strict=True)
    )
    if histogram.unknown:
        rows.append(("unknown", histogram.unknown))
    for label, count in rows:
        table.add_row(label, f"{count:,}", "#" * round(30 * count / peak))
    return table


def pressure_table(title: str, pressure: rm.Pressure) -> Table:
    """On, off and reduction at every retrieval rate of the pressure model."""
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    for header in ("retrieval rate", "labels", "on", "off", "reduction"):
        table.add_column(header, justify="right")
    for at in pressure.sensitivities:
        table.add_row(
            percent(at.rate),
            " ".join(label.value for label in at.labels),
            number(at.on, 4),
            number(pressure.off, 4),
            percent(at.reduction),
        )
    return table


def tool_class_table(
    title: str, class_header: str, rows: Sequence[Sequence[str]], web: Sequence[str] | None
) -> Table:
    """Results per tool class (the class's own figure under `class_header`), then the web
    subset's row when there is one."""
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    for header in ("tool class", "results", "text bytes", class_header, "cleared", "cleared bytes"):
        table.add_column(header, justify="left" if header == "tool class" else "right")
    for row in rows:
        table.add_row(*row)
    if web is not None:
        table.add_row("web (subset)", *web)
    return table


def _api_section(api: str, report: rm.ApiReport) -> list[RenderableType]:
    gate = report.gate
    evidence = report.evidence
    sim = report.simulation
    pressure = report.pressure
    heading = Text(f"\n{api}: ", style="bold")
    heading.append(gate.verdict.value, style=_VERDICT_STYLE[gate.verdict])
    parts: list[RenderableType] = [heading, _criteria_table(gate)]
    parts.append(
        pairs_table(
            "Evidence (counted boundaries; native E)",
            [
                ("boundaries", number(evidence.boundaries)),
                ("logical conversations", number(evidence.logical_conversations)),
                ("pressured", number(evidence.pressured)),
                ("cold pressured", number(evidence.cold_pressured)),
                ("cold pressured admitting >= 20k", number(evidence.admitting)),
                ("requests", number(report.requests.requests)),
                ("usage fallback requests", number(report.requests.fallback)),
                ("usage fallback share", percent(report.requests.fallback_share)),
            ],
        )
    )
    parts.append(
        pairs_table(
            "Simulation (lower bound, step by step)",
            [
                ("clearing points", number(sim.clearing_points)),
                ("batches", number(sim.batches)),
                ("cleared results", number(sim.cleared_results)),
                ("admitted net tokens S", number(sim.admitted_net_tokens)),
                ("admitted text bytes", number(sim.admitted_text_bytes)),
                ("retrieved tokens R (escaped)", number(sim.retrieved_tokens)),
                ("stopped by the 8 MiB budget", number(sim.budget_stops)),
                ("upper bound net tokens (informational)", number(sim.upper_bound_net_tokens)),
            ],
        )
    )
    parts.append(
        pairs_table(
            "Pressure inputs",
            [
                ("growth G", number(pressure.growth)),
                ("trigger T", number(pressure.trigger)),
                ("drain P", number(pressure.drain)),
                ("savings per cycle S/C", number(pressure.savings_per_cycle, 1)),
                ("summary input per cycle", number(pressure.summary_input_per_cycle, 1)),
                ("summary fits the trigger", "yes" if pressure.summary_fits else "no"),
                ("gated at retrieval rate", percent(pressure.gated_rate)),
            ],
        )
    )
    parts.append(pressure_table("Pressure model (modeled compaction cycles)", pressure))
    parts.extend(cost_waterfall(report.cost, pressure.gated_rate))
    retention = report.retention
    parts.append(
        pairs_table(
            "Retention and qualification",
            [
                ("plain-text candidates", number(retention.candidates)),
                ("proven", number(retention.proven)),
                ("matched (incl. redacted, truncated)", number(retention.matched)),
                ("matched share", percent(retention.matched_share)),
                ("qualification", report.qualification.status.value),
                (
                    "qualification detail",
                    "-" if report.qualification.detail is None else report.qualification.detail,
                ),
            ],
        )
    )
    parts.append(histogram_table("Request gaps", evidence.request_gaps_ms, "ms"))
    observed = report.observed
    parts.append(
        histogram_table("Observed drains (tokens after compaction)", observed.drains, "tok")
    )
    return parts


def _signed(value: float) -> str:
    return f"{value:+,.6f}"


def cost_waterfall(
    cost: rm.Cost, gated_rate: float, *, label: str = "modeled", gated: bool = True
) -> list[RenderableType]:
    """Off → each signed component → on, both views, at the supplied rate; then the ratio at
    every rate (criterion 5 needs all of them within 5%; `gated=False` leaves that column out,
    for explore, which gates nothing)."""
    if not cost.defined:
        return [Text("Cost model: undefined (the pressure model is undefined)")]
    at = next((a for a in cost.sensitivities if a.rate == gated_rate), cost.sensitivities[0])
    table = Table(
        title=f"Cost waterfall at retrieval rate {percent(at.rate)} ({label})",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for header, justify in (("", "left"), ("list price", "right"), ("quota share", "right")):
        table.add_column(header, justify=justify)  # type: ignore[arg-type]
    lp, qs = at.list_delta, at.quota_share_delta
    rows = [
        ("off arm", f"{at.list_price.off:,.6f}", f"{at.quota_share.off:,.6f}"),
        ("+ retained native context", _signed(lp.retained), _signed(qs.retained)),
        ("- removed (observed)", _signed(lp.removed.observed), _signed(qs.removed.observed)),
        ("- removed (extension)", _signed(lp.removed.extension), _signed(qs.removed.extension)),
        (
            "summary cycle change",
            _signed(lp.summary.cycle_change),
            _signed(qs.summary.cycle_change),
        ),
        (
            "enlarged summaries",
            _signed(lp.summary.enlarged_summaries),
            _signed(qs.summary.enlarged_summaries),
        ),
        (
            "retrieval round trips",
            _signed(lp.retrieval.round_trips),
            _signed(qs.retrieval.round_trips),
        ),
        (
            "returned history",
            _signed(lp.retrieval.returned_history),
            _signed(qs.retrieval.returned_history),
        ),
        ("= on arm", f"{at.list_price.on:,.6f}", f"{at.quota_share.on:,.6f}"),
        ("on / off", number(at.list_price.ratio, 4), number(at.quota_share.ratio, 4)),
    ]
    for row in rows:
        table.add_row(*row)
    title = "Cost ratio at every rate" if gated else f"Cost ratio at every rate ({label})"
    rates = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    headers = ["retrieval rate", "list price", "quota share"]
    for header in [*headers, "within 5%"] if gated else headers:
        rates.add_column(header, justify="right")
    for item in cost.sensitivities:
        within = item.list_price.within_threshold and item.quota_share.within_threshold
        cells = [
            percent(item.rate),
            number(item.list_price.ratio, 4),
            number(item.quota_share.ratio, 4),
        ]
        rates.add_row(*cells, *(["yes" if within else "no"] if gated else []))
    return [table, rates]


def _categories(title: str, categories: Sequence[rm.Category], web: rm.WebYield) -> Table:
    rows = [
        (
            category.tool_class.value,
            number(category.results),
            number(category.text_bytes),
            number(category.lower_bound_class),
            number(category.cleared),
            number(category.cleared_text_bytes),
        )
        for category in categories
    ]
    web_row = (
        number(web.results),
        number(web.text_bytes),
        "",
        number(web.cleared),
        f"{number(web.cleared_text_bytes)} ({percent(web.yield_share)})",
    )
    return tool_class_table(title, "lower-bound class", rows, web_row)


def renderables(report: rm.Report) -> list[RenderableType]:
    """The whole view, top to bottom."""
    title = Text("clearing-analysis ")
    title.append(report.tool_version)
    title.append(f"   pi-ai {report.pi_ai_version or 'not installed'}")
    title.append(f"   retrieval rate {percent(report.retrieval_rate)}\n")
    verdicts = Table(title="Verdict per API", title_justify="left", box=box.SIMPLE_HEAD)
    for header in ("api", "verdict", "DEFER reasons", "STOP reasons"):
        verdicts.add_column(header)
    for api, api_report in report.per_api.items():
        gate = api_report.gate
        verdicts.add_row(
            api.value,
            Text(gate.verdict.value, style=_VERDICT_STYLE[gate.verdict]),
            " ".join(r.value for r in gate.defer_reasons) or "-",
            " ".join(r.value for r in gate.stop_reasons) or "-",
        )
    overall = Text("Overall: ", style="bold")
    overall.append(report.verdict.value, style=_VERDICT_STYLE[report.verdict])
    parts: list[RenderableType] = [title, overall, verdicts]
    for api, api_report in report.per_api.items():
        parts.extend(_api_section(api.value, api_report))
        parts.append(_categories("Categories", api_report.categories, api_report.web))
    parts.append(
        _categories("\nCategories, all APIs", report.overall.categories, report.overall.web)
    )
    snapshot = report.snapshot
    parts.append(
        pairs_table(
            "Snapshot",
            [
                ("journals replayed", number(snapshot.journals_replayed)),
                ("journal bytes", number(snapshot.journal_bytes)),
                *(
                    (f"skipped journals {k.value}", number(v))
                    for k, v in snapshot.skipped_journals.items()
                ),
                *(
                    (f"skipped boundaries {k.value}", number(v))
                    for k, v in snapshot.skipped_boundaries.items()
                ),
            ],
        )
    )
    notes = [_STATEMENT_TEXT[s] for s in report.statements]
    notes += [f"Limitation: {limitation.value}" for limitation in report.limitations]
    parts.append(Text("\n".join(notes)))
    return parts


def plain_text(parts: Sequence[RenderableType], width: int) -> str:
    """A view as plain text (no colour), whatever the terminal."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, force_terminal=False)
    console.print(Group(*parts))
    return buffer.getvalue()


def render_text(report: rm.Report, *, width: int = 140) -> str:
    """The view as plain text (no colour), for files, tests and the demo's captured output."""
    return plain_text(renderables(report), width)


def print_report(report: rm.Report, console: Console) -> None:
    """Print the view to a console (colour when it is a terminal)."""
    console.print(Group(*renderables(report)))


__all__ = [
    "cost_waterfall",
    "histogram_table",
    "number",
    "pairs_table",
    "percent",
    "plain_text",
    "pressure_table",
    "print_report",
    "render_text",
    "renderables",
    "tool_class_table",
]
