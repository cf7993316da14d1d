"""The page's figures against the report's own counts: the E histogram's highlighted buckets
are the pressured boundaries the summary counts, never more."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from clearing_analysis.report import model as rm
from clearing_analysis.report.encode import decode_report
from clearing_analysis.report.html import figures as fig
from clearing_analysis.report.html.charts import Chart, Tone

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
EDGES = (0, 1000, 5000, 10000, 20000, 40000, 80000, 120000, 160000, 200000, 400000)


def _golden(name: str) -> rm.Report:
    report = decode_report((GOLDEN / name).read_bytes())
    assert isinstance(report, rm.Report)
    return report


def _histogram(counts: dict[int, int]) -> rm.Histogram:
    return rm.Histogram(EDGES, tuple(counts.get(edge, 0) for edge in EDGES), 0, 0)


def _series(chart: Chart, tone: Tone) -> tuple[float, ...]:
    (series,) = [s for s in chart.series if s.tone is tone]
    return series.values


def _evidence(base: rm.Evidence, every: dict[int, int], cold: dict[int, int]) -> rm.Evidence:
    return msgspec.structs.replace(
        base, estimates=_histogram(every), cold_estimates=_histogram(cold)
    )


@pytest.fixture(scope="module")
def base() -> rm.Evidence:
    """A golden report's evidence, to replace the histograms and counts of."""
    return next(iter(_golden("report-mixed.json").per_api.values())).evidence


def test_a_bucket_across_the_band_edge_is_not_drawn_in_the_band(base: rm.Evidence) -> None:
    """T = 200,000: the band is 150,000 to 200,000. The 120,000-160,000 bucket holds 2 cold
    boundaries of which the summary counts 1 as pressured (E 155,000) and 1 not (E 130,000):
    it is drawn as across the band's edge, and only the 160,000-200,000 bucket, whose every
    boundary is pressured, is drawn in the band's colour; the table states the summary's 4."""
    evidence = msgspec.structs.replace(
        _evidence(base, {120000: 2, 160000: 3, 200000: 1}, {120000: 2, 160000: 3, 200000: 1}),
        pressured=4,
        cold_pressured=4,
    )
    figure = fig.estimates(evidence, 200_000, "api", None)
    cold, warm = figure.charts
    labels = list(cold.categories)
    in_band = dict(zip(labels, _series(cold, Tone.BAND), strict=True))
    across = dict(zip(labels, _series(cold, Tone.BAND_EDGE), strict=True))
    above = dict(zip(labels, _series(cold, Tone.ABOVE), strict=True))
    assert in_band == {label: 3 if label == "160,000-200,000 tok" else 0 for label in labels}
    assert across == {label: 2 if label == "120,000-160,000 tok" else 0 for label in labels}
    assert above["200,000-400,000 tok"] == 1
    assert sum(in_band.values()) <= evidence.cold_pressured
    assert "4 boundaries are in the pressure band" in cold.description
    assert "1 of their 2 are in the band" in cold.description
    assert sum(_series(warm, Tone.BAND)) == 0
    rows = {row[0]: row for row in figure.table.rows}
    assert rows["120,000-160,000 tok"][1] == fig.PARTLY_IN_BAND
    assert rows["160,000-200,000 tok"][1] == fig.IN_BAND
    assert rows["pressured: 0.75·T <= E < T"][2:] == (4, 0, 4)


def test_band_edges_on_bucket_edges_draw_exactly_the_summarys_count(base: rm.Evidence) -> None:
    """T = 160,000: the band 120,000 to 160,000 is one whole bucket, so the band's bars are
    exactly the pressured boundaries, cold and warm apart, and no bar straddles an edge."""
    evidence = msgspec.structs.replace(
        _evidence(base, {80000: 4, 120000: 5, 160000: 2}, {120000: 3}),
        pressured=5,
        cold_pressured=3,
    )
    cold, warm = fig.estimates(evidence, 160_000, "api", None).charts
    assert sum(_series(cold, Tone.BAND)) == evidence.cold_pressured
    assert sum(_series(warm, Tone.BAND)) == evidence.pressured - evidence.cold_pressured
    assert sum(_series(cold, Tone.BAND_EDGE)) == sum(_series(warm, Tone.BAND_EDGE)) == 0
    assert "Light orange" not in cold.description


