"""Fixed rounding of modeled numbers for the report (R-OUT-4: byte-identical reports).

Models compute in exact `fractions.Fraction`; only values written into a report are rounded,
here, once: to `DECIMALS` places, correctly rounded (float(Fraction) is correctly rounded, and so
is `round`), with negative zero written as zero. Comparisons against thresholds always use the
exact values, never the rounded ones.
"""

from __future__ import annotations

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


__all__ = ["DECIMALS", "Rounded", "rounded", "share"]
