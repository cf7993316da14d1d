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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from clearing_analysis.eligibility import (
    Assessment,
    Boundary,
    ContextTally,
    OccurrenceTally,
)
from clearing_analysis.eligibility.assess import routed_api
from clearing_analysis.inputs.configs import Api, Route
from clearing_analysis.policy import simulation_policy
from clearing_analysis.replay.heuristic import tokens_for_units
from clearing_analysis.replay.model import RequestUsage, ToolResult


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


# How a column crosses the process boundary (`unit.compact`): INTS as a 64-bit integer array,
# FLAGS as a byte array of 0 and 1, OTHER (text, or numbers that may be null) as a list.
INTS = "q"
FLAGS = "b"
OTHER = ""

BOUNDARY_COLUMNS: dict[str, str] = {
    "api": OTHER,
    "journal": INTS,
    "conversation": INTS,
    "lineage": INTS,
    "turn": INTS,
    "tool_starts_before": INTS,
    "prompt_runs_before": INTS,
    "estimate": INTS,
    "usage_based": FLAGS,  # E starts from a recorded usage (else heuristic only)
    "effective": INTS,
    "gap_ms": OTHER,  # null: the journal's first request
    "cold": FLAGS,
    "pressured": FLAGS,
    "cold_pressured": FLAGS,
    "batch_open": FLAGS,
    "clearing_point": FLAGS,
    "cleared_results": INTS,
    "admitted_net": INTS,
    "admitted_bytes": INTS,
    "budget_stopped": FLAGS,
    "budget_left": INTS,
    "upper_bound_net": INTS,
}
CLEARED_COLUMNS: dict[str, str] = {
    "api": OTHER,
    "boundary": INTS,
    "conversation": INTS,
    "result": INTS,
    "result_turn": INTS,
    "result_start": INTS,
    "tokens": INTS,
    "net_tokens": INTS,
    "summary_tokens": INTS,
    "text_bytes": INTS,
    "escaped_bytes": INTS,
    "escaped_tokens": INTS,
    "tool_class": OTHER,
    "web": FLAGS,
}
REQUEST_COLUMNS: dict[str, str] = {
    "api": OTHER,
    "boundary": INTS,
    "input": INTS,
    "output": INTS,
    "cache_read": INTS,
    "cache_write": INTS,
    "fallback": FLAGS,
    "context_tokens": INTS,
    "message_tokens": INTS,
    "cleared_tokens_carried": INTS,
}


class Table:
    """Append-only rows of one table, in a fixed column order, read back as columns."""

    def __init__(self, names: Iterable[str]) -> None:
        self._names = tuple(names)
        self._rows: list[tuple[object, ...]] = []
        # A row is one tuple: far cheaper than one list append per column; the columns are
        # made in one transposition when read.
        self.append = self._rows.append

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def columns(self) -> dict[str, list[Any]]:
        """Column name -> values, in row order."""
        if not self._rows:
            return {name: [] for name in self._names}
        return {
            name: list(values)
            for name, values in zip(self._names, zip(*self._rows, strict=True), strict=True)
        }


class Columns:
    """Append-only columns of the simulation's three tables."""

    def __init__(self) -> None:
        self.boundaries = Table(BOUNDARY_COLUMNS)
        self.cleared = Table(CLEARED_COLUMNS)
        self.requests = Table(REQUEST_COLUMNS)


@dataclass
class ConversationState:
    """What persists across one physical conversation's boundaries."""

    budget_left: int
    counted: dict[str, int] = field(default_factory=dict)  # finalized id -> net tokens
    pins: dict[str, int] = field(default_factory=dict)  # finalized id -> original text bytes
    last_batch_runs: int | None = None


def journal_context(assessment: Assessment, journal: int, placeholder_tokens: int) -> ContextTally:
    """A new context tally of one journal, weighted by its results' net tokens."""
    results = assessment.replay.journals[journal].journal.results
    return ContextTally(
        results,
        assessment.classes[journal],
        assessment.cohorts[journal],
        weights=[max(0, r.tokens - placeholder_tokens) for r in results],
    )


