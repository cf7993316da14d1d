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

What does not depend on the policy is made once for all of them, and what does is kept up as
the walk proceeds (docs/performance.md, "The what-ifs at a fraction of their cost"): a
journal's layout is the gated walk's and its lower-bound slots are listed once
(`JournalFacts`); a boundary's clearing points (contexts, gaps, observed requests, the
protection window, the highest E over them) are made once when it is first visited
(`TurnPoints`); each policy keeps, per journal, the slots it may still clear (a scan linked
past what it cleared) and its cleared results in context (moved from boundary to boundary).
At a boundary, a policy first reads the part of its trigger that does not depend on what is
clearable for all the turn's points at once, and at a point it looks at its keep rules only
when the scan still holds a slot of the context before the protected tail.
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from fractions import Fraction
from typing import NamedTuple

import msgspec

from clearing_analysis.eligibility import Assessment, Boundary, ResultClass
from clearing_analysis.eligibility.context import protection
from clearing_analysis.inputs.configs import Api, Route, Routes
from clearing_analysis.inputs.period import Period
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
from clearing_analysis.replay.model import ToolResult
from clearing_analysis.simulation.clearing import (
    ConversationState,
    JournalLayout,
    JournalWalk,
    cold_above,
    count_cleared,
    release_pins,
    time_order,
)
from clearing_analysis.simulation.slots import JournalIndex, SlotScan, runs
from clearing_analysis.toolclass import ToolClass


class PolicySums(msgspec.Struct):
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
        for name in self.__struct_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


class TraceRow(msgspec.Struct, frozen=True):
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


class PolicyRun(msgspec.Struct):
    """One policy over an assessment: sums per API, and the trace when asked for."""

    per_api: dict[Api, PolicySums]
    trace: list[TraceRow] = msgspec.field(default_factory=list)
    cleared_net: list[int] = msgspec.field(default_factory=list)  # net tokens, in clearing order
    cleared_results: list[ToolResult] = msgspec.field(default_factory=list)  # in memory only


class Setting(NamedTuple):
    """What the clearing points read of the run, the same for every policy: the routes, the
    period and the routed APIs (the cohorts)."""

    routes: Mapping[Api, Route]
    period: Period
    apis: Mapping[str, Api]  # the routed APIs by name (`routed_api`)

    @classmethod
    def of(cls, assessment: Assessment, routes: Mapping[Api, Route]) -> Setting:
        """The setting of a run over `assessment`."""
        return cls(routes, assessment.period, {api.value: api for api in assessment.per_api})


class Observed(NamedTuple):
    """An observed request of a turn as removed.observed reads it (R-CM-7): the API its own
    message names (R-CM-8), its prefix (input, cache read and cache write tokens), and the
    first slot no checkpoint before it compacted (`JournalIndex.carried_from`)."""

    api: Api
    prefix: int
    carried_from: int


# Makes a NamedTuple from its fields in order, as its own constructor does, without calling
# that constructor (a Python function: a third of what making a clearing point costs).
_new = tuple.__new__


class Point(NamedTuple):
    """One clearing point of a boundary's turn: before its first request (`request` 0, the
    boundary itself) or before its later request k. Made once per boundary for every policy
    (`TurnPoints`). Its context is a few ranges of result slots (`segments`, ascending): the
    boundary's context, then the runs of the turn's own results placed before this request,
    each from the first slot no checkpoint inside the turn before this request compacted
    (`drop_from`, -1 when none did). `cold` is the gap to this request against the route's
    cache lifetime (R-SIM-3); `observed` the request as removed.observed counts it (None: it
    does not count, or the turn has no request)."""

    request: int
    estimate: int
    gap_ms: int | None
    cold: bool
    checkpoints_before: int
    compacted_since_first: bool
    drop_from: int
    segments: tuple[tuple[int, int], ...]
    observed: Observed | None

    def in_context(self) -> list[int]:
        """Result slots in context here, oldest first: the boundary's context, then the turn's
        results placed before this request, less any a checkpoint inside the turn compacted."""
        return [slot for start, end in self.segments for slot in range(start, end)]

    def size(self) -> int:
        """How many results are in context here."""
        return sum(end - start for start, end in self.segments)


