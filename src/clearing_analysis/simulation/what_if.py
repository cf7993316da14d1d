"""The named pruning policies of `policy/what-ifs.json` on this history (informational, never
gating; docs/model.md, section 9).

Each policy walks the same counted boundaries, in the same time order and with the same
per-conversation state as the gated simulation (`clearing.ConversationSimulator`): pins against
the conversation's budget, results counted once, effective occupancy. What differs is when it
clears (its trigger, cold only or not), what it keeps on top of the seed's eligibility, and how
much it clears. The seed's eligibility itself (identity proof, no effectful or instruction tool,
placed results) holds for every policy, so no policy clears what the seed forbids.

The outputs are integer sums per policy and API (and, on request, a per-boundary trace the
tests hold against the gated simulation's tables); nothing here names a result or holds text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from clearing_analysis.eligibility import Assessment, Boundary, ContextTally
from clearing_analysis.eligibility.context import protection
from clearing_analysis.inputs.configs import Api, Route, Routes
from clearing_analysis.policy import (
    AllOlder,
    Always,
    ClearableAtLeast,
    DownToFraction,
    EffectiveAtLeastFraction,
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
from clearing_analysis.replay.model import ToolResult
from clearing_analysis.simulation.clearing import (
    ConversationState,
    JournalWalk,
    is_cold,
    journal_context,
    release_pins,
    time_order,
    usage_is_fallback,
)


@dataclass
class PolicySums:
    """One policy on one API cohort: integer sums the pressure and cost models read."""

    boundaries: int = 0  # counted boundaries visited
    events: int = 0  # boundaries that cleared at least one result
    warm_events: int = 0  # of those, boundaries that were not cold (the cache was warm)
    cleared: int = 0  # n_cleared: results cleared (each counted once)
    admitted: int = 0  # S: their net tokens (tokens removed)
    retrieved: int = 0  # R: heuristic tokens of their JSON-escaped text
    summary_cleared: int = 0  # Σ min(500, tokens)
    removed_observed: int = 0  # Σ over observed requests of min(cleared tokens carried, prefix)
    rewritten: int = 0  # Σ W over warm events: prefix tokens written instead of read

    def add(self, other: PolicySums) -> None:
        """Add another unit's sums."""
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass(frozen=True, slots=True)
class TraceRow:
    """What one policy did at one boundary (tests compare the seed's with the gated tables)."""

    effective: int
    clears: bool  # the boundary was a clearing point (trigger met, cold when required)
    cleared_results: int
    admitted_net: int
    admitted_bytes: int
    budget_stopped: bool
    budget_left: int
    rewritten: int  # W of this boundary (0 when cold or nothing was cleared)


@dataclass
class PolicyRun:
    """One policy over an assessment: sums per API, and the trace when asked for."""

    per_api: dict[Api, PolicySums]
    trace: list[TraceRow] = field(default_factory=list)
    cleared_net: list[int] = field(default_factory=list)  # net tokens, in clearing order
    cleared_results: list[ToolResult] = field(default_factory=list)  # in memory only


@dataclass
class _State(ConversationState):
    """The gated simulation's conversation state, and each journal's boundary estimates by
    turn (the prefix before a result's turn, for the rewrite cost)."""

    estimates: dict[tuple[int, int], int] = field(default_factory=dict)


