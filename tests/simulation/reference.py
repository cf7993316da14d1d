"""The simulation as it was first written, quadratic in a history, kept as the definition
the incremental walks must equal (tests/simulation/test_incremental_walks.py).

At every boundary this walk lists the whole context: the cleared results in it, the candidates,
the pins to release; each what-if point lists its context and applies every keep rule to
every candidate. `simulation.clearing` and `simulation.what_if` do the same work from slot
ranges and running sums; on every corpus and history the tests try, both give the same
tables, sums and traces. Copied from the modules as they were, unchanged but for imports,
and for the period (--since, --until) the what-ifs gained since: a request made outside it is
no clearing point and counts in no removed.observed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import NamedTuple

from clearing_analysis.eligibility import (
    Assessment,
    Boundary,
    ContextTally,
    OccurrenceTally,
    ResultClass,
)
from clearing_analysis.eligibility.context import protection
from clearing_analysis.inputs.configs import Api, Route, Routes
from clearing_analysis.policy import (
    Always,
    ClearableAtLeast,
    ClearingPoint,
    EffectiveAtLeastFraction,
    EffectiveWithinOfTrigger,
    EstimateAtLeast,
    Keep,
    PressureBand,
    WhatIf,
    WhatIfId,
    placeholder_text,
    simulation_policy,
    what_if_table,
)
from clearing_analysis.replay.heuristic import text_tokens, tokens_for_units
from clearing_analysis.replay.model import RequestUsage, ToolResult
from clearing_analysis.simulation.clearing import (
    MS_PER_DAY,
    Columns,
    ConversationState,
    is_cold,
    journal_context,
    time_order,
    usage_is_fallback,
)
from clearing_analysis.simulation.what_if import PolicyRun, PolicySums, TraceRow, _Thresholds
from clearing_analysis.toolclass import ToolClass


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
        api = boundary.api.value
        for request in boundary.requests:
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
                    api,
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


class Point:
    """One clearing point of a boundary's turn: before its first request (`request` 0, the
    boundary itself) or before its later request k. Made once per boundary for every policy
    (`TurnPoints`); the slots in context are listed only when a policy asks."""

    __slots__ = (
        "_candidates",
        "_in_context",
        "_turn",
        "_turn_results",
        "checkpoints_before",
        "compacted_since_first",
        "estimate",
        "gap_ms",
        "request",
    )

    def __init__(self, turn: TurnPoints, request: int) -> None:
        replayed = turn.boundary.replayed
        requests = replayed.requests
        self.request = request
        self._turn = turn
        self._in_context: list[int] | None = None
        self._candidates: list[int] | None = None
        self._turn_results: Sequence[int] = ()
        self.estimate: int
        self.gap_ms: int | None
        if request == 0:
            self.estimate = replayed.estimate
            self.gap_ms = replayed.gap_ms
            self.checkpoints_before = requests[0].checkpoints_before if requests else 0
            self.compacted_since_first = False
        else:
            sent = requests[request]
            self.estimate = sent.estimate
            # Measured from the turn's previous request, as R-SIM-3 measures a boundary's gap.
            self.gap_ms = sent.timestamp - requests[request - 1].timestamp
            self._turn_results = replayed.turn_results[: sent.results_before]
            self.checkpoints_before = sent.checkpoints_before
            self.compacted_since_first = sent.checkpoints_before > requests[0].checkpoints_before

    def in_context(self) -> list[int]:
        """Result slots in context here, oldest first: the boundary's context, then the turn's
        results placed before this request, less any a checkpoint inside the turn compacted."""
        if self._in_context is None:
            slots = [*self._turn.context.active(), *self._turn_results]
            if self.compacted_since_first:
                results = self._turn.results
                slots = [slot for slot in slots if self.carries(results[slot])]
            self._in_context = slots
        return self._in_context

    def candidates(self) -> list[int]:
        """The slots in context any policy could clear here, oldest first: the lower-bound
        class of the boundary's API cohort (no fixed exclusion, no shortfall), with a positive
        net saving. A policy then leaves out what it counted before and what it keeps."""
        if self._candidates is None:
            turn = self._turn
            if self.request == 0 or self.compacted_since_first:
                self._candidates = turn.eligible(self.in_context())
            else:
                # The previous point's, and the turn's results placed since.
                before = turn[self.request - 1]
                placed = self._turn_results[len(before._turn_results) :]
                self._candidates = before.candidates() + turn.eligible(placed)
        return self._candidates

    def carries(self, result: ToolResult) -> bool:
        """Whether a result placed before this point is still in its context (no checkpoint
        before this point's request compacted it away)."""
        return result.compacted_by is None or result.compacted_by >= self.checkpoints_before


class TurnPoints:
    """The clearing points of one boundary, each made once and shared by every policy; the
    journal's context tally is already advanced to the boundary."""

    def __init__(self, journal: JournalFacts, boundary: Boundary, context: ContextTally) -> None:
        self.boundary = boundary
        self.context = context
        self.results, self.classes, self.cohorts, self.net = journal
        self._points: dict[int, Point] = {}

    def __len__(self) -> int:
        return max(1, len(self.boundary.replayed.requests))

    def eligible(self, slots: Iterable[int]) -> list[int]:
        """Those of `slots` in the lower-bound class of the boundary's API cohort (no fixed
        exclusion, no shortfall) with a positive net saving, in order."""
        api, cohorts, classes, net = self.boundary.api, self.cohorts, self.classes, self.net
        return [
            slot
            for slot in slots
            if cohorts[slot] == api
            and classes[slot].fixed is None
            and classes[slot].shortfall is None
            and net[slot] > 0
        ]

    def __getitem__(self, request: int) -> Point:
        point = self._points.get(request)
        if point is None:
            point = self._points[request] = Point(self, request)
        return point


class JournalFacts(NamedTuple):
    """What the clearing points read of one journal: its results, their classes and API
    cohorts, and each result's net tokens (its tokens less the placeholder's)."""

    results: Sequence[ToolResult]
    classes: Sequence[ResultClass]
    cohorts: Sequence[Api | None]
    net: Sequence[int]

    @classmethod
    def of(cls, assessment: Assessment, journal: int, placeholder_tokens: int) -> JournalFacts:
        """The facts of `assessment`'s journal at position `journal`."""
        results = assessment.replay.journals[journal].journal.results
        return cls(
            results,
            assessment.classes[journal],
            assessment.cohorts[journal],
            [result.tokens - placeholder_tokens for result in results],
        )


class _Keeper:
    """A policy's keep rules at one clearing point: which clearable slots stay.

    A point's context lists its slots in ascending order (a result in context at a turn was
    placed before the turn began, and the turn's own results follow in placement order), so a
    tail of the context (the last N results, the newest X tokens) is every slot from the
    tail's first slot on."""

    __slots__ = ("_boundary", "_first", "_keep", "_recent_from", "_tail_from")

    def __init__(self, keep: Keep, boundary: Boundary, walk: JournalWalk, point: Point) -> None:
        in_context = point.in_context()
        never = len(walk.results)  # a slot no result has: the tail is empty
        last_from = never
        if keep.last_tool_results and in_context:
            last_from = in_context[max(0, len(in_context) - keep.last_tool_results)]
        newest_from = never
        if keep.newest_result_tokens:
            results = walk.results
            total = 0
            for slot in reversed(in_context):
                total += results[slot].tokens
                if total > keep.newest_result_tokens:
                    break
                newest_from = slot
        if keep.tail_whichever_first and keep.last_tool_results and keep.newest_result_tokens:
            # One tail that ends at whichever limit comes first: the shorter of the two.
            self._tail_from = max(last_from, newest_from)
        else:
            self._tail_from = min(last_from, newest_from)
        self._first = 0 if keep.first_tool_result else -1
        self._keep = keep
        # Results of this turn or of the K prompt turns before it are kept (K = 0: none; the
        # turn's own results exist only at a later request's clearing point).
        turn = boundary.replayed.turn_index
        self._recent_from = turn - keep.last_prompt_turns if keep.last_prompt_turns else turn + 1
        self._boundary = boundary

    def keeps(self, slot: int, result: ToolResult) -> bool:
        """Whether a keep rule keeps `result` (at `slot`) at this point."""
        keep = self._keep
        return (
            slot >= self._tail_from
            or slot == self._first
            or (keep.seed_protection and protection(result, self._boundary.replayed) is not None)
            or result.turn_index >= self._recent_from
            or (keep.results_at_most_tokens > 0 and result.tokens <= keep.results_at_most_tokens)
            or result.tool_name in keep.tool_names
            or (
                keep.only_read_only_builtins
                and result.tool_class is not ToolClass.READ_ONLY_BUILTIN
            )
        )


class _Cleared:
    """The cleared results in a point's context (whichever policy run cleared them, counted
    by the conversation) and their net tokens: carried from point to point of a turn, as the
    context only grows by the turn's own results (none cleared yet) or shrinks by a
    checkpoint. For removed.observed, the net tokens of those no checkpoint compacts away,
    and the others with the checkpoint that does."""

    __slots__ = ("compacted", "net", "slots", "uncompacted_net")

    def __init__(self, slots: list[int], counted: Mapping[str, int], walk: JournalWalk) -> None:
        self.slots: list[int] = []
        self.net = self.uncompacted_net = 0
        self.compacted: list[tuple[int, int]] = []  # (net tokens, compacting checkpoint)
        results = walk.results
        for slot in slots:
            self.add(slot, counted[results[slot].finalized_id], results[slot])

    def add(self, slot: int, net: int, result: ToolResult) -> None:
        """A cleared result in context (cleared before, or at this point)."""
        self.slots.append(slot)
        self.net += net
        if result.compacted_by is None:
            self.uncompacted_net += net
        else:
            self.compacted.append((net, result.compacted_by))

    def carried(self, request: RequestUsage) -> int:
        """The cleared tokens `request` still carries: until the checkpoint that compacts
        them (R-CM-7 removed.observed)."""
        checkpoints = request.checkpoints_before
        return self.uncompacted_net + sum(
            net for net, compacted_by in self.compacted if checkpoints <= compacted_by
        )


class PolicySimulator:
    """Runs one policy over the counted boundaries of an assessment's conversations."""

    def __init__(
        self,
        assessment: Assessment,
        routes: Mapping[Api, Route],
        policy: WhatIf,
        placeholder_tokens: int,
        *,
        trace: bool = False,
    ) -> None:
        self._assessment = assessment
        self._routes = routes
        self._policy = policy
        self._every_request = policy.when is ClearingPoint.EVERY_REQUEST
        self._seed_candidates = policy.keep == Keep(seed_protection=True)
        self._placeholder_tokens = placeholder_tokens
        self._simulation = simulation_policy()
        self._thresholds = {api: _Thresholds.of(policy, route) for api, route in routes.items()}
        self._trace = trace
        self.run = PolicyRun(per_api={api: PolicySums() for api in assessment.per_api})

    @property
    def policy_id(self) -> WhatIfId:
        """The id of the policy this simulator runs."""
        return self._policy.id

    def conversation(self, boundaries: Sequence[Boundary]) -> None:
        """Visit one physical conversation's counted boundaries in time order."""
        visit = self.start_conversation()
        for boundary in time_order(boundaries):
            visit(boundary, None)

    def start_conversation(self) -> Callable[[Boundary, TurnPoints | None], None]:
        """A new conversation's state, and the step that visits its next boundary (in time
        order). A step given the boundary's clearing points (made over a journal's shared
        context tally, already advanced to the boundary) uses them; without them, the policy
        advances its own tally and makes its own."""
        state = ConversationState(budget_left=self._simulation.conversation_budget_bytes)
        walks: dict[int, JournalWalk] = {}
        facts: dict[int, JournalFacts] = {}

        def visit(boundary: Boundary, points: TurnPoints | None) -> None:
            journal = boundary.journal
            walk = walks.get(journal)
            if walk is None:
                walk = walks[journal] = JournalWalk(
                    self._assessment,
                    journal,
                    self._placeholder_tokens,
                    state.counted,
                    context=None if points is None else points.context,
                )
            release_pins(boundary, walk, state)
            if points is None:
                walk.context.advance(boundary.replayed)
                journal_facts = facts.get(journal)
                if journal_facts is None:
                    journal_facts = facts[journal] = JournalFacts.of(
                        self._assessment, journal, self._placeholder_tokens
                    )
                points = TurnPoints(journal_facts, boundary, walk.context)
            self._boundary(boundary, walk, walks, state, points)

        return visit

    def _boundary(
        self,
        boundary: Boundary,
        walk: JournalWalk,
        walks: Mapping[int, JournalWalk],
        state: ConversationState,
        points: TurnPoints,
    ) -> None:
        """The boundary's clearing point, then (EVERY_REQUEST) one before each later request
        of its turn; each request's removed.observed with what is cleared by then."""
        self.run.per_api[boundary.api].boundaries += 1
        requests = boundary.requests
        results = walk.results
        cleared = _Cleared(walk.cleared_in_context(), state.counted, walk)
        self._point(boundary, walk, walks, state, point=points[0], cleared=cleared)
        if not self._every_request:
            self._requests(boundary, requests, cleared)
            return
        self._requests(boundary, requests[:1], cleared)
        for k in range(1, len(requests)):
            if not self._assessment.period.contains(requests[k].timestamp):
                continue  # a request outside the period is no clearing point
            point = points[k]
            if point.compacted_since_first:
                kept = [slot for slot in cleared.slots if point.carries(results[slot])]
                cleared = _Cleared(kept, state.counted, walk)
            self._point(boundary, walk, walks, state, point=point, cleared=cleared)
            self._requests(boundary, requests[k : k + 1], cleared)

    def _clearable(
        self, boundary: Boundary, walk: JournalWalk, state: ConversationState, point: Point
    ) -> list[int]:
        """Slots the policy may clear here, oldest first: the seed's lower-bound class of the
        boundary's cohort (without its protection windows, unless kept), placed before this
        point, not cleared before, with a positive net saving, and kept by no keep rule."""
        results = walk.results
        counted = state.counted
        if point.request == 0 and self._seed_candidates:
            # Exactly the gated simulation's candidates (R-SIM-8 protection included).
            placeholder_tokens = self._placeholder_tokens
            return [
                slot
                for slot in walk.context.lower_bound(boundary.api)
                if results[slot].finalized_id not in counted
                and results[slot].tokens - placeholder_tokens > 0
            ]
        slots = [slot for slot in point.candidates() if results[slot].finalized_id not in counted]
        if not slots:
            return slots
        keeper = _Keeper(self._policy.keep, boundary, walk, point)
        return [slot for slot in slots if not keeper.keeps(slot, results[slot])]

    def _batch_open(self, boundary: Boundary, state: ConversationState) -> bool:
        """The seed's batch gate: no batch yet, or enough completed prompt runs since."""
        runs = boundary.completed_prompt_runs_before
        separation = self._simulation.batch_separation_prompt_runs
        return state.last_batch_runs is None or runs - state.last_batch_runs >= separation

    def _may_trigger(
        self, boundary: Boundary, point: Point, effective: int, state: ConversationState
    ) -> bool:
        """The part of the trigger that does not depend on what is clearable: when it fails,
        the point cannot clear, and finding its clearable results (the costly part of a
        point) is skipped."""
        trigger = self._policy.trigger
        thresholds = self._thresholds[boundary.api]
        if isinstance(trigger, PressureBand):
            return thresholds.low <= effective < thresholds.window and self._batch_open(
                boundary, state
            )
        if isinstance(trigger, EstimateAtLeast):
            return point.estimate >= trigger.tokens
        if isinstance(trigger, EffectiveAtLeastFraction | EffectiveWithinOfTrigger):
            return effective >= thresholds.low
        return True

    def _triggered(self, clearable_net: int) -> bool:
        """The rest of the trigger, once `_may_trigger` held: what is clearable."""
        trigger = self._policy.trigger
        if isinstance(trigger, EffectiveAtLeastFraction | EffectiveWithinOfTrigger):
            return clearable_net >= trigger.clearable_at_least_tokens
        if isinstance(trigger, ClearableAtLeast):
            return clearable_net >= trigger.tokens
        assert isinstance(trigger, PressureBand | EstimateAtLeast | Always)
        return True

    @staticmethod
    def _prefix_before(
        walk: JournalWalk,
        state: ConversationState,
        point: Point,
        cleared: _Cleared,
        first: int,
    ) -> int:
        """Tokens before the first cleared result: E just before it joined the context, minus
        what was cleared before it since; 0 (all rewritten) when a checkpoint came between
        (it rebuilt the prefix)."""
        results = walk.results
        result = results[first]
        if point.checkpoints_before > result.checkpoints_before:
            return 0
        counted = state.counted
        earlier = sum(counted[results[slot].finalized_id] for slot in cleared.slots if slot < first)
        return max(0, result.prefix_estimate - earlier)

    def _point(
        self,
        boundary: Boundary,
        walk: JournalWalk,
        walks: Mapping[int, JournalWalk],
        state: ConversationState,
        *,
        point: Point,
        cleared: _Cleared,
    ) -> None:
        """One clearing point: its effective occupancy, the trigger, and what it clears
        (added to `cleared`)."""
        api = boundary.api
        results = walk.results
        sums = self.run.per_api[api]
        effective = point.estimate - cleared.net
        cold = is_cold(self._routes[api], point.gap_ms)
        clears = False
        admitted = admitted_bytes = cleared_here = rewritten = 0
        budget_stopped = False
        if (cold or not self._policy.only_cold) and self._may_trigger(
            boundary, point, effective, state
        ):
            clearable = self._clearable(boundary, walk, state, point)
            placeholder_tokens = self._placeholder_tokens
            clears = self._triggered(sum(results[s].tokens - placeholder_tokens for s in clearable))
        if clears:
            target = self._thresholds[api].target
            prefix: int | None = None
            for slot in clearable:
                if target is not None and effective - admitted <= target:
                    break
                result = results[slot]
                if result.text_bytes > state.budget_left:
                    budget_stopped = True
                    break
                if prefix is None:
                    prefix = self._prefix_before(walk, state, point, cleared, slot)
                net_tokens = result.tokens - self._placeholder_tokens
                self._clear(result, net_tokens, walks, state, sums)
                cleared.add(slot, net_tokens, result)
                admitted += net_tokens
                admitted_bytes += result.text_bytes
                cleared_here += 1
            if cleared_here:
                state.last_batch_runs = boundary.completed_prompt_runs_before
                sums.events += 1
                if not cold:
                    sums.warm_events += 1
                    assert prefix is not None
                    rewritten = max(0, effective - admitted - prefix)
                    sums.rewritten += rewritten
        if self._trace:
            self.run.trace.append(
                TraceRow(
                    point.request,
                    effective,
                    clears,
                    cleared_here,
                    admitted,
                    admitted_bytes,
                    budget_stopped,
                    state.budget_left,
                    rewritten,
                )
            )

    def _clear(
        self,
        result: ToolResult,
        net: int,
        walks: Mapping[int, JournalWalk],
        state: ConversationState,
        sums: PolicySums,
    ) -> None:
        """Count `result` cleared (`clearing.count_cleared`) and add it to the sums."""
        count_cleared(result, net, walks, state)
        sums.cleared += 1
        sums.admitted += net
        sums.retrieved += tokens_for_units(result.escaped_units)
        sums.summary_cleared += min(
            self._simulation.summary_tokens_per_cleared_result_cap, result.tokens
        )
        if self._trace:
            self.run.cleared_net.append(net)
            self.run.cleared_results.append(result)

    def _requests(
        self, boundary: Boundary, requests: Sequence[RequestUsage], cleared: _Cleared
    ) -> None:
        """removed.observed (R-CM-7): each observed request's cleared tokens still carried,
        at most its prefix, until the checkpoint that compacts them."""
        if not cleared.slots:
            return
        sums = self.run.per_api[boundary.api]
        for request in requests:
            if usage_is_fallback(request) or not self._assessment.period.contains(
                request.timestamp
            ):
                continue
            prefix = request.input + request.cache_read + request.cache_write
            sums.removed_observed += min(cleared.carried(request), prefix)


def run_policy(
    assessment: Assessment, routes: Routes, policy: WhatIf, *, trace: bool = False
) -> PolicyRun:
    """One policy over every physical conversation, in order of first appearance."""
    simulator = PolicySimulator(
        assessment,
        dict(routes.by_api),
        policy,
        text_tokens(placeholder_text()),
        trace=trace,
    )
    conversations: dict[str, list[Boundary]] = {}
    for boundary in assessment.boundaries:
        conversations.setdefault(boundary.physical_conversation_id, []).append(boundary)
    for boundaries in conversations.values():
        simulator.conversation(boundaries)
    return simulator.run


def run_what_ifs(assessment: Assessment, routes: Routes) -> dict[WhatIfId, dict[Api, PolicySums]]:
    """Every policy of the reviewed table, in table order: its sums per API.

    The policies walk each conversation in lockstep, boundary by boundary, so that each
    journal's context tally (which depends on the journal alone) is advanced, and each
    clearing point's context listed, once for all of them instead of once per policy; each
    policy keeps its own state. The sums are those of
    `run_policy` for each policy alone (a test holds them equal)."""
    placeholder_tokens = text_tokens(placeholder_text())
    by_api = dict(routes.by_api)
    simulators = [
        PolicySimulator(assessment, by_api, policy, placeholder_tokens)
        for policy in what_if_table().policies
    ]
    conversations: dict[str, list[Boundary]] = {}
    for boundary in assessment.boundaries:
        conversations.setdefault(boundary.physical_conversation_id, []).append(boundary)
    for boundaries in conversations.values():
        visits = [simulator.start_conversation() for simulator in simulators]
        contexts: dict[int, ContextTally] = {}
        facts: dict[int, JournalFacts] = {}
        for boundary in time_order(boundaries):
            context = contexts.get(boundary.journal)
            if context is None:
                context = contexts[boundary.journal] = journal_context(
                    assessment, boundary.journal, placeholder_tokens
                )
            context.advance(boundary.replayed)
            journal_facts = facts.get(boundary.journal)
            if journal_facts is None:
                journal_facts = facts[boundary.journal] = JournalFacts.of(
                    assessment, boundary.journal, placeholder_tokens
                )
            points = TurnPoints(journal_facts, boundary, context)
            for visit in visits:
                visit(boundary, points)
    return {simulator.policy_id: simulator.run.per_api for simulator in simulators}