class TurnPoints:
    """The clearing points of one boundary and what they read of it, each made once and
    shared by every policy: the context's range of slots, the seed's protection window, the
    first slot of a later turn, each request as removed.observed counts it, and the points
    of an EVERY_REQUEST policy (`every`: the boundary's, then one before each later request
    made in the period, a request outside it being no clearing point)."""

    def __init__(self, journal: JournalFacts, boundary: Boundary, setting: Setting) -> None:
        self.boundary = boundary
        self.facts = journal
        self.results = journal.results
        index = self.index = journal.slot_index
        replayed = boundary.replayed
        self.api = boundary.api
        self._cold_above = cold_above(setting.routes[boundary.api])  # R-SIM-3, `is_cold`
        turn = self.turn = replayed.turn_index
        lo, hi = self.lo, self.hi = index.context(turn)
        self._base = ((lo, hi),) if hi > lo else ()  # the boundary's context, as segments
        eligibility = eligibility_policy()
        # No result below this slot is protected here (R-SIM-8): its turn is older than the
        # protected prompt turns and its tool start older than the protected starts.
        self.protection_window = min(
            index.first_of_turn(turn - eligibility.protected_prompt_turns),
            index.first_of_start(replayed.tool_starts_before - eligibility.protected_tool_starts),
        )
        self.later_turns = index.first_of_turn(turn + 1)  # the first slot of a later turn
        self._requests = requests = replayed.requests
        # Each request as removed.observed counts it: on the API its own message names
        # (R-CM-8, `routed_api`) when that API is routed, its usage recorded (not a cost
        # fallback, `usage_is_fallback`) and its time in the period.
        apis, carried_from = setting.apis, index.carried_from
        contains = setting.period.contains if setting.period.bounded else None
        observed: list[Observed | None] = []
        self.counted_observed: list[Observed] = []
        in_period = [True] * len(requests)
        for k, request in enumerate(requests):
            if contains is not None and not contains(request.timestamp):
                in_period[k] = False
                observed.append(None)
                continue
            api = apis.get(request.api)
            if api is None or not request.usage_recorded:
                observed.append(None)
                continue
            prefix = request.input + request.cache_read + request.cache_write
            counted = _new(Observed, (api, prefix, carried_from(request.checkpoints_before)))
            observed.append(counted)
            self.counted_observed.append(counted)
        self.observed = observed
        self._runs: list[tuple[int, int, int]] | None = None
        self._points: dict[int, Point] = {}
        first = self.first = self[0]
        every = self.every = [first]
        # Over the points of `every`: the highest E, whether any is cold, whether a checkpoint
        # inside the turn compacted any part of the context before one of them.
        estimate, cold, drops = first.estimate, first.cold, False
        point = self._point
        for k in range(1, len(requests)):
            if in_period[k]:
                later = point(k)
                every.append(later)
                estimate = max(estimate, later.estimate)
                cold = cold or later.cold
                drops = drops or later.compacted_since_first
        self.every_estimate, self.every_cold, self.every_drops = estimate, cold, drops

    def __len__(self) -> int:
        return max(1, len(self._requests))

    def results_placed(self, count: int) -> list[tuple[int, int]]:
        """The turn's first `count` results as ranges of slots (one, unless another turn's
        results were placed among them)."""
        placed = []
        for position, start, end in self._turn_runs():  # positions ascending
            if position >= count:
                break
            stop = start + count - position
            placed.append((start, end if end < stop else stop))
        return placed

    def _turn_runs(self) -> list[tuple[int, int, int]]:
        """The turn's results as runs of consecutive slots (`slots.runs`), made once."""
        if self._runs is None:
            turn_results = self.boundary.replayed.turn_results
            if turn_results and turn_results[-1] - turn_results[0] == len(turn_results) - 1:
                # Ascending and consecutive: one run.
                self._runs = [(0, turn_results[0], turn_results[-1] + 1)]
            else:
                self._runs = runs(turn_results)
        return self._runs

    def __getitem__(self, request: int) -> Point:
        point = self._points.get(request)
        if point is None:
            point = self._points[request] = self._point(request)
        return point

    def _point(self, request: int) -> Point:
        """The clearing point before request `request` of the turn."""
        requests = self._requests
        above = self._cold_above
        observed = self.observed[request] if request < len(requests) else None
        if request == 0:
            replayed = self.boundary.replayed
            gap = replayed.gap_ms
            cold = above is not None and gap is not None and gap > above
            checkpoints = requests[0].checkpoints_before if requests else 0
            base = self._base
            return _new(
                Point, (0, replayed.estimate, gap, cold, checkpoints, False, -1, base, observed)
            )
        sent = requests[request]
        # Measured from the turn's previous request, as R-SIM-3 measures a boundary's gap.
        gap = sent.timestamp - requests[request - 1].timestamp
        cold = above is not None and gap > above
        checkpoints, count = sent.checkpoints_before, sent.results_before
        runs = self._turn_runs()
        if len(runs) == 1:
            start, end = runs[0][1], runs[0][2]
            stop = start + count
            placed = [(start, end if end < stop else stop)] if count else []
        else:
            placed = self.results_placed(count)
        if checkpoints > requests[0].checkpoints_before:
            # A checkpoint inside the turn compacted the context from its start to `drop`.
            drop = self.index.carried_from(checkpoints)
            segments = tuple(
                (max(start, drop), end)
                for start, end in (*self._base, *placed)
                if end > max(start, drop)
            )
            return _new(
                Point,
                (request, sent.estimate, gap, cold, checkpoints, True, drop, segments, observed),
            )
        segments = (*self._base, *placed)
        return _new(
            Point,
            (request, sent.estimate, gap, cold, checkpoints, False, -1, segments, observed),
        )


