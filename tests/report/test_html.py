"""The HTML page of a report (docs/report.md, "The HTML page"), from the golden reports and an
explore report: deterministic bytes, nothing external, every criterion's number in a table,
every chart titled and described, an explore page without a verdict."""

from __future__ import annotations

import base64
import hashlib
import re
import xml.etree.ElementTree as ET
from decimal import Decimal
from html import escape
from html.parser import HTMLParser
from pathlib import Path

import msgspec
import pytest

from clearing_analysis.gate import CriterionId
from clearing_analysis.inputs.requests import ExploreRequest
from clearing_analysis.policy import WhatIfId
from clearing_analysis.report import explore_model as em
from clearing_analysis.report import model as rm
from clearing_analysis.report.encode import decode_report
from clearing_analysis.report.encode import render as json_render
from clearing_analysis.report.formats import ReportFormat, render
from clearing_analysis.report.html import cells, charts
from clearing_analysis.report.html import render as html_render
from clearing_analysis.report.html.cells import share_text
from clearing_analysis.report.html.page import ALL_ZERO, cell_text, exact_text
from clearing_analysis.report.html.style import STYLE
from clearing_analysis.report.text.labels import criterion_labels
from clearing_analysis.report.text.summary import api_head, upper_bound_figures
from clearing_analysis.report.text.summary import figures as summary_figures
from clearing_analysis.report.text.terminal import percent
from clearing_analysis.report.text.what_ifs import WHERE_EVALUATED, summary_line

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


class Page(HTMLParser):
    """What the tests read from a page: table cells as shown and as exact (a cell's `title`
    holds the exact value of a number it shows rounded), ids, svg and their title/desc ids,
    every attribute value, and the text of each element kind."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.cells: list[str] = []
        self.rows: list[list[str]] = []  # each table row's cells as shown
        self._row: list[str] = []
        self.exact: list[str] = []
        self.ids: list[str] = []
        self.svgs: list[dict[str, str | None]] = []
        self.titles: dict[str, str] = {}
        self.headings: list[str] = []
        self.metas: list[dict[str, str | None]] = []
        self.tags: set[str] = set()
        self._open: list[tuple[str, str | None, str | None]] = []
        self._text: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        self.tags.add(tag)
        if named.get("id"):
            self.ids.append(str(named["id"]))
        if tag == "svg":
            self.svgs.append(named)
        if tag == "meta":
            self.metas.append(named)
        self._open.append((tag, named.get("id"), named.get("title")))
        self._text = []

    def handle_endtag(self, tag: str) -> None:
        exact: str | None = None
        ident: str | None = None
        while self._open:
            open_tag, ident, exact = self._open.pop()
            if open_tag == tag:
                break
        text = "".join(self._text).strip()
        if tag in {"td", "th"}:
            self.cells.append(text)
            self._row.append(text)
            self.exact.append(exact if exact is not None else text)
        if tag == "tr":
            self.rows.append(self._row)
            self._row = []
        if tag in {"title", "desc"} and ident is not None:
            self.titles[ident] = text
        if tag in {"h2", "h3", "h4"}:
            self.headings.append(text)
        self._text = []

    def handle_data(self, data: str) -> None:
        self._text.append(data)


def _golden(name: str) -> rm.Report:
    report = decode_report((GOLDEN / name).read_bytes())
    assert isinstance(report, rm.Report)
    return report


@pytest.fixture(scope="module", params=["report-mixed.json", "report-build.json"])
def analysis(request: pytest.FixtureRequest) -> rm.Report:
    """A golden analysis report."""
    return _golden(request.param)


@pytest.fixture(scope="module")
def explored(tmp_path_factory: pytest.TempPathFactory) -> em.ExploreReport:
    """The golden mixed corpus exported as pi sessions and explored (an upper bound)."""
    from clearing_analysis.pipeline.jobs import explore_job
    from clearing_analysis.synth import generate
    from clearing_analysis.synth.pi_export import export_sessions

    root = tmp_path_factory.mktemp("explore-page")
    generate(root / "corpus", 20261129, conversations=6, profile="mixed")
    export_sessions(sorted((root / "corpus" / "journals").glob("*.jsonl")), root / "sessions")
    return explore_job(
        ExploreRequest(sessions=(root / "sessions",), routes=root / "corpus" / "routes.json")
    ).report


def _value(cell: str) -> float | None:
    """A cell's figure read back in the report's unit (thousands separators dropped, a
    percentage as its fraction, a cost without its currency, a ratio without its x), or None
    for a cell that is no figure."""
    text = cell.replace(",", "").removesuffix(" USD")
    share = text.endswith("%")
    text = text.removesuffix("%").removeprefix("x")
    try:
        exact = Decimal(text)
    except ArithmeticError:
        return None
    return float(exact.scaleb(-2) if share else exact)


def _share_criteria() -> set[CriterionId]:
    """The criteria that measure a share (the summary writes them in percent)."""
    return {CriterionId.ADMITTING_SHARE, CriterionId.PRESSURE_REDUCTION, CriterionId.COST_INCREASE}


def _numbers(cells: list[str]) -> set[float]:
    """Every cell that is a figure, read back in the report's unit."""
    return {value for value in map(_value, cells) if value is not None}


