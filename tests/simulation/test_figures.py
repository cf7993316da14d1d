"""The units' figures (`simulation.figures`) against their definitions as polars expressions
over the simulation's tables (`tests.simulation.table_figures`), on generated tables: every
count, sum, histogram, lineage count and the overshoot; and figures of parts add up to the
figures of the whole, which is what lets the main process hold sums instead of rows."""

from __future__ import annotations

from typing import Any

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from clearing_analysis.simulation.clearing import BOUNDARY_COLUMNS, CLEARED_COLUMNS
from clearing_analysis.simulation.figures import (
    BoundaryFigures,
    CheckpointFigures,
    ClearedFigures,
    boundary_figures,
    checkpoint_figures,
    cleared_figures,
)
from clearing_analysis.simulation.run import BOUNDARY_SCHEMA, CHECKPOINT_SCHEMA, CLEARED_SCHEMA
from clearing_analysis.simulation.unit import CHECKPOINT_COLUMNS
from tests._figures import columns
from tests.simulation.table_figures import (
    boundary_reference,
    checkpoint_reference,
    cleared_reference,
)

APIS = ("anthropic-messages", "openai-responses")
# Values around the policy's edges and thresholds: the 20,000 admitted net tokens, the token
# buckets, the gap buckets (and unknown gaps).
TOKENS = st.sampled_from([0, 1, 999, 1_000, 19_999, 20_000, 20_001, 150_000, 400_000, 10**9])
GAPS = st.one_of(st.none(), st.sampled_from([0, 10, 59_999, 60_000, 330_000, 330_001, 10**8]))


@st.composite
def _boundary_rows(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Boundaries of a few journals and APIs, each (journal, API) with distinct turns (the
    simulation counts a turn once), some adjacent, lineages shared between journals."""
    rows = []
    for journal in range(draw(st.integers(0, 4))):
        api = draw(st.sampled_from(APIS))
        turns = sorted(draw(st.sets(st.integers(0, 12), max_size=6)))
        for turn in draw(st.permutations(turns)):
            cold = draw(st.booleans())
            pressured = draw(st.booleans())
            rows.append(
                {
                    "api": api,
                    "journal": journal,
                    "conversation": journal,
                    "lineage": draw(st.integers(0, 2)),
                    "turn": turn,
                    "estimate": draw(TOKENS),
                    "usage_based": draw(st.booleans()),
                    "gap_ms": draw(GAPS),
                    "cold": cold,
                    "pressured": pressured,
                    "cold_pressured": cold and pressured,
                    "clearing_point": draw(st.booleans()),
                    "cleared_results": draw(st.integers(0, 2)),
                    "admitted_net": draw(TOKENS),
                    "budget_stopped": draw(st.booleans()),
                    "upper_bound_net": draw(TOKENS),
                }
            )
    return rows


CHECKPOINT_ROWS = st.lists(
    st.fixed_dictionaries(
        {
            "journal": st.integers(0, 4),
            "api": st.sampled_from(APIS),
            "before_turn": st.integers(0, 13),
            "tokens_before": TOKENS,
            "tokens_after": TOKENS,
            "summary_tokens": TOKENS,
            "trigger": st.sampled_from(["THRESHOLD", "MANUAL", "OVERFLOW"]),
            "after_request": st.booleans(),
        }
    ),
    max_size=6,
)
CLEARED_ROWS = st.lists(
    st.fixed_dictionaries(
        {
            "api": st.sampled_from(APIS),
            "net_tokens": TOKENS,
            "text_bytes": TOKENS,
            "escaped_bytes": TOKENS,
            "escaped_tokens": TOKENS,
            "summary_tokens": TOKENS,
        }
    ),
    max_size=6,
)


def _table(rows: list[dict[str, Any]], schema: Any, layout: Any) -> pl.DataFrame:
    return pl.DataFrame(columns(layout, rows), schema=schema)


@settings(max_examples=150, deadline=None)
@given(_boundary_rows(), CHECKPOINT_ROWS)
def test_boundary_figures_are_the_table_expressions(
    rows: list[dict[str, Any]], observed: list[dict[str, Any]]
) -> None:
    """Per API, every boundary figure equals its polars definition over the API's rows, the
    overshoot cut by the observed checkpoints of every API."""
    figures = boundary_figures(
        columns(BOUNDARY_COLUMNS, rows), columns(CHECKPOINT_COLUMNS, observed)
    )
    table = _table(rows, BOUNDARY_SCHEMA, BOUNDARY_COLUMNS)
    checkpoints = _table(observed, CHECKPOINT_SCHEMA, CHECKPOINT_COLUMNS)
    assert set(figures) == {row["api"] for row in rows}
    for api in APIS:
        expected = boundary_reference(table.filter(pl.col("api") == api), checkpoints)
        assert figures.get(api, BoundaryFigures()) == expected


@settings(max_examples=100, deadline=None)
@given(CLEARED_ROWS, CHECKPOINT_ROWS)
def test_cleared_and_checkpoint_figures_are_the_table_expressions(
    cleared: list[dict[str, Any]], observed: list[dict[str, Any]]
) -> None:
    """Per API, the cleared sums and the checkpoint figures (by trigger, the histograms, the
    threshold compactions after a request) equal their polars definitions."""

    sums = cleared_figures(columns(CLEARED_COLUMNS, cleared))
    figures = checkpoint_figures(columns(CHECKPOINT_COLUMNS, observed))
    cleared_table = _table(cleared, CLEARED_SCHEMA, CLEARED_COLUMNS)
    checkpoint_table = _table(observed, CHECKPOINT_SCHEMA, CHECKPOINT_COLUMNS)
    for api in APIS:
        mine = pl.col("api") == api
        assert sums.get(api, ClearedFigures()) == cleared_reference(cleared_table.filter(mine))
        assert figures.get(api, CheckpointFigures()) == checkpoint_reference(
            checkpoint_table.filter(mine)
        )


@settings(max_examples=100, deadline=None)
@given(_boundary_rows(), _boundary_rows(), CHECKPOINT_ROWS, CHECKPOINT_ROWS)
def test_two_units_figures_add_up_to_the_whole(
    first: list[dict[str, Any]],
    second: list[dict[str, Any]],
    first_observed: list[dict[str, Any]],
    second_observed: list[dict[str, Any]],
) -> None:
    """Two units' figures added are the figures of both units' rows, the second unit's
    journals and lineages numbered past the first's (as the units' ordinals are their own)."""

    def figures(rows: list[dict[str, Any]], observed: list[dict[str, Any]]) -> Any:
        return boundary_figures(
            columns(BOUNDARY_COLUMNS, rows), columns(CHECKPOINT_COLUMNS, observed)
        )

    shifted = [
        row | {"journal": row["journal"] + 5, "lineage": row["lineage"] + 3} for row in second
    ]
    shifted_observed = [row | {"journal": row["journal"] + 5} for row in second_observed]
    whole = figures([*first, *shifted], [*first_observed, *shifted_observed])
    added = figures(first, first_observed)
    for api, part in figures(second, second_observed).items():
        added.setdefault(api, BoundaryFigures()).add(part)
    assert added == whole
