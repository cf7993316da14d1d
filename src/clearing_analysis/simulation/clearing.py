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
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

import msgspec

from clearing_analysis.eligibility import (
    Assessment,
    Boundary,
    ContextTally,
    OccurrenceTally,
)
from clearing_analysis.eligibility.assess import routed_api
from clearing_analysis.eligibility.context import protection
from clearing_analysis.inputs.configs import Api, Route
from clearing_analysis.policy import simulation_policy
from clearing_analysis.replay.heuristic import tokens_for_units
from clearing_analysis.replay.model import RequestUsage, ToolResult
from clearing_analysis.simulation.slots import Fenwick, JournalIndex, SlotScan


def usage_is_fallback(request: RequestUsage) -> bool:
    """Whether a request's cost falls back to the labeled uncached heuristic (R-CM-1).

    Only a missing usage does: all four token counts zero. An aborted or errored request that
    reports usage was billed for it and is costed from it, whatever its stopReason (R-CM-1
    decision; R-SIM-1's exclusion of error / aborted usage is for the estimate E only).
    """
    return not request.usage_recorded


def cold_above(route: Route) -> int | None:
    """The gap a cold request exceeds on `route`: lifetime + margin (None: the lifetime is
    unknown, and no request is cold; R-SIM-3)."""
    if route.cache_lifetime_ms == "unknown":
        return None
    return route.cache_lifetime_ms + route.cache_margin_ms


def is_cold(route: Route, gap_ms: int | None) -> bool:
    """Strictly beyond lifetime + margin; an unknown lifetime or gap is never cold (R-SIM-3)."""
    above = cold_above(route)
    return above is not None and gap_ms is not None and gap_ms > above


def in_pressure_band(tokens: int, trigger: int) -> bool:
    """0.75·T <= tokens < T (R-SIM-2), in exact arithmetic."""
    low = Fraction(str(simulation_policy().pressure_low_fraction)) * trigger
    return low <= tokens < trigger


# The kind of each column's values: INTS 64-bit integers, FLAGS 0 and 1 (booleans), OTHER text,
# or numbers that may be null.
INTS = "q"
MS_PER_DAY = 86_400_000
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
    # For the usage tables (`--by`): the request's journal, its UTC calendar day (days since
    # 1970-01-01) and its catalog model id (None: not in the catalog).
    "journal": INTS,
    "day": INTS,
    "model": OTHER,
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


class ConversationState(msgspec.Struct):
    """What persists across one physical conversation's boundaries."""

    budget_left: int
    counted: dict[str, int] = msgspec.field(default_factory=dict)  # finalized id -> net tokens
    # finalized id -> original text bytes
    pins: dict[str, int] = msgspec.field(default_factory=dict)
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


