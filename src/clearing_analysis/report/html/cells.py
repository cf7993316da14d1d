"""What a figure of the page says and how it is written (docs/report.md, "The HTML page").

A figure says what it means by its type, never by its value: a count is an `int`, a modeled
number of no unit (compaction cycles) a `float`, a fraction a `Share` (written in percent,
as the summary writes shares and rates), a list-price cost `Money` (US dollars, the
catalog's currency), a ratio on / off a `Ratio` (x1.023, as the summary writes it). Each is
shown to at most `SHOWN_DIGITS` significant digits and has an exact text, in the same unit,
with every digit the report holds (a table cell's `title`).
"""

from __future__ import annotations

from decimal import Decimal

import msgspec

from clearing_analysis.report.text.terminal import CURRENCY


class Share(msgspec.Struct, frozen=True):
    """A fraction (a share, a rate, a reduction, a share of the quota budget): in percent."""

    value: float | None


class Money(msgspec.Struct, frozen=True):
    """A list-price cost: the route's list prices are currency per million tokens, the
    catalog's US dollars (docs/formats/routes.md)."""

    value: float | None


class Ratio(msgspec.Struct, frozen=True):
    """A ratio on / off, written as a multiple."""

    value: float | None


Cell = str | int | float | bool | None | Share | Money | Ratio

# A decimal figure shows this many significant digits; its exact value is the cell's `title`.
SHOWN_DIGITS = 4
# Beyond these decimal exponents a shown figure is written with one (1.235e+20, 2.802e-7).
_PLAIN_EXPONENTS = range(-6, 15)


def _exact_decimal(value: Decimal) -> str:
    return f"{value:,f}"


def _shown_decimal(exact: Decimal) -> str:
    """`exact` to `SHOWN_DIGITS` significant digits, trailing zeros dropped."""
    if exact == 0:
        return "0"
    shown = exact.quantize(Decimal(1).scaleb(exact.adjusted() - SHOWN_DIGITS + 1))
    if exact.adjusted() not in _PLAIN_EXPONENTS:
        mantissa = shown.scaleb(-shown.adjusted()).normalize()
        return f"{mantissa}e{shown.adjusted():+d}"
    text = f"{shown:,f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _decimal(value: float, unit: type[Share] | type[Money] | type[Ratio]) -> Decimal:
    """The exact decimal of a figure in its unit (a share scaled to percent exactly)."""
    exact = Decimal(repr(value))
    return exact.scaleb(2) if unit is Share else exact


def _with_unit(text: str, unit: type[Share] | type[Money] | type[Ratio]) -> str:
    if unit is Share:
        return f"{text}%"
    if unit is Money:
        return f"{text} {CURRENCY}"
    return f"x{text}"


def exact_text(value: Cell) -> str:
    """A figure's exact text: a number exactly as the report holds it (thousands separated; a
    float with every digit it was rounded to; a share in percent, a cost with its currency, a
    ratio as a multiple), a code or fixed text as it is, `-` for none."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return _exact_decimal(Decimal(repr(value)))
    if isinstance(value, Share | Money | Ratio):
        if value.value is None:
            return "-"
        return _with_unit(_exact_decimal(_decimal(value.value, type(value))), type(value))
    return value


def cell_text(value: Cell) -> str:
    """What a figure shows: a decimal to `SHOWN_DIGITS` significant digits (trailing zeros
    dropped) in its unit, everything else as `exact_text` writes it."""
    if isinstance(value, float):
        return _shown_decimal(Decimal(repr(value)))
    if isinstance(value, Share | Money | Ratio):
        if value.value is None:
            return "-"
        return _with_unit(_shown_decimal(_decimal(value.value, type(value))), type(value))
    return exact_text(value)


def numeric(value: Cell) -> bool:
    """Whether a cell holds a figure (right-aligned), not a code, a word or a yes / no."""
    return isinstance(value, int | float | Share | Money | Ratio) and not isinstance(value, bool)


def money_text(value: float) -> str:
    """A list-price cost in a sentence, as a cell shows it."""
    return cell_text(Money(value))


def share_text(value: float) -> str:
    """A share in a sentence, as a cell shows it."""
    return cell_text(Share(value))


__all__ = [
    "SHOWN_DIGITS",
    "Cell",
    "Money",
    "Ratio",
    "Share",
    "cell_text",
    "exact_text",
    "money_text",
    "numeric",
    "share_text",
]
