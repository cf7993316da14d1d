"""Run the simulation over every physical conversation and build its tables."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import polars as pl

from clearing_analysis.eligibility import Assessment, Boundary, OccurrenceTally
from clearing_analysis.inputs.configs import Api, Routes
from clearing_analysis.policy import placeholder_text
from clearing_analysis.replay.heuristic import text_tokens
from clearing_analysis.simulation.clearing import Columns, ConversationSimulator
from clearing_analysis.simulation.growth import Growth, cohort_growth

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


@dataclass(frozen=True)
class Simulation:
    """The simulation's tables and per-API counts (see the package docstring)."""

    boundaries: pl.DataFrame
    cleared: pl.DataFrame
    requests: pl.DataFrame
    results: pl.DataFrame
    checkpoints: pl.DataFrame
    occurrences: Mapping[Api, OccurrenceTally]
    growth: Mapping[Api, Growth]
    placeholder_tokens: int


def _frame(
    columns: dict[str, list[object]], schema: Mapping[str, type[pl.DataType] | pl.DataType]
) -> pl.DataFrame:
    data = {name: columns.get(name, []) for name in schema}
    return pl.DataFrame(data, schema=dict(schema))


def _unique_results(assessment: Assessment, cleared_ids: set[str]) -> dict[str, list[object]]:
    """One row per unique result (by finalized id, per API) of the counted boundaries' turns."""
    columns: dict[str, list[object]] = {name: [] for name in RESULT_SCHEMA}
    seen: set[tuple[Api, str]] = set()
    for boundary in assessment.boundaries:
        journal = assessment.replay.journals[boundary.journal].journal
        classes = assessment.classes[boundary.journal]
        for slot in boundary.replayed.turn_results:
            result = journal.results[slot]
            key = (boundary.api, result.finalized_id)
            if key in seen:
                continue
            seen.add(key)
            result_class = classes[slot]
            row: dict[str, object] = {
                "api": boundary.api.value,
                "tool_class": result.tool_class.value,
                "web": result.web,
                "text_bytes": result.text_bytes,
                "tokens": result.tokens,
                "lower_bound_class": result_class.fixed is None and result_class.shortfall is None,
                "cleared": result.finalized_id in cleared_ids,
            }
            for name, value in row.items():
                columns[name].append(value)
    return columns


def _checkpoints(assessment: Assessment) -> dict[str, list[object]]:
    """One row per observed checkpoint of every contributing journal (no text)."""
    columns: dict[str, list[object]] = {name: [] for name in CHECKPOINT_SCHEMA}
    for position, merged in enumerate(assessment.replay.journals):
        for checkpoint in merged.journal.checkpoints:
            row: dict[str, object] = {
                "journal": position,
                "api": checkpoint.api,
                "before_turn": checkpoint.before_turn,
                "tokens_before": checkpoint.tokens_before,
                "tokens_after": checkpoint.tokens_after,
                "summary_tokens": checkpoint.summary_tokens,
                "trigger": checkpoint.trigger.upper(),
                "after_request": checkpoint.after_request,
            }
            for name, value in row.items():
                columns[name].append(value)
    return columns


def simulate(assessment: Assessment, routes: Routes) -> Simulation:
    """Simulate every physical conversation, in order of first appearance (merge order)."""
    placeholder_tokens = text_tokens(placeholder_text())
    columns = Columns()
    tallies = {api: OccurrenceTally() for api in assessment.per_api}
    simulator = ConversationSimulator(
        assessment, dict(routes.by_api), columns, tallies, placeholder_tokens
    )
    conversations: dict[str, list[Boundary]] = {}
    lineages: dict[str, int] = {}
    for boundary in assessment.boundaries:
        conversations.setdefault(boundary.physical_conversation_id, []).append(boundary)
        lineages.setdefault(boundary.logical_conversation_id, len(lineages))
    cleared_ids: set[str] = set()
    for ordinal, boundaries in enumerate(conversations.values()):
        lineage = lineages[boundaries[0].logical_conversation_id]
        cleared_ids |= simulator.run(boundaries, ordinal, lineage)
    boundary_table = _frame(columns.boundaries, BOUNDARY_SCHEMA)
    checkpoint_table = _frame(_checkpoints(assessment), CHECKPOINT_SCHEMA)
    return Simulation(
        boundaries=boundary_table,
        cleared=_frame(columns.cleared, CLEARED_SCHEMA),
        requests=_frame(columns.requests, REQUEST_SCHEMA),
        results=_frame(_unique_results(assessment, cleared_ids), RESULT_SCHEMA),
        checkpoints=checkpoint_table,
        occurrences=tallies,
        growth=cohort_growth(boundary_table, checkpoint_table, assessment.per_api),
        placeholder_tokens=placeholder_tokens,
    )


__all__ = ["Simulation", "simulate"]