class ClearedInContext:
    """The results a walk's conversation has counted (cleared, by any journal's copy) that are
    in the walk's context at its current boundary, or were cleared at that boundary's own
    clearing points; their net tokens (as counted), in total and by range of slots.

    It moves with the walk from boundary to boundary (`move`): the slots compacted away since
    leave; the counted slots placed since, or counted meanwhile by another journal's walk
    (`arrived`), join. Each slot is looked at a bounded number of times over the whole walk,
    never once per boundary (R-REL-7)."""

    def __init__(self, size: int) -> None:
        self._member = bytearray(size)
        self._weight = [0] * size
        self._tree = Fenwick(size)
        self.net = 0  # their net tokens
        self.count = 0
        self._lo = self._hi = 0  # the context range of the last move
        self._beyond: list[int] = []  # members at or past hi: the turn's own results
        self.arrived: list[int] = []  # counted by another journal's walk since the last move
        # Members a checkpoint inside the boundary's turn compacted away (`drop_before`): out
        # for the rest of the boundary only. A re-prompt's requests can come after later turns
        # began, and the next boundary's context may still hold them.
        self._set_aside: list[int] = []
        self._dropped_to = 0

    def is_member(self, slot: int) -> bool:
        """Whether the result at `slot` is one of them."""
        return bool(self._member[slot])

    def add(self, slot: int, net: int) -> None:
        """A counted result joins (nothing if it is a member already)."""
        if self._member[slot]:
            return
        self._member[slot] = 1
        self._weight[slot] = net
        self._tree.add(slot, net)
        self.net += net
        self.count += 1
        if slot >= self._hi:
            self._beyond.append(slot)

    def _remove(self, slot: int) -> None:
        if not self._member[slot]:
            return
        self._member[slot] = 0
        net = self._weight[slot]
        self._tree.add(slot, -net)
        self.net -= net
        self.count -= 1

    def move(self, lo: int, hi: int, counted: bytearray, net_of: Callable[[int], int]) -> None:
        """To a boundary whose context is the slots [lo, hi) (never backwards): members are
        then exactly the counted slots in that range. A walk that counted nothing of its
        journal yet may skip boundaries: with no member, moving from an earlier context only
        looks at more slots for counted ones."""
        old_lo, old_hi = self._lo, self._hi
        self._lo, self._hi = max(old_lo, lo), max(old_hi, hi)
        # Only members and counted slots are visited (found by bytes.find, not slot by slot).
        member = self._member
        left = min(lo, old_hi)
        slot = member.find(1, old_lo, left) if self.count else -1
        while slot >= 0:
            self._remove(slot)
            slot = member.find(1, slot + 1, left)
        for slot in self._beyond:
            if not lo <= slot < hi:
                self._remove(slot)
        self._beyond = []
        start = max(old_hi, lo)
        slot = counted.find(1, start, hi)
        while slot >= 0:
            self.add(slot, net_of(slot))
            slot = counted.find(1, slot + 1, hi)
        for slot in (*self.arrived, *self._set_aside):
            if lo <= slot < min(start, hi) and counted[slot]:
                self.add(slot, net_of(slot))
        self.arrived = []
        self._set_aside = []
        self._dropped_to = self._lo

    def bound(self, lo: int, hi: int) -> None:
        """`move` while no slot of the journal is counted (nothing to remove or add)."""
        self._lo, self._hi = max(self._lo, lo), max(self._hi, hi)
        self._dropped_to = self._lo

    def drop_before(self, slot: int) -> None:
        """Members below `slot` leave for the rest of the boundary: a checkpoint inside its
        turn compacted them away before the request now visited."""
        stop = min(slot, self._hi)
        member = self._member.find(1, self._dropped_to, stop) if self.count else -1
        while member >= 0:
            self._remove(member)
            self._set_aside.append(member)
            member = self._member.find(1, member + 1, stop)
        self._dropped_to = max(self._dropped_to, slot)
        for member in self._beyond:
            if member < slot:
                self._remove(member)
        self._beyond = [member for member in self._beyond if member >= slot]

    def below(self, slot: int) -> int:
        """The net tokens of the members below `slot`."""
        return self._tree.prefix(slot) if slot > self._lo else 0

    def carried(self, carried_from: int) -> int:
        """The net tokens of the members a request still carries: those from slot
        `carried_from` on (`JournalIndex.carried_from`; R-CM-7 removed.observed)."""
        return self.net - self.below(carried_from)


class JournalLayout(NamedTuple):
    """Where a journal's results lie, which depends on the journal alone: its slot index and
    its slots by finalized id. Made once per journal and shared by every walk of it (the
    gated walk's, then each what-if policy's)."""

    slot_index: JournalIndex
    slots: Mapping[str, int]

    @classmethod
    def of(cls, results: Sequence[ToolResult]) -> JournalLayout:
        """The layout of a journal's results."""
        return cls(JournalIndex(results), {r.finalized_id: s for s, r in enumerate(results)})


def _held(slots: Mapping[str, int], ids: Mapping[str, int]) -> list[int]:
    """The slots of the results among `ids` (finalized ids) a journal holds, looking up
    whichever of the two is smaller."""
    if len(ids) < len(slots):
        return [slot for slot in map(slots.get, ids) if slot is not None]
    return [slot for finalized_id, slot in slots.items() if finalized_id in ids]


