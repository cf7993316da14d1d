"""The simulation part from hand-built boundary and cleared-result rows (reduced to their
figures): clearing points, batches, the cleared sums, budget stops and the informational upper
bound (R-SIM-4..10)."""

from __future__ import annotations

from typing import Any

from clearing_analysis.assemble.parts import simulation_part
from clearing_analysis.simulation.figures import BoundaryFigures, ClearedFigures
from tests._figures import boundaries_one, cleared_one


def _rows(columns: dict[str, list[Any]]) -> list[dict[str, Any]]:
    return [
        dict(zip(columns, values, strict=True)) for values in zip(*columns.values(), strict=True)
    ]


def _boundaries() -> BoundaryFigures:
    """Four boundaries: b0 a clearing point that cleared 2 results (25,000 net); b1 one whose
    first result did not fit the budget (a stop, no batch); b2 one that cleared 1 (4,000 net)
    and then stopped; b3 no clearing point, not cold pressured."""
    return boundaries_one(
        _rows(
            {
                "clearing_point": [True, True, True, False],
                "cleared_results": [2, 0, 1, 0],
                "admitted_net": [25_000, 0, 4_000, 0],
                "budget_stopped": [False, True, True, False],
                "upper_bound_net": [30_000, 20_000, 19_999, 50_000],
                "cold_pressured": [True, True, True, False],
            }
        )
    )


def _cleared(net: list[int], text: list[int], escaped: list[int]) -> ClearedFigures:
    return cleared_one(_rows({"net_tokens": net, "text_bytes": text, "escaped_tokens": escaped}))


def test_simulation_part_sums_the_boundaries_and_cleared_rows() -> None:
    """3 clearing points, 2 batches (b1 cleared nothing), 3 cleared results of 12,000 +
    13,000 + 4,000 = 29,000 net tokens, 48,112 + 52,112 + 16,112 = 116,336 text bytes and
    12,100 + 13,050 + 4,040 = 29,190 escaped tokens; 2 budget stops; the placeholder's 28
    tokens passed through."""
    cleared = _cleared([12_000, 13_000, 4_000], [48_112, 52_112, 16_112], [12_100, 13_050, 4_040])
    part = simulation_part(_boundaries(), cleared, placeholder_tokens=28)
    assert (part.clearing_points, part.batches, part.cleared_results) == (3, 2, 3)
    assert (part.admitted_net_tokens, part.admitted_text_bytes, part.retrieved_tokens) == (
        29_000,
        116_336,
        29_190,
    )
    assert (part.budget_stops, part.placeholder_tokens) == (2, 28)


def test_simulation_part_buckets_admitted_per_batch() -> None:
    """The two batches' 25,000 and 4,000 admitted tokens fall in the 20,000 and 1,000
    buckets; b1 admitted nothing and is no batch, so it is not bucketed at 0."""
    cleared = _cleared([12_000, 13_000, 4_000], [1, 1, 1], [1, 1, 1])
    histogram = simulation_part(_boundaries(), cleared, 28).admitted_per_batch
    assert histogram.edges == (
        0,
        1_000,
        5_000,
        10_000,
        20_000,
        40_000,
        80_000,
        120_000,
        160_000,
        200_000,
        400_000,
    )
    assert histogram.counts == (0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0)
    assert (histogram.below, histogram.unknown) == (0, 0)


def test_simulation_part_upper_bound_is_every_boundarys_but_admitting_only_cold() -> None:
    """The upper bound sums every boundary's 30,000 + 20,000 + 19,999 + 50,000 = 119,999;
    it admits at b0 and b1 (cold pressured, at least 20,000), not at b2 (19,999) nor b3
    (50,000 but not cold pressured)."""
    part = simulation_part(_boundaries(), _cleared([], [], []), 28)
    assert (part.upper_bound_net_tokens, part.upper_bound_admitting) == (119_999, 2)


def test_simulation_part_of_no_row_is_zeros() -> None:
    """No rows: every count and sum 0, an empty histogram."""
    part = simulation_part(BoundaryFigures(), _cleared([], [], []), 28)
    assert (part.clearing_points, part.batches, part.cleared_results) == (0, 0, 0)
    assert (part.admitted_net_tokens, part.admitted_text_bytes, part.retrieved_tokens) == (0, 0, 0)
    assert (part.budget_stops, part.upper_bound_net_tokens, part.upper_bound_admitting) == (
        0,
        0,
        0,
    )
    assert sum(part.admitted_per_batch.counts) == 0
