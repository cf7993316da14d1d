"""The details of an analysis report's human view (R-CLI-6, `--details`): per API each
criterion against its threshold with how far it is from it, then the evidence tables and
histograms; and the table builders and number formats every human view shares.

The one-screen summary that leads the view is `summary`; `view` puts them together.
It renders only what the report holds (the same typed objects as the JSON), with rich tables
whose columns wrap and never cut with an ellipsis; colour only when writing to a terminal.
Nothing here reads inputs.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from clearing_analysis.gate import ApiGate, Comparison, Criterion, CriterionId, Verdict
from clearing_analysis.report import model as rm
from clearing_analysis.report.text.refetches import tables as refetch_tables
from clearing_analysis.report.text.terminal import money, number, percent, undefined_reason
from clearing_analysis.report.text.what_ifs import tables
from clearing_analysis.report.validate import histogram_consistent

VERDICT_STYLE = {
    Verdict.BUILD: "bold green",
    Verdict.DEFER: "bold yellow",
    Verdict.STOP: "bold red",
}
# The criteria as the views name them (docs/model.md, "The gate").
CRITERION_LABEL = {
    CriterionId.PRESSURED_BOUNDARIES: "pressured boundaries",
    CriterionId.COLD_PRESSURED_BOUNDARIES: "cold pressured",
    CriterionId.ADMITTING_SHARE: "admitting >= 20k",
    CriterionId.PRESSURE_REDUCTION: "pressure reduction",
    CriterionId.COST_INCREASE: "cost increase (worst)",
    CriterionId.PAYLOAD_DIFFERENCES: "payload differences",
}
STATEMENT_TEXT = {
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
    rm.Statement.DEFAULT_RETRIEVAL_RATE_PENDING: (
        "The default 5% retrieval rate is pending lookup-pilot evidence: 0%, 5%, 20% and the "
        "supplied rate are all reported and cost-gated."
    ),
}


def is_share(criterion: Criterion) -> bool:
    """Whether a criterion measures a share (written in percent), not a count."""
    return criterion.id in {
        CriterionId.ADMITTING_SHARE,
        CriterionId.PRESSURE_REDUCTION,
        CriterionId.COST_INCREASE,
    }


def shown(criterion: Criterion, value: float | None) -> str:
    """A criterion's value in its unit (a share in percent, a count as a number)."""
    return percent(value) if is_share(criterion) else number(value)


def threshold_text(criterion: Criterion) -> str:
    """`>= 10`, `<= 5.0%`: the threshold with its comparison."""
    sign = ">=" if criterion.comparison is Comparison.AT_LEAST else "<="
    return f"{sign} {shown(criterion, criterion.threshold)}"


def gap_text(criterion: Criterion) -> str:
    """How far a measured criterion is from its threshold (`3 short`, `7.7% over`), or what
    it has to spare when it passes; empty when it has no measurement."""
    if criterion.measured is None:
        return ""
    gap = criterion.measured - criterion.threshold
    if criterion.comparison is Comparison.AT_LEAST:
        return f"{shown(criterion, -gap)} short" if gap < 0 else f"{shown(criterion, gap)} to spare"
    return f"{shown(criterion, gap)} over" if gap > 0 else f"{shown(criterion, -gap)} to spare"


def lineage_gap_text(criterion: Criterion) -> str:
    """Criteria 1-2: how many logical conversations are missing (empty when enough)."""
    lineages, minimum = criterion.lineages, criterion.min_lineages
    if lineages is None or minimum is None or lineages >= minimum:
        return ""
    return f"{minimum - lineages} short"


def _outcome(criterion: Criterion) -> Text:
    if criterion.passed is None:
        return Text("-", style="yellow")
    return Text("pass", style="green") if criterion.passed else Text("FAIL", style="red")


def _column(table: Table, header: str, justify: str = "left", min_width: int | None = None) -> None:
    """A column that wraps at spaces and folds what still does not fit: never an ellipsis.
    `min_width` keeps its longest word (a code) whole while other columns wrap."""
    table.add_column(
        header,
        justify=justify,  # type: ignore[arg-type]
        overflow="fold",
        min_width=min_width,
    )


