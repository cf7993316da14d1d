"""The page's figures, from the report's structs alone: each one or more charts and the table
of every number behind them (so that nothing is only in a picture).

The structs are the ones both report kinds share (evidence, pressure, cost, ...), so one
function makes a figure for an analysis report and for an explore report; `bound` names the
bound of an explore report's figures, which are titled as upper bounds. Every label is a fixed
string, a code or a number: nothing here can carry input text (R-OUT-1).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction

import msgspec

from clearing_analysis.policy import simulation_policy
from clearing_analysis.report import model as rm
from clearing_analysis.report.html.cells import Cell, Money, Ratio, Share, money_text, share_text
from clearing_analysis.report.html.charts import Chart, Series, Tone, keyed
from clearing_analysis.report.text.labels import band_floor, default_rate, reported_rates
from clearing_analysis.report.text.terminal import percent


class Table(msgspec.Struct, frozen=True):
    """A table of the page: every cell a fixed string, a code or a number."""

    caption: str
    headers: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]


class Figure(msgspec.Struct, frozen=True):
    """Charts (none when there is nothing to draw: `note` says why) and their one table."""

    title: str
    charts: tuple[Chart, ...]
    table: Table
    note: str | None = None


def titled(title: str, bound: str | None) -> str:
    """A title, marked with the report's bound when it has one (explore: UPPER BOUND)."""
    return title if bound is None else f"{title} ({bound})"


class Bucket(msgspec.Struct, frozen=True):
    """One histogram bucket: its label, its range [low, high) and its count."""

    label: str
    low: int | None  # None: the values below the first edge
    high: int | None  # None: the open last bucket
    count: int


def buckets(histogram: rm.Histogram, unit: str, below: bool | None = None) -> list[Bucket]:
    """The histogram's buckets in order, `below` first when it counts anything (or when
    `below` says so: a part of another histogram has the other's rows, bucket for bucket)."""
    edges = histogram.edges
    rows: list[Bucket] = []
    if histogram.below if below is None else below:
        rows.append(Bucket(f"< {edges[0]:,} {unit}", None, edges[0], histogram.below))
    for index, (low, count) in enumerate(zip(edges, histogram.counts, strict=True)):
        high = edges[index + 1] if index + 1 < len(edges) else None
        label = f">= {low:,} {unit}" if high is None else f"{low:,}-{high:,} {unit}"
        rows.append(Bucket(label, low, high, count))
    return rows


def _grouped(
    rows: Sequence[Bucket], groups: Sequence[tuple[str, str, Tone]], group_of: Sequence[str]
) -> tuple[Series, ...]:
    """One series per group: a bucket's count in its own group's series, 0 in the others."""
    return tuple(
        Series(
            name,
            tuple(r.count if g == code else 0 for r, g in zip(rows, group_of, strict=True)),
            tone,
        )
        for code, name, tone in groups
    )


def _band_low(trigger: int) -> Fraction:
    return Fraction(str(simulation_policy().pressure_low_fraction)) * trigger


BELOW_BAND = "below the band"
IN_BAND = "in the band"
PARTLY_IN_BAND = "partly in the band"
AT_OR_ABOVE_T = "at or above T"


def against_band(bucket: Bucket, trigger: int) -> str:
    """Where a bucket [low, high) lies against the pressure band [f·T, T) that the summary
    counts pressured boundaries in (R-SIM-2, `simulation.clearing.in_pressure_band`): wholly
    below it, wholly in it (every boundary it counts is pressured), wholly at or above T, or
    across one of its edges (some of its boundaries are pressured, some not: the histogram's
    fixed edges cannot say how many)."""
    low = _band_low(trigger)
    if bucket.high is not None and bucket.high <= low:
        return BELOW_BAND
    if bucket.low is not None and bucket.low >= trigger:
        return AT_OR_ABOVE_T
    if bucket.low is None or bucket.high is None:  # open on a side that reaches into the band
        return PARTLY_IN_BAND
    return IN_BAND if low <= bucket.low and bucket.high <= trigger else PARTLY_IN_BAND


# (group, legend name, colour): legend names stay short, the description says the rest.
_BAND_GROUPS = (
    (BELOW_BAND, BELOW_BAND, Tone.NEUTRAL),
    (PARTLY_IN_BAND, PARTLY_IN_BAND, Tone.BAND_EDGE),
    (IN_BAND, IN_BAND, Tone.BAND),
    (AT_OR_ABOVE_T, ">= T", Tone.ABOVE),
)


def _plural(count: int, one: str, many: str) -> str:
    return f"{count:,} {one if count == 1 else many}"


