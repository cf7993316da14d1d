"""The HTML page of a report: one self-contained file (docs/report.md, "The HTML page").

Layout, for both report kinds: a header with the versions, the rate and the overall verdict
(an explore report: the statement that it never gives one); the one-screen summary's facts as
HTML (`html.summary`, the terminal's hints left out); per API its verdict and criteria table
(analysis only), then its
figures, each a chart drawn by `charts` with the table of every number behind it; the fixed
statements and limitations with their meanings. The page holds only what the report holds:
fixed codes, counts and modeled numbers, and fixed prose (R-OUT-1). Its bytes depend on the
report alone: no time, no random id, fixed element ids, one stylesheet whose hash the
Content-Security-Policy names; nothing is fetched, nothing runs.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Sequence
from html import escape
from typing import assert_never

from clearing_analysis.codes.table import (
    API_LIMITATION,
    EXPLORE_LIMITATION,
    LIMITATION,
    REPORT_CODES,
)
from clearing_analysis.eligibility.reasons import Bound
from clearing_analysis.gate import ApiGate, Criterion
from clearing_analysis.inputs.configs import Api
from clearing_analysis.report import explore_model as em
from clearing_analysis.report import kinds
from clearing_analysis.report import model as rm
from clearing_analysis.report.html import figures as fig
from clearing_analysis.report.html.cells import (
    Cell,
    Money,
    Share,
    cell_text,
    exact_text,
    numeric,
    share_text,
)
from clearing_analysis.report.html.charts import Chart, all_zero, drawable, keyed, svg
from clearing_analysis.report.html.style import STYLE
from clearing_analysis.report.html.summary import summary
from clearing_analysis.report.kinds import AnyApi, AnyReport
from clearing_analysis.report.text.criteria import is_share
from clearing_analysis.report.text.labels import (
    UPPER_BOUND,
    bound_mark,
    criterion_labels,
    statement_text,
)
from clearing_analysis.report.text.terminal import period_text
from clearing_analysis.report.text.what_ifs import TITLE as WHAT_IFS_TITLE
from clearing_analysis.report.text.what_ifs import WHERE_EVALUATED


def _csp() -> str:
    """Nothing may load or run: no script, font, image, frame or connection; the one inline
    stylesheet is allowed by its hash (not by 'unsafe-inline')."""
    digest = base64.b64encode(hashlib.sha256(STYLE.encode("utf-8")).digest()).decode("ascii")
    return (
        "default-src 'none'; "
        f"style-src 'sha256-{digest}'; "
        "img-src 'none'; font-src 'none'; script-src 'none'; connect-src 'none'; "
        "frame-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'"
    )


def _table(table: fig.Table) -> str:
    head = "".join(f'<th scope="col">{escape(h)}</th>' for h in table.headers)
    body = []
    for row in table.rows:
        cells = []
        for index, value in enumerate(row):
            shown, exact = cell_text(value), exact_text(value)
            text = escape(shown)
            if index == 0:
                cells.append(f'<th scope="row">{text}</th>')
            elif shown != exact:  # a figure shown rounded: its exact value is the title
                cells.append(f'<td class="num" title="{escape(exact, quote=True)}">{text}</td>')
            else:
                cells.append(
                    f'<td class="num">{text}</td>' if numeric(value) else f"<td>{text}</td>"
                )
        body.append(f"<tr>{''.join(cells)}</tr>")
    return (
        f"<table><caption>{escape(table.caption)}</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


# What stands in place of a chart leather cannot draw (`charts.drawable`): a part with no
# category, or a value beyond what an axis can hold.
NOT_DRAWN = (
    "not drawn: no category, or a value beyond what a chart can scale (its numbers are below)"
)
# What stands in place of a chart whose every value is zero (`charts.all_zero`).
ALL_ZERO = "every value is zero, so there is nothing to draw (its numbers are below)"


def _chart(chart: Chart, title: str) -> str:
    """One chart with its caption, or the note that stands in for it (its numbers are in the
    figure's table either way)."""
    if not drawable(chart):
        return f'<p class="note">{escape(chart.title)}: {escape(NOT_DRAWN)}.</p>'
    if all_zero(chart):
        # The note keeps the chart's id: a link to the chart still lands on its place.
        return f'<p class="note" id="{chart.key}">{escape(chart.title)}: {escape(ALL_ZERO)}.</p>'
    return (
        f"<figure>{title}{svg(chart)}<figcaption>{escape(chart.description)}</figcaption></figure>"
    )


def _figure(figure: fig.Figure) -> str:
    parts = [f"<h4>{escape(figure.title)}</h4>"]
    if figure.note is not None:
        parts.append(f'<p class="note">{escape(figure.note)}</p>')
    for chart in figure.charts:
        # A figure of several charts names each; a figure of one is named by its heading.
        title = (
            f'<p class="chart-title">{escape(chart.title)}</p>' if len(figure.charts) > 1 else ""
        )
        parts.append(_chart(chart, title))
    parts.append(
        f'<details open class="data"><summary>The numbers</summary>{_table(figure.table)}</details>'
    )
    return f'<section class="figure">{"".join(parts)}</section>'


def _codes(kind: str, codes: Iterable[str]) -> str:
    """Each code with what it means (the same text `clearing-analysis explain` prints)."""
    rows = []
    for code in codes:
        meaning, _remedy = REPORT_CODES.get((kind, code), ("", ""))
        rows.append(f"<dt><code>{escape(code)}</code></dt><dd>{escape(meaning)}</dd>")
    return f"<dl>{''.join(rows)}</dl>" if rows else ""


def criterion_cell(criterion: Criterion, value: float | None) -> Cell:
    """A criterion's measured value or threshold by what it counts, as the summary writes it:
    a share in percent, a count (of boundaries, of unintended differences) as an integer."""
    if value is None or is_share(criterion):
        return Share(value)
    return int(value) if value.is_integer() else value


def _criteria(api: str, gate: ApiGate) -> str:
    labels = criterion_labels()
    table = fig.Table(
        caption=f"{api}: the six criteria against their thresholds",
        headers=(
            "criterion",
            "code",
            "measured",
            "comparison",
            "threshold",
            "passed",
            "logical conversations",
            "needed",
            "detail",
        ),
        rows=tuple(
            (
                labels[c.id],
                c.id.value,
                criterion_cell(c, c.measured),
                c.comparison.value,
                criterion_cell(c, c.threshold),
                "not evaluated" if c.passed is None else c.passed,
                c.lineages,
                c.min_lineages,
                None if c.detail is None else c.detail.value,
            )
            for c in gate.criteria
        ),
    )
    return f'<div class="criteria">{_table(table)}</div>'


def _verdict(api: str, gate: ApiGate) -> str:
    reasons = [*(r.value for r in gate.defer_reasons), *(r.value for r in gate.stop_reasons)]
    why = " ".join(f"<code>{escape(r)}</code>" for r in reasons) or "all six criteria pass"
    verdict = gate.verdict.value
    return (
        f'<p class="verdict"><span class="badge {verdict.lower()}">{verdict}</span> '
        f"{escape(api)}: {why}</p>"
    )


def _tool_rows(rows: Sequence[rm.ToolClassResults]) -> list[fig.ToolClassRow]:
    return [
        fig.ToolClassRow(
            r.tool_class.value,
            r.results,
            r.eligible,
            r.cleared,
            r.text_bytes,
            r.cleared_text_bytes,
        )
        for r in rows
    ]


def _eligible_name(bound: Bound) -> str:
    """What the tool-class figure calls the bound's eligible set."""
    match bound:
        case Bound.LOWER:
            return "lower-bound class"
        case Bound.UPPER:
            return "upper-bound eligible"
        case _:
            assert_never(bound)


def _api_figures(key: str, part: rm.ApiFigures, bound: Bound) -> list[fig.Figure]:
    """The figures both report kinds draw per API, in the page's order, titled by the bound."""
    mark = bound_mark(bound)
    tools = fig.tool_classes(_tool_rows(part.tool_results), _eligible_name(bound), key, mark)
    return [
        fig.estimates(part.evidence, part.pressure.trigger, key, mark),
        fig.request_gaps(part.evidence, key, mark),
        fig.pressure(part.pressure, key, mark),
        fig.cost(part.cost, key, mark),
        tools,
    ]


def _usage(part: em.ApiExplore) -> str:
    """What the sessions recorded for this API, as recorded (observed, not modeled): the
    requests, the token sums and their cost at the route's list prices, in USD."""
    usage = part.usage
    table = fig.Table(
        caption="Recorded usage, as the sessions recorded it (observed, not an upper bound)",
        headers=("", "value"),
        rows=(
            ("requests", part.requests.requests),
            ("requests with recorded usage", usage.observed_requests),
            ("input tokens", usage.input),
            ("cache read tokens", usage.cache_read),
            ("cache write tokens", usage.cache_write),
            ("output tokens", usage.output),
            (
                "list-price cost (route's prices)",
                "not in this report"
                if usage.list_price_cost is None
                else Money(usage.list_price_cost),
            ),
        ),
    )
    return f'<div class="usage">{_table(table)}</div>'


def _api(api: Api, part: AnyApi, bound: Bound) -> str:
    """One API's section, whatever the report kind: its verdict and criteria (analysis) or its
    recorded usage (explore), its limitations, and its figures titled by the bound."""
    key = api.value
    limitations = _codes(API_LIMITATION, (code.value for code in part.limitations))
    match part:
        case rm.ApiReport():
            heading = key
            body = [_verdict(key, part.gate), limitations, _criteria(key, part.gate)]
        case em.ApiExplore():
            heading = f"{key} ({UPPER_BOUND}, never a verdict)"
            body = [limitations, _usage(part)]
        case _:
            assert_never(part)
    section, heading_id = keyed("api", key), keyed("h", key)
    return (
        f'<section class="api" id="{section}" aria-labelledby="{heading_id}">'
        f'<h3 id="{heading_id}">{escape(heading)}</h3>'
        + "".join(body)
        + "".join(_figure(f) for f in _api_figures(key, part, bound))
        + "</section>"
    )


def _what_ifs(part: rm.WhatIfs, bound: str | None) -> str:
    """The informational what-ifs, after every API's section: never gating."""
    figures = [fig.what_ifs(api.value, rows, bound) for api, rows in rm.in_api_order(part.per_api)]
    return (
        '<section id="what-ifs" aria-labelledby="what-ifs-h">'
        f'<h2 id="what-ifs-h">{escape(fig.titled(WHAT_IFS_TITLE, bound))}</h2>'
        '<p class="note">Each reviewed policy (policy/what-ifs.json) with its own defaults,'
        " within the seed's eligibility, on this history: informational, never gating (the"
        " gate and its six criteria ignore it). A clearing while the cache is warm rewrites"
        " the prefix from the first cleared result: those tokens are sent again, priced at"
        " the higher of uncached input and cache write instead of as reads. The reference"
        " is the seed's own policy, the gated simulation. "
        + escape(WHERE_EVALUATED)
        + "</p>"
        + "".join(_figure(f) for f in figures)
        + "</section>"
    )


def _document(
    title: str, header: str, summary: str, sections: Sequence[str], *, notes: str, what_ifs: str
) -> str:
    nav = "".join(
        f'<li><a href="#{keyed("api", api.value)}">{escape(api.value)}</a></li>'
        for api in Api
        if any(f'id="{keyed("api", api.value)}"' in s for s in sections)
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_csp()}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="color-scheme" content="light dark">'
        '<meta name="referrer" content="no-referrer">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head>"
        f"<body><header>{header}</header>"
        f'<nav aria-label="APIs"><ul>{nav}'
        '<li><a href="#what-ifs">what-ifs</a></li>'
        '<li><a href="#notes">statements and limitations</a></li></ul></nav>'
        "<main>"
        f'<section id="summary" aria-labelledby="summary-h"><h2 id="summary-h">Summary</h2>'
        f"{summary}</section>"
        f'<section id="apis"><h2>Per API</h2>{"".join(sections)}</section>'
        f"{what_ifs}"
        f'<section id="notes" aria-labelledby="notes-h"><h2 id="notes-h">Statements and'
        f" limitations</h2>{notes}</section>"
        "</main></body></html>\n"
    )


