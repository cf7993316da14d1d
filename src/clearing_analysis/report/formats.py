"""The renderers' one interface: a report's structs in, bytes out (STYLE.md 7).

Each renderer is a module with a `render(report) -> bytes` function for both report kinds,
reading nothing but the structs it is given (an analysis or an explore report):

- `ReportFormat.JSON`: `report.encode` (the schema-checked JSON, what `--out` writes);
- `ReportFormat.TEXT`: `report.text.view` (the human view as plain text, what `show` prints in a
  pipe; the terminal's coloured view is the same renderables on a console);
- `ReportFormat.HTML`: `report.html` (the self-contained page, what `--html` writes).

`renderer(fmt)` imports only the module asked for, so a command loads no chart library unless
it writes a page.
"""

from __future__ import annotations

import enum
from typing import Protocol

from clearing_analysis.report import explore_model as em
from clearing_analysis.report import model as rm

AnyReport = rm.Report | em.ExploreReport


class ReportFormat(enum.StrEnum):
    """What a report can be rendered as."""

    JSON = "json"
    TEXT = "text"
    HTML = "html"


class Renderer(Protocol):
    """A report, of either kind, as the bytes of one format."""

    def __call__(self, report: AnyReport, /) -> bytes: ...


def renderer(fmt: ReportFormat) -> Renderer:
    """The renderer of `fmt` (its module is imported now, not before)."""
    if fmt is ReportFormat.JSON:
        from clearing_analysis.report.encode import render as json_render  # noqa: PLC0415

        return json_render
    if fmt is ReportFormat.TEXT:
        from clearing_analysis.report.text.view import render as text_render  # noqa: PLC0415

        return text_render
    from clearing_analysis.report.html import render as html_render  # noqa: PLC0415

    return html_render


def render(report: AnyReport, fmt: ReportFormat) -> bytes:
    """`report` as the bytes of `fmt`."""
    return renderer(fmt)(report)


__all__ = ["AnyReport", "Renderer", "ReportFormat", "render", "renderer"]