def estimates(evidence: rm.Evidence, trigger: int, key: str, bound: str | None) -> Figure:
    """E at each counted boundary against T with the pressure band 0.75·T-T marked, cold and
    warm boundaries apart (two charts, one table). A bar is orange only when every boundary
    it counts is pressured, as the summary counts them; a bucket across a band edge has a
    colour of its own, and the exact pressured counts (`evidence.pressured`,
    `evidence.coldPressured`) are stated in each description and in the table."""
    every = buckets(evidence.estimates, "tok")
    cold = buckets(evidence.cold_estimates, "tok", below=bool(evidence.estimates.below))
    where = [against_band(bucket, trigger) for bucket in every]
    warm = [
        Bucket(a.label, a.low, a.high, a.count - c.count) for a, c in zip(every, cold, strict=True)
    ]
    band = f"{float(_band_low(trigger)):,.0f} to {trigger:,} tokens"
    pressured = {
        "cold": evidence.cold_pressured,
        "warm": evidence.pressured - evidence.cold_pressured,
    }

    def described(part: str, what: str, rows: Sequence[Bucket]) -> str:
        inside = sum(r.count for r, w in zip(rows, where, strict=True) if w == IN_BAND)
        across = sum(r.count for r, w in zip(rows, where, strict=True) if w == PARTLY_IN_BAND)
        counted = _plural(pressured[part], "boundary is", "boundaries are")
        text = (
            f"Counted {what} boundaries by their estimate E in tokens, one bar per bucket:"
            f" {counted} in the pressure band ({band}: {band_floor()}·T <= E < T), as the"
            f" summary counts them; orange bars lie wholly in the band ({inside:,}), red bars at"
            f" or above T = {trigger:,}, grey bars below the band."
        )
        if across:
            text += (
                f" Light orange bars straddle a band edge: {pressured[part] - inside:,} of their"
                f" {across:,} are in the band."
            )
        return text

    charts = tuple(
        Chart(
            key=keyed(key, "estimates", part),
            title=titled(f"E of the {what} boundaries against T", bound),
            description=described(part, what, rows),
            categories=tuple(row.label for row in rows),
            series=_grouped(rows, _BAND_GROUPS, where),
            unit="boundaries",
        )
        for part, what, rows in (("cold", "cold", cold), ("warm", "warm or unknown-gap", warm))
    )
    table = Table(
        caption=titled(f"Boundaries by E against T = {trigger:,} tokens (band {band})", bound),
        headers=("E", "against the band", "cold", "warm or unknown gap", "all"),
        rows=(
            *tuple(
                (a.label, w, c.count, h.count, a.count)
                for a, w, c, h in zip(every, where, cold, warm, strict=True)
            ),
            (
                "unknown E",
                "-",
                evidence.cold_estimates.unknown,
                evidence.estimates.unknown - evidence.cold_estimates.unknown,
                evidence.estimates.unknown,
            ),
            (
                f"pressured: {band_floor()}·T <= E < T",
                "the summary's count",
                pressured["cold"],
                pressured["warm"],
                evidence.pressured,
            ),
        ),
    )
    return Figure(titled("Boundary estimate E against the trigger T", bound), charts, table)


def _against_cold_gap(bucket: Bucket, cold_gap: int | None) -> str:
    """Where a gap bucket lies against the cold gap (cold: strictly beyond it, R-SIM-3)."""
    if cold_gap is None:
        return "never cold (lifetime unknown)"
    if bucket.low is not None and bucket.low > cold_gap:
        return "cold"
    if bucket.high is not None and bucket.high - 1 <= cold_gap:
        return "warm"
    return "holds the cold gap"


_GAP_GROUPS = (
    ("warm", "warm", Tone.NEUTRAL),
    ("holds the cold gap", "holds the cold gap", Tone.COLD_EDGE),
    ("cold", "cold", Tone.COLD),
    ("never cold (lifetime unknown)", "never cold", Tone.NEUTRAL),
)