def _statements(texts: Sequence[tuple[str, str]]) -> str:
    rows = "".join(f"<dt><code>{escape(c)}</code></dt><dd>{escape(t)}</dd>" for c, t in texts)
    return f"<h3>Statements</h3><dl>{rows}</dl>"


def _period(period: rm.AnalyzedPeriod) -> str:
    """The analyzed period for the page's header (" period ...;"), empty for all history."""
    text = period_text(period)
    return "" if text is None else f" {escape(text)};"


def _header(report: AnyReport) -> str:
    """The page's header: the overall verdict (explore: that there is none), the versions, the
    rate, the period, and what every figure is."""
    rate = escape(share_text(report.retrieval_rate))
    period = _period(report.period)
    match report:
        case rm.Report():
            return (
                f"<h1>clearing-analysis: {report.verdict.value}</h1>"
                f'<p class="meta">tool {escape(report.tool_version)}; pi-ai'
                f" {escape(report.pi_ai_version or 'not installed')}; retrieval rate"
                f" {rate};{period} every figure is modeled, not observed savings.</p>"
            )
        case em.ExploreReport():
            return (
                f"<h1>clearing-analysis explore: {UPPER_BOUND}, never a verdict</h1>"
                f'<p class="meta">tool {escape(report.tool_version)}; retrieval rate'
                f" {rate};{period} every opportunity, pressure and cost figure is an upper"
                " bound.</p>"
            )
        case _:
            assert_never(report)