class JournalWalk:
    """One journal of the conversation: its results, its context tally, and which of its
    results the conversation has cleared (by any journal's copy)."""

    def __init__(
        self,
        assessment: Assessment,
        journal: int,
        placeholder_tokens: int,
        counted: Mapping[str, int],
        context: ContextTally | None = None,
    ) -> None:
        results = assessment.replay.journals[journal].journal.results
        self.results = results
        self.slots = {r.finalized_id: s for s, r in enumerate(results)}
        # Several walks of one journal may share a tally (the what-if policies, in lockstep):
        # the context depends on the journal alone, and whoever shares it advances it once.
        if context is None:
            context = journal_context(assessment, journal, placeholder_tokens)
        self.context = context
        # Slots whose finalized id the conversation has counted, in or out of context.
        self.counted_slots = {slot for fid, slot in self.slots.items() if fid in counted}

    def cleared_in_context(self) -> list[int]:
        """Counted results in the current context, whichever API cleared them."""
        active = self.context.is_active
        return [slot for slot in self.counted_slots if active(slot)]


def time_order(boundaries: Sequence[Boundary]) -> Iterator[Boundary]:
    """Merge the journals' boundary sequences by (request time, journal, turn)."""
    per_journal: dict[int, list[Boundary]] = {}
    for boundary in boundaries:
        per_journal.setdefault(boundary.journal, []).append(boundary)
    return heapq.merge(
        *per_journal.values(),
        key=lambda b: (b.replayed.request_ms, b.journal, b.replayed.turn_index),
    )


def count_cleared(
    result: ToolResult, net: int, walks: Mapping[int, JournalWalk], state: ConversationState
) -> None:
    """Count `result` cleared, once and for good, in every journal's copy of it, and pin its
    original text against the conversation's budget (R-SIM-4, R-SIM-9)."""
    finalized_id = result.finalized_id
    state.counted[finalized_id] = net
    for other in walks.values():
        copy = other.slots.get(finalized_id)
        if copy is not None:
            other.counted_slots.add(copy)
    state.pins[finalized_id] = result.text_bytes
    state.budget_left -= result.text_bytes


