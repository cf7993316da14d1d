"""A saved report is validated whole before anything renders it (`show`, R-REL-1).

The reproducers of the crash classes a structure-aware fuzzer found (NaN and ±Infinity that
`json.loads` takes, histogram counts that do not fit the edges, a 401-digit integer, a defined
cost model without figures) are built
on today's valid reports of both kinds, and each must give its fixed code, never an exception.
"""

from __future__ import annotations

import json

import pytest

from clearing_analysis.codes.errors import InputInvalidDetail, InputInvalidError
from clearing_analysis.report import model as rm
from clearing_analysis.report.encode import decode_report
from clearing_analysis.report.explore_model import ExploreReport
from clearing_analysis.report.formats import ReportFormat, render
from clearing_analysis.report.model import Report
from clearing_analysis.report.text.tables import histogram_table
from clearing_analysis.report.text.terminal import number
from clearing_analysis.report.text.view import render_text
from clearing_analysis.report.validate import (
    MAX_EXACT_INTEGER,
    histogram_consistent,
    numbers_in_range,
)
from tests.report._saved import (
    GOLDEN_REPORT,
    REPRODUCERS,
    ROOT,
    explore_report_bytes,
    reproducer,
)

KINDS = ["analysis", "explore"]


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """Today's valid saved report of each kind."""
    scratch = tmp_path_factory.mktemp("explore")
    return {"analysis": GOLDEN_REPORT.read_bytes(), "explore": explore_report_bytes(scratch)}


def _code(data: bytes) -> str:
    with pytest.raises(InputInvalidError) as raised:
        decode_report(data)
    return raised.value.detail.value


class TestReproducers:
    """Each crash class of `show` now ends in its fixed code."""

    @pytest.mark.parametrize("kind", KINDS)
    def test_base_reports_are_accepted_and_render(self, saved: dict[str, bytes], kind: str) -> None:
        """The unedited reports decode and render: each reproducer's edit alone is refused."""
        decoded = decode_report(saved[kind])
        assert isinstance(decoded, ExploreReport if kind == "explore" else Report)
        assert render_text(decoded, details=True)
        assert render(decoded, ReportFormat.HTML)

    @pytest.mark.parametrize("kind", KINDS)
    @pytest.mark.parametrize("name", sorted(REPRODUCERS))
    def test_reproducer_gives_its_code(self, saved: dict[str, bytes], kind: str, name: str) -> None:
        """NaN / Infinity are not JSON (MALFORMED); the rest are not reports of this version."""
        assert _code(reproducer(saved[kind], name)) == REPRODUCERS[name][1]


class TestRateInvariants:
    """Figures by retrieval rate: a defined cost model has some, every list is in rate order."""

    def test_unordered_rates_are_not_a_report(self) -> None:
        """Cost figures by rate swapped out of increasing order: REPORT_NOT_A_REPORT."""
        value = json.loads(GOLDEN_REPORT.read_bytes())
        api = next(iter(value["perApi"].values()))
        rates = api["cost"]["sensitivities"]
        assert len(rates) >= 2
        rates[0], rates[1] = rates[1], rates[0]
        assert _code(json.dumps(value).encode()) == InputInvalidDetail.REPORT_NOT_A_REPORT

    def test_undefined_cost_with_figures_is_not_a_report(self) -> None:
        """A cost model marked undefined that still carries figures: REPORT_NOT_A_REPORT."""
        value = json.loads(GOLDEN_REPORT.read_bytes())
        api = next(iter(value["perApi"].values()))
        api["cost"]["defined"] = False
        assert _code(json.dumps(value).encode()) == InputInvalidDetail.REPORT_NOT_A_REPORT


class TestStrictRead:
    """What a saved report's strict read refuses beyond the schema."""

    def test_repeated_key_is_malformed(self) -> None:
        """A repeated key (which json.loads would resolve silently) is not a written report."""
        data = GOLDEN_REPORT.read_bytes()
        edited = data.replace(b"{", b'{"format":"x",', 1)
        assert _code(edited) == InputInvalidDetail.REPORT_MALFORMED

    def test_largest_exact_integer_is_accepted_and_one_more_is_not(self) -> None:
        """The integer bound is 2**53 - 1, both sides of it."""
        assert numbers_in_range({"a": [MAX_EXACT_INTEGER, -MAX_EXACT_INTEGER, 1.5]})
        assert not numbers_in_range({"a": [MAX_EXACT_INTEGER + 1]})
        assert not numbers_in_range([float("nan")])

    def test_number_edit_inside_range_still_decodes(self) -> None:
        """An edited but in-range count is still a report (the check is of range, not value)."""
        value = json.loads(GOLDEN_REPORT.read_bytes())
        value["snapshot"]["journalBytes"] = MAX_EXACT_INTEGER
        assert isinstance(decode_report(json.dumps(value).encode()), Report)


class TestRendererHardening:
    """The renderers' helpers take any value their types allow."""

    def test_number_formats_a_401_digit_integer(self) -> None:
        """An integer is never converted to a float (which overflows past ~1e308)."""
        assert number(10**400) == "10" + ",000" * 133
        assert number(12345, 2) == "12,345.00"
        assert number(2.5, 1) == "2.5"

    @pytest.mark.parametrize(
        ("edges", "counts", "below"),
        [((0, 10), (1, 2, 3), 0), ((), (), 3), ((10, 5), (1, 1), 0)],
    )
    def test_inconsistent_histogram_renders_one_row(
        self, edges: tuple[int, ...], counts: tuple[int, ...], below: int
    ) -> None:
        """Counts beyond the edges, values below no edge, or unordered edges: one row saying
        so, never an exception or a shifted table."""
        histogram = rm.Histogram(edges=edges, counts=counts, below=below, unknown=0)
        assert not histogram_consistent(histogram)
        assert histogram_table("t", histogram, "ms").row_count == 1

    def test_consistent_histogram_renders_every_bucket(self) -> None:
        """below, one row per edge, unknown."""
        histogram = rm.Histogram(edges=(0, 10), counts=(1, 2), below=4, unknown=5)
        assert histogram_consistent(histogram)
        assert histogram_table("t", histogram, "ms").row_count == 4


def test_a_gate_without_one_of_the_six_criteria_is_not_a_report() -> None:
    """A schema-valid gate that lists five criteria (found by the structure-aware property
    tests: the summary looked up the missing one and raised KeyError) is refused."""
    data = ROOT / "fuzz" / "regressions" / "report" / "analysis-gate-without-a-criterion.json"
    with pytest.raises(InputInvalidError) as raised:
        decode_report(data.read_bytes())
    assert raised.value.detail.value == "REPORT_NOT_A_REPORT"


def test_a_value_far_from_one_renders_in_every_view() -> None:
    """A cost component of 4e+26 is a valid report; its page and its text view render (the
    chart library's ticks failed on it, found by the structure-aware property tests)."""
    data = ROOT / "fuzz" / "regressions" / "report" / "analysis-value-far-from-one.json"
    decoded = decode_report(data.read_bytes())
    assert render_text(decoded, details=True)
    assert render(decoded, ReportFormat.HTML).startswith(b"<!DOCTYPE html>")
