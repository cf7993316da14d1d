"""Shares as the views print them: one decimal, never a misleading 0.0% or -0.0%."""

from __future__ import annotations

import pytest

from clearing_analysis.report.text.terminal import percent


@pytest.mark.parametrize(
    ("value", "printed"),
    [
        (None, "-"),
        (0.0, "0.0%"),
        (0.05, "5.0%"),
        (0.1234, "12.3%"),
        (-0.00020598, "-0.021%"),  # a tiny cost decrease stays a decrease
        (0.00049, "0.049%"),
        (0.0005, "0.1%"),  # 0.05% rounds to one decimal as usual
    ],
)
def test_percent(value: float | None, printed: str) -> None:
    """Non-zero shares below 0.05% keep two significant digits and their sign."""
    assert percent(value) == printed