def _longest_words(rows: Sequence[Sequence[str | Text]], columns: int) -> list[int]:
    """Per column, the length of the longest word (space-separated) in any row."""
    widths = [0] * columns
    for row in rows:
        for index, cell in enumerate(row):
            text = cell.plain if isinstance(cell, Text) else cell
            widths[index] = max([widths[index], *(len(word) for word in text.split())])
    return widths


def _criteria_table(gate: ApiGate) -> Table:
    """Each criterion against its threshold and how far it is from it; criteria 1-2 have a
    second row for their logical conversations (R-G-4). Fits 80 columns, codes kept whole."""
    rows: list[tuple[str | Text, ...]] = []
    for position, criterion in enumerate(gate.criteria, start=1):
        far = gap_text(criterion)
        if criterion.detail is not None:
            far = f"{far} {criterion.detail.value}".strip()
        rows.append(
            (
                f"{position} {CRITERION_LABEL[criterion.id]}",
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
    for (header, justify), width in zip(headers, _longest_words(rows, len(headers)), strict=True):
        _column(table, header, justify, width)
    for row in rows:
        table.add_row(*row)
    return table


def pairs_table(title: str, rows: Sequence[tuple[str, str]]) -> Table:
    table = Table(title=title, title_justify="left", box=box.SIMPLE, show_header=False)
    _column(table, "figure")
    _column(table, "value", "right")
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


def pressure_lines(title: str, pressure: rm.Pressure) -> list[RenderableType]:
    """The pressure table, or the causes that leave the model undefined."""
    if not pressure.defined:
        return [Text(f"{title}: undefined ({undefined_reason(pressure.undefined_causes)})")]
    return [pressure_table(title, pressure)]


def pressure_table(title: str, pressure: rm.Pressure) -> Table:
    """On, off and reduction at every retrieval rate of the pressure model."""
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    for header in ("retrieval rate", "labels", "on", "off", "reduction"):
        _column(table, header, "right")
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
    table = Table(
        title=title, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False
    )
    # Two-line headers keep the table within 80 columns with every code whole.
    headers = ("tool class", "results", "text\nbytes", class_header, "cleared", "cleared\nbytes")
    every = [*rows, *([] if web is None else [("web (subset)", *web)])]
    for header, width in zip(headers, _longest_words(every, len(headers)), strict=True):
        _column(table, header, "left" if header == "tool class" else "right", width)
    for row in every:
        table.add_row(*row)
    return table


_LIMITATION_TEXT = {
    rm.ApiLimitation.ROUTE_TRIGGER_CONTRADICTED: (
        "the observed compactions contradict the route's triggerTokens: check T against the"
        " implied trigger below"
    ),
    rm.ApiLimitation.CACHE_LIFETIME_UNKNOWN: (
        "the route's cacheLifetimeMs is unknown, so no gap can be cold: set it from the"
        " provider's documentation"
    ),
    rm.ApiLimitation.OUTPUT_TOKENS_PLACEHOLDER: (
        "some requests recorded streaming placeholders as output tokens, so recorded output"
        " and its cost are undercounted"
    ),
}


def limitation_lines(limitations: Sequence[rm.ApiLimitation]) -> list[RenderableType]:
    """One line per API limitation: its code and what it means for the reader."""
    return [
        Text(f"{limitation.value}: {_LIMITATION_TEXT[limitation]}", style="yellow")
        for limitation in limitations
    ]


def route_trigger_table(route: rm.RouteTrigger, trigger: int) -> Table:
    """The route's trigger against the observed threshold compactions."""
    return pairs_table(
        "Route trigger against observed compactions (informational)",
        [
            ("trigger T of the route", number(trigger)),
            ("threshold compactions after a request", number(route.threshold_compactions)),
            ("below 0.75 T (trigger too high)", number(route.below_band)),
            ("below T - tolerance (trigger too high)", number(route.below_trigger)),
            ("beyond T + one turn's growth (too low)", number(route.beyond_overshoot)),
            ("largest growth of one turn", number(route.overshoot_tokens)),
            ("tolerance below T", number(route.tolerance_tokens)),
            ("implied trigger, at least", number(route.implied_trigger_at_least)),
            ("implied trigger, below", number(route.implied_trigger_below)),
        ],
    )


def _recorded_cost(cost: float | None) -> str:
    """The history's list-price cost, or why there is none (a report from before the field)."""
    return "not in this report" if cost is None else money(cost)


def usage_table(requests: rm.Requests, usage: rm.ObservedUsage) -> Table:
    """The usage the history recorded for one API, summed as recorded (R-CM-1): what the user
    spent, in the counts a usage tracker shows."""
    return pairs_table(
        "Recorded usage (tokens, as recorded)",
        [
            ("requests", number(requests.requests)),
            ("requests with recorded usage", number(usage.observed_requests)),
            ("input", number(usage.input)),
            ("cache read", number(usage.cache_read)),
            ("cache write", number(usage.cache_write)),
            ("output", number(usage.output)),
            ("list-price cost (route's prices)", _recorded_cost(usage.list_price_cost)),
        ],
    )


def _api_section(api: str, report: rm.ApiReport) -> list[RenderableType]:
    gate = report.gate
    evidence = report.evidence
    sim = report.simulation
    pressure = report.pressure
    heading = Text(f"\n{api}: ", style="bold")
    heading.append(gate.verdict.value, style=VERDICT_STYLE[gate.verdict])
    parts: list[RenderableType] = [heading, *limitation_lines(report.limitations)]
    parts.append(_criteria_table(gate))
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
    parts.append(usage_table(report.requests, report.usage))
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
    parts.extend(pressure_lines("Pressure model (modeled compaction cycles)", pressure))
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
    parts.append(route_trigger_table(report.route_trigger, pressure.trigger))
    observed = report.compactions
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
        reason = undefined_reason(cost.undefined_causes)
        return [Text(f"Cost model: undefined with the pressure model ({reason})")]
    at = next((a for a in cost.sensitivities if a.rate == gated_rate), cost.sensitivities[0])
    table = Table(
        title=f"Cost waterfall at retrieval rate {percent(at.rate)} ({label})",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for header, justify in (("", "left"), ("list price", "right"), ("quota share", "right")):
        _column(table, header, justify)
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
        _column(rates, header, "right")
    for item in cost.sensitivities:
        within = item.list_price.within_threshold and item.quota_share.within_threshold
        cells = [
            percent(item.rate),
            number(item.list_price.ratio, 4),
            number(item.quota_share.ratio, 4),
        ]
        rates.add_row(*cells, *(["yes" if within else "no"] if gated else []))
    return [table, rates]


def _categories(title: str, categories: Sequence[rm.ToolClassResults], web: rm.WebYield) -> Table:
    rows = [
        (
            category.tool_class.value,
            number(category.results),
            number(category.text_bytes),
            number(category.eligible),
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
    return tool_class_table(title, "lower\nbound", rows, web_row)


def details(report: rm.Report) -> list[RenderableType]:
    """The details that follow the summary (`--details`): per API every criterion, the
    evidence, the simulation, the pressure and cost models and the histograms; then the
    categories over all APIs, the snapshot and the fixed statements."""
    parts: list[RenderableType] = []
    for api, api_report in rm.in_api_order(report.per_api):
        parts.extend(_api_section(api.value, api_report))
        parts.append(_categories("Categories", api_report.tool_results, api_report.web))
    parts.append(
        _categories("\nCategories, all APIs", report.overall.tool_results, report.overall.web)
    )
    # Imported here: the what-ifs view builds on this module's formats.

    parts.extend(tables(report.what_ifs_informational))

    if report.refetches_informational is not None:
        parts.extend(refetch_tables(report.refetches_informational))
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
                ("requests of an API without a route", number(snapshot.requests_without_route)),
                ("requests outside the period", number(snapshot.requests_outside_period)),
                ("compactions outside the period", number(snapshot.compactions_outside_period)),
            ],
        )
    )
    notes = [STATEMENT_TEXT[s] for s in report.statements]
    notes += [f"Limitation: {limitation.value}" for limitation in report.limitations]
    parts.append(Text("\n".join(notes)))
    return parts


__all__ = [
    "CRITERION_LABEL",
    "VERDICT_STYLE",
    "cost_waterfall",
    "details",
    "gap_text",
    "histogram_table",
    "lineage_gap_text",
    "pairs_table",
    "pressure_lines",
    "pressure_table",
    "shown",
    "threshold_text",
    "tool_class_table",
    "usage_table",
]
