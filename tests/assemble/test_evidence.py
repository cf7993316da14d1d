"""The evidence part from hand-built boundary rows (reduced to their figures): pressured and
cold-pressured counts and conversations, the admitting share at the gate's 20,000 net tokens,
the histograms."""

from __future__ import annotations

import json

from clearing_analysis.assemble.parts import evidence_part
from clearing_analysis.inputs.configs import Api, Route, decode_routes
from clearing_analysis.simulation.figures import BoundaryFigures
from tests._figures import boundaries_one
from tests._seed_route import SEED_ROUTE

API = Api.ANTHROPIC_MESSAGES


def _route(**changes: object) -> Route:
    return decode_routes(json.dumps([SEED_ROUTE | changes]).encode()).by_api[API]


def _boundaries() -> BoundaryFigures:
    """Five boundaries over lineages 1, 1, 2, 3, 3: four pressured over three lineages,
    three cold pressured over two, of which two admit 20,000 or more net tokens."""
    columns = {
        "lineage": [1, 1, 2, 3, 3],
        "pressured": [True, False, True, True, True],
        "cold_pressured": [True, False, False, True, True],
        "cold": [True, False, False, True, True],
        "admitted_net": [20_000, 50_000, 90_000, 19_999, 30_000],
        "gap_ms": [400_000, 10, 70_000, 330_000, None],
        "estimate": [500, 1_000, 250_000, 4_999, 20_000],
    }
    return boundaries_one(
        dict(zip(columns, values, strict=True)) for values in zip(*columns.values(), strict=True)
    )


def test_evidence_counts_boundaries_pressure_and_admitting() -> None:
    """4 pressured over 3 conversations, 3 cold over 2, admitting 2 of 3 (19,999 is below
    the threshold, 20,000 is not): the gate's evidence and the report's agree."""
    gate, evidence = evidence_part(_boundaries(), _route())
    assert (gate.boundaries, gate.pressured, gate.pressured_lineages) == (5, 4, 3)
    assert (gate.cold_pressured, gate.cold_pressured_lineages, gate.admitting) == (3, 2, 2)
    assert (evidence.boundaries, evidence.logical_conversations, evidence.admitting) == (5, 3, 2)
    assert evidence.admitting_share == 0.666666666667


def test_evidence_histograms_bucket_gaps_and_estimates() -> None:
    """Gaps 10, 70,000, 330,000, 400,000 ms and one unknown; estimates of every boundary
    and of the three cold ones in the token buckets."""
    _, evidence = evidence_part(_boundaries(), _route())
    assert evidence.request_gaps_ms.counts == (1, 1, 0, 2, 0, 0, 0, 0)
    assert evidence.request_gaps_ms.unknown == 1
    assert evidence.estimates.counts == (1, 2, 0, 0, 1, 0, 0, 0, 0, 1, 0)
    assert evidence.cold_estimates.counts == (1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0)


def test_cold_gap_is_lifetime_plus_margin_or_unknown() -> None:
    """A 300,000 ms lifetime and 30,000 ms margin: cold past 330,000 ms; an unknown lifetime:
    no cold gap."""
    assert evidence_part(_boundaries(), _route())[1].cold_gap_ms == 330_000
    unknown = _route(cacheLifetimeMs="unknown")
    assert evidence_part(_boundaries(), unknown)[1].cold_gap_ms is None


def test_no_boundary_is_zero_evidence() -> None:
    """No boundary: every count zero and the admitting share 0."""
    empty = BoundaryFigures()
    gate, evidence = evidence_part(empty, _route())
    assert (gate.boundaries, gate.pressured, gate.admitting) == (0, 0, 0)
    assert (evidence.admitting_share, sum(evidence.estimates.counts)) == (0.0, 0)
