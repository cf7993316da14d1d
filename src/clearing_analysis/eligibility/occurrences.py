"""Result-boundary occurrences (R-EL-8): classified where they arise, counted, never stored.

`classified_context` yields, for one boundary, each result of the boundary's API cohort in its
context (oldest first) with its single reason; `OccurrenceTally` counts them by class and
reason. `ContextTally` counts the same occurrences along one journal's boundaries without
visiting each of them: the replay summary and the simulation both count with it, so the two
always agree, and a test holds it to `classified_context`. A result of another cohort
(`assess.result_cohorts`) in the context is no occurrence of this boundary: its tokens are part
of E, nothing more.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import msgspec

from clearing_analysis.eligibility.classify import ResultClass, occurrence_reason
from clearing_analysis.eligibility.context import ContextCursor, protection
from clearing_analysis.eligibility.reasons import EligibilityClass, ExclusionReason, class_of
from clearing_analysis.inputs.configs import Api
from clearing_analysis.replay.model import ReplayedBoundary, ToolResult


def classified_context(
    cursor: ContextCursor,
    boundary: ReplayedBoundary,
    results: Sequence[ToolResult],
    classes: Sequence[ResultClass],
    cohorts: Sequence[Api | None],
) -> Iterator[tuple[int, ExclusionReason | None]]:
    """(result slot, reason) for each result of `boundary`'s API cohort in its context, oldest
    first (`cohorts`: each result slot's cohort)."""
    cursor.advance(boundary.turn_index)
    api = boundary.api
    for slot in cursor.active():
        if cohorts[slot] != api:
            continue
        result_class = classes[slot]
        if result_class.fixed is not None:
            yield slot, result_class.fixed
        else:
            yield slot, occurrence_reason(result_class, protection(results[slot], boundary))


class OccurrenceTally(msgspec.Struct):
    """Occurrences by eligibility class and by reason (every key present, zeros included)."""

    by_class: dict[EligibilityClass, int] = msgspec.field(
        default_factory=lambda: dict.fromkeys(EligibilityClass, 0)
    )
    by_reason: dict[ExclusionReason, int] = msgspec.field(
        default_factory=lambda: dict.fromkeys(ExclusionReason, 0)
    )

    def add(self, reason: ExclusionReason | None) -> None:
        """Count one occurrence with `reason` (None: lower bound)."""
        self.by_class[class_of(reason)] += 1
        if reason is not None:
            self.by_reason[reason] += 1

    def add_counts(self, counts: Mapping[ExclusionReason | None, int]) -> None:
        """Count `counts[reason]` occurrences with each reason."""
        for reason, count in counts.items():
            self.by_class[class_of(reason)] += count
            if reason is not None:
                self.by_reason[reason] += count

    @property
    def total(self) -> int:
        """All occurrences counted."""
        return sum(self.by_class.values())


_UPPER_CLASSES = frozenset({EligibilityClass.LOWER_BOUND, EligibilityClass.UPPER_BOUND_ONLY})


class ContextTally:
    """The occurrences at successive boundaries of one journal, counted as results enter and
    leave the context instead of re-walked at every boundary.

    Only protection depends on the boundary, and protection only ever ends: along a journal the
    boundary's turn and its count of earlier tool starts never decrease, so a result that is
    unprotected at one boundary is unprotected at every later one. Each result of a cohort in
    context is therefore either *settled* (a fixed reason, or unprotected for good and so its
    shortfall), counted by cohort and reason when it enters or settles and uncounted when it
    leaves, or *recent*: placed in the latest turns, possibly protected, looked at again at
    each boundary until it settles. Memory holds one journal's results, never its occurrences.

    `advance(boundary)` moves forward (never back) to a boundary of the journal; `count`,
    `upper_weight` and `lower_bound` then describe that boundary's context for one API cohort.
    `weights` (optional) gives each result slot a number that `upper_weight` sums.
    """

    def __init__(
        self,
        results: Sequence[ToolResult],
        classes: Sequence[ResultClass],
        cohorts: Sequence[Api | None],
        weights: Sequence[int] | None = None,
    ) -> None:
        self._results = results
        self._classes = classes
        self._cohorts = cohorts
        self._weights = weights
        self._next_entry = 0  # results are in placement order, so context_from never decreases
        self._exits = sorted(
            (r.context_until, slot) for slot, r in enumerate(results) if r.context_until is not None
        )
        self._next_exit = 0
        self._active: dict[int, None] = {}  # insertion-ordered: placement order
        self._recent: dict[int, ExclusionReason | None] = {}  # slot -> protection reason now
        self._settled: dict[Api, dict[ExclusionReason | None, int]] = {}
        self._settled_weight: dict[Api, int] = {}
        self._turn = -1

    def _settle(self, slot: int, cohort: Api, sign: int) -> None:
        """Count (sign 1) or uncount (-1) a settled result under its boundary-free reason."""
        result_class = self._classes[slot]
        reason = result_class.fixed if result_class.fixed is not None else result_class.shortfall
        counts = self._settled.setdefault(cohort, {})
        counts[reason] = counts.get(reason, 0) + sign
        if self._weights is not None and class_of(reason) in _UPPER_CLASSES:
            weight = self._settled_weight.get(cohort, 0)
            self._settled_weight[cohort] = weight + sign * self._weights[slot]

    def advance(self, boundary: ReplayedBoundary) -> None:
        """Move to the context of `boundary` (results placed before its turn, not compacted)."""
        turn = boundary.turn_index
        if turn < self._turn:
            raise RuntimeError("a context tally only moves forward")
        self._turn = turn
        results, cohorts, recent = self._results, self._cohorts, self._recent
        while self._next_entry < len(results) and results[self._next_entry].context_from <= turn:
            slot = self._next_entry
            self._next_entry += 1
            self._active[slot] = None
            cohort = cohorts[slot]
            if cohort is None:
                continue
            if self._classes[slot].fixed is None:
                recent[slot] = None
            else:
                self._settle(slot, cohort, 1)
        while self._next_exit < len(self._exits) and self._exits[self._next_exit][0] <= turn:
            slot = self._exits[self._next_exit][1]
            self._next_exit += 1
            cohort = cohorts[slot]
            if slot not in self._active:
                continue
            del self._active[slot]
            if cohort is None:
                continue
            if slot in recent:
                del recent[slot]
            else:
                self._settle(slot, cohort, -1)
        for slot in list(recent):
            protected = protection(results[slot], boundary)
            if protected is None:
                del recent[slot]
                cohort = cohorts[slot]
                assert cohort is not None  # only a cohort's results are recent
                self._settle(slot, cohort, 1)
            else:
                recent[slot] = occurrence_reason(self._classes[slot], protected)

    def count(self, api: Api, tally: OccurrenceTally) -> None:
        """Add the occurrences of `api`'s cohort at the current boundary to `tally`."""
        settled = self._settled.get(api)
        if settled is not None:
            tally.add_counts(settled)
        cohorts = self._cohorts
        for slot, reason in self._recent.items():
            if cohorts[slot] == api:
                tally.add(reason)

    def upper_weight(self, api: Api) -> int:
        """The sum of `weights` over the current upper-bound occurrences (lower bound and upper
        bound only) of `api`'s cohort."""
        return self._settled_weight.get(api, 0)

    def lower_bound(self, api: Api) -> Iterator[int]:
        """Slots of the current lower-bound occurrences of `api`'s cohort, oldest first."""
        cohorts, classes, recent = self._cohorts, self._classes, self._recent
        for slot in self._active:
            if cohorts[slot] != api or slot in recent:
                continue
            result_class = classes[slot]
            if result_class.fixed is None and result_class.shortfall is None:
                yield slot

    def active(self) -> Iterator[int]:
        """Slots of every result in the current context (any cohort, any class), oldest
        first."""
        return iter(self._active)

    def is_active(self, slot: int) -> bool:
        """Whether result `slot` is in the current context."""
        return slot in self._active


__all__ = ["ContextTally", "OccurrenceTally", "classified_context"]
