"""The HTML renderer: a report as one self-contained page (docs/report.md, "The HTML page").

`render(report)` returns the page's bytes (UTF-8) for an analysis or an explore report, from
the report's structs alone; the same report gives the same bytes. Charts are drawn by leather
to inline SVG as the page is built; the page needs no script and loads nothing.
"""

from __future__ import annotations

from clearing_analysis.report.html.page import page
from clearing_analysis.report.kinds import AnyReport


def render(report: AnyReport) -> bytes:
    """The HTML renderer (`report.formats`): the report's page, of either kind, as UTF-8
    bytes."""
    return page(report).encode("utf-8")


__all__ = ["render"]