class TestAnalysisPage:
    """The page of an analysis report."""

    def test_same_report_same_bytes(self, analysis: rm.Report) -> None:
        """Rendering the same report twice, or its JSON decoded again, gives the same bytes."""
        first = html_render(analysis)
        assert html_render(analysis) == first
        assert html_render(decode_report(json_render(analysis))) == first

    def test_nothing_external(self, analysis: rm.Report) -> None:
        """No http: or https: reference, no script, no external style sheet, image, frame,
        font or import; one inline style sheet."""
        page = html_render(analysis).decode("utf-8")
        lowered = page.lower()
        for banned in (
            "http:",
            "https:",
            "<script",
            "<link",
            "<img",
            "<iframe",
            "@import",
            "url(",
            " src=",
            "xlink:href",
            "<object",
            "<embed",
        ):
            assert banned not in lowered, banned
        assert lowered.count("<style>") == 1

    def test_csp_forbids_every_load_and_allows_the_style_by_hash(self, analysis: rm.Report) -> None:
        """The Content-Security-Policy meta forbids everything by default, scripts
        included, and allows exactly the page's one style sheet by its SHA-256."""
        parsed = Page(html_render(analysis).decode("utf-8"))
        (csp,) = [
            m["content"] for m in parsed.metas if m.get("http-equiv") == "Content-Security-Policy"
        ]
        assert csp is not None
        rules = dict(rule.strip().split(" ", 1) for rule in csp.split(";"))
        digest = base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()
        assert rules["default-src"] == "'none'"
        assert rules["script-src"] == "'none'"
        assert rules["style-src"] == f"'sha256-{digest}'"
        assert "unsafe-inline" not in csp
        page = html_render(analysis).decode("utf-8")
        assert f"<style>{STYLE}</style>" in page

    def test_every_criterion_number_is_in_a_table(self, analysis: rm.Report) -> None:
        """Each API's criteria table: every measured value, threshold, logical conversations
        and minimum of the report appears among the page's table cells."""
        numbers = _numbers(Page(html_render(analysis).decode("utf-8")).exact)
        expected = {
            value
            for part in analysis.per_api.values()
            for c in part.gate.criteria
            for value in (c.measured, c.threshold, c.lineages, c.min_lineages)
            if value is not None
        }
        assert expected
        assert expected - numbers == set()

    def test_every_chart_has_a_title_a_description_and_a_fixed_id(
        self, analysis: rm.Report
    ) -> None:
        """Each inline SVG is an image named by its own <title> and <desc>; ids are unique."""
        page = html_render(analysis).decode("utf-8")
        parsed = Page(page)
        # A chart whose every value is zero is a sentence instead (test below).
        assert len(parsed.svgs) + page.count(ALL_ZERO) >= 12 * len(analysis.per_api)
        for svg in parsed.svgs:
            assert svg["role"] == "img"
            labels = str(svg["aria-labelledby"]).split()
            assert labels == [f"{svg['id']}-title", f"{svg['id']}-desc"]
            assert all(parsed.titles.get(label) for label in labels)
        assert len(parsed.ids) == len(set(parsed.ids))

    def test_the_figures_numbers_are_the_reports(self, analysis: rm.Report) -> None:
        """The tables behind the charts hold the report's histogram counts, pressure arms and
        cost components (each as the report holds it)."""
        numbers = _numbers(Page(html_render(analysis).decode("utf-8")).exact)
        for part in analysis.per_api.values():
            wanted = {
                *part.evidence.estimates.counts,
                *part.evidence.cold_estimates.counts,
                *part.evidence.request_gaps_ms.counts,
                *(at.on for at in part.pressure.sensitivities),
                *(at.list_delta.retained for at in part.cost.sensitivities),
                *(at.quota_share_delta.total for at in part.cost.sensitivities),
                *(at.list_price.on for at in part.cost.sensitivities),
                *(c.text_bytes for c in part.tool_results),
                *(c.cleared_text_bytes for c in part.tool_results),
            }
            if part.pressure.off is not None:
                wanted.add(part.pressure.off)
            assert wanted - numbers == set()

    def test_estimates_below_the_first_edge_only_among_warm_boundaries(
        self, analysis: rm.Report
    ) -> None:
        """Boundaries below the first E edge that are all warm: the cold column still has
        the below row (0), bucket for bucket with all the estimates (found by the fuzzer:
        the cold buckets were one short and the page raised ValueError)."""
        api, part = next(iter(analysis.per_api.items()))
        estimates = msgspec.structs.replace(part.evidence.estimates, below=5)
        evidence = msgspec.structs.replace(part.evidence, estimates=estimates)
        edited = msgspec.structs.replace(
            analysis,
            per_api={**analysis.per_api, api: msgspec.structs.replace(part, evidence=evidence)},
        )
        cells = Page(html_render(edited).decode("utf-8")).cells
        row = cells.index(f"< {estimates.edges[0]:,} tok")
        assert cells[row + 1 : row + 5] == ["below the band", "0", "5", "5"]

    def test_the_what_ifs_have_their_own_section_chart_and_numbers(
        self, analysis: rm.Report
    ) -> None:
        """After the APIs, a section titled informational and never gating holds, per API, a
        chart of each policy's pressure reduction and cost change and a table with every
        figure of every policy (the report's numbers, as it holds them)."""
        page = html_render(analysis).decode("utf-8")
        parsed = Page(page)
        assert page.index('id="what-ifs"') > page.index('id="apis"')
        assert any("informational, never gating" in h for h in parsed.headings)
        section = page[page.index('id="what-ifs"') :]
        assert escape(WHERE_EVALUATED) in section, "the model's limit beside the figures"
        numbers = _numbers(parsed.exact)
        for api, rows in analysis.what_ifs_informational.per_api.items():
            assert f"what-ifs-{api.value}-pressure" in parsed.ids
            names = {cell.removesuffix(" (reference)") for cell in parsed.cells}
            assert {row.policy.value for row in rows} == set(WhatIfId.__members__) & names
            wanted = {
                *(row.tokens_removed for row in rows),
                *(row.rewritten_prefix_tokens for row in rows),
                *(at.pressure_reduction for row in rows for at in row.sensitivities),
                *(at.compactions_avoided for row in rows for at in row.sensitivities),
            }
            assert wanted - numbers == set()

    def test_the_summary_is_html_with_the_terminals_facts(self, analysis: rm.Report) -> None:
        """The first section holds the summary's facts as HTML: the overall verdict, each
        API's verdict line and the figures behind it, the what-if line; none of the
        terminal's hints (--details, explain CODE), nor its preformatted text."""
        page = html_render(analysis).decode("utf-8")
        section = page[page.index('id="summary"') : page.index('id="apis"')]
        assert "<pre" not in page
        for hint in ("--details", "run with", "clearing-analysis explain"):
            assert hint not in page, hint
        verdict = analysis.verdict.value
        assert f'Overall: <span class="badge {verdict.lower()}">{verdict}</span>' in section
        for api, part in rm.in_api_order(analysis.per_api):
            head, _ = api_head(analysis, api)
            assert escape(head.partition(part.gate.verdict.value)[2]) in section
            for figure in summary_figures(part):
                assert f"<li>{escape(figure)}</li>" in section
        what_if = summary_line(analysis.what_ifs_informational, hint="")
        assert escape(what_if) in section
        assert section.index("Overall:") < section.index(escape(what_if))

    def test_every_figure_carries_its_unit(self, analysis: rm.Report) -> None:
        """Each figure is written by what it means: list-price costs in USD, quota-share
        costs and every share (reductions, warm shares, share criteria, the retrieval rate) in
        percent as the summary writes them, ratios as multiples, count criteria as integers."""
        page = html_render(analysis).decode("utf-8")
        rows = Page(page).rows
        cost = [row for row in rows if len(row) == 4 and row[0] in {"list price", "quota share"}]
        assert cost
        for view, _rate, figure, value in cost:
            if value == "-":
                continue
            if figure == "on / off":
                assert value.startswith("x"), value
            elif view == "list price":
                assert value.endswith(" USD"), value
            else:
                assert value.endswith("%"), value
        reductions = [row[3] for row in rows if len(row) == 4 and row[0] == "on"]
        assert reductions and all(r.endswith("%") or r == "-" for r in reductions)
        labels = criterion_labels()
        percent_criteria = {labels[c] for c in _share_criteria()}
        for row in rows:
            if row and row[0] in labels.values():
                measured, threshold = row[2], row[4]
                for value in (measured, threshold):
                    if row[0] in percent_criteria:
                        assert value.endswith("%") or value == "-", row
                    else:
                        assert re.fullmatch(r"-|[0-9,]+", value), row
        what_ifs = [row for row in rows if len(row) == 11 and row[0] != "policy"]
        assert what_ifs
        for row in what_ifs:
            assert all(v.endswith("%") or v == "-" for v in (row[3], row[7])), row
            assert all(v.startswith("x") or v == "-" for v in (row[9], row[10])), row
        rate = share_text(analysis.retrieval_rate)
        assert f"retrieval rate {rate};" in page
        assert f"retrieval rate {percent(analysis.retrieval_rate)}" in render(
            analysis, ReportFormat.TEXT
        ).decode("utf-8")
        assert _value(rate) == analysis.retrieval_rate

    def test_dark_theme_and_print_styles(self) -> None:
        """The style sheet follows the system's dark theme and has print rules."""
        assert "@media (prefers-color-scheme:dark)" in STYLE
        assert "@media print" in STYLE