class JournalWalk:
    """One journal of the conversation as one simulation walks it: its results, its context
    tally and slot index, which of its results the conversation has counted (by any
    journal's copy), the counted ones in its context (`cleared`), the pins it can release, and
    per API cohort the slots it may still clear (`scan`).

    `candidates` names, per API cohort, the slots the walk may ever clear, ascending (a rule
    of the result alone: its class, its net saving, the keep rules that depend on the result
    only); a slot leaves its scan once it is counted."""

    def __init__(
        self,
        assessment: Assessment,
        journal: int,
        placeholder_tokens: int,
        state: ConversationState,
        *,
        candidates: Callable[[Api], Iterable[int]],
        context: ContextTally | None = None,
        index: JournalIndex | None = None,
        weighted: bool = False,
        slots: Mapping[str, int] | None = None,
        net: Sequence[int] | None = None,
    ) -> None:
        results = assessment.replay.journals[journal].journal.results
        self.results = results
        # Several walks of one journal may share its slot index, its slots by finalized id
        # and its net tokens (the what-if policies): all depend on the journal alone. Its
        # context tally is made when first read (the what-ifs never read one).
        self.slots = {r.finalized_id: s for s, r in enumerate(results)} if slots is None else slots
        self._context = context
        self._tally_of = (assessment, journal, placeholder_tokens)
        self.index = JournalIndex(results) if index is None else index
        self.net = [r.tokens - placeholder_tokens for r in results] if net is None else net
        self._candidates = candidates
        self._weighted = weighted
        self._counted_nets = state.counted
        self.counted = bytearray(len(results))
        self.pins: list[int] = []  # a heap of the slots of pinned results this journal holds
        held = _held(self.slots, state.counted)
        for slot in held:
            self.counted[slot] = 1
        self.counted_any = bool(held)  # some result of the journal is counted (ever)
        self.pins.extend(_held(self.slots, state.pins))
        heapq.heapify(self.pins)
        self.cleared = ClearedInContext(len(results))
        self._scans: dict[Api, SlotScan] = {}
        self.lo = self.hi = 0

    @property
    def context(self) -> ContextTally:
        """The journal's context tally (made at the first read)."""
        if self._context is None:
            self._context = journal_context(*self._tally_of)
        return self._context

    def move(self, turn: int) -> None:
        """To the context of a boundary of `turn` (never backwards)."""
        self.move_to(*self.index.context(turn))

    def move_to(self, lo: int, hi: int) -> None:
        """To a boundary whose context is the slots [lo, hi) (`JournalIndex.context`)."""
        self.lo, self.hi = lo, hi
        if not self.counted_any:
            self.cleared.bound(lo, hi)  # nothing of the journal counted: nothing to move
            return
        nets, results = self._counted_nets, self.results
        self.cleared.move(lo, hi, self.counted, lambda slot: nets[results[slot].finalized_id])

    def scan(self, api: Api) -> SlotScan:
        """The slots of `api`'s cohort this walk may still clear, ascending (weighted by
        their net tokens when the walk sums them)."""
        scan = self._scans.get(api)
        if scan is None:
            counted = self.counted
            scan = self._scans[api] = SlotScan(
                len(self.results),
                [slot for slot in self._candidates(api) if not counted[slot]],
                self.net if self._weighted else None,
            )
        return scan

    def counted_here(self, slot: int, net: int, *, current: bool) -> None:
        """The conversation counted the result at `slot` of this journal: cleared by this
        walk at its current boundary when `current`, else by another journal's copy."""
        self.counted[slot] = 1
        self.counted_any = True
        for scan in self._scans.values():
            scan.remove(slot)
        heapq.heappush(self.pins, slot)
        if current:
            self.cleared.add(slot, net)
        else:
            self.cleared.arrived.append(slot)

    def cleared_in_context(self) -> list[int]:
        """The counted results in the current context, whichever API cleared them,
        ascending (what `cleared` holds)."""
        is_member = self.cleared.is_member
        return [slot for slot in range(len(self.results)) if is_member(slot)]


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
    result: ToolResult,
    net: int,
    walks: Mapping[int, JournalWalk],
    state: ConversationState,
    current: JournalWalk,
) -> None:
    """Count `result`, cleared by `current` at its boundary, once and for good, in every
    journal's copy of it, and pin its original text against the conversation's budget
    (R-SIM-4, R-SIM-9)."""
    finalized_id = result.finalized_id
    state.counted[finalized_id] = net
    for other in walks.values():
        copy = other.slots.get(finalized_id)
        if copy is not None:
            other.counted_here(copy, net, current=other is current)
    state.pins[finalized_id] = result.text_bytes
    state.budget_left -= result.text_bytes