class JournalFacts(NamedTuple):
    """What the clearing points read of one journal: its results, their classes and API
    cohorts, each result's net tokens (its tokens less the placeholder's), its slot index,
    its slots by finalized id, and per API cohort the slots of the seed's lower-bound class
    with a positive net saving (ascending): what every policy may ever clear, before its keep
    rules of the result alone."""

    results: Sequence[ToolResult]
    classes: Sequence[ResultClass]
    cohorts: Sequence[Api | None]
    net: Sequence[int]
    slot_index: JournalIndex
    slots: Mapping[str, int]
    lower: Mapping[Api, Sequence[int]]

    @classmethod
    def of(
        cls,
        assessment: Assessment,
        journal: int,
        placeholder_tokens: int,
        layout: JournalLayout | None = None,
    ) -> JournalFacts:
        """The facts of `assessment`'s journal at position `journal` (over its layout, when
        the gated walk made it)."""
        results = assessment.replay.journals[journal].journal.results
        if layout is None:
            layout = JournalLayout.of(results)
        classes, cohorts = assessment.classes[journal], assessment.cohorts[journal]
        net = [result.tokens - placeholder_tokens for result in results]
        lower: dict[Api, list[int]] = {}
        for slot, cohort in enumerate(cohorts):
            result_class = classes[slot]
            if (
                cohort is not None
                and result_class.fixed is None
                and result_class.shortfall is None
                and net[slot] > 0
            ):
                lower.setdefault(cohort, []).append(slot)
        return cls(
            results,
            classes,
            cohorts,
            net,
            layout.slot_index,
            layout.slots,
            lower,
        )


def _tail_from(keep: Keep, point: Point, index: JournalIndex, never: int) -> int:
    """The first slot of the point's protected tail: its last `last_tool_results` results
    (any class), its newest results while their tokens fit `newest_result_tokens`, their
    union, or with `tail_whichever_first` their common part (`never`: no tail). The context
    is read from its end, range by range, by counts and token sums: never slot by slot."""
    segments = point.segments
    if not segments:
        return never
    last_from = never
    wanted = keep.last_tool_results
    if wanted:
        start, end = segments[-1]
        if end - start >= wanted:
            last_from = end - wanted
        else:
            last_from = segments[0][0]  # fewer results than wanted: the whole context
            for start, end in reversed(segments):
                if end - start >= wanted:
                    last_from = end - wanted
                    break
                wanted -= end - start
    newest_from = never
    room = keep.newest_result_tokens
    if room:
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
        if keep.tail_whichever_first and keep.last_tool_results:
            # One tail that ends at whichever limit comes first: the shorter of the two.
            return last_from if last_from > newest_from else newest_from
    return last_from if last_from < newest_from else newest_from


