"""Charts as inline SVG, drawn by leather when the page is built (docs/report.md, "The HTML
page").

A `Chart` is data only: fixed-code categories, numeric values, a title and a description.
`svg` hands it to leather, which computes every scale, tick, bar and legend, and wraps
leather's drawing in an `<svg>` element with a fixed id, `role="img"` and a `<title>` and
`<desc>` for screen readers. The bytes depend on the chart alone: leather draws with
ElementTree and no id, time or random value of its own, and the ids here are derived from the
chart's key. Colours are leather's attributes; the page's stylesheet restyles text and grid
lines for the dark theme and for print.
"""

from __future__ import annotations

import decimal
import enum
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

import leather
import msgspec

WIDTH = 640  # SVG user units; the page scales every chart to its column's width
# leather finds its ticks with Decimal arithmetic in the current context; 28 digits cannot
# quantize a tick of a value far above 1 (a schema-valid saved report may hold 4e+26, found by
# the structure-aware property tests). The digits are sized to the chart's largest value: as
# many as its integer part has, plus this margin (never fewer than Decimal's default 28), so
# that ordinary charts keep the default's speed.
_DECIMAL_MARGIN_DIGITS = 30


def _decimal_digits(chart: Chart) -> int:
    """Decimal digits leather's ticks need for `chart`'s values."""
    largest = max((abs(v) for series in chart.series for v in series.values), default=0.0)
    integer_digits = len(f"{largest:.0f}") if largest >= 1 else 1
    return max(decimal.DefaultContext.prec, integer_digits + _DECIMAL_MARGIN_DIGITS)


BAR_HEIGHT = 22  # per category row of a bar chart
FRAME_HEIGHT = 96  # title-less frame: legend, axis labels and margins


class Tone(enum.StrEnum):
    """Series colours, each meaning one thing on every chart of the page (docs/report.md, "One
    colour, one meaning"), chosen to read on a light and on a dark background alike."""

    NEUTRAL = "#8c8c8c"  # the baseline: below the band, a warm gap, never cold, clearing off
    BAND = "#e67e22"  # wholly in the pressure band 0.75·T-T
    BAND_EDGE = "#f5cba7"  # a bucket across an edge of the pressure band
    ABOVE = "#c0392b"  # at or above T
    COLD = "#2e86c1"  # a cold gap: beyond the cache lifetime + margin
    COLD_EDGE = "#aed6f1"  # the gap bucket that holds the cold gap
    WORSE = "#ad1457"  # clearing adds: more cost, more pressure
    BETTER = "#1e8449"  # clearing saves: less cost, less pressure
    NET = "#7d3c98"  # a net sum: on - off
    ALL = "#d5d8dc"  # every result: the whole, behind its parts
    ELIGIBLE = "#76d7c4"  # the eligible set: the results clearing may take
    CLEARING = "#117a65"  # what clearing does: the results it cleared, the arm with it on


class Series(msgspec.Struct, frozen=True):
    """One named series: a value per category, in the chart's category order."""

    name: str
    values: tuple[float, ...]
    tone: Tone


class Chart(msgspec.Struct, frozen=True):
    """A horizontal bar chart: categories top to bottom, one bar per series and category
    (series are drawn in order over each other, so a part drawn after its whole shows as
    its share of it)."""

    key: str  # the fixed id of the chart on its page
    title: str
    description: str
    categories: tuple[str, ...]
    series: tuple[Series, ...]
    unit: str  # what a value counts: "boundaries", "tokens", ...

    def __post_init__(self) -> None:
        for series in self.series:
            if len(series.values) != len(self.categories):
                raise ValueError("a series needs one value per category")


