"""Fixed rounding of modeled numbers for the report (R-OUT-4: byte-identical reports).

Models compute in exact `fractions.Fraction`; only values written into a report are rounded,
here, once: to `DECIMALS` places, correctly rounded (float(Fraction) is correctly rounded, and so
is `round`), with negative zero written as zero. Comparisons against thresholds always use the
exact values, never the rounded ones.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import TypeAlias

DECIMALS = 9

Rounded: TypeAlias = float
"""A modeled number rounded to DECIMALS places (see `rounded`)."""


def rounded(value: Fraction | int | float) -> Rounded:
    """`value` as a float rounded to DECIMALS places; -0.0 becomes 0.0."""
    result = round(float(value), DECIMALS)
    return 0.0 if result == 0 else result


def share(part: int, whole: int) -> Rounded | None:
    """part / whole rounded, or None when whole is 0 (no denominator, no share)."""
    return None if whole == 0 else rounded(Fraction(part, whole))


def apportion(values: Sequence[Fraction], decimals: int = DECIMALS) -> list[int]:
    """Round `values` to integers on the 10^-decimals grid so that they add up exactly to their
    rounded exact sum (largest remainder): a report's components then sum, digit for digit, to
    the total it prints beside them."""
    scale = 10**decimals
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


def on_grid(units: int, decimals: int = DECIMALS) -> Rounded:
    """A grid integer from `apportion` as the float it stands for."""
    value = float(Fraction(units, 10**decimals))
    return 0.0 if value == 0 else value


__all__ = ["DECIMALS", "Rounded", "apportion", "on_grid", "rounded", "share"]