def _not_statically_kept(
    keep: Keep, results: Sequence[ToolResult], slots: Sequence[int]
) -> list[int]:
    """Those of `slots` that no keep rule of the result alone keeps: its size, its tool (its
    name, or its class with `only_read_only_builtins`), being the first."""
    first, at_most = keep.first_tool_result, keep.results_at_most_tokens
    names, only_read_only = keep.tool_names, keep.only_read_only_builtins
    if not (first or at_most > 0 or names or only_read_only):
        return list(slots)
    read_only = ToolClass.READ_ONLY_BUILTIN
    return [
        slot
        for slot in slots
        if not (
            (first and slot == 0)
            or (at_most > 0 and results[slot].tokens <= at_most)
            or results[slot].tool_name in names
            or (only_read_only and results[slot].tool_class is not read_only)
        )
    ]


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

    def slots(self) -> Iterator[int]:
        """The slots, oldest first (clearing one meanwhile is fine: it leaves the scan)."""
        window, kept, tail, next_at = self._window, self._kept, self._tail, self._scan.next_at
        for start, end in self._segments:
            stop = end if end < tail else tail
            slot = next_at(start) if start < stop else stop
            while slot < stop:
                if slot < window or not kept(slot):
                    yield slot
                slot = next_at(slot + 1)

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