def request_gaps(evidence: rm.Evidence, key: str, bound: str | None) -> Figure:
    """The request-gap histogram against the cache lifetime + margin (the cold gap)."""
    rows = buckets(evidence.request_gaps_ms, "ms")
    where = [_against_cold_gap(bucket, evidence.cold_gap_ms) for bucket in rows]
    gap = (
        "unknown (the route's cacheLifetimeMs is unknown: no gap is cold)"
        if evidence.cold_gap_ms is None
        else f"{evidence.cold_gap_ms:,} ms"
    )
    chart = Chart(
        key=keyed(key, "request-gaps"),
        title=titled("Request gaps against the cache lifetime + margin", bound),
        description="Counted boundaries by the gap in milliseconds since the previous request,"
        f" one bar per bucket; a gap strictly beyond the cache lifetime + margin ({gap}) is"
        " cold: blue bars are cold, grey bars warm, a light-blue bar holds the cold gap itself.",
        categories=tuple(row.label for row in rows),
        series=_grouped(rows, [g for g in _GAP_GROUPS if g[0] in where], where),
        unit="boundaries",
    )
    table = Table(
        caption=titled(f"Boundaries by request gap; cold gap {gap}", bound),
        headers=("gap", "against the cold gap", "boundaries"),
        rows=(
            *tuple((r.label, w, r.count) for r, w in zip(rows, where, strict=True)),
            ("unknown gap (a first request)", "never cold", evidence.request_gaps_ms.unknown),
        ),
    )
    return Figure(titled("Request gaps against the cache lifetime", bound), (chart,), table)


def _percent_key(rate: float) -> str:
    """A rate in whole percent for an element id, exactly from its decimal (a saved report's
    rate may be any finite number: 1e308 x 100 overflows a float)."""
    whole = Decimal(repr(rate)).scaleb(2).to_integral_value() + 0  # + 0: no "-0"
    return format(whole, "f")


def _rate_label(rate: float, labels: Sequence[str]) -> str:
    """A retrieval rate with its labels, in percent as the summary writes it."""
    return f"{percent(rate)} ({', '.join(labels)})"


def pressure(model: rm.Pressure, key: str, bound: str | None) -> Figure:
    """Compaction cycles with clearing off and on at each reported retrieval rate."""
    title = titled("Compaction pressure, clearing off and on", bound)
    rows: list[tuple[Cell, ...]] = [("off", "-", model.off, None)]
    rows += [
        ("on", _rate_label(at.rate, at.labels), at.on, Share(at.reduction))
        for at in model.sensitivities
    ]
    table = Table(
        caption=titled(
            f"Modeled compaction cycles (T = {model.trigger:,}, P = {model.drain:,},"
            f" G = {model.growth:,} tokens)",
            bound,
        ),
        headers=("arm", "retrieval rate", "compaction cycles", "reduction"),
        rows=tuple(rows),
    )
    if not model.defined or model.off is None:
        causes = ", ".join(cause.value for cause in model.undefined_causes)
        note = f"PRESSURE_MODEL_UNDEFINED ({causes}): nothing to draw."
        return Figure(title, (), table, note=note)
    categories = ("off", *(f"on, {_rate_label(at.rate, at.labels)}" for at in model.sensitivities))
    count = len(model.sensitivities)
    chart = Chart(
        key=keyed(key, "pressure"),
        title=title,
        description=(
            f"Modeled compaction cycles over the history: {model.off:,.4g} with clearing off,"
            f" and with clearing on at each reported retrieval rate ({reported_rates()} and the"
            " supplied rate); the fewer cycles, the less pressure."
        ),
        categories=categories,
        series=(
            Series("clearing off", (model.off, *([0.0] * count)), Tone.NEUTRAL),
            Series("clearing on", (0.0, *(at.on for at in model.sensitivities)), Tone.CLEARING),
        ),
        unit="compaction cycles",
    )
    return Figure(title, (chart,), table)


_COMPONENTS = (
    "retained",
    "removed: observed",
    "removed: extension",
    "summary: cycle change",
    "summary: enlarged summaries",
    "retrieval: round trips",
    "retrieval: returned history",
)


def _components(delta: rm.Delta) -> tuple[float, ...]:
    return (
        delta.retained,
        delta.removed.observed,
        delta.removed.extension,
        delta.summary.cycle_change,
        delta.summary.enlarged_summaries,
        delta.retrieval.round_trips,
        delta.retrieval.returned_history,
    )


class _View(msgspec.Struct, frozen=True):
    """One cost view as the page shows it: its figures' cell type, and its chart's scale and
    unit (list price in US dollars; quota share in percent of the quota budget)."""

    code: str
    name: str
    cell: type[Money] | type[Share]
    scale: float
    unit: str


_VIEWS = (
    _View("list-price", "list price", Money, 1.0, "USD (list price)"),
    _View("quota-share", "quota share", Share, 100.0, "% of the quota budget"),
)


def _view(at: rm.CostAtRate, view: _View) -> tuple[rm.ViewFigures, rm.Delta]:
    if view.cell is Money:
        return at.list_price, at.list_delta
    return at.quota_share, at.quota_share_delta


