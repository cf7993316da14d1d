"""The named pruning policies of `policy/what-ifs.json` on this history (informational, never
gating; docs/model.md, section 9).

Each policy walks the same counted boundaries, in the same time order and with the same
per-conversation state as the gated simulation (`clearing.ConversationSimulator`): pins against
the conversation's budget, results counted once, effective occupancy. What differs is where it
may clear (before a prompt turn's first request only, or before every request of the turn),
what triggers it (cold only or not), what it keeps on top of the seed's eligibility, and how
much it clears. A clearing point before a later request of a turn sees the context as replay
estimated it there (`RequestUsage.estimate`): the earlier turns' results still in context and
the turn's own results placed before that request. The seed's eligibility itself (identity
proof, no effectful or instruction tool, placed results) holds for every policy, so no policy
clears what the seed forbids.

The outputs are integer sums per policy and API (and, on request, a per-point trace the
tests hold against the gated simulation's tables); nothing here names a result or holds text.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import NamedTuple

from clearing_analysis.eligibility import Assessment, Boundary, ContextTally, ResultClass
from clearing_analysis.eligibility.assess import routed_api
from clearing_analysis.eligibility.context import protection
from clearing_analysis.inputs.configs import Api, Route, Routes
from clearing_analysis.policy import (
    AllOlder,
    Always,
    ClearableAtLeast,
    ClearingPoint,
    DownToFraction,
    EffectiveAtLeastFraction,
    EffectiveWithinOfTrigger,
    EstimateAtLeast,
    Keep,
    PressureBand,
    WhatIf,
    WhatIfId,
    eligibility_policy,
    placeholder_text,
    simulation_policy,
    what_if_table,
)
from clearing_analysis.replay.heuristic import text_tokens, tokens_for_units
from clearing_analysis.replay.model import RequestUsage, ToolResult
from clearing_analysis.simulation.clearing import (
    ConversationState,
    JournalWalk,
    count_cleared,
    is_cold,
    journal_context,
    release_pins,
    time_order,
    usage_is_fallback,
)
from clearing_analysis.simulation.slots import JournalIndex, SlotScan, runs
from clearing_analysis.toolclass import ToolClass


@dataclass
class PolicySums:
    """One policy on one API cohort: integer sums the pressure and cost models read."""

    boundaries: int = 0  # counted boundaries visited
    events: int = 0  # clearing points that cleared at least one result
    warm_events: int = 0  # of those, points that were not cold (the cache was warm)
    cleared: int = 0  # n_cleared: results cleared (each counted once)
    admitted: int = 0  # S: their net tokens (tokens removed)
    retrieved: int = 0  # R: heuristic tokens of their JSON-escaped text
    summary_cleared: int = 0  # Σ min(500, tokens)
    removed_observed: int = 0  # Σ over observed requests of min(cleared tokens carried, prefix)
    rewritten: int = 0  # Σ W over warm events: prefix tokens sent again instead of read

    def add(self, other: PolicySums) -> None:
        """Add another unit's sums."""
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass(frozen=True, slots=True)
class TraceRow:
    """What one policy did at one clearing point (tests compare the seed's with the gated
    tables): `request` 0 is the boundary, k > 0 the turn's request k (EVERY_REQUEST only)."""

    request: int
    effective: int
    clears: bool  # the trigger was met here (cold, when the policy requires it)
    cleared_results: int
    admitted_net: int
    admitted_bytes: int
    budget_stopped: bool
    budget_left: int
    rewritten: int  # W of this point (0 when cold or nothing was cleared)


@dataclass
class PolicyRun:
    """One policy over an assessment: sums per API, and the trace when asked for."""

    per_api: dict[Api, PolicySums]
    trace: list[TraceRow] = field(default_factory=list)
    cleared_net: list[int] = field(default_factory=list)  # net tokens, in clearing order
    cleared_results: list[ToolResult] = field(default_factory=list)  # in memory only


