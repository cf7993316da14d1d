"""The human view of a report (R-CLI-6): the one-screen summary first, the details after it
only when asked for (`--details`), for an analysis report and an explore report alike; the
text renderer of `report.formats`.

It renders only what the report holds (`summary`, `details`, each for either kind); colour only
when writing to a terminal. At any width a line wraps at spaces or folds, so nothing is ever
cut with an ellipsis and no code is shortened.
"""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.text import Text

from clearing_analysis.report.kinds import AnyReport
from clearing_analysis.report.text import details as detail_view
from clearing_analysis.report.text import summary, terminal
from clearing_analysis.report.text.usage import UsageBy, usage_by_table

# Plain text (files, pipes, tests, the demo's captured output) is laid out for 80 columns.
PLAIN_WIDTH = 80


def renderables(
    report: AnyReport,
    width: int,
    *,
    details: bool = False,
    by: UsageBy | None = None,
) -> list[RenderableType]:
    """The view, top to bottom, for a terminal `width` columns wide; with `by`, the usage
    table it names last (`--by`)."""
    parts: list[RenderableType] = list(summary.summary(report, width))
    more = detail_view.details(report) if details else []
    if more:
        parts.append(Text("\nDetails", style="bold"))
        parts.extend(more)
    if by is not None:
        parts.append(usage_by_table(report.usage_by, by))
    return parts


def render_text(
    report: AnyReport,
    *,
    width: int = PLAIN_WIDTH,
    details: bool = False,
    by: UsageBy | None = None,
) -> str:
    """The view as plain text (no colour), whatever the terminal."""
    return terminal.plain_text(renderables(report, width, details=details, by=by), width)


def render(report: AnyReport) -> bytes:
    """The text renderer (`report.formats`): the one-screen summary as plain UTF-8 text."""
    return render_text(report).encode("utf-8")


def print_view(
    report: AnyReport,
    console: Console,
    *,
    details: bool = False,
    by: UsageBy | None = None,
) -> None:
    """Print the view to a console, laid out for its width (colour when it is a terminal)."""
    console.print(Group(*renderables(report, console.width, details=details, by=by)))


__all__ = ["PLAIN_WIDTH", "print_view", "render", "render_text", "renderables"]
