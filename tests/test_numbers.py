"""Rounding of printed figures (R-OUT-4): 12 significant digits, shared grids that add up."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clearing_analysis.numbers import (
    apportion,
    decimal_exponent,
    on_grid,
    rounded,
    share,
    shared_grid,
)


@pytest.mark.parametrize(
    ("value", "printed"),
    [
        (Fraction(161, 10**11), "1.61e-09"),  # a per-token blend: 9 decimals printed 2e-09
        (Fraction(1, 3), "0.333333333333"),
        (Fraction(2, 3) / 10**9, "6.66666666667e-10"),
        (Fraction(123_456_789_012_345), "123456789012000.0"),
        (Fraction(-1, 10**20), "-1e-20"),
        (Fraction(0), "0.0"),
        (Fraction(-0), "0.0"),
        (Fraction(25, 10**12), "2.5e-11"),
    ],
    ids=["blend", "third", "tiny", "large", "negative", "zero", "negative-zero", "short"],
)
def test_rounded_keeps_twelve_significant_digits(value: Fraction, printed: str) -> None:
    """A figure keeps 12 significant digits whatever its magnitude; zero is never -0.0."""
    assert repr(rounded(value)) == printed


def test_rounding_is_half_to_even_from_the_exact_value() -> None:
    """The 13th digit exactly 5 rounds to even; a hair above it rounds up."""
    assert rounded(Fraction(1_234_567_890_125, 10**13)) == 0.123456789012
    assert rounded(Fraction(1_234_567_890_135, 10**13)) == 0.123456789014
    assert rounded(Fraction(12_345_678_901_250_001, 10**17)) == 0.123456789013


def test_share_is_none_without_a_denominator() -> None:
    """part / whole at 12 digits, None when whole is 0."""
    assert share(1, 3) == 0.333333333333
    assert share(0, 0) is None


@given(
    st.fractions(min_value=Fraction(-(10**12)), max_value=Fraction(10**12)).filter(lambda v: v != 0)
)
def test_rounded_is_within_half_a_unit_of_the_twelfth_digit(value: Fraction) -> None:
    """|rounded - exact| <= 5e-12 relative (plus the double's own last bit)."""
    printed = Fraction(Decimal(repr(rounded(value))))
    assert abs(printed - value) <= abs(value) * Fraction(5, 10**12) * (1 + Fraction(1, 10**3))
    assert len(Decimal(repr(rounded(value))).normalize().as_tuple().digits) <= 12


@given(st.fractions(min_value=Fraction(1, 10**30), max_value=Fraction(10**30)))
def test_decimal_exponent_is_floor_log10(value: Fraction) -> None:
    """10^e <= |value| < 10^(e+1), for either sign."""
    for signed in (value, -value):
        exponent = decimal_exponent(signed)
        assert Fraction(10) ** exponent <= value < Fraction(10) ** (exponent + 1)


def test_shared_grid_gives_the_smallest_twelve_digits_within_double_precision() -> None:
    """12 significant digits of the smallest non-zero figure, at most 15 of the largest."""
    assert shared_grid([Fraction(9), Fraction(1, 100)]) == 13  # 0.01 gets 12 digits
    assert shared_grid([Fraction(20), Fraction(1, 10**6)]) == 13  # capped: 20 gets 15
    assert shared_grid([Fraction(0)]) == 0


@given(
    st.lists(
        st.fractions(min_value=Fraction(-100), max_value=Fraction(100), max_denominator=10**9),
        min_size=1,
        max_size=8,
    )
)
def test_apportioned_components_add_up_as_printed(values: list[Fraction]) -> None:
    """On a shared grid, the printed components add up, as decimals, to their printed total,
    and each printed figure is exactly the decimal its grid gave it (a double holds it)."""
    decimals = shared_grid([*values, sum(values, Fraction(0))])
    units = apportion(values, decimals)
    total = sum(units)
    printed = [Fraction(Decimal(repr(on_grid(u, decimals)))) for u in units]
    assert sum(printed, Fraction(0)) == Fraction(Decimal(repr(on_grid(total, decimals))))
    for value, unit in zip(values, units, strict=True):
        assert abs(Fraction(unit) / Fraction(10) ** decimals - value) < Fraction(10) ** -decimals
