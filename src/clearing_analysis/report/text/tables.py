"""The tables of the human views (R-CLI-6), for either report kind: pairs of figures, a
histogram with its bars, the pressure model and the cost waterfall at every retrieval rate,
the tool results by class, the route check and the recorded usage. Each takes the part it
shows (the structs both kinds share) and, where the kinds title it apart, the report's bound.

Columns wrap at spaces and fold what still does not fit, so nothing is cut with an ellipsis
and no code is shortened. Nothing here reads inputs or imports another view.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from clearing_analysis.report import model as rm
from clearing_analysis.report.text.labels import LIMITATION_TEXT, band_floor, cost_limit
from clearing_analysis.report.text.terminal import money, number, percent, undefined_reason
from clearing_analysis.report.validate import histogram_consistent


def column(table: Table, header: str, justify: str = "left", min_width: int | None = None) -> None:
    """A column that wraps at spaces and folds what still does not fit: never an ellipsis.
    `min_width` keeps its longest word (a code) whole while other columns wrap."""
    table.add_column(
        header,
        justify=justify,  # type: ignore[arg-type]
        overflow="fold",
        min_width=min_width,
    )


def compact_table(title: str) -> Table:
    """A titled table without outer edges or padding, the padding between columns collapsed:
    the figure tables of the re-fetches and the what-ifs, several right-aligned columns wide."""
    return Table(
        title=title,
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
    )


def longest_words(rows: Sequence[Sequence[str | Text]], columns: int) -> list[int]:
    """Per column, the length of the longest word (space-separated) in any row."""
    widths = [0] * columns
    for row in rows:
        for index, cell in enumerate(row):
            text = cell.plain if isinstance(cell, Text) else cell
            widths[index] = max([widths[index], *(len(word) for word in text.split())])
    return widths


def pairs_table(title: str, rows: Sequence[tuple[str, str]]) -> Table:
    table = Table(title=title, title_justify="left", box=box.SIMPLE, show_header=False)
    column(table, "figure")
    column(table, "value", "right")
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
        column(table, header, "right")
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
    for header, width in zip(headers, longest_words(every, len(headers)), strict=True):
        column(table, header, "left" if header == "tool class" else "right", width)
    for row in every:
        table.add_row(*row)
    return table


def limitation_lines(limitations: Sequence[rm.ApiLimitation]) -> list[RenderableType]:
    """One line per API limitation: its code and what it means for the reader."""
    return [
        Text(f"{limitation.value}: {LIMITATION_TEXT[limitation]}", style="yellow")
        for limitation in limitations
    ]


def route_trigger_table(route: rm.RouteTrigger, trigger: int) -> Table:
    """The route's trigger against the observed threshold compactions."""
    return pairs_table(
        "Route trigger against observed compactions (informational)",
        [
            ("trigger T of the route", number(trigger)),
            ("threshold compactions after a request", number(route.threshold_compactions)),
            (f"below {band_floor()} T (trigger too high)", number(route.below_band)),
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


def _signed(value: float) -> str:
    return f"{value:+,.6f}"


def cost_waterfall(
    cost: rm.Cost, gated_rate: float, *, label: str = "modeled", gated: bool = True
) -> list[RenderableType]:
    """Off → each signed component → on, both views, at the supplied rate; then the ratio at
    every rate (criterion 5 needs all of them within the gate's cost limit; `gated=False` leaves
    that column out, for explore, which gates nothing)."""
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
        column(table, header, justify)
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
    for header in [*headers, f"within {cost_limit()}"] if gated else headers:
        column(rates, header, "right")
    for item in cost.sensitivities:
        within = item.list_price.within_threshold and item.quota_share.within_threshold
        cells = [
            percent(item.rate),
            number(item.list_price.ratio, 4),
            number(item.quota_share.ratio, 4),
        ]
        rates.add_row(*cells, *(["yes" if within else "no"] if gated else []))
    return [table, rates]
