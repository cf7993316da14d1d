"""The step-by-step clearing simulation of one physical conversation (R-SIM-4, R-SIM-8..10).

Counted boundaries of the conversation are visited in time order (request time, then merge
order; each journal's boundaries stay in turn order). At each boundary every result in context
is classified (`eligibility.classified_context`) and counted once, and:

- E is the native estimate; the effective occupancy is E minus the net tokens of results
  already cleared that are still in this context (R-SIM-8);
- the boundary clears only when it is cold, 0.75·T <= effective < T, and the batch gate is
  open (no batch yet, or at least five completed prompt runs since the last batch);
- it clears lower-bound results not counted before, oldest first, each pinning its original
  text bytes against the conversation's 8 MiB budget; a result whose net tokens are <= 0 is
  skipped, and clearing stops at the first result that does not fit (R-SIM-10);
- a result cleared once is counted once, ever; a checkpoint that compacts it out of the
  context releases its pin, never its counted status (R-SIM-9). Pins and the budget belong to
  the physical conversation, not to a journal file (R-SIM-4 decision): a checkpoint in any
  journal of the conversation (a resumed copy of it, say) that compacts away its copy of a
  cleared result releases that result's pin.

The outputs are plain columns (one row per counted boundary, per cleared result, per request)
with ordinal keys, no identifier and no text; `simulation.tables` turns them into polars tables.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from clearing_analysis.eligibility import (
    Assessment,
    Boundary,
    ContextCursor,
    EligibilityClass,
    OccurrenceTally,
    classified_context,
)
from clearing_analysis.eligibility.reasons import class_of
from clearing_analysis.inputs.configs import Api, Route
from clearing_analysis.policy import simulation_policy
from clearing_analysis.replay.heuristic import tokens_for_units
from clearing_analysis.replay.model import RequestUsage, ToolResult

_UPPER_CLASSES = frozenset({EligibilityClass.LOWER_BOUND, EligibilityClass.UPPER_BOUND_ONLY})


def usage_is_fallback(request: RequestUsage) -> bool:
    """Whether a request's cost falls back to the labeled uncached heuristic (R-CM-1).

    Only a missing usage does: all four token counts zero. An aborted or errored request that
    reports usage was billed for it and is costed from it, whatever its stopReason (R-CM-1
    decision; R-SIM-1's exclusion of error / aborted usage is for the estimate E only).
    """
    return not request.usage_recorded


def is_cold(route: Route, gap_ms: int | None) -> bool:
    """Strictly beyond lifetime + margin; an unknown lifetime or gap is never cold (R-SIM-3)."""
    if route.cache_lifetime_ms == "unknown" or gap_ms is None:
        return False
    return gap_ms > route.cache_lifetime_ms + route.cache_margin_ms


def in_pressure_band(tokens: int, trigger: int) -> bool:
    """0.75·T <= tokens < T (R-SIM-2), in exact arithmetic."""
    low = Fraction(str(simulation_policy().pressure_low_fraction)) * trigger
    return low <= tokens < trigger


@dataclass
class Columns:
    """Append-only columns of the simulation's three tables."""

    boundaries: dict[str, list[object]] = field(default_factory=dict)
    cleared: dict[str, list[object]] = field(default_factory=dict)
    requests: dict[str, list[object]] = field(default_factory=dict)

    @staticmethod
    def _append(table: dict[str, list[object]], row: dict[str, object]) -> None:
        for key, value in row.items():
            table.setdefault(key, []).append(value)

    def next_boundary_row(self) -> int:
        """The row number the next boundary row will get."""
        return len(self.boundaries.get("api", ()))

    def boundary(self, row: dict[str, object]) -> None:
        """Append a boundary row."""
        self._append(self.boundaries, row)

    def cleared_result(self, row: dict[str, object]) -> None:
        """Append a cleared-result row."""
        self._append(self.cleared, row)

    def request(self, row: dict[str, object]) -> None:
        """Append a request row."""
        self._append(self.requests, row)


@dataclass
class _Conversation:
    """What persists across one physical conversation's boundaries."""

    budget_left: int
    counted: dict[str, int] = field(default_factory=dict)  # finalized id -> net tokens
    pins: dict[str, int] = field(default_factory=dict)  # finalized id -> original text bytes
    last_batch_runs: int | None = None


def _time_order(boundaries: Sequence[Boundary]) -> Iterator[Boundary]:
    """Merge the journals' boundary sequences by (request time, journal, turn)."""
    per_journal: dict[int, list[Boundary]] = {}
    for boundary in boundaries:
        per_journal.setdefault(boundary.journal, []).append(boundary)
    return heapq.merge(
        *per_journal.values(),
        key=lambda b: (b.replayed.request_ms, b.journal, b.replayed.turn_index),
    )


class ConversationSimulator:
    """Simulates the counted boundaries of one physical conversation into `columns`."""

    def __init__(
        self,
        assessment: Assessment,
        routes: dict[Api, Route],
        columns: Columns,
        tallies: dict[Api, OccurrenceTally],
        placeholder_tokens: int,
    ) -> None:
        self._assessment = assessment
        self._routes = routes
        self._columns = columns
        self._tallies = tallies
        self._placeholder_tokens = placeholder_tokens
        self._policy = simulation_policy()
        # Ordinal of each cleared result by finalized id, first-come: the tables' result key.
        self.result_keys: dict[str, int] = {}

    def run(self, boundaries: Sequence[Boundary], conversation: int, lineage: int) -> set[str]:
        """Visit the conversation's counted boundaries in time order; return the finalized ids
        it cleared (in memory only)."""
        state = _Conversation(budget_left=self._policy.conversation_budget_bytes)
        cursors: dict[int, ContextCursor] = {}
        slots: dict[int, dict[str, int]] = {}  # per journal: finalized id -> result slot
        for boundary in _time_order(boundaries):
            journal = self._assessment.replay.journals[boundary.journal].journal
            cursor = cursors.get(boundary.journal)
            if cursor is None:
                cursor = cursors[boundary.journal] = ContextCursor(journal.results)
                slots[boundary.journal] = {r.finalized_id: s for s, r in enumerate(journal.results)}
            self._release_pins(boundary, journal.results, slots[boundary.journal], state)
            self._boundary(boundary, journal.results, cursor, state, keys=(conversation, lineage))
        return set(state.counted)

    def net_tokens(self, result: ToolResult) -> int:
        """A cleared result's heuristic tokens minus the placeholder's (R-SIM-5)."""
        return result.tokens - self._placeholder_tokens

    def _boundary(
        self,
        boundary: Boundary,
        results: Sequence[ToolResult],
        cursor: ContextCursor,
        state: _Conversation,
        *,
        keys: tuple[int, int],
    ) -> None:
        conversation, lineage = keys
        route = self._routes[boundary.api]
        classes = self._assessment.classes[boundary.journal]
        tally = self._tallies[boundary.api]
        replayed = boundary.replayed
        candidates: list[int] = []
        upper_bound = 0
        cohorts = self._assessment.cohorts[boundary.journal]
        for slot, reason in classified_context(cursor, replayed, results, classes, cohorts):
            tally.add(reason)
            result = results[slot]
            if reason is None and result.finalized_id not in state.counted:
                candidates.append(slot)
            if class_of(reason) in _UPPER_CLASSES:
                upper_bound += max(0, self.net_tokens(result))
        # Cleared results still in this context, whichever API cleared them: the placeholder
        # is what this request carries (effective occupancy, removed.observed).
        cleared_in_context = [
            slot for slot in cursor.active() if results[slot].finalized_id in state.counted
        ]
        already = sum(state.counted[results[s].finalized_id] for s in cleared_in_context)
        effective = replayed.estimate - already
        cold = is_cold(route, replayed.gap_ms)
        pressured = in_pressure_band(replayed.estimate, route.trigger_tokens)
        runs = boundary.completed_prompt_runs_before
        separation = self._policy.batch_separation_prompt_runs
        batch_open = state.last_batch_runs is None or runs - state.last_batch_runs >= separation
        clears = cold and batch_open and in_pressure_band(effective, route.trigger_tokens)
        row = self._columns.next_boundary_row()
        admitted = admitted_bytes = cleared_here = 0
        budget_stopped = False
        if clears:
            for slot in candidates:
                result = results[slot]
                net = self.net_tokens(result)
                if net <= 0:
                    continue
                if result.text_bytes > state.budget_left:
                    budget_stopped = True
                    break
                state.counted[result.finalized_id] = net
                state.pins[result.finalized_id] = result.text_bytes
                state.budget_left -= result.text_bytes
                cleared_in_context.append(slot)
                admitted += net
                admitted_bytes += result.text_bytes
                cleared_here += 1
                key = self.result_keys.setdefault(result.finalized_id, len(self.result_keys))
                self._columns.cleared_result(
                    self._cleared_row(boundary, row, (key, result), net, conversation)
                )
            if cleared_here:
                state.last_batch_runs = runs
        self._columns.boundary(
            {
                "api": boundary.api.value,
                "journal": boundary.journal,
                "conversation": conversation,
                "lineage": lineage,
                "turn": replayed.turn_index,
                "tool_starts_before": replayed.tool_starts_before,
                "prompt_runs_before": runs,
                "estimate": replayed.estimate,
                "usage_based": replayed.usage_based,
                "effective": effective,
                "gap_ms": replayed.gap_ms,
                "cold": cold,
                "pressured": pressured,
                "cold_pressured": cold and pressured,
                "batch_open": batch_open,
                "clearing_point": clears,
                "cleared_results": cleared_here,
                "admitted_net": admitted,
                "admitted_bytes": admitted_bytes,
                "budget_stopped": budget_stopped,
                "budget_left": state.budget_left,
                "upper_bound_net": upper_bound,
            }
        )
        self._requests(boundary, row, results, cleared_in_context, state)

    @staticmethod
    def _release_pins(
        boundary: Boundary,
        results: Sequence[ToolResult],
        slots: dict[str, int],
        state: _Conversation,
    ) -> None:
        """A cleared result that this boundary's journal holds and has compacted away before
        the boundary's turn returns its bytes to the conversation's budget, whichever journal
        of the conversation cleared it (R-SIM-4 decision). A journal that does not hold the
        result says nothing about it."""
        turn = boundary.replayed.turn_index
        for finalized_id in list(state.pins):
            slot = slots.get(finalized_id)
            if slot is None:
                continue
            until = results[slot].context_until
            if until is not None and until <= turn:
                state.budget_left += state.pins.pop(finalized_id)

    def _cleared_row(
        self,
        boundary: Boundary,
        boundary_row: int,
        keyed: tuple[int, ToolResult],
        net: int,
        conversation: int,
    ) -> dict[str, object]:
        cap = self._policy.summary_tokens_per_cleared_result_cap
        key, result = keyed
        return {
            "api": boundary.api.value,
            "boundary": boundary_row,
            "conversation": conversation,
            "result": key,
            "result_turn": result.turn_index,
            "result_start": result.start_index,
            "tokens": result.tokens,
            "net_tokens": net,
            "summary_tokens": min(cap, result.tokens),
            "text_bytes": result.text_bytes,
            "escaped_bytes": result.escaped_bytes,
            "escaped_tokens": tokens_for_units(result.escaped_units),
            "tool_class": result.tool_class.value,
            "web": result.web,
        }

    def _requests(
        self,
        boundary: Boundary,
        row: int,
        results: Sequence[ToolResult],
        cleared_in_context: Sequence[int],
        state: _Conversation,
    ) -> None:
        """One row per request of the turn, with the cleared tokens its prefix still carries
        (until the checkpoint that compacts them, R-CM-7 removed.observed)."""
        riding = [
            (state.counted[results[s].finalized_id], results[s].compacted_by)
            for s in cleared_in_context
        ]
        for request in boundary.requests:
            carried = sum(
                net
                for net, compacted_by in riding
                if compacted_by is None or request.checkpoints_before <= compacted_by
            )
            self._columns.request(
                {
                    "api": boundary.api.value,
                    "boundary": row,
                    "input": request.input,
                    "output": request.output,
                    "cache_read": request.cache_read,
                    "cache_write": request.cache_write,
                    "fallback": usage_is_fallback(request),
                    "context_tokens": request.context_tokens,
                    "message_tokens": request.message_tokens,
                    "cleared_tokens_carried": carried,
                }
            )


__all__ = [
    "Columns",
    "ConversationSimulator",
    "in_pressure_band",
    "is_cold",
    "usage_is_fallback",
]
