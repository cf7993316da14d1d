"""The renderers are total over the schema (R-REL-1): every report `show` accepts renders in the
terminal (summary and details, both report kinds) and as the HTML page, whatever its values.

A saved report may hold any finite number the schema admits, empty lists and nulls where the
schema allows them. The named cases are the crashes found in `show --html` (each ended in
ANALYZER_FAULT); the properties edit valid reports of both kinds at the edges of their schemas
(`_extremes`), and every edited report is either refused with REPORT_* or rendered by every
renderer. Whole parts drawn from the schemas themselves (hypothesis-jsonschema) go through the
same renderers in tests/fuzz/test_structure.py (`test_schema_valid_parts_in_a_saved_report`).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clearing_analysis.codes.errors import InputInvalidError
from clearing_analysis.report.encode import decode_report
from clearing_analysis.report.formats import ReportFormat, render
from clearing_analysis.report.html.page import NOT_DRAWN
from clearing_analysis.report.text.view import render_text
from tests.report import _extremes

ROOT = Path(__file__).resolve().parents[2]
SEEDS = {
    "build": ("analysis", ROOT / "tests" / "golden" / "report-build.json"),
    "mixed": ("analysis", ROOT / "tests" / "golden" / "report-mixed.json"),
    "explore": ("explore", ROOT / "fuzz" / "corpus" / "report" / "explore.json"),
}


def _examples(in_make_test: int) -> int:
    """Few examples in `make test`; the `fuzz` profile's under `make fuzz`."""
    if settings.get_current_profile_name() == "fuzz":
        return settings.get_profile("fuzz").max_examples
    return in_make_test


PROPERTY = settings(
    deadline=None, suppress_health_check=list(HealthCheck), max_examples=_examples(12)
)


@functools.cache
def _seed_text(name: str) -> str:
    return SEEDS[name][1].read_text()


def _seed(name: str) -> Any:
    """A fresh copy of a seed report (tests edit it)."""
    return json.loads(_seed_text(name))


@functools.cache
def _sites(name: str) -> list[_extremes.Site]:
    return _extremes.sites(_seed(name), SEEDS[name][0])


def _render_all(data: bytes) -> str:
    """Every renderer on a report `show` accepts: the summary, the details, the page."""
    report = decode_report(data)
    assert render_text(report, details=False)
    assert render_text(report, details=True)
    page = render(report, ReportFormat.HTML).decode("utf-8")
    assert page.startswith("<!DOCTYPE html>")
    return page


def _render_or_refuse(value: Any) -> bool:
    """True when the report was accepted (and rendered), False when refused with REPORT_*."""
    try:
        _render_all(json.dumps(value).encode())
    except InputInvalidError as refused:
        assert refused.detail.value.startswith("REPORT_"), refused.detail
        return False
    return True


def _first_api(report: Any) -> str:
    return sorted(report["perApi"])[0]


class TestFoundInShowHtml:
    """Schema-valid reports that ended `show --html` in ANALYZER_FAULT now render; the chart
    that cannot be drawn is replaced by a note, its numbers stay in the table."""

    def test_a_what_if_ratio_of_1e308(self) -> None:
        """A cost ratio of 1e308 is a cost change of 1e310 %: beyond a double (leather's
        ticks failed with decimal.InvalidOperation on the infinity)."""
        report = _seed("build")
        for row in report["whatIfsInformational"]["perApi"][_first_api(report)]:
            for at in row["sensitivities"]:
                at["listPriceRatio"] = 1e308
        page = _render_all(json.dumps(report).encode())
        assert NOT_DRAWN in page
        assert "100,000,000,000,000,000,000" in page  # the ratio itself, in the table

    def test_a_pressure_reduction_of_minus_1e308(self) -> None:
        """A reduction drawn in percent overflows too."""
        report = _seed("mixed")
        for row in report["whatIfsInformational"]["perApi"][_first_api(report)]:
            for at in row["sensitivities"]:
                at["pressureReduction"] = -1e308
        assert NOT_DRAWN in _render_all(json.dumps(report).encode())

    def test_a_cost_rate_of_1e308(self) -> None:
        """The cost chart's element id was the rate in whole percent: round(1e308 x 100)
        raised OverflowError."""
        report = _seed("build")
        cost = report["perApi"][_first_api(report)]["cost"]
        cost["sensitivities"] = cost["sensitivities"][-1:]
        cost["sensitivities"][0]["rate"] = 1e308
        page = _render_all(json.dumps(report).encode())
        assert "cost-list-price-1000000000000000000000" in page

    @pytest.mark.parametrize("seed", ["build", "mixed"])
    def test_a_part_with_no_tool_results(self, seed: str) -> None:
        """An API whose tool results list is empty: the tool-class charts have no category
        (leather raised UnboundLocalError on a chart of no data)."""
        report = _seed(seed)
        for part in report["perApi"].values():
            part["toolResults"] = []
        report["overall"]["toolResults"] = []
        assert NOT_DRAWN in _render_all(json.dumps(report).encode())

    def test_an_explore_report_with_no_tool_results(self) -> None:
        """An explore report whose tool results are empty, per API and over all APIs."""
        report = _seed("explore")
        for part in report["perApi"].values():
            part["toolResults"] = []
        report["toolResultsAllApis"] = []
        assert NOT_DRAWN in _render_all(json.dumps(report).encode())


class TestEveryNumberAtAnEdge:
    """Every number of a report at one edge value at once (rates and histogram edges kept in
    their order): accepted by the reader and rendered."""

    @pytest.mark.parametrize("seed", ["mixed", "explore"])
    @pytest.mark.parametrize(
        "value",
        [-0.0, _extremes.LARGEST, -_extremes.LARGEST, 5e-324, 2**53 - 1],
        ids=["minus-zero", "largest", "minus-largest", "subnormal", "int-max"],
    )
    def test_renders(self, seed: str, value: float) -> None:
        """The report is accepted (the edit stays within the schema and the invariants) and
        every renderer renders it."""
        kind = SEEDS[seed][0]
        assert _render_or_refuse(_extremes.everywhere(_seed(seed), kind, value))


@pytest.mark.structure
@PROPERTY
@given(data=st.data())
def test_reports_edited_at_the_edges_of_their_schema(data: st.DataObject) -> None:
    """Up to 40 members of a valid report of either kind set to edge values their schema
    admits (largest and smallest finite numbers, -0.0, 2^53 - 1, empty lists, nulls): the
    report is refused with REPORT_* or every renderer renders it."""
    seed = data.draw(st.sampled_from(sorted(SEEDS)))
    candidates = _sites(seed)
    chosen = data.draw(st.lists(st.sampled_from(candidates), min_size=1, max_size=40))
    changes = [(site.path, data.draw(st.sampled_from(site.values))) for site in chosen]
    _render_or_refuse(_extremes.edited(_seed(seed), changes))