class Point:
    """One clearing point of a boundary's turn: before its first request (`request` 0, the
    boundary itself) or before its later request k. Made once per boundary for every policy
    (`TurnPoints`). Its context is a few ranges of result slots (`segments`, ascending): the
    boundary's context, then the runs of the turn's own results placed before this request,
    each from the first slot no checkpoint inside the turn before this request compacted."""

    __slots__ = (
        "checkpoints_before",
        "compacted_since_first",
        "estimate",
        "gap_ms",
        "request",
        "segments",
    )

    def __init__(self, turn: TurnPoints, request: int) -> None:
        replayed = turn.boundary.replayed
        requests = replayed.requests
        self.request = request
        self.estimate: int
        self.gap_ms: int | None
        segments = [(turn.lo, turn.hi)]
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
            segments += turn.results_placed(sent.results_before)
            self.checkpoints_before = sent.checkpoints_before
            self.compacted_since_first = sent.checkpoints_before > requests[0].checkpoints_before
        if self.compacted_since_first:
            first = turn.index.carried_from(self.checkpoints_before)
            segments = [(max(start, first), end) for start, end in segments]
        self.segments = tuple((start, end) for start, end in segments if end > start)

    def in_context(self) -> list[int]:
        """Result slots in context here, oldest first: the boundary's context, then the turn's
        results placed before this request, less any a checkpoint inside the turn compacted."""
        return [slot for start, end in self.segments for slot in range(start, end)]

    def size(self) -> int:
        """How many results are in context here."""
        return sum(end - start for start, end in self.segments)


class TurnPoints:
    """The clearing points of one boundary, each made once and shared by every policy; the
    journal's context tally is already advanced to the boundary."""

    def __init__(self, journal: JournalFacts, boundary: Boundary, context: ContextTally) -> None:
        self.boundary = boundary
        self.context = context
        self.results, self.classes, self.cohorts, self.net, self.index = journal
        self.lo, self.hi = self.index.context(boundary.replayed.turn_index)
        self._runs: list[tuple[int, int, int]] | None = None
        self._points: dict[int, Point] = {}

    def __len__(self) -> int:
        return max(1, len(self.boundary.replayed.requests))

    def results_placed(self, count: int) -> list[tuple[int, int]]:
        """The turn's first `count` results as ranges of slots (one, unless another turn's
        results were placed among them)."""
        if self._runs is None:
            self._runs = runs(self.boundary.replayed.turn_results)
        return [
            (start, min(end, start + count - position))
            for position, start, end in self._runs
            if position < count
        ]

    def __getitem__(self, request: int) -> Point:
        point = self._points.get(request)
        if point is None:
            point = self._points[request] = Point(self, request)
        return point


class JournalFacts(NamedTuple):
    """What the clearing points read of one journal: its results, their classes and API
    cohorts, each result's net tokens (its tokens less the placeholder's), and its slot
    index."""

    results: Sequence[ToolResult]
    classes: Sequence[ResultClass]
    cohorts: Sequence[Api | None]
    net: Sequence[int]
    slot_index: JournalIndex

    @classmethod
    def of(cls, assessment: Assessment, journal: int, placeholder_tokens: int) -> JournalFacts:
        """The facts of `assessment`'s journal at position `journal`."""
        results = assessment.replay.journals[journal].journal.results
        return cls(
            results,
            assessment.classes[journal],
            assessment.cohorts[journal],
            [result.tokens - placeholder_tokens for result in results],
            JournalIndex(results),
        )


def _tail_from(keep: Keep, point: Point, index: JournalIndex, never: int) -> int:
    """The first slot of the point's protected tail: its last `last_tool_results` results
    (any class), its newest results while their tokens fit `newest_result_tokens`, their
    union, or with `tail_whichever_first` their common part (`never`: no tail). The context
    is read from its end, range by range, by counts and token sums: never slot by slot."""
    segments = point.segments
    last_from = never
    if keep.last_tool_results and segments:
        wanted = keep.last_tool_results
        last_from = segments[0][0]  # fewer results than wanted: the whole context
        for start, end in reversed(segments):
            if end - start >= wanted:
                last_from = end - wanted
                break
            wanted -= end - start
    newest_from = never
    if keep.newest_result_tokens:
        room = keep.newest_result_tokens
        cumulative = index.cumulative_tokens
        for start, end in reversed(segments):
            tokens = cumulative[end] - cumulative[start]
            if tokens <= room:
                room -= tokens
                newest_from = start
                continue
            # The smallest slot from which the range's tail still fits what is left.
            first = bisect.bisect_left(cumulative, cumulative[end] - room, start, end + 1)
            if first < end:
                newest_from = first
            break
    if keep.tail_whichever_first and keep.last_tool_results and keep.newest_result_tokens:
        # One tail that ends at whichever limit comes first: the shorter of the two.
        return max(last_from, newest_from)
    return min(last_from, newest_from)