def _tick(value: float, _index: int, _count: int) -> str:
    """An axis label: whole numbers with thousands separators, others to 4 digits."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.4g}"


# leather's module-level theme as these pages set it: no background of its own (the page's
# shows through), the page's sans-serif, grid lines that read on light and dark alike.
_THEME = {
    "background_color": "none",
    "margin": 0.04,
    "title_font_family": "sans-serif",
    "legend_font_family": "sans-serif",
    "axis_title_font_family": "sans-serif",
    "tick_font_family": "sans-serif",
    "tick_font_size": 12,
    "tick_font_char_width": 7,
    "legend_font_size": 12,
    "legend_font_char_width": 8,
    "axis_title_font_size": 12,
    "axis_title_font_char_width": 7,
    "tick_color": "#b3b3b3",
    "zero_color": "#808080",
    "label_color": "#666666",
    "legend_color": "#666666",
    "axis_title_color": "#666666",
}


def _apply_theme() -> None:
    """Set leather's theme for these pages (idempotent: the same values every time)."""
    for name, value in _THEME.items():
        setattr(leather.theme, name, value)


def _height(chart: Chart) -> int:
    return FRAME_HEIGHT + BAR_HEIGHT * max(1, len(chart.categories))


def drawable(chart: Chart) -> bool:
    """Whether leather can draw `chart`: at least one category (leather fails on a chart of
    no data) and every value finite (a report's finite value scaled for a chart, e.g. a ratio
    of 1e308 in percent, can overflow to infinity, which no axis can hold). Every report the
    schema accepts renders (R-REL-1): a chart that is not drawable is left out with a note, and
    its numbers stay in the figure's table."""
    return bool(chart.categories) and all(
        math.isfinite(value) for series in chart.series for value in series.values
    )


def all_zero(chart: Chart) -> bool:
    """Whether every value of `chart` is zero: a chart of bars of no length says nothing a
    sentence does not, so the page states it instead of drawing it."""
    return all(value == 0 for series in chart.series for value in series.values)


# SVG coordinates are written to this many decimals: a hundredth of a user unit is far below a
# pixel at any width the page is shown at, and leather's unrounded floats (123.456789012)
# would make pages larger and their bytes hang on the last bit of a float.
COORDINATE_DECIMALS = 2
_DECIMAL_NUMBER = re.compile(r"-?\d+\.\d+(?:[eE][-+]?\d+)?")


def _rounded_number(match: re.Match[str]) -> str:
    text = f"{float(match.group()):.{COORDINATE_DECIMALS}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def round_coordinates(element: ET.Element) -> None:
    """Every decimal number in the attributes of `element` and its descendants rounded to
    `COORDINATE_DECIMALS` (trailing zeros dropped); text (tick labels, titles) is untouched."""
    for node in element.iter():
        for name, value in node.attrib.items():
            node.set(name, _DECIMAL_NUMBER.sub(_rounded_number, value))


def svg(chart: Chart) -> str:
    """The chart as one `<svg>` element (no XML declaration, no namespace URI: it is parsed
    as HTML), deterministic for the same chart."""
    _apply_theme()
    drawn = leather.Chart()
    for series in chart.series:
        data = list(zip(series.values, chart.categories, strict=True))
        drawn.add_bars(data, name=series.name, fill_color=series.tone.value)
    drawn.add_x_axis(tick_formatter=_tick, name=chart.unit)
    height = _height(chart)
    with decimal.localcontext() as context:
        context.prec = _decimal_digits(chart)
        group = drawn.to_svg_group(WIDTH, height)
    round_coordinates(group)
    root = ET.Element(
        "svg",
        {
            "id": chart.key,
            "class": "chart",
            "viewBox": f"0 0 {WIDTH} {height}",
            "role": "img",
            "aria-labelledby": f"{chart.key}-title {chart.key}-desc",
        },
    )
    title = ET.SubElement(root, "title", {"id": f"{chart.key}-title"})
    title.text = chart.title
    desc = ET.SubElement(root, "desc", {"id": f"{chart.key}-desc"})
    desc.text = chart.description
    root.append(group)
    return str(ET.tostring(root, encoding="unicode"))


def keyed(prefix: str, *parts: str) -> str:
    """A fixed element id from codes: lower case, words joined by hyphens."""
    words: Sequence[str] = [prefix, *parts]
    return "-".join(word.lower().replace("_", "-").replace(".", "-") for word in words)


__all__ = [
    "COORDINATE_DECIMALS",
    "Chart",
    "Series",
    "Tone",
    "all_zero",
    "drawable",
    "keyed",
    "round_coordinates",
    "svg",
]