class TestExplorePage:
    """The page of an explore report: upper bounds, never a verdict."""

    def test_no_verdict_and_every_figure_an_upper_bound(self, explored: em.ExploreReport) -> None:
        """No BUILD, DEFER or STOP anywhere; every figure heading says UPPER BOUND."""
        page = html_render(explored).decode("utf-8")
        assert not re.search(r"\b(BUILD|DEFER|STOP)\b", page)
        parsed = Page(page)
        figures = [h for h in parsed.headings if h not in {"Summary", "Per API"}]
        assert figures
        assert all(
            "UPPER BOUND" in h
            for h in figures
            if h != "Statements and limitations" and h not in {"Statements", "Limitations"}
        )

    def test_same_report_same_bytes_and_nothing_external(self, explored: em.ExploreReport) -> None:
        """Deterministic and self-contained, as the analysis page."""
        page = html_render(explored)
        assert html_render(decode_report(json_render(explored))) == page
        lowered = page.decode("utf-8").lower()
        assert "http:" not in lowered and "https:" not in lowered and "<script" not in lowered

    def test_the_summary_is_html_without_the_terminals_hints(
        self, explored: em.ExploreReport
    ) -> None:
        """The explore summary as HTML: the never-a-verdict statement, each API's upper-bound
        figures as list items, the what-if line; no --details or explain hint."""
        page = html_render(explored).decode("utf-8")
        section = page[page.index('id="summary"') : page.index('id="apis"')]
        assert "--details" not in page and "clearing-analysis explain" not in page
        assert "never a verdict" in section
        for part in explored.per_api.values():
            for figure in upper_bound_figures(part):
                assert f"<li>{escape(figure)}</li>" in section
        assert escape(summary_line(explored.what_ifs_informational, hint="")) in section

    def test_the_recorded_usage_and_its_cost_in_usd(self, explored: em.ExploreReport) -> None:
        """Each API's section shows the usage the sessions recorded and its list-price cost
        with its currency, the exact cost in the cell's title."""
        parsed = Page(html_render(explored).decode("utf-8"))
        costs = [row for row in parsed.rows if row[0] == "list-price cost (route's prices)"]
        assert len(costs) == len(explored.per_api)
        for row, part in zip(costs, rm.in_api_order(explored.per_api), strict=True):
            cost = part[1].usage.list_price_cost
            assert cost is not None
            assert row[1].endswith(" USD")
            assert _value(row[1]) == pytest.approx(cost, rel=5e-4)
        numbers = _numbers(parsed.exact)
        for part in explored.per_api.values():
            assert {part.usage.input, part.usage.cache_read, part.usage.output} <= numbers

    def test_tool_results_are_the_upper_bound_sets(self, explored: em.ExploreReport) -> None:
        """The tool-class table holds the upper-bound eligible and cleared counts."""
        numbers = _numbers(Page(html_render(explored).decode("utf-8")).exact)
        for part in explored.per_api.values():
            for row in part.tool_results:
                assert {row.results, row.eligible, row.cleared} <= numbers


