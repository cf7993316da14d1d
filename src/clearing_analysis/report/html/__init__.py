"""The HTML renderer: a report as one self-contained page (docs/report.md, "The HTML page").

`render(report)` returns the page's bytes (UTF-8) for an analysis or an explore report, from
the report's structs alone; the same report gives the same bytes. Charts are drawn by leather
to inline SVG as the page is built; the page needs no script and loads nothing.
"""

from __future__ import annotations

from clearing_analysis.report import explore_model as em
from clearing_analysis.report import model as rm
from clearing_analysis.report.html.page import analysis_page, explore_page


def render(report: rm.Report | em.ExploreReport) -> bytes:
    """The report's page as UTF-8 bytes."""
    if isinstance(report, em.ExploreReport):
        return explore_page(report).encode("utf-8")
    return analysis_page(report).encode("utf-8")


__all__ = ["render"]
