"""Fixed rounding of modeled numbers for the report (R-OUT-4: byte-identical reports).

Models compute in exact `fractions.Fraction`; only values written into a report are rounded,
here, once: to `SIGNIFICANT_DIGITS` significant digits, correctly rounded (half to even, from
the exact value), with negative zero written as zero. A fixed number of significant digits, not
of decimal places, so that a per-token blend of 1.61e-09 prints as itself and a reader can
rebuild every figure from the printed ones (R-OUT-4 decision). Comparisons against thresholds
always use the exact values, never the rounded ones.

Figures that must add up as printed (a cost view's off arm, its signed components and on) share
one decimal grid, `shared_grid`: fine enough for 12 significant digits of the smallest non-zero
figure, but never finer than 15 significant digits of the largest, the most a double holds
exactly; on that grid `apportion` rounds them so that they add up digit for digit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import TypeAlias

SIGNIFICANT_DIGITS = 12
# A decimal of at most 15 significant digits survives the round trip through a double, so a
# printed figure on a shared grid is exactly the decimal the grid gave it.
DOUBLE_EXACT_DIGITS = 15

Rounded: TypeAlias = float
"""A modeled number rounded to SIGNIFICANT_DIGITS significant digits (see `rounded`)."""


def decimal_exponent(value: Fraction) -> int:
    """floor(log10(|value|)) of a non-zero value, exactly."""
    magnitude = abs(value)
    if magnitude == 0:
        raise ValueError("zero has no decimal exponent")
    exponent = len(str(magnitude.numerator)) - len(str(magnitude.denominator))
    while Fraction(10) ** exponent > magnitude:
        exponent -= 1
    while Fraction(10) ** (exponent + 1) <= magnitude:
        exponent += 1
    return exponent


def _to_grid(value: Fraction, decimals: int) -> int:
    """`value` in units of 10^-decimals, rounded half to even."""
    return round(value * Fraction(10) ** decimals)


def on_grid(units: int, decimals: int) -> Rounded:
    """A grid integer (units of 10^-decimals) as the float it stands for; never -0.0."""
    value = float(Fraction(units) / Fraction(10) ** decimals)
    return 0.0 if value == 0 else value


def rounded(value: Fraction | int | float) -> Rounded:
    """`value` rounded to SIGNIFICANT_DIGITS significant digits, as a float; -0.0 is 0.0."""
    exact = Fraction(value)
    if exact == 0:
        return 0.0
    decimals = SIGNIFICANT_DIGITS - 1 - decimal_exponent(exact)
    return on_grid(_to_grid(exact, decimals), decimals)


def share(part: int, whole: int) -> Rounded | None:
    """part / whole rounded, or None when whole is 0 (no denominator, no share)."""
    return None if whole == 0 else rounded(Fraction(part, whole))


def shared_grid(values: Iterable[Fraction]) -> int:
    """The decimals of one grid for figures printed together (see the module docstring)."""
    exponents = [decimal_exponent(v) for v in values if v != 0]
    if not exponents:
        return 0
    return min(
        SIGNIFICANT_DIGITS - 1 - min(exponents),
        DOUBLE_EXACT_DIGITS - 1 - max(exponents),
    )


def apportion(values: Sequence[Fraction], decimals: int) -> list[int]:
    """Round `values` to integers on the 10^-decimals grid so that they add up exactly to their
    rounded exact sum (largest remainder): a report's components then sum, digit for digit, to
    the total it prints beside them."""
    scale = Fraction(10) ** decimals
    scaled = [value * scale for value in values]
    floors = [math.floor(x) for x in scaled]
    target = math.floor(sum(scaled, Fraction(0)) + Fraction(1, 2))
    missing = target - sum(floors)
    # Give one unit to the `missing` largest remainders (ties: earlier first). `missing` lies
    # in [0, len(values)] because each remainder is in [0, 1).
    order = sorted(range(len(values)), key=lambda i: (-(scaled[i] - floors[i]), i))
    for index in order[:missing]:
        floors[index] += 1
    return floors


__all__ = [
    "SIGNIFICANT_DIGITS",
    "Rounded",
    "apportion",
    "decimal_exponent",
    "on_grid",
    "rounded",
    "share",
    "shared_grid",
]
