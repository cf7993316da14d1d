"""The renderers' one interface: a report's structs in, bytes out (STYLE.md 7).

One closed choice of format (`ReportFormat`), one module per format, each with a
`render(report) -> bytes` for both report kinds (`report.kinds.AnyReport`) that reads nothing
but the structs it is given:

- `ReportFormat.JSON`: `report.encode` (the schema-checked JSON, what `--out` writes);
- `ReportFormat.TEXT`: `report.text.view` (the human view as plain text, what `show` prints in
  a pipe; the terminal's coloured view is the same renderables on a console);
- `ReportFormat.HTML`: `report.html` (the self-contained page, what `--html` writes).

`renderer(fmt)` matches the format exhaustively (`typing.assert_never`: a format added to the
enum and not here fails the type check) and imports only the module asked for, so a command
loads no chart library unless it writes a page. Inside each renderer the report kind is
matched the same way wherever the two kinds differ.
"""

from __future__ import annotations

import enum
from typing import Protocol, assert_never

from clearing_analysis.report.kinds import AnyReport


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
    match fmt:
        case ReportFormat.JSON:
            from clearing_analysis.report.encode import render as json_render  # noqa: PLC0415

            return json_render
        case ReportFormat.TEXT:
            from clearing_analysis.report.text.view import render as text_render  # noqa: PLC0415

            return text_render
        case ReportFormat.HTML:
            from clearing_analysis.report.html import render as html_render  # noqa: PLC0415

            return html_render
        case _:
            assert_never(fmt)


def render(report: AnyReport, fmt: ReportFormat) -> bytes:
    """`report` as the bytes of `fmt`."""
    return renderer(fmt)(report)


__all__ = ["AnyReport", "Renderer", "ReportFormat", "render", "renderer"]