def _title(report: AnyReport) -> str:
    match report:
        case rm.Report():
            return f"clearing-analysis report: {report.verdict.value}"
        case em.ExploreReport():
            return "clearing-analysis explore: upper bound"
        case _:
            assert_never(report)


def _notes(report: AnyReport) -> str:
    """The fixed statements and the report's limitations, each with what it means."""
    statements = _statements([(s.value, statement_text(s)) for s in report.statements])
    match report:
        case rm.Report():
            kind = LIMITATION
        case em.ExploreReport():
            kind = EXPLORE_LIMITATION
        case _:
            assert_never(report)
    limitations = _codes(kind, (x.value for x in report.limitations))
    return f"{statements}<h3>Limitations</h3>{limitations}"


def page(report: AnyReport) -> str:
    """The page of a report of either kind; an explore report's modeled figures are titled as
    upper bounds and it has no verdict anywhere."""
    bound = kinds.bound(report)
    sections: list[str]
    match report:
        case rm.Report():
            sections = [_api(a, p, bound) for a, p in rm.in_api_order(report.per_api)]
        case em.ExploreReport():
            sections = [_api(a, p, bound) for a, p in rm.in_api_order(report.per_api)]
        case _:
            assert_never(report)
    return _document(
        _title(report),
        _header(report),
        summary(report),
        sections,
        notes=_notes(report),
        what_ifs=_what_ifs(report.what_ifs_informational, bound_mark(bound)),
    )


__all__ = ["cell_text", "criterion_cell", "exact_text", "page"]