@pytest.mark.parametrize("name", ["report-mixed.json", "report-build.json"])
def test_the_band_bars_never_exceed_the_summarys_count(name: str) -> None:
    """On the golden reports, every API's band-coloured bars count no more boundaries than the
    summary counts pressured (cold and warm apart)."""
    for part in _golden(name).per_api.values():
        evidence = part.evidence
        cold, warm = fig.estimates(evidence, part.pressure.trigger, "api", None).charts
        assert sum(_series(cold, Tone.BAND)) <= evidence.cold_pressured
        assert sum(_series(warm, Tone.BAND)) <= evidence.pressured - evidence.cold_pressured


# What each series of the page means, and the one colour that means it (docs/report.md, "One
# colour, one meaning"). A new series must be added here with its meaning's colour.
MEANING: dict[str, Tone] = {
    "below the band": Tone.NEUTRAL,
    "warm": Tone.NEUTRAL,
    "never cold": Tone.NEUTRAL,
    "clearing off": Tone.NEUTRAL,
    "in the band": Tone.BAND,
    "partly in the band": Tone.BAND_EDGE,
    ">= T": Tone.ABOVE,
    "cold": Tone.COLD,
    "holds the cold gap": Tone.COLD_EDGE,
    "adds cost": Tone.WORSE,
    "adds pressure": Tone.WORSE,
    "saves cost": Tone.BETTER,
    "reduces pressure": Tone.BETTER,
    "on - off": Tone.NET,
    "all results": Tone.ALL,
    "lower-bound class": Tone.ELIGIBLE,
    "upper-bound eligible": Tone.ELIGIBLE,
    "cleared": Tone.CLEARING,
    "clearing on": Tone.CLEARING,
}
# The sign a series' values must have for its meaning (a saving is drawn below zero, a
# pressure reduction above it).
SIGN = {"adds cost": 1, "saves cost": -1, "reduces pressure": 1, "adds pressure": -1}


def _charts(report: rm.Report) -> list[Chart]:
    """Every chart both page kinds draw for `report`'s parts (the explore page draws the same
    figures of the same structs, its eligible set named "upper-bound eligible")."""
    found: list[Chart] = []
    for api, part in report.per_api.items():
        key = api.value
        figures = [
            fig.estimates(part.evidence, part.pressure.trigger, key, None),
            fig.request_gaps(part.evidence, key, None),
            fig.pressure(part.pressure, key, None),
            fig.cost(part.cost, key, None),
        ]
        rows = [
            fig.ToolClassRow(c.tool_class.value, c.results, c.eligible, c.cleared, 1, 0)
            for c in part.tool_results
        ]
        for eligible in ("lower-bound class", "upper-bound eligible"):
            figures.append(fig.tool_classes(rows, eligible, key, None))
        for figure in figures:
            found.extend(figure.charts)
    for api, policies in report.what_ifs_informational.per_api.items():
        found.extend(fig.what_ifs(api.value, policies, None).charts)
    return found


@pytest.mark.parametrize("name", ["report-mixed.json", "report-build.json"])
def test_one_colour_means_one_thing_on_every_chart(name: str) -> None:
    """Every series of every chart is drawn in the colour of its meaning, and each colour
    stands for one meaning: a saving is never drawn in the colour of an added cost, a
    pressure band never in the colour of a cost."""
    charts = _charts(_golden(name))
    drawn = {series.name for chart in charts for series in chart.series}
    assert drawn <= MEANING.keys(), drawn - MEANING.keys()
    assert {"adds cost", "saves cost", "in the band", "cold", "reduces pressure"} <= drawn
    for chart in charts:
        for series in chart.series:
            assert series.tone is MEANING[series.name], (chart.key, series.name)
            sign = SIGN.get(series.name)
            if sign is not None:
                assert all(sign * value >= 0 for value in series.values), (chart.key, series)
