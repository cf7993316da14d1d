"""The units' combination hands its columns over to the tables once (simulation.totals)."""

from __future__ import annotations

import pytest

from clearing_analysis.inputs.configs import Api
from clearing_analysis.simulation.totals import Combiner


def test_the_result_lets_the_columns_go_and_ends_the_combination() -> None:
    """Once the tables are made the combiner holds no column row, and adding another unit
    is a programming error (its offsets would be wrong)."""
    combiner = Combiner([Api.ANTHROPIC_MESSAGES])
    combiner._boundaries["journal"].extend([0, 0, 1])  # three rows, as a unit would add them
    for name, column in combiner._boundaries.items():
        if name != "journal":
            column.extend([None] * 3 if isinstance(column, list) else [0] * 3)
    totals = combiner.result(5)
    assert totals.boundaries.height == 3
    assert all(len(column) == 0 for column in combiner._boundaries.values())
    with pytest.raises(RuntimeError, match="result was taken"):
        combiner.add(object())  # type: ignore[arg-type]
