"""How every terminal view writes a figure (R-CLI-6): numbers with thousands separators,
money with its currency, shares as percentages, a policy's values as the policy states them
(a fraction, a rate in percent, tokens in thousands, a byte budget), the analyzed
period, why a model is undefined, and a view as plain text.

The building blocks the views share (`summary`, `details`, `tables`, the what-if, usage and
re-fetch views, the HTML page's figures), kept apart from any one view so that no view imports
another for them.
"""

from __future__ import annotations

import datetime
import io
from collections.abc import Sequence
from decimal import Decimal

from rich.console import Console, Group, RenderableType

from clearing_analysis.models.undefined import UndefinedCause
from clearing_analysis.report import model as rm


def number(value: float | int | None, digits: int = 0) -> str:
    """A figure with thousands separators; an integer is formatted as an integer, never
    through a float (which a very long one would overflow)."""
    if value is None:
        return "-"
    if isinstance(value, int):
        return f"{value:,}" + ("." + "0" * digits if digits else "")
    if digits == 0 and value.is_integer():
        return f"{int(value):,}"
    return f"{value:,.{digits}f}"


# The currency of list prices: the route's prices are currency per million tokens, and the
# catalog they come from states US dollars (docs/formats/routes.md).
CURRENCY = "USD"


def money(value: float | None, digits: int = 4) -> str:
    """A list-price cost with its currency ("12.3400 USD")."""
    return "-" if value is None else f"{number(value, digits)} {CURRENCY}"


def percent(value: float | None) -> str:
    """A share as a percentage with one decimal; a non-zero share that one decimal would show
    as 0.0% (or -0.0%) keeps two significant digits, so its size and sign stay visible."""
    if value is None:
        return "-"
    scaled = 100 * value
    if scaled != 0 and abs(scaled) < 0.05:
        return f"{scaled:.2g}%"
    return f"{scaled:.1f}%"


def _decimal(value: float) -> Decimal:
    """A figure's exact decimal, as the report or the policy states it (0.05, not 0.05000...)."""
    return Decimal(repr(value))


def _plain(value: Decimal) -> str:
    """A decimal with no exponent and no trailing zeros ("0.75", "20", "0")."""
    normal = value.normalize()
    return format(normal if normal != 0 else Decimal(0), "f")


def decimal_text(value: float) -> str:
    """A policy's fraction as it is written there: "0.75"."""
    return _plain(_decimal(value))


def exact_percent(value: float) -> str:
    """A policy's rate or share in percent, exactly as it states it: "5%", "12.5%"."""
    return f"{_plain(_decimal(value).scaleb(2))}%"


def kilo(count: int) -> str:
    """A round count of tokens in thousands ("20k"), any other as a number."""
    return f"{count // 1000:,}k" if count and count % 1000 == 0 else number(count)


def binary_size(size: int) -> str:
    """A byte budget in the largest binary unit that divides it ("8 MiB", "512 KiB")."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size and size % (1 << shift) == 0:
            return f"{size >> shift:,} {unit}"
    return f"{size:,} bytes"


def _utc(ms: int) -> str:
    moment = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC) + datetime.timedelta(
        milliseconds=ms
    )
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def period_text(period: rm.AnalyzedPeriod) -> str | None:
    """The analyzed period as the views print it ("period 2026-06-01T00:00:00Z to before
    2026-07-01T00:00:00Z"), None for the whole history."""
    since, until = period.since_ms, period.until_ms
    if since is None and until is None:
        return None
    start = "the start" if since is None else _utc(since)
    end = "the end" if until is None else f"before {_utc(until)}"
    return f"period {start} to {end} (UTC)"


_UNDEFINED_TEXT = {
    UndefinedCause.NO_GROWTH: "no native growth G",
    UndefinedCause.TRIGGER_NOT_ABOVE_DRAIN: "T <= P",
}


def undefined_reason(causes: Sequence[UndefinedCause]) -> str:
    """Why a model is undefined, each cause with its code: "NO_GROWTH: no native growth G"."""
    return "; ".join(f"{cause.value}: {_UNDEFINED_TEXT[cause]}" for cause in causes)


def plain_text(parts: Sequence[RenderableType], width: int) -> str:
    """A view as plain text (no colour), whatever the terminal."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, force_terminal=False)
    console.print(Group(*parts))
    return buffer.getvalue()


__all__ = [
    "CURRENCY",
    "binary_size",
    "decimal_text",
    "exact_percent",
    "kilo",
    "money",
    "number",
    "percent",
    "period_text",
    "plain_text",
    "undefined_reason",
]