# The triggers, by what they read (`PolicySimulator._point`).
_PRESSURE_BAND, _ESTIMATE_AT_LEAST, _EFFECTIVE_AT_LEAST, _ANY_POINT = range(4)


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
        self._setting = Setting.of(assessment, routes)
        self._policy = policy
        self._every_request = policy.when is ClearingPoint.EVERY_REQUEST
        self._only_cold = policy.only_cold
        self._seed_candidates = policy.keep == Keep(seed_protection=True)
        trigger = policy.trigger
        # What the trigger reads before what is clearable (when that fails, the point cannot
        # clear and finding its clearable results is skipped), and the net tokens it then
        # needs clearable (0: none; the walks keep the clearable net tokens only when > 0).
        self._trigger = _ANY_POINT
        self._estimate_at_least = 0
        self._saving = 0
        if isinstance(trigger, PressureBand):
            self._trigger = _PRESSURE_BAND
        elif isinstance(trigger, EstimateAtLeast):
            self._trigger = _ESTIMATE_AT_LEAST
            self._estimate_at_least = trigger.tokens
        elif isinstance(trigger, EffectiveAtLeastFraction | EffectiveWithinOfTrigger):
            self._trigger = _EFFECTIVE_AT_LEAST
            self._saving = trigger.clearable_at_least_tokens
        elif isinstance(trigger, ClearableAtLeast):
            self._saving = trigger.tokens
        else:
            assert isinstance(trigger, Always)
        self._placeholder_tokens = placeholder_tokens
        self._simulation = simulation_policy()
        self._thresholds = {api: _thresholds(policy, route) for api, route in routes.items()}
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

    def _candidates(self, facts: JournalFacts) -> Callable[[Api], list[int]]:
        """Per API cohort, the slots of a journal the policy may ever clear: the seed's
        lower-bound class with a positive net saving, and no keep rule of the result alone
        keeping it."""
        keep, results, lower = self._policy.keep, facts.results, facts.lower

        def candidates(api: Api) -> list[int]:
            return _not_statically_kept(keep, results, lower.get(api, ()))

        return candidates

    def _walk(self, facts: JournalFacts, journal: int, state: ConversationState) -> JournalWalk:
        """A new walk of one journal of the conversation, over the journal's shared facts."""
        return JournalWalk(
            self._assessment,
            journal,
            self._placeholder_tokens,
            state,
            candidates=self._candidates(facts),
            index=facts.slot_index,
            weighted=self._saving > 0,
            slots=facts.slots,
            net=facts.net,
        )

    def start_conversation(self) -> Callable[[Boundary, TurnPoints | None], None]:
        """A new conversation's state, and the step that visits its next boundary (in time
        order). A step given the boundary's clearing points (made once for every policy)
        uses them; without them, the policy makes its own.

        At each boundary the part of the trigger that does not depend on what is clearable
        (cold, E, the effective occupancy, the batch gate) is read first for all its points
        at once: E is never below the effective occupancy, so when neither the turn's highest
        E nor any cold gap can meet it, no point clears and only removed.observed is counted,
        and only when cleared results are in context (`_points` otherwise)."""
        state = ConversationState(budget_left=self._simulation.conversation_budget_bytes)
        walks: dict[int, JournalWalk] = {}
        facts: dict[int, JournalFacts] = {}
        per_api, thresholds_of = self.run.per_api, self._thresholds
        every_request, only_cold, trace = self._every_request, self._only_cold, self._trace
        trigger, estimate_at_least = self._trigger, self._estimate_at_least

        def visit(boundary: Boundary, points: TurnPoints | None) -> None:
            journal = boundary.journal
            if points is None:
                journal_facts = facts.get(journal)
                if journal_facts is None:
                    journal_facts = facts[journal] = JournalFacts.of(
                        self._assessment, journal, self._placeholder_tokens
                    )
                points = TurnPoints(journal_facts, boundary, self._setting)
            walk = walks.get(journal)
            if walk is None:
                walk = walks[journal] = self._walk(points.facts, journal, state)
            if walk.pins:
                release_pins(boundary, walk, state, lo=points.lo)
            api = points.api
            per_api[api].boundaries += 1
            thresholds = thresholds_of[api]
            if every_request:
                estimate, cold = points.every_estimate, points.every_cold
            else:
                estimate, cold = points.first.estimate, points.first.cold
            if only_cold and not cold:
                may = False
            elif trigger == _ESTIMATE_AT_LEAST:
                may = estimate >= estimate_at_least
            elif trigger == _ANY_POINT:
                may = True
            else:  # the effective trigger or the pressure band's lower edge
                may = estimate >= thresholds.low
            if not (may or trace or walk.counted_any):
                # Nothing of the journal is counted, so nothing cleared is in context, and
                # nothing clears here: the walk need not move to this boundary (its next
                # move reaches the context from wherever it was: `ClearedInContext.move`).
                return
            walk.move_to(points.lo, points.hi)
            cleared = walk.cleared
            if may or trace or (every_request and points.every_drops and cleared.count):
                self._points(points, walk, walks, state, thresholds)
            elif cleared.count:
                # Nothing is cleared here and nothing leaves the context inside the turn.
                for observed in points.counted_observed:
                    carried = cleared.carried(observed.carried_from)
                    per_api[observed.api].removed_observed += min(carried, observed.prefix)

        return visit

    def _points(
        self,
        points: TurnPoints,
        walk: JournalWalk,
        walks: Mapping[int, JournalWalk],
        state: ConversationState,
        thresholds: _Thresholds,
    ) -> None:
        """The boundary's clearing point, then (EVERY_REQUEST) one before each later request
        of its turn made in the period; each request's removed.observed with what is cleared
        by then. At each point, the part of the trigger that does not depend on what is
        clearable is read first: when it fails, the point clears nothing and its clearable
        results are not looked for; nor are they when the walk's scan holds no slot of the
        context before the protected tail."""
        per_api = self.run.per_api
        api = points.api
        sums = per_api[api]
        every_request, trace = self._every_request, self._trace
        cleared = walk.cleared
        low, window = thresholds.low, thresholds.window
        trigger, only_cold = self._trigger, self._only_cold
        keep, seed_candidates, saving = self._policy.keep, self._seed_candidates, self._saving
        last = keep.last_tool_results if not keep.newest_result_tokens else 0
        size, lo = len(points.results), points.lo
        removed = 0  # removed.observed of the requests on the boundary's own API
        next_at: Callable[[int], int] | None = None
        for point in points.every if every_request else (points.first,):
            if point.drop_from >= 0:
                cleared.drop_before(point.drop_from)
            effective = point.estimate - cleared.net
            if only_cold and not point.cold:
                may = False
            elif trigger == _ANY_POINT:
                may = True
            elif trigger == _ESTIMATE_AT_LEAST:
                may = point.estimate >= self._estimate_at_least
            elif trigger == _EFFECTIVE_AT_LEAST:
                may = effective >= low
            else:
                may = low <= effective < window and self._batch_open(points.boundary, state)
            if may:
                # The protected tail's first slot; then whether the walk's scan still holds a
                # slot of the context before it (else nothing is clearable here).
                segments = point.segments
                if seed_candidates and point.request == 0:
                    tail = size
                elif last:  # the last results alone (`_tail_from`)
                    tail = segments[0][0] if segments else size
                    wanted = last
                    for start, end in reversed(segments):
                        if end - start >= wanted:
                            tail = end - wanted
                            break
                        wanted -= end - start
                else:
                    tail = _tail_from(keep, point, points.index, size)
                if next_at is None:
                    next_at = walk.scan(api).next_at
                # The first slot still there from the context's start on: none before the tail,
                # nothing clearable; else one inside a range of the context, before the tail.
                if segments and next_at(segments[0][0]) < tail:
                    for start, end in segments:
                        stop = end if end < tail else tail
                        if start < stop and next_at(start) < stop:
                            self._point(
                                points,
                                walk,
                                walks,
                                state,
                                point,
                                tail=tail,
                                sums=sums,
                                effective=effective,
                            )
                            may = False
                            break
                if may and trace:  # nothing clearable: the trigger held if it needs no saving
                    row = (point.request, effective, saving <= 0, 0, 0, 0, False)
                    self.run.trace.append(TraceRow(*row, state.budget_left, 0))
            elif trace:
                row = (point.request, effective, False, 0, 0, 0, False)
                self.run.trace.append(TraceRow(*row, state.budget_left, 0))
            if every_request:
                request = point.observed
                if request is not None and cleared.count:
                    # Cleared results below the boundary's context are none of the walk's.
                    first = request.carried_from
                    carried = cleared.net if first <= lo else cleared.carried(first)
                    carried = min(carried, request.prefix)
                    if request.api is api:
                        removed += carried
                    else:
                        per_api[request.api].removed_observed += carried
        if not every_request and cleared.count:
            for observed in points.counted_observed:
                carried = cleared.carried(observed.carried_from)
                per_api[observed.api].removed_observed += min(carried, observed.prefix)
        sums.removed_observed += removed

    def _clearable(
        self, points: TurnPoints, walk: JournalWalk, point: Point, tail: int
    ) -> _Clearable:
        """Slots the policy may clear here, oldest first: the seed's lower-bound class of the
        boundary's cohort (without its protection windows, unless kept), placed before this
        point and before its protected tail (from slot `tail` on), not cleared before, with a
        positive net saving, and kept by no keep rule."""
        results, replayed = points.results, points.boundary.replayed
        scan = walk.scan(points.api)
        segments = point.segments
        keep = self._policy.keep
        if point.request == 0 and self._seed_candidates:
            # Exactly the gated simulation's candidates (R-SIM-8 protection included).
            return _Clearable(
                scan,
                segments,
                tail=tail,
                window=points.protection_window,
                kept=lambda slot: protection(results[slot], replayed) is not None,
                net=walk.net,
            )
        # Results of this turn or of the K prompt turns before it are kept (K = 0: none; the
        # turn's own results exist only at a later request's clearing point).
        if keep.last_prompt_turns:
            recent_from = points.turn - keep.last_prompt_turns
            window = points.index.first_of_turn(recent_from)
        else:
            recent_from = points.turn + 1
            window = points.later_turns
        seed_protection = keep.seed_protection
        if seed_protection:
            window = min(window, points.protection_window)

        def kept(slot: int) -> bool:
            result = results[slot]
            return (seed_protection and protection(result, replayed) is not None) or (
                result.turn_index >= recent_from
            )

        return _Clearable(scan, segments, tail=tail, window=window, kept=kept, net=walk.net)

    def _batch_open(self, boundary: Boundary, state: ConversationState) -> bool:
        """The seed's batch gate: no batch yet, or enough completed prompt runs since."""
        runs_before = boundary.completed_prompt_runs_before
        separation = self._simulation.batch_separation_prompt_runs
        return state.last_batch_runs is None or runs_before - state.last_batch_runs >= separation

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
        points: TurnPoints,
        walk: JournalWalk,
        walks: Mapping[int, JournalWalk],
        state: ConversationState,
        point: Point,
        *,
        tail: int,
        sums: PolicySums,
        effective: int,
    ) -> None:
        """One clearing point whose trigger held but for what is clearable, where the walk's
        scan holds some slot before the protected tail (from `tail` on): the net tokens
        clearable when the trigger needs them, then what it clears (which joins the walk's
        cleared results in context)."""
        cold = point.cold
        admitted = admitted_bytes = cleared_here = rewritten = 0
        budget_stopped = False
        clearable = self._clearable(points, walk, point, tail)
        saving = self._saving
        clears = saving <= 0 or clearable.net() >= saving
        if clears:
            results = walk.results
            target = self._thresholds[points.api].target
            prefix: int | None = None
            for slot in clearable.slots():
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
                state.last_batch_runs = points.boundary.completed_prompt_runs_before
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