def release_pins(
    boundary: Boundary, walk: JournalWalk, state: ConversationState, *, lo: int | None = None
) -> None:
    """A cleared result that this boundary's journal holds and has compacted away before
    the boundary's turn returns its bytes to the conversation's budget, whichever journal
    of the conversation cleared it (R-SIM-4 decision). A journal that does not hold the
    result says nothing about it. The compacted ones are the slots below the boundary's
    context (from `lo` on, when the caller knows it), each popped once from the walk's heap
    of pinned slots."""
    pins = walk.pins
    if not pins:
        return
    if lo is None:
        lo, _ = walk.index.context(boundary.replayed.turn_index)
    results = walk.results
    while pins and pins[0] < lo:
        released = state.pins.pop(results[heapq.heappop(pins)].finalized_id, None)
        if released is not None:
            state.budget_left += released


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
        # Each walked journal's layout, by position (the what-ifs walk them again).
        self.layouts: dict[int, JournalLayout] = {}

    def run(self, boundaries: Sequence[Boundary], conversation: int, lineage: int) -> set[str]:
        """Visit the conversation's counted boundaries in time order; return the finalized ids
        it cleared (in memory only)."""
        state = ConversationState(budget_left=self._policy.conversation_budget_bytes)
        walks: dict[int, JournalWalk] = {}
        for boundary in time_order(boundaries):
            walk = walks.get(boundary.journal)
            if walk is None:
                layout = self.layouts.get(boundary.journal)
                if layout is None:
                    results = self._assessment.replay.journals[boundary.journal].journal.results
                    layout = self.layouts[boundary.journal] = JournalLayout.of(results)
                walk = walks[boundary.journal] = JournalWalk(
                    self._assessment,
                    boundary.journal,
                    self._placeholder_tokens,
                    state,
                    candidates=self._candidates(boundary.journal),
                    index=layout.slot_index,
                    slots=layout.slots,
                )
            release_pins(boundary, walk, state)
            self._boundary(boundary, walk, walks, state, keys=(conversation, lineage))
        return set(state.counted)

    def _candidates(self, journal: int) -> Callable[[Api], list[int]]:
        """Per API cohort, the slots of a journal the walk may ever clear: its lower-bound
        class (no fixed exclusion, no shortfall) with a positive net saving; protection is a
        matter of the boundary, decided as each is visited."""
        classes = self._assessment.classes[journal]
        cohorts = self._assessment.cohorts[journal]
        results = self._assessment.replay.journals[journal].journal.results
        placeholder = self._placeholder_tokens

        def candidates(api: Api) -> list[int]:
            return [
                slot
                for slot, result_class in enumerate(classes)
                if cohorts[slot] == api
                and result_class.fixed is None
                and result_class.shortfall is None
                and results[slot].tokens - placeholder > 0
            ]

        return candidates

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
        walk.move(replayed.turn_index)
        effective = replayed.estimate - walk.cleared.net
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
            # The lower-bound results of this cohort in context not counted before, oldest
            # first: those the scan still holds in the context's range, less the protected.
            for slot in walk.scan(api).present(walk.lo, walk.hi):
                result = results[slot]
                if protection(result, replayed) is not None:
                    continue
                net = self.net_tokens(result)  # > 0: the scan holds no other
                if result.text_bytes > state.budget_left:
                    budget_stopped = True
                    break
                count_cleared(result, net, walks, state, walk)
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
        self._requests(boundary, row, walk)

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

    def _requests(self, boundary: Boundary, row: int, walk: JournalWalk) -> None:
        """One row per request of the turn, with the cleared tokens its prefix still carries
        (until the checkpoint that compacts them, R-CM-7 removed.observed)."""
        cleared = walk.cleared
        carried_from = walk.index.carried_from
        append = self._columns.requests.append
        period = self._assessment.period
        for request in boundary.requests:
            # A request counts on the API its own message names (R-CM-8); one of an API
            # without a route, or made outside the period, is in no cohort (the assessment
            # counts it apart).
            api = routed_api(request.api, self._routes)
            if api is None or not period.contains(request.timestamp):
                continue
            carried = 0
            if cleared.count:
                carried = cleared.carried(carried_from(request.checkpoints_before))
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
                    boundary.journal,
                    request.timestamp // MS_PER_DAY,
                    request.catalog_model,
                )
            )


__all__ = [
    "BOUNDARY_COLUMNS",
    "CLEARED_COLUMNS",
    "FLAGS",
    "INTS",
    "MS_PER_DAY",
    "OTHER",
    "REQUEST_COLUMNS",
    "ClearedInContext",
    "Columns",
    "ConversationSimulator",
    "ConversationState",
    "JournalLayout",
    "JournalWalk",
    "Table",
    "cold_above",
    "count_cleared",
    "in_pressure_band",
    "is_cold",
    "release_pins",
    "time_order",
    "usage_is_fallback",
]
