"""Result-boundary occurrences (R-EL-8): classified where they arise, counted, never stored.

`classified_context` yields, for one boundary, each result of the boundary's API cohort in its
context (oldest first) with its single reason; `OccurrenceTally` counts them by class and
reason. The replay summary and the simulation both walk boundaries with these, so the two
always agree. A result of another cohort (`assess.result_cohorts`) in the context is no
occurrence of this boundary: its tokens are part of E, nothing more.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

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


@dataclass
class OccurrenceTally:
    """Occurrences by eligibility class and by reason (every key present, zeros included)."""

    by_class: dict[EligibilityClass, int] = field(
        default_factory=lambda: dict.fromkeys(EligibilityClass, 0)
    )
    by_reason: dict[ExclusionReason, int] = field(
        default_factory=lambda: dict.fromkeys(ExclusionReason, 0)
    )

    def add(self, reason: ExclusionReason | None) -> None:
        """Count one occurrence with `reason` (None: lower bound)."""
        self.by_class[class_of(reason)] += 1
        if reason is not None:
            self.by_reason[reason] += 1

    @property
    def total(self) -> int:
        """All occurrences counted."""
        return sum(self.by_class.values())


__all__ = ["OccurrenceTally", "classified_context"]
