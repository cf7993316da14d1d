"""The usage tables of `--by session|day|model` in the human view (docs/report.md).

One table of the report's `usageBy` part: a row per session (by ordinal, never an id or
path), per UTC day or per catalog model, with the usage columns of the per-API "Recorded
usage" table and a total row. A report saved without the part (its run had no `--by`) gets a
fixed sentence saying how to store the tables instead of a table. It renders only what the
report holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import get_args

from rich import box
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from clearing_analysis.inputs.requests import UsageBy
from clearing_analysis.report import model as rm
from clearing_analysis.report.text.terminal import number

USAGE_BY: tuple[UsageBy, ...] = get_args(UsageBy)

# Models the pinned catalog does not list, reported together (never their recorded names).
UNLISTED_MODEL = "not in the catalog"
NO_TABLES = (
    "This report holds no usage tables: they are stored when analyze or explore runs with"
    " --by (docs/report.md)."
)
_TITLE: dict[UsageBy, str] = {
    "session": "Recorded usage by session (ordinal in the report's order)",
    "day": "Recorded usage by UTC day",
    "model": "Recorded usage by model (pi-ai catalog id)",
}
# Two-line headers keep the seven columns within 80 with every figure whole.
_HEADERS = ("requests", "input", "cache\nread", "cache\nwrite", "output", "list-price\ncost (USD)")


def _key(row: rm.SessionUsage | rm.DayUsage | rm.ModelUsage) -> str:
    if isinstance(row, rm.SessionUsage):
        return f"session {row.session}"
    if isinstance(row, rm.DayUsage):
        return row.day
    return UNLISTED_MODEL if row.model is None else row.model


def _cells(requests: int, tokens: Sequence[int], cost: float) -> tuple[str, ...]:
    """Requests, the four token counts and the cost to 4 decimals, as the per-API table."""
    return (number(requests), *(number(value) for value in tokens), number(cost, 4))


def rows_of(
    breakdown: rm.UsageBreakdown, by: UsageBy
) -> Sequence[rm.SessionUsage | rm.DayUsage | rm.ModelUsage]:
    """The rows of the asked table, in the report's order."""
    if by == "session":
        return breakdown.by_session
    if by == "day":
        return breakdown.by_day
    return breakdown.by_model


def usage_by_table(breakdown: rm.UsageBreakdown | None, by: UsageBy) -> RenderableType:
    """The asked usage table with a total row, or the sentence for a report without them."""
    if breakdown is None:
        return Text(f"\n{NO_TABLES}")
    rows = rows_of(breakdown, by)
    table = Table(
        title=f"\n{_TITLE[by]}",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=(0, 1, 0, 0),  # one space between columns: 80 holds seven wide figures
        show_footer=True,
    )
    total = _cells(
        sum(row.requests for row in rows),
        [
            sum(row.input for row in rows),
            sum(row.cache_read for row in rows),
            sum(row.cache_write for row in rows),
            sum(row.output for row in rows),
        ],
        sum(row.list_price_cost for row in rows),
    )
    cells = [
        (
            _key(row),
            *_cells(
                row.requests,
                (row.input, row.cache_read, row.cache_write, row.output),
                row.list_price_cost,
            ),
        )
        for row in rows
    ]
    # Every figure stays whole (its column as wide as its longest cell); only a long model id
    # folds when the terminal is too narrow for it.
    widths = [max(len(cell[index]) for cell in [*cells, ("total", *total)]) for index in range(7)]
    table.add_column(by, footer="total", overflow="fold")
    for header, footer, width in zip(_HEADERS, total, widths[1:], strict=True):
        table.add_column(header, footer=footer, justify="right", overflow="fold", min_width=width)
    for cell in cells:
        table.add_row(*cell)
    return table


__all__ = ["NO_TABLES", "UNLISTED_MODEL", "USAGE_BY", "UsageBy", "rows_of", "usage_by_table"]