@functools.cache
def _exact(fraction: float) -> Fraction:
    """A policy file's fraction as written (its decimal text), exactly."""
    return Fraction(str(fraction))


class _Thresholds(msgspec.Struct, frozen=True):
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
            low = math.ceil(_exact(simulation_policy().pressure_low_fraction) * window)
        elif isinstance(trigger, EffectiveAtLeastFraction):
            low = math.ceil(_exact(trigger.fraction) * window)
        elif isinstance(trigger, EffectiveWithinOfTrigger):
            low = max(0, window - trigger.tokens)
        target = None
        if isinstance(amount, DownToFraction):
            target = math.floor(_exact(amount.fraction) * window)
        else:
            assert isinstance(amount, AllOlder)
        return cls(window, low, target)


@functools.cache
def _thresholds(policy: WhatIf, route: Route) -> _Thresholds:
    """`_Thresholds.of`, made once per policy and route of a process (every unit asks)."""
    return _Thresholds.of(policy, route)


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


def run_what_ifs(
    assessment: Assessment, routes: Routes, layouts: Mapping[int, JournalLayout] | None = None
) -> dict[WhatIfId, dict[Api, PolicySums]]:
    """Every policy of the reviewed table, in table order: its sums per API.

    The policies walk each conversation in lockstep, boundary by boundary, so that each
    journal's facts (its slot index, its slots by finalized id, its lower-bound slots) are
    made once, and each boundary's clearing points (their contexts, gaps, protection window
    and observed requests) once for all of them instead of once per policy; each policy keeps
    its own state; a journal's layout is the gated walk's, when given (`layouts`). The sums
    are those of `run_policy` for each policy alone (a test holds them equal)."""
    layouts = {} if layouts is None else layouts
    placeholder_tokens = text_tokens(placeholder_text())
    by_api = dict(routes.by_api)
    setting = Setting.of(assessment, by_api)
    simulators = [
        PolicySimulator(assessment, by_api, policy, placeholder_tokens)
        for policy in what_if_table().policies
    ]
    conversations: dict[str, list[Boundary]] = {}
    for boundary in assessment.boundaries:
        conversations.setdefault(boundary.physical_conversation_id, []).append(boundary)
    for boundaries in conversations.values():
        visits = [simulator.start_conversation() for simulator in simulators]
        facts: dict[int, JournalFacts] = {}
        for boundary in time_order(boundaries):
            journal_facts = facts.get(boundary.journal)
            if journal_facts is None:
                journal_facts = facts[boundary.journal] = JournalFacts.of(
                    assessment, boundary.journal, placeholder_tokens, layouts.get(boundary.journal)
                )
            points = TurnPoints(journal_facts, boundary, setting)
            for visit in visits:
                visit(boundary, points)
    return {simulator.policy_id: simulator.run.per_api for simulator in simulators}


__all__ = [
    "JournalFacts",
    "Observed",
    "Point",
    "PolicyRun",
    "PolicySimulator",
    "PolicySums",
    "Setting",
    "TraceRow",
    "TurnPoints",
    "run_policy",
    "run_what_ifs",
]
