"""The units' combination (simulation.totals): each unit's figures and sums added in order, its
journal ordinals shifted past the previous units', and nothing added once the result is taken."""

from __future__ import annotations

from typing import Any

import pytest

from clearing_analysis.inputs.configs import Api
from clearing_analysis.policy import WhatIfId
from clearing_analysis.simulation.totals import Combiner
from clearing_analysis.simulation.unit import ApiSimulation, RequestSums, UnitSimulation
from tests._figures import boundaries_one, cleared_one

API = Api.ANTHROPIC_MESSAGES


def _unit(journals: int, boundaries: list[dict[str, Any]], net: list[int]) -> UnitSimulation:
    """A unit of `journals` journals whose first journal made one request on day 3."""
    sums = ApiSimulation(
        requests=RequestSums(requests=1),
        boundaries=boundaries_one(boundaries),
        cleared=cleared_one({"net_tokens": n} for n in net),
    )
    return UnitSimulation(
        journals=journals,
        per_api={API: sums},
        placeholder_tokens=5,
        what_ifs={policy: {} for policy in WhatIfId},
        usage={(API.value, 0, 3, None): RequestSums(requests=1)},
    )


# The first unit's lineages 0 and 1 (E 100 -> 150 in journal 0: an overshoot of 50), the
# second's lineage 0 (E 10 -> 90: 80), both units' lineages their own.
FIRST = [
    {"journal": 0, "lineage": 0, "turn": 0, "estimate": 100, "usage_based": True},
    {"journal": 0, "lineage": 0, "turn": 1, "estimate": 150, "usage_based": True},
    {"journal": 1, "lineage": 1, "turn": 0, "estimate": 7, "pressured": True},
]
SECOND = [
    {"journal": 0, "lineage": 0, "turn": 4, "estimate": 10, "usage_based": True},
    {"journal": 0, "lineage": 0, "turn": 5, "estimate": 90, "usage_based": True},
]


def test_the_units_figures_add_up_to_those_of_all_their_rows() -> None:
    """Two units combined: the figures of all five boundaries, their lineages apart (3),
    the largest overshoot (80), both units' cleared results, and the second unit's usage
    row under journal 2, past the first unit's two journals."""
    combiner = Combiner([API])
    combiner.add(_unit(2, FIRST, [1_000, 2_000]))
    combiner.add(_unit(1, SECOND, [500]))
    totals = combiner.result(5)
    every = boundaries_one([*FIRST, *({**row, "journal": 2, "lineage": 2} for row in SECOND)])
    combined = totals.per_api[API]
    assert combined.boundaries == every
    assert (every.boundaries, every.lineages, every.pressured, every.overshoot) == (5, 3, 1, 80)
    assert (combined.cleared.results, combined.cleared.net_tokens) == (3, 3_500)
    assert combined.requests.requests == 2
    assert sorted(totals.usage) == [(API.value, 0, 3, None), (API.value, 2, 3, None)]


def test_nothing_is_added_after_the_result() -> None:
    """Adding a unit after the result was taken is a programming error."""
    combiner = Combiner([API])
    combiner.result(5)
    with pytest.raises(RuntimeError, match="result was taken"):
        combiner.add(_unit(1, SECOND, []))


def test_without_the_usage_tables_no_usage_row_is_kept() -> None:
    """A combination that does not keep the usage (no `--by`) holds no row per journal; the
    per-API request sums are added all the same."""
    combiner = Combiner([API], usage=False)
    combiner.add(_unit(2, FIRST, []))
    combiner.add(_unit(1, SECOND, []))
    totals = combiner.result(5)
    assert totals.usage == {}
    assert totals.per_api[API].requests.requests == 2