class _Keeper:
    """A policy's keep rules at one boundary: which clearable slots stay."""

    def __init__(self, keep: Keep, boundary: Boundary, walk: JournalWalk) -> None:
        results = walk.results
        in_context = list(walk.context.active())
        last: set[int] = set()
        if keep.last_tool_results:
            last.update(in_context[-keep.last_tool_results :])
        newest: set[int] = set()
        if keep.newest_result_tokens:
            total = 0
            for slot in reversed(in_context):
                total += results[slot].tokens
                if total > keep.newest_result_tokens:
                    break
                newest.add(slot)
        # Both are tails of the context (newest first): the one that ends first is their
        # common part.
        both = keep.last_tool_results and keep.newest_result_tokens
        kept = last & newest if keep.tail_whichever_first and both else last | newest
        if keep.first_tool_result and results:
            kept.add(0)
        self._kept = kept
        self._keep = keep
        # Results of this turn or of the K prompt turns before it are kept (K = 0: none).
        turn = boundary.replayed.turn_index
        self._recent_from = turn - keep.last_prompt_turns if keep.last_prompt_turns else turn + 1
        self._boundary = boundary

    def keeps(self, slot: int, result: ToolResult) -> bool:
        """Whether a keep rule keeps `result` (at `slot`) at this boundary."""
        keep = self._keep
        return (
            slot in self._kept
            or (keep.seed_protection and protection(result, self._boundary.replayed) is not None)
            or result.turn_index >= self._recent_from
            or (keep.results_at_most_tokens > 0 and result.tokens <= keep.results_at_most_tokens)
            or result.tool_name in keep.tool_names
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
        self._placeholder_tokens = placeholder_tokens
        self._simulation = simulation_policy()
        self._low = Fraction(str(self._simulation.pressure_low_fraction))
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

    def start_conversation(self) -> Callable[[Boundary, ContextTally | None], None]:
        """A new conversation's state, and the step that visits its next boundary (in time
        order). A step given a journal's shared context tally uses it as already advanced to
        the boundary; without one, the policy's own tally is advanced."""
        state = _State(budget_left=self._simulation.conversation_budget_bytes)
        walks: dict[int, JournalWalk] = {}

        def visit(boundary: Boundary, shared: ContextTally | None) -> None:
            walk = walks.get(boundary.journal)
            if walk is None:
                walk = walks[boundary.journal] = JournalWalk(
                    self._assessment,
                    boundary.journal,
                    self._placeholder_tokens,
                    state.counted,
                    context=shared,
                )
            release_pins(boundary, walk, state)
            if shared is None:
                walk.context.advance(boundary.replayed)
            self._boundary(boundary, walk, walks, state)

        return visit

    def _clearable(self, boundary: Boundary, walk: JournalWalk, state: _State) -> list[int]:
        """Slots the policy may clear here, oldest first: the seed's lower-bound class of the
        boundary's cohort (without its protection windows, unless kept), not the current
        turn's, not cleared before, with a positive net saving, and kept by no keep rule."""
        api = boundary.api
        results = walk.results
        counted = state.counted
        keep = self._policy.keep
        if keep.seed_protection and keep == Keep(seed_protection=True):
            # Exactly the gated simulation's candidates (R-SIM-8 protection included).
            slots = list(walk.context.lower_bound(api))
        else:
            classes = self._assessment.classes[boundary.journal]
            cohorts = self._assessment.cohorts[boundary.journal]
            turn = boundary.replayed.turn_index
            slots = [
                slot
                for slot in walk.context.active()
                if cohorts[slot] == api
                and classes[slot].fixed is None
                and classes[slot].shortfall is None
                and results[slot].turn_index < turn
            ]
            keeper = _Keeper(keep, boundary, walk)
            slots = [slot for slot in slots if not keeper.keeps(slot, results[slot])]
        return [
            slot
            for slot in slots
            if results[slot].finalized_id not in counted
            and results[slot].tokens - self._placeholder_tokens > 0
        ]

    def _triggered(
        self, boundary: Boundary, effective: int, clearable_net: int, state: _State
    ) -> bool:
        trigger = self._policy.trigger
        replayed = boundary.replayed
        window = self._routes[boundary.api].trigger_tokens
        if isinstance(trigger, PressureBand):
            runs = boundary.completed_prompt_runs_before
            separation = self._simulation.batch_separation_prompt_runs
            batch_open = state.last_batch_runs is None or runs - state.last_batch_runs >= separation
            return batch_open and self._low * window <= effective < window
        if isinstance(trigger, EstimateAtLeast):
            return replayed.estimate >= trigger.tokens
        if isinstance(trigger, EffectiveAtLeastFraction):
            return (
                effective >= Fraction(str(trigger.fraction)) * window
                and clearable_net >= trigger.clearable_at_least_tokens
            )
        if isinstance(trigger, ClearableAtLeast):
            return clearable_net >= trigger.tokens
        assert isinstance(trigger, Always)
        return True

    def _may_trigger(self, boundary: Boundary, effective: int, state: _State) -> bool:
        """The part of the trigger that does not depend on what is clearable: when it fails,
        the boundary cannot clear, and finding its clearable results (the costly part of a
        boundary) is skipped. Same outcome as `_triggered` alone."""
        trigger = self._policy.trigger
        if isinstance(trigger, PressureBand | EstimateAtLeast):
            return self._triggered(boundary, effective, 0, state)
        if isinstance(trigger, EffectiveAtLeastFraction):
            window = self._routes[boundary.api].trigger_tokens
            return effective >= Fraction(str(trigger.fraction)) * window
        return True

    def _prefix_before(
        self, boundary: Boundary, walk: JournalWalk, state: _State, first: ToolResult
    ) -> int:
        """Tokens before the first cleared result: E at the boundary of the turn that placed
        it, minus what has been cleared of earlier turns since; 0 (all rewritten) when that
        boundary is not this journal's or a checkpoint lies between."""
        turn = boundary.replayed.turn_index
        placed = first.turn_index
        estimate = state.estimates.get((boundary.journal, placed))
        if estimate is None:
            return 0
        checkpoints = self._assessment.replay.journals[boundary.journal].journal.checkpoints
        if any(placed < c.before_turn <= turn for c in checkpoints):
            return 0
        results = walk.results
        earlier = sum(
            state.counted[results[slot].finalized_id]
            for slot in walk.cleared_in_context()
            if results[slot].turn_index < placed
        )
        return max(0, estimate - earlier)

    def _boundary(
        self,
        boundary: Boundary,
        walk: JournalWalk,
        walks: Mapping[int, JournalWalk],
        state: _State,
    ) -> None:
        api = boundary.api
        route = self._routes[api]
        replayed = boundary.replayed
        results = walk.results
        state.estimates[(boundary.journal, replayed.turn_index)] = replayed.estimate
        sums = self.run.per_api[api]
        sums.boundaries += 1
        cleared_in_context = walk.cleared_in_context()
        counted = state.counted
        effective = replayed.estimate - sum(
            counted[results[s].finalized_id] for s in cleared_in_context
        )
        cold = is_cold(route, replayed.gap_ms)
        clears = False
        admitted = admitted_bytes = cleared_here = rewritten = 0
        budget_stopped = False
        if (cold or not self._policy.only_cold) and self._may_trigger(boundary, effective, state):
            clearable = self._clearable(boundary, walk, state)
            net = sum(results[s].tokens - self._placeholder_tokens for s in clearable)
            clears = self._triggered(boundary, effective, net, state)
        if clears:
            amount = self._policy.amount
            target = (
                Fraction(str(amount.fraction)) * route.trigger_tokens
                if isinstance(amount, DownToFraction)
                else None
            )
            assert target is not None or isinstance(amount, AllOlder)
            prefix: int | None = None
            for slot in clearable:
                if target is not None and effective - admitted <= target:
                    break
                result = results[slot]
                if result.text_bytes > state.budget_left:
                    budget_stopped = True
                    break
                if prefix is None:
                    prefix = self._prefix_before(boundary, walk, state, result)
                net_tokens = result.tokens - self._placeholder_tokens
                self._clear(result, net_tokens, walks, state, sums)
                cleared_in_context.append(slot)
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
        self._requests(boundary, results, cleared_in_context, state, sums)
        if self._trace:
            self.run.trace.append(
                TraceRow(
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
        state: _State,
        sums: PolicySums,
    ) -> None:
        """Count `result` cleared once, in every journal's copy, and pin its text."""
        finalized_id = result.finalized_id
        state.counted[finalized_id] = net
        for other in walks.values():
            copy = other.slots.get(finalized_id)
            if copy is not None:
                other.counted_slots.add(copy)
        state.pins[finalized_id] = result.text_bytes
        state.budget_left -= result.text_bytes
        sums.cleared += 1
        sums.admitted += net
        sums.retrieved += tokens_for_units(result.escaped_units)
        sums.summary_cleared += min(
            self._simulation.summary_tokens_per_cleared_result_cap, result.tokens
        )
        if self._trace:
            self.run.cleared_net.append(net)
            self.run.cleared_results.append(result)

    @staticmethod
    def _requests(
        boundary: Boundary,
        results: Sequence[ToolResult],
        cleared_in_context: Sequence[int],
        state: _State,
        sums: PolicySums,
    ) -> None:
        """removed.observed (R-CM-7): each observed request's cleared tokens still carried,
        at most its prefix, until the checkpoint that compacts them."""
        if not cleared_in_context:
            return
        riding = [
            (state.counted[results[s].finalized_id], results[s].compacted_by)
            for s in cleared_in_context
        ]
        for request in boundary.requests:
            if usage_is_fallback(request):
                continue
            carried = sum(
                net
                for net, compacted_by in riding
                if compacted_by is None or request.checkpoints_before <= compacted_by
            )
            prefix = request.input + request.cache_read + request.cache_write
            sums.removed_observed += min(carried, prefix)


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
    journal's context tally (which depends on the journal alone) is advanced once for all of
    them instead of once per policy; each policy keeps its own state. The sums are those of
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
        for boundary in time_order(boundaries):
            context = contexts.get(boundary.journal)
            if context is None:
                context = contexts[boundary.journal] = journal_context(
                    assessment, boundary.journal, placeholder_tokens
                )
            context.advance(boundary.replayed)
            for visit in visits:
                visit(boundary, context)
    return {simulator.policy_id: simulator.run.per_api for simulator in simulators}


__all__ = [
    "PolicyRun",
    "PolicySimulator",
    "PolicySums",
    "TraceRow",
    "run_policy",
    "run_what_ifs",
]