def release_pins(boundary: Boundary, walk: JournalWalk, state: ConversationState) -> None:
    """A cleared result that this boundary's journal holds and has compacted away before
    the boundary's turn returns its bytes to the conversation's budget, whichever journal
    of the conversation cleared it (R-SIM-4 decision). A journal that does not hold the
    result says nothing about it."""
    if not state.pins:
        return
    turn = boundary.replayed.turn_index
    slots, results = walk.slots, walk.results
    for finalized_id in list(state.pins):
        slot = slots.get(finalized_id)
        if slot is None:
            continue
        until = results[slot].context_until
        if until is not None and until <= turn:
            state.budget_left += state.pins.pop(finalized_id)


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
        # The pressure band's lower edge per trigger, exact (R-SIM-2): one Fraction per route.
        self._low = Fraction(str(self._policy.pressure_low_fraction))
        # Ordinal of each cleared result by finalized id, first-come: the tables' result key.
        self.result_keys: dict[str, int] = {}

    def run(self, boundaries: Sequence[Boundary], conversation: int, lineage: int) -> set[str]:
        """Visit the conversation's counted boundaries in time order; return the finalized ids
        it cleared (in memory only)."""
        state = ConversationState(budget_left=self._policy.conversation_budget_bytes)
        walks: dict[int, JournalWalk] = {}
        for boundary in time_order(boundaries):
            walk = walks.get(boundary.journal)
            if walk is None:
                walk = walks[boundary.journal] = JournalWalk(
                    self._assessment, boundary.journal, self._placeholder_tokens, state.counted
                )
            release_pins(boundary, walk, state)
            self._boundary(boundary, walk, walks, state, keys=(conversation, lineage))
        return set(state.counted)

    def net_tokens(self, result: ToolResult) -> int:
        """A cleared result's heuristic tokens minus the placeholder's (R-SIM-5)."""
        return result.tokens - self._placeholder_tokens

    def _in_band(self, tokens: int, trigger: int) -> bool:
        return self._low * trigger <= tokens < trigger

    def _boundary(
        self,
        boundary: Boundary,
        walk: JournalWalk,
        walks: Mapping[int, JournalWalk],
        state: ConversationState,
        *,
        keys: tuple[int, int],
    ) -> None:
        conversation, lineage = keys
        api = boundary.api
        route = self._routes[api]
        replayed = boundary.replayed
        results = walk.results
        context = walk.context
        context.advance(replayed)
        context.count(api, self._tallies[api])
        upper_bound = context.upper_weight(api)
        # Cleared results still in this context, whichever API cleared them: the placeholder
        # is what this request carries (effective occupancy, removed.observed).
        cleared_in_context = walk.cleared_in_context()
        counted = state.counted
        already = sum(counted[results[s].finalized_id] for s in cleared_in_context)
        effective = replayed.estimate - already
        cold = is_cold(route, replayed.gap_ms)
        pressured = self._in_band(replayed.estimate, route.trigger_tokens)
        runs = boundary.completed_prompt_runs_before
        separation = self._policy.batch_separation_prompt_runs
        batch_open = state.last_batch_runs is None or runs - state.last_batch_runs >= separation
        clears = cold and batch_open and self._in_band(effective, route.trigger_tokens)
        row = len(self._columns.boundaries)
        admitted = admitted_bytes = cleared_here = 0
        budget_stopped = False
        if clears:
            candidates = [
                slot
                for slot in context.lower_bound(api)
                if results[slot].finalized_id not in counted
            ]
            for slot in candidates:
                result = results[slot]
                net = self.net_tokens(result)
                if net <= 0:
                    continue
                if result.text_bytes > state.budget_left:
                    budget_stopped = True
                    break
                count_cleared(result, net, walks, state)
                cleared_in_context.append(slot)
                admitted += net
                admitted_bytes += result.text_bytes
                cleared_here += 1
                key = self.result_keys.setdefault(result.finalized_id, len(self.result_keys))
                self._cleared_row(boundary, row, (key, result), net, conversation)
            if cleared_here:
                state.last_batch_runs = runs
        self._columns.boundaries.append(
            (
                api.value,
                boundary.journal,
                conversation,
                lineage,
                replayed.turn_index,
                replayed.tool_starts_before,
                runs,
                replayed.estimate,
                replayed.usage_based,
                effective,
                replayed.gap_ms,
                cold,
                pressured,
                cold and pressured,
                batch_open,
                clears,
                cleared_here,
                admitted,
                admitted_bytes,
                budget_stopped,
                state.budget_left,
                upper_bound,
            )
        )
        self._requests(boundary, row, results, cleared_in_context, state)

    def _cleared_row(
        self,
        boundary: Boundary,
        boundary_row: int,
        keyed: tuple[int, ToolResult],
        net: int,
        conversation: int,
    ) -> None:
        cap = self._policy.summary_tokens_per_cleared_result_cap
        key, result = keyed
        self._columns.cleared.append(
            (
                boundary.api.value,
                boundary_row,
                conversation,
                key,
                result.turn_index,
                result.start_index,
                result.tokens,
                net,
                min(cap, result.tokens),
                result.text_bytes,
                result.escaped_bytes,
                tokens_for_units(result.escaped_units),
                result.tool_class.value,
                result.web,
            )
        )

    def _requests(
        self,
        boundary: Boundary,
        row: int,
        results: Sequence[ToolResult],
        cleared_in_context: Sequence[int],
        state: ConversationState,
    ) -> None:
        """One row per request of the turn, with the cleared tokens its prefix still carries
        (until the checkpoint that compacts them, R-CM-7 removed.observed)."""
        riding = [
            (state.counted[results[s].finalized_id], results[s].compacted_by)
            for s in cleared_in_context
        ]
        append = self._columns.requests.append
        period = self._assessment.period
        for request in boundary.requests:
            # A request counts on the API its own message names (R-CM-8); one of an API
            # without a route, or made outside the period, is in no cohort (the assessment
            # counts it apart).
            api = routed_api(request.api, self._routes)
            if api is None or not period.contains(request.timestamp):
                continue
            carried = (
                sum(
                    net
                    for net, compacted_by in riding
                    if compacted_by is None or request.checkpoints_before <= compacted_by
                )
                if riding
                else 0
            )
            append(
                (
                    api.value,
                    row,
                    request.input,
                    request.output,
                    request.cache_read,
                    request.cache_write,
                    usage_is_fallback(request),
                    request.context_tokens,
                    request.message_tokens,
                    carried,
                )
            )


__all__ = [
    "BOUNDARY_COLUMNS",
    "CLEARED_COLUMNS",
    "FLAGS",
    "INTS",
    "OTHER",
    "REQUEST_COLUMNS",
    "Columns",
    "ConversationSimulator",
    "ConversationState",
    "JournalWalk",
    "Table",
    "count_cleared",
    "in_pressure_band",
    "is_cold",
    "release_pins",
    "time_order",
    "usage_is_fallback",
]