class TestCells:
    """How a table cell prints a value: shown to 4 significant digits, exact in its title."""

    @pytest.mark.parametrize(
        ("value", "exact", "shown"),
        [
            (1234567, "1,234,567", "1,234,567"),
            (11.531357891791, "11.531357891791", "11.53"),
            (2.80185642583e-07, "0.000000280185642583", "2.802e-7"),
            (0.0287610619469, "0.0287610619469", "0.02876"),
            (1234567.891, "1,234,567.891", "1,235,000"),
            (0.375, "0.375", "0.375"),
            (7.0, "7.0", "7"),
            (0.0, "0.0", "0"),
            (-0.0240017278847, "-0.0240017278847", "-0.024"),
            (1.7e308, "170" + ",000" * 102, "1.7e+308"),
            (None, "-", "-"),
            (cells.Share(0.153123456), "15.3123456%", "15.31%"),
            (cells.Share(0.05), "5%", "5%"),
            (cells.Share(None), "-", "-"),
            (cells.Money(1234.56789), "1,234.56789 USD", "1,235 USD"),
            (cells.Money(-0.000123456), "-0.000123456 USD", "-0.0001235 USD"),
            (cells.Ratio(1.13533637325), "x1.13533637325", "x1.135"),
            (cells.Ratio(None), "-", "-"),
            (True, "yes", "yes"),
            ("COST_INCREASE", "COST_INCREASE", "COST_INCREASE"),
        ],
    )
    def test_numbers_show_four_digits_and_keep_every_digit_exact(
        self, value: cells.Cell, exact: str, shown: str
    ) -> None:
        """Integers thousands-separated and whole; floats shown to at most 4 significant
        digits (an exponent past 1e15 or under 1e-6) and kept with every digit they were
        rounded to as the exact text."""
        assert exact_text(value) == exact
        assert cell_text(value) == shown
        if isinstance(value, float | cells.Share | cells.Money | cells.Ratio):
            assert _value(exact) == getattr(value, "value", value)
            mantissa = shown.partition("e")[0].removesuffix(" USD").strip("x%")
            digits = mantissa.lstrip("-").replace(",", "").replace(".", "")
            assert len(digits.strip("0")) <= 4

    def test_a_rounded_cell_carries_its_exact_value_as_its_title(self, analysis: rm.Report) -> None:
        """Every cell shown rounded has the exact value in its title; the page's cells show
        no float with more than 4 significant digits."""
        parsed = Page(html_render(analysis).decode("utf-8"))
        rounded = [(s, e) for s, e in zip(parsed.cells, parsed.exact, strict=True) if s != e]
        assert rounded
        for shown, exact in rounded:
            assert _value(shown) == pytest.approx(_value(exact), rel=5e-4)