def _statically_kept(keep: Keep, results: Sequence[ToolResult]) -> Callable[[int], bool]:
    """The keep rules that depend on the result alone: its size, its tool (its name, or its
    class with `only_read_only_builtins`), being the first."""

    def kept(slot: int) -> bool:
        result = results[slot]
        return (
            (keep.first_tool_result and slot == 0)
            or (keep.results_at_most_tokens > 0 and result.tokens <= keep.results_at_most_tokens)
            or result.tool_name in keep.tool_names
            or (
                keep.only_read_only_builtins
                and result.tool_class is not ToolClass.READ_ONLY_BUILTIN
            )
        )

    return kept


class _Clearable:
    """What a policy may clear at one point, oldest first: the slots its walk's scan still
    holds in the point's context, less those a keep rule keeps at this point. A keep rule that
    depends on the point keeps every slot from `tail` on (the protected tail), and perhaps some
    from `window` on (recent prompt turns, the seed's protection windows): only the slots in
    [window, tail) are looked at one by one; the rest are skipped or summed by range."""

    __slots__ = ("_kept", "_net", "_scan", "_segments", "_tail", "_window")

    def __init__(
        self,
        scan: SlotScan,
        segments: Sequence[tuple[int, int]],
        *,
        tail: int,
        window: int,
        kept: Callable[[int], bool],
        net: Sequence[int],
    ) -> None:
        self._scan, self._segments = scan, segments
        self._tail, self._window, self._kept, self._net = tail, window, kept, net

    def __iter__(self) -> Iterator[int]:
        window, kept, tail = self._window, self._kept, self._tail
        for start, end in self._segments:
            for slot in self._scan.present(start, min(end, tail)):
                if slot < window or not kept(slot):
                    yield slot

    def net(self) -> int:
        """Their net tokens (the walk keeps the scan's weights)."""
        scan, window, kept, net, tail = self._scan, self._window, self._kept, self._net, self._tail
        total = 0
        for start, stop in self._segments:
            end = min(stop, tail)
            total += scan.weight(start, end)
            for slot in scan.present(max(start, window), end):
                if kept(slot):
                    total -= net[slot]
        return total


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
        trigger = policy.trigger
        # Only these triggers read what is clearable: the walks then keep its net tokens.
        self._sums_clearable = isinstance(trigger, ClearableAtLeast) or (
            isinstance(trigger, EffectiveAtLeastFraction | EffectiveWithinOfTrigger)
            and trigger.clearable_at_least_tokens > 0
        )
        self._placeholder_tokens = placeholder_tokens
        self._simulation = simulation_policy()
        self._eligibility = eligibility_policy()
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

    def _candidate(self, facts: JournalFacts) -> Callable[[int], bool]:
        """The slots of a journal the policy may ever clear: the seed's lower-bound class
        with a positive net saving, and no keep rule of the result alone keeping it."""
        classes, net = facts.classes, facts.net
        kept = _statically_kept(self._policy.keep, facts.results)

        def candidate(slot: int) -> bool:
            result_class = classes[slot]
            return (
                result_class.fixed is None
                and result_class.shortfall is None
                and net[slot] > 0
                and not kept(slot)
            )

        return candidate

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
            journal_facts = facts.get(journal)
            if journal_facts is None:
                journal_facts = facts[journal] = (
                    JournalFacts.of(self._assessment, journal, self._placeholder_tokens)
                    if points is None
                    else JournalFacts(
                        points.results, points.classes, points.cohorts, points.net, points.index
                    )
                )
            walk = walks.get(journal)
            if walk is None:
                walk = walks[journal] = JournalWalk(
                    self._assessment,
                    journal,
                    self._placeholder_tokens,
                    state,
                    candidate=self._candidate(journal_facts),
                    context=None if points is None else points.context,
                    index=journal_facts.slot_index,
                    weighted=self._sums_clearable,
                )
            release_pins(boundary, walk, state)
            if points is None:
                walk.context.advance(boundary.replayed)
                points = TurnPoints(journal_facts, boundary, walk.context)
            walk.move(boundary.replayed.turn_index)
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
        self._point(boundary, walk, walks, state, points[0])
        if not self._every_request:
            self._requests(boundary, requests, walk)
            return
        self._requests(boundary, requests[:1], walk)
        period = self._assessment.period
        for k in range(1, len(requests)):
            if not period.contains(requests[k].timestamp):
                continue  # a request outside the period is no clearing point
            point = points[k]
            if point.compacted_since_first:
                walk.cleared.drop_before(walk.index.carried_from(point.checkpoints_before))
            self._point(boundary, walk, walks, state, point)
            self._requests(boundary, requests[k : k + 1], walk)

    def _clearable(self, boundary: Boundary, walk: JournalWalk, point: Point) -> _Clearable:
        """Slots the policy may clear here, oldest first: the seed's lower-bound class of the
        boundary's cohort (without its protection windows, unless kept), placed before this
        point, not cleared before, with a positive net saving, and kept by no keep rule."""
        replayed = boundary.replayed
        results, index = walk.results, walk.index
        eligibility = self._eligibility
        protection_window = min(
            index.first_of_turn(replayed.turn_index - eligibility.protected_prompt_turns),
            index.first_of_start(replayed.tool_starts_before - eligibility.protected_tool_starts),
        )
        scan = walk.scan(boundary.api)
        if point.request == 0 and self._seed_candidates:
            # Exactly the gated simulation's candidates (R-SIM-8 protection included).
            return _Clearable(
                scan,
                point.segments,
                tail=len(results),
                window=protection_window,
                kept=lambda slot: protection(results[slot], replayed) is not None,
                net=walk.net,
            )
        keep = self._policy.keep
        tail_from = _tail_from(keep, point, index, len(results))
        turn = replayed.turn_index
        # Results of this turn or of the K prompt turns before it are kept (K = 0: none; the
        # turn's own results exist only at a later request's clearing point).
        recent_from = turn - keep.last_prompt_turns if keep.last_prompt_turns else turn + 1
        window = index.first_of_turn(recent_from)
        seed_protection = keep.seed_protection
        if seed_protection:
            window = min(window, protection_window)

        def kept(slot: int) -> bool:
            result = results[slot]
            return (seed_protection and protection(result, replayed) is not None) or (
                result.turn_index >= recent_from
            )

        return _Clearable(
            scan, point.segments, tail=tail_from, window=window, kept=kept, net=walk.net
        )

    def _batch_open(self, boundary: Boundary, state: ConversationState) -> bool:
        """The seed's batch gate: no batch yet, or enough completed prompt runs since."""
        runs_before = boundary.completed_prompt_runs_before
        separation = self._simulation.batch_separation_prompt_runs
        return state.last_batch_runs is None or runs_before - state.last_batch_runs >= separation

    def _may_trigger(
        self, boundary: Boundary, point: Point, effective: int, state: ConversationState
    ) -> bool:
        """The part of the trigger that does not depend on what is clearable: when it fails,
        the point cannot clear, and finding its clearable results is skipped."""
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

    def _triggered(self, clearable: _Clearable) -> bool:
        """The rest of the trigger, once `_may_trigger` held: what is clearable."""
        trigger = self._policy.trigger
        if isinstance(trigger, EffectiveAtLeastFraction | EffectiveWithinOfTrigger):
            threshold = trigger.clearable_at_least_tokens
            return threshold <= 0 or clearable.net() >= threshold
        if isinstance(trigger, ClearableAtLeast):
            return clearable.net() >= trigger.tokens
        assert isinstance(trigger, PressureBand | EstimateAtLeast | Always)
        return True

    @staticmethod
    def _prefix_before(walk: JournalWalk, point: Point, first: int) -> int:
        """Tokens before the first cleared result: E just before it joined the context, minus
        what was cleared before it since; 0 (all rewritten) when a checkpoint came between
        (it rebuilt the prefix)."""
        result = walk.results[first]
        if point.checkpoints_before > result.checkpoints_before:
            return 0
        return max(0, result.prefix_estimate - walk.cleared.below(first))

    def _point(
        self,
        boundary: Boundary,
        walk: JournalWalk,
        walks: Mapping[int, JournalWalk],
        state: ConversationState,
        point: Point,
    ) -> None:
        """One clearing point: its effective occupancy, the trigger, and what it clears
        (which joins the walk's cleared results in context)."""
        api = boundary.api
        results = walk.results
        sums = self.run.per_api[api]
        effective = point.estimate - walk.cleared.net
        cold = is_cold(self._routes[api], point.gap_ms)
        clears = False
        admitted = admitted_bytes = cleared_here = rewritten = 0
        budget_stopped = False
        clearable: _Clearable | None = None
        if (cold or not self._policy.only_cold) and self._may_trigger(
            boundary, point, effective, state
        ):
            clearable = self._clearable(boundary, walk, point)
            clears = self._triggered(clearable)
        if clears:
            assert clearable is not None
            target = self._thresholds[api].target
            prefix: int | None = None
            for slot in clearable:
                if target is not None and effective - admitted <= target:
                    break
                result = results[slot]
                if result.text_bytes > state.budget_left:
                    budget_stopped = True
                    break
                if prefix is None and not cold:
                    prefix = self._prefix_before(walk, point, slot)
                net_tokens = result.tokens - self._placeholder_tokens
                self._clear(result, net_tokens, walks, state, sums=sums, walk=walk)
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
        *,
        sums: PolicySums,
        walk: JournalWalk,
    ) -> None:
        """Count `result` cleared (`clearing.count_cleared`) and add it to the sums."""
        count_cleared(result, net, walks, state, walk)
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
        self, boundary: Boundary, requests: Sequence[RequestUsage], walk: JournalWalk
    ) -> None:
        """removed.observed (R-CM-7): each observed request's cleared tokens still carried,
        at most its prefix, until the checkpoint that compacts them."""
        cleared = walk.cleared
        if not cleared.count:
            return
        per_api = self.run.per_api
        period = self._assessment.period
        carried_from = walk.index.carried_from
        for request in requests:
            # On the API the request's own message names (R-CM-8), in the period, as the gated
            # simulation counts it.
            api = routed_api(request.api, per_api)
            if api is None or usage_is_fallback(request) or not period.contains(request.timestamp):
                continue
            prefix = request.input + request.cache_read + request.cache_write
            carried = cleared.carried(carried_from(request.checkpoints_before))
            per_api[api].removed_observed += min(carried, prefix)


