"""The simulation's tables: the walk of every physical conversation (`unit.walk`) as polars
tables, and the native growth of each API cohort from them (`growth.cohort_growth`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec
import polars as pl

from clearing_analysis.eligibility import Assessment, OccurrenceTally
from clearing_analysis.inputs.configs import Api, Routes
from clearing_analysis.simulation.growth import Growth, cohort_growth
from clearing_analysis.simulation.unit import walk

BOUNDARY_SCHEMA: Mapping[str, type[pl.DataType] | pl.DataType] = {
    "api": pl.String,
    "journal": pl.Int64,
    "conversation": pl.Int64,
    "lineage": pl.Int64,
    "turn": pl.Int64,
    "tool_starts_before": pl.Int64,
    "prompt_runs_before": pl.Int64,
    "estimate": pl.Int64,
    "usage_based": pl.Boolean,  # E starts from a recorded usage (else heuristic only)
    "effective": pl.Int64,
    "gap_ms": pl.Int64,
    "cold": pl.Boolean,
    "pressured": pl.Boolean,
    "cold_pressured": pl.Boolean,
    "batch_open": pl.Boolean,
    "clearing_point": pl.Boolean,
    "cleared_results": pl.Int64,
    "admitted_net": pl.Int64,
    "admitted_bytes": pl.Int64,
    "budget_stopped": pl.Boolean,
    "budget_left": pl.Int64,
    "upper_bound_net": pl.Int64,
}
CLEARED_SCHEMA: Mapping[str, type[pl.DataType] | pl.DataType] = {
    "api": pl.String,
    "boundary": pl.Int64,
    "conversation": pl.Int64,
    "result": pl.Int64,
    "result_turn": pl.Int64,
    "result_start": pl.Int64,
    "tokens": pl.Int64,
    "net_tokens": pl.Int64,
    "summary_tokens": pl.Int64,
    "text_bytes": pl.Int64,
    "escaped_bytes": pl.Int64,
    "escaped_tokens": pl.Int64,
    "tool_class": pl.String,
    "web": pl.Boolean,
}
REQUEST_SCHEMA: Mapping[str, type[pl.DataType] | pl.DataType] = {
    "api": pl.String,
    "boundary": pl.Int64,
    "input": pl.Int64,
    "output": pl.Int64,
    "cache_read": pl.Int64,
    "cache_write": pl.Int64,
    "fallback": pl.Boolean,
    "context_tokens": pl.Int64,
    "message_tokens": pl.Int64,
    "cleared_tokens_carried": pl.Int64,
    "journal": pl.Int64,
    "day": pl.Int64,  # UTC calendar days since 1970-01-01
    "model": pl.String,  # the catalog model id; null: not in the catalog
}
CHECKPOINT_SCHEMA: Mapping[str, type[pl.DataType] | pl.DataType] = {
    "journal": pl.Int64,
    "api": pl.String,  # null: no request before it in its journal
    "before_turn": pl.Int64,
    "tokens_before": pl.Int64,
    "tokens_after": pl.Int64,
    "summary_tokens": pl.Int64,
    "trigger": pl.String,
    "after_request": pl.Boolean,
}
RESULT_SCHEMA: Mapping[str, type[pl.DataType] | pl.DataType] = {
    "api": pl.String,
    "tool_class": pl.String,
    "web": pl.Boolean,
    "text_bytes": pl.Int64,
    "tokens": pl.Int64,
    "lower_bound_class": pl.Boolean,
    "cleared": pl.Boolean,
}


class Simulation(msgspec.Struct, frozen=True):
    """The simulation's tables and per-API counts (see the package docstring)."""

    boundaries: pl.DataFrame
    cleared: pl.DataFrame
    requests: pl.DataFrame
    results: pl.DataFrame
    checkpoints: pl.DataFrame
    occurrences: Mapping[Api, OccurrenceTally]
    growth: Mapping[Api, Growth]
    placeholder_tokens: int


def frame(
    columns: Mapping[str, Sequence[object]],
    schema: Mapping[str, type[pl.DataType] | pl.DataType],
) -> pl.DataFrame:
    """A table of `schema`'s columns, in its order, from plain columns (a missing one is
    empty)."""
    return pl.DataFrame(
        [pl.Series(name, columns.get(name, []), dtype=dtype) for name, dtype in schema.items()]
    )


def simulate(assessment: Assessment, routes: Routes) -> Simulation:
    """Simulate every physical conversation, in order of first appearance (merge order), into
    tables (tests and views; the pipeline reduces the same walk with `unit.summarize`)."""
    walked = walk(assessment, routes)
    columns = walked.columns
    boundary_table = frame(columns.boundaries.columns, BOUNDARY_SCHEMA)
    checkpoint_table = frame(walked.checkpoints, CHECKPOINT_SCHEMA)
    return Simulation(
        boundaries=boundary_table,
        cleared=frame(columns.cleared.columns, CLEARED_SCHEMA),
        requests=frame(columns.requests.columns, REQUEST_SCHEMA),
        results=frame(walked.results, RESULT_SCHEMA),
        checkpoints=checkpoint_table,
        occurrences=walked.occurrences,
        growth=cohort_growth(boundary_table, checkpoint_table, walked.apis),
        placeholder_tokens=walked.placeholder_tokens,
    )


__all__ = ["Simulation", "frame", "simulate"]
