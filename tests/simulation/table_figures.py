"""The per-API figures as polars expressions over the simulation's tables: the definitions
`simulation.figures` must match (the assembling read them so before the units reduced their
rows). Test code only."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from clearing_analysis.policy import gate_policy, histogram_edges
from clearing_analysis.simulation.figures import (
    BoundaryFigures,
    Buckets,
    CheckpointFigures,
    ClearedFigures,
)
from clearing_analysis.simulation.growth import trigger_evidence


def _int(frame: pl.DataFrame, expression: pl.Expr) -> int:
    value = frame.select(expression).item()
    return 0 if value is None else int(value)


def buckets(values: pl.Series, edges: Sequence[int]) -> Buckets:
    """Value v in the last bucket whose edge is <= v; below the first edge; null unknown."""
    bounds = [*edges[1:], None]
    known = values.drop_nulls()
    counts = [
        int(((known >= low) & (known < high)).sum())
        if high is not None
        else int((known >= low).sum())
        for low, high in zip(edges, bounds, strict=True)
    ]
    below = int((known < edges[0]).sum())
    return Buckets(tuple(edges), counts, below, values.null_count())


def overshoot(boundaries: pl.DataFrame, checkpoints: pl.DataFrame) -> int:
    """The largest growth of E between adjacent usage-based boundaries of one journal (turn t,
    then t + 1) with no checkpoint of `checkpoints` (any API's) before t + 1; 0 with none:
    `growth.trigger_evidence`, the route check's definition over the tables."""
    return trigger_evidence(boundaries, checkpoints, checkpoints.clear())[1]


def boundary_reference(boundaries: pl.DataFrame, checkpoints: pl.DataFrame) -> BoundaryFigures:
    """One API's boundary table as figures; `checkpoints`: the observed ones of every API."""
    threshold = gate_policy().admitted_net_tokens_per_boundary
    edges = histogram_edges()
    pressured = boundaries.filter(pl.col("pressured"))
    cold = boundaries.filter(pl.col("cold_pressured"))
    batches = boundaries.filter(pl.col("cleared_results") > 0)
    warm = boundaries.filter(pl.col("pressured") & ~pl.col("cold"))
    return BoundaryFigures(
        boundaries=boundaries.height,
        lineages=boundaries.get_column("lineage").n_unique(),
        pressured=pressured.height,
        pressured_lineages=pressured.get_column("lineage").n_unique(),
        cold_pressured=cold.height,
        cold_pressured_lineages=cold.get_column("lineage").n_unique(),
        admitting=cold.filter(pl.col("admitted_net") >= threshold).height,
        request_gaps_ms=buckets(boundaries.get_column("gap_ms"), edges.request_gap_ms),
        estimates=buckets(boundaries.get_column("estimate"), edges.tokens),
        cold_estimates=buckets(
            boundaries.filter(pl.col("cold")).get_column("estimate"), edges.tokens
        ),
        clearing_points=_int(boundaries, pl.col("clearing_point").sum()),
        batches=batches.height,
        admitted_per_batch=buckets(batches.get_column("admitted_net"), edges.tokens),
        budget_stops=_int(boundaries, pl.col("budget_stopped").sum()),
        upper_bound_net_tokens=_int(boundaries, pl.col("upper_bound_net").sum()),
        upper_bound_admitting=cold.filter(pl.col("upper_bound_net") >= threshold).height,
        warm_pressured=warm.height,
        warm_pressured_unknown_gap=warm.filter(pl.col("gap_ms").is_null()).height,
        warm_pressured_tokens=_int(warm, pl.col("estimate").sum()),
        overshoot=overshoot(boundaries, checkpoints),
    )


def cleared_reference(cleared: pl.DataFrame) -> ClearedFigures:
    """One API's cleared-result table as sums."""
    return ClearedFigures(
        results=cleared.height,
        net_tokens=_int(cleared, pl.col("net_tokens").sum()),
        text_bytes=_int(cleared, pl.col("text_bytes").sum()),
        escaped_bytes=_int(cleared, pl.col("escaped_bytes").sum()),
        escaped_tokens=_int(cleared, pl.col("escaped_tokens").sum()),
        summary_tokens=_int(cleared, pl.col("summary_tokens").sum()),
    )


def checkpoint_reference(checkpoints: pl.DataFrame) -> CheckpointFigures:
    """One API's observed checkpoints as figures (the threshold list in row order)."""
    edges = histogram_edges().tokens
    triggers = checkpoints.group_by("trigger").agg(pl.len()).sort("trigger")
    threshold = checkpoints.filter((pl.col("trigger") == "THRESHOLD") & pl.col("after_request"))
    return CheckpointFigures(
        checkpoints=checkpoints.height,
        by_trigger={row[0]: int(row[1]) for row in triggers.rows()},
        tokens_before=buckets(checkpoints.get_column("tokens_before"), edges),
        tokens_after=buckets(checkpoints.get_column("tokens_after"), edges),
        summary_tokens=buckets(checkpoints.get_column("summary_tokens"), edges),
        threshold_tokens_before=threshold.get_column("tokens_before").to_list(),
    )