@pytest.mark.parametrize("value", [4.000000000000005e26, 1.7e308, -1.7e308, 5e-324])
def test_a_chart_of_extreme_values_is_drawn(value: float) -> None:
    """A schema-valid saved report may hold any finite number: leather's Decimal ticks used to
    fail far from 1 (decimal.InvalidOperation at 4e+26, found by the structure-aware property
    tests); every finite double is drawn."""
    chart = charts.Chart(
        key="extreme",
        title="extreme",
        description="an extreme value beside zero",
        categories=("a", "b"),
        series=(charts.Series("values", (value, 0.0), charts.Tone.NEUTRAL),),
        unit="tokens",
    )
    assert charts.svg(chart).startswith('<svg id="extreme"')


def test_a_chart_whose_every_value_is_zero_is_one_sentence() -> None:
    """A chart of zero-length bars is not drawn: the page says in one sentence that every
    value is zero; a chart with one value above zero is still drawn."""
    from clearing_analysis.report.html.page import _chart

    def chart(values: tuple[float, ...]) -> charts.Chart:
        return charts.Chart(
            key="zeros",
            title="Zeros",
            description="all zero",
            categories=("a", "b"),
            series=(charts.Series("values", values, charts.Tone.NEUTRAL),),
            unit="tokens",
        )

    assert charts.all_zero(chart((0.0, 0.0)))
    assert _chart(chart((0.0, 0.0)), "") == (
        f'<p class="note" id="zeros">Zeros: {escape(ALL_ZERO)}.</p>'
    )
    assert not charts.all_zero(chart((0.0, 1.0)))
    assert _chart(chart((0.0, 1.0)), "").startswith("<figure>")
    # The mixed golden report's page has such charts (the realistic demo had 24 of 56).
    assert escape(ALL_ZERO) in html_render(_golden("report-mixed.json")).decode()


def test_chart_coordinates_are_rounded_to_two_decimals(analysis: rm.Report) -> None:
    """leather writes unrounded floats (111.9499999999999886313162278384): every number in a
    chart's attributes has at most 2 decimals, so pages are smaller and their bytes stable;
    the text of labels and titles is untouched."""
    element = ET.fromstring(
        '<g transform="translate(123.456789012 -0.001)"><rect x="2.5e-07" width="10.005"'
        ' fill="#8c8c8c"/><text x="1.999">0.123456</text></g>'
    )
    charts.round_coordinates(element)
    assert ET.tostring(element, encoding="unicode") == (
        '<g transform="translate(123.46 0)"><rect x="0" width="10.01" fill="#8c8c8c" />'
        '<text x="2">0.123456</text></g>'
    )
    page = html_render(analysis).decode("utf-8")
    drawn = re.findall(r"<svg.*?</svg>", page, re.DOTALL)
    assert drawn
    for svg in drawn:
        for value in re.findall(r'="([^"]*)"', svg):
            assert not re.search(r"\d\.\d{3,}", value), value