def cost(model: rm.Cost, key: str, bound: str | None) -> Figure:
    """The cost waterfall per view at each rate: the signed components of on - off (each
    bar from zero: an added cost in Tone.WORSE, a saving in Tone.BETTER) and their sum."""
    title = titled("Cost waterfall: what clearing adds and saves", bound)
    rows: list[tuple[Cell, ...]] = []
    charts: list[Chart] = []
    for at in model.sensitivities:
        rate = _rate_label(at.rate, at.labels)
        for view in _VIEWS:
            figures, delta = _view(at, view)
            parts = _components(delta)
            worded = money_text if view.cell is Money else share_text
            rows.append((view.name, rate, "off (observed)", view.cell(figures.off)))
            rows += [
                (view.name, rate, name, view.cell(value))
                for name, value in zip(_COMPONENTS, parts, strict=True)
            ]
            rows.append((view.name, rate, "on - off", view.cell(delta.total)))
            rows.append((view.name, rate, "on", view.cell(figures.on)))
            rows.append((view.name, rate, "on / off", Ratio(figures.ratio)))
            if not model.defined:
                continue
            values = tuple(view.scale * v for v in (*parts, delta.total))
            charts.append(
                Chart(
                    key=keyed(key, "cost", view.code, _percent_key(at.rate)),
                    title=titled(f"Cost waterfall, {view.name}, retrieval rate {rate}", bound),
                    description=(
                        f"The {view.name} view at retrieval rate {rate}: each signed component"
                        f" of the on - off cost difference as a bar from zero (magenta adds cost,"
                        f" green saves it) and their sum, {worded(delta.total)}, on an off arm of"
                        f" {worded(figures.off)}."
                    ),
                    categories=(*_COMPONENTS, "on - off (the sum)"),
                    series=(
                        Series(
                            "adds cost", (*tuple(max(v, 0.0) for v in values[:-1]), 0.0), Tone.WORSE
                        ),
                        Series(
                            "saves cost",
                            (*tuple(min(v, 0.0) for v in values[:-1]), 0.0),
                            Tone.BETTER,
                        ),
                        Series("on - off", (0.0,) * len(parts) + (values[-1],), Tone.NET),
                    ),
                    unit=view.unit,
                )
            )
    table = Table(
        caption=titled(
            "Cost per view and retrieval rate: off, components, on (list price in USD, quota"
            " share in percent of the quota budget)",
            bound,
        ),
        headers=("view", "retrieval rate", "figure", "value"),
        rows=tuple(rows),
    )
    causes = ", ".join(cause.value for cause in model.undefined_causes)
    note = None if model.defined else f"COST_MODEL_UNDEFINED ({causes}): nothing to draw."
    return Figure(title, tuple(charts), table, note)


class ToolClassRow(msgspec.Struct, frozen=True):
    """One tool class's results and bytes as either report kind counts them."""

    tool_class: str
    results: int
    eligible: int
    cleared: int
    text_bytes: int
    cleared_text_bytes: int


def tool_classes(
    rows: Sequence[ToolClassRow], eligible: str, key: str, bound: str | None
) -> Figure:
    """Tool-result bytes by tool class, all and cleared; results, eligible and cleared."""
    classes = tuple(row.tool_class for row in rows)
    title = titled("Tool results by tool class", bound)
    bytes_chart = Chart(
        key=keyed(key, "tool-bytes"),
        title=titled("Tool-result text bytes by tool class: all and cleared", bound),
        description=(
            "Text bytes of the unique tool results of each tool class (light grey) and of those"
            " the simulation cleared (dark green, drawn over them)."
        ),
        categories=classes,
        series=(
            Series("all results", tuple(float(r.text_bytes) for r in rows), Tone.ALL),
            Series("cleared", tuple(float(r.cleared_text_bytes) for r in rows), Tone.CLEARING),
        ),
        unit="bytes",
    )
    count_chart = Chart(
        key=keyed(key, "tool-results"),
        title=titled(f"Tool results by tool class: all, {eligible}, cleared", bound),
        description=(
            f"Unique tool results of each tool class (light grey), those of the {eligible} set"
            " (light green) and those the simulation cleared (dark green), each drawn over the"
            " one before."
        ),
        categories=classes,
        series=(
            Series("all results", tuple(float(r.results) for r in rows), Tone.ALL),
            Series(eligible, tuple(float(r.eligible) for r in rows), Tone.ELIGIBLE),
            Series("cleared", tuple(float(r.cleared) for r in rows), Tone.CLEARING),
        ),
        unit="results",
    )
    table = Table(
        caption=titled("Tool results by tool class", bound),
        headers=("tool class", "results", eligible, "cleared", "text bytes", "cleared bytes"),
        rows=tuple(
            (r.tool_class, r.results, r.eligible, r.cleared, r.text_bytes, r.cleared_text_bytes)
            for r in rows
        ),
    )
    return Figure(title, (bytes_chart, count_chart), table)


