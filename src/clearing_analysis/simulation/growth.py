"""Native growth G and the observed checkpoints of each API cohort (R-PM-3, R-PM-4).

G sums, over contributing journals, the span of the journal's counted boundaries of the API
(E of the last minus E of the first) plus what each observed checkpoint between them removed
(tokensBefore - tokensAfter): compaction takes away growth that happened. Decisions
(docs/model.md): the sum runs per journal rather than per physical conversation, so the
branches of a fork never subtract from each other; a checkpoint belongs to the API of the
latest request before it and counts when it shaped a boundary after the first counted one and
no later than the last. Those checkpoints are also the observed ones the report shows beside
the model, never mixed into it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from clearing_analysis.eligibility import Assessment, Boundary
from clearing_analysis.inputs.configs import Api
from clearing_analysis.replay.model import CheckpointObservation


@dataclass
class Growth:
    """One API cohort's native growth and the checkpoints inside its window."""

    boundary_span: int = 0
    compaction_removed: int = 0
    checkpoints: list[CheckpointObservation] = field(default_factory=list)

    @property
    def total(self) -> int:
        """G (R-PM-4)."""
        return self.boundary_span + self.compaction_removed


def _journal_growth(
    boundaries: Sequence[Boundary], checkpoints: Sequence[CheckpointObservation], growth: Growth
) -> None:
    first, last = boundaries[0].replayed, boundaries[-1].replayed
    growth.boundary_span += last.estimate - first.estimate
    api = boundaries[0].api.value
    for checkpoint in checkpoints:
        if checkpoint.api == api and first.turn_index < checkpoint.before_turn <= last.turn_index:
            growth.compaction_removed += checkpoint.tokens_before - checkpoint.tokens_after
            growth.checkpoints.append(checkpoint)


def cohort_growth(assessment: Assessment) -> dict[Api, Growth]:
    """G and the observed checkpoints per routed API."""
    out = {api: Growth() for api in assessment.per_api}
    grouped: dict[tuple[int, Api], list[Boundary]] = {}
    for boundary in assessment.boundaries:  # merge order: turn order within a journal
        grouped.setdefault((boundary.journal, boundary.api), []).append(boundary)
    for (journal, api), boundaries in grouped.items():
        checkpoints = assessment.replay.journals[journal].journal.checkpoints
        _journal_growth(boundaries, checkpoints, out[api])
    return out


__all__ = ["Growth", "cohort_growth"]