@dataclass(frozen=True, slots=True)
class _Thresholds:
    """A policy's token thresholds on one route, as integers (the trigger's fractions of T
    made exact once: an integer n >= f·T exactly when n >= ceil(f·T))."""

    window: int  # T
    low: int  # the pressure band's lower edge, or the effective trigger: ceil(f·T), T - tokens
    target: int | None  # DOWN_TO_FRACTION: clear while effective > floor(f·T)

    @classmethod
    def of(cls, policy: WhatIf, route: Route) -> _Thresholds:
        """The thresholds of `policy` on `route`."""
        window = route.trigger_tokens
        trigger, amount = policy.trigger, policy.amount
        low = 0
        if isinstance(trigger, PressureBand):
            low = math.ceil(Fraction(str(simulation_policy().pressure_low_fraction)) * window)
        elif isinstance(trigger, EffectiveAtLeastFraction):
            low = math.ceil(Fraction(str(trigger.fraction)) * window)
        elif isinstance(trigger, EffectiveWithinOfTrigger):
            low = max(0, window - trigger.tokens)
        target = None
        if isinstance(amount, DownToFraction):
            target = math.floor(Fraction(str(amount.fraction)) * window)
        else:
            assert isinstance(amount, AllOlder)
        return cls(window, low, target)


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


__all__ = [
    "JournalFacts",
    "Point",
    "PolicyRun",
    "PolicySimulator",
    "PolicySums",
    "TraceRow",
    "TurnPoints",
    "run_policy",
    "run_what_ifs",
]