__all__ = [
    "Bucket",
    "Cell",
    "Figure",
    "Table",
    "ToolClassRow",
    "buckets",
    "cost",
    "estimates",
    "pressure",
    "request_gaps",
    "titled",
    "tool_classes",
]


def _signed(
    values: tuple[float, ...], *, worse: str, better: str, better_when_positive: bool
) -> tuple[Series, Series]:
    """Signed values as two series, so that a change is drawn in the colour of what it means
    (a saving never in the colour of an added cost): the worse part, then the better."""
    positive = tuple(max(v, 0.0) for v in values)
    negative = tuple(min(v, 0.0) for v in values)
    good, bad = (positive, negative) if better_when_positive else (negative, positive)
    return Series(worse, bad, Tone.WORSE), Series(better, good, Tone.BETTER)


def what_ifs(api: str, rows: Sequence[rm.WhatIfPolicy], bound: str | None) -> Figure:
    """The reviewed pruning policies on one API (informational, never gating): the pressure
    reduction and the cost change of each at the default retrieval rate, and every figure."""
    title = titled(f"{api}: what-ifs, the pruning policies agents ship", bound)
    table_rows: list[tuple[Cell, ...]] = []
    for row in rows:
        name = row.policy.value + (" (reference)" if row.reference else "")
        counts: tuple[Cell, ...] = (
            row.clearing_events,
            Share(row.warm_share),
            row.cleared_results,
            row.tokens_removed,
            row.rewritten_prefix_tokens,
        )
        if not row.sensitivities:
            table_rows.append((name, "-", *counts, None, None, None, None))
        for at in row.sensitivities:
            table_rows.append(
                (
                    name,
                    _rate_label(at.rate, at.labels),
                    *counts,
                    Share(at.pressure_reduction),
                    at.compactions_avoided,
                    Ratio(at.list_price_ratio),
                    Ratio(at.quota_share_ratio),
                )
            )
    table = Table(
        caption=titled(
            f"{api}: each policy's clearing events, warm share, results and net tokens cleared,"
            " prefix tokens rewritten, and at each retrieval rate the pressure reduction,"
            " compactions avoided and cost ratio (on + rewrite) / off per view",
            bound,
        ),
        headers=(
            "policy",
            "retrieval rate",
            "clearing events",
            "warm share",
            "results cleared",
            "tokens removed",
            "prefix tokens rewritten",
            "pressure reduction",
            "compactions avoided",
            "list price ratio",
            "quota share ratio",
        ),
        rows=tuple(table_rows),
    )
    defaults = [
        (row, next((at for at in row.sensitivities if "DEFAULT" in at.labels), None))
        for row in rows
    ]
    drawn = [(row, at) for row, at in defaults if at is not None]
    if not drawn:
        causes = ", ".join(sorted({c.value for row in rows for c in row.undefined_causes}))
        note = f"PRESSURE_MODEL_UNDEFINED ({causes}): nothing to draw."
        return Figure(title, (), table, note=note)
    categories = tuple(row.policy.value for row, _ in drawn)
    reduction = Chart(
        key=keyed("what-ifs", api, "pressure"),
        title=f"{api}: pressure reduction at the default retrieval rate",
        description=(
            "The modeled reduction of compaction pressure, 1 - C_on / C_off, of each policy"
            f" at {default_rate()} retrieval; the seed's own policy is the reference."
        ),
        categories=categories,
        series=_signed(
            tuple(100 * at.pressure_reduction for _, at in drawn),
            worse="adds pressure",
            better="reduces pressure",
            better_when_positive=True,
        ),
        unit="% fewer compactions",
    )
    cost_change = Chart(
        key=keyed("what-ifs", api, "cost"),
        title=f"{api}: cost change at the default retrieval rate (list price)",
        description=(
            f"The modeled cost ratio minus one, in percent, of each policy at {default_rate()}"
            " retrieval in the list-price view, the warm prefix rewrite included; an unbounded"
            " ratio is drawn as 0 and shown as - in the table."
        ),
        categories=categories,
        series=_signed(
            tuple(
                0.0 if at.list_price_ratio is None else 100 * (at.list_price_ratio - 1)
                for _, at in drawn
            ),
            worse="adds cost",
            better="saves cost",
            better_when_positive=False,
        ),
        unit="% cost change",
    )
    return Figure(title, (reduction, cost_change), table)
