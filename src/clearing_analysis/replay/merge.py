"""Replay many journals and merge their contributions deterministically (R-RP-1..3, R-PERF-3).

Journals are replayed independently and merged strictly in the given order, which the caller
makes deterministic (sorted by byte path relative to its argument root, then argument order:
R-CLI-2). Cross-journal decisions are taken only here:

- a successfully replayed journal whose id was already merged is a DUPLICATE journal;
- a boundary whose (logical conversation, host turn, first input) was first seen in another
  merged journal is a DUPLICATE boundary, whatever its local skip (DUPLICATE > OWNER_MISSING >
  UNSUPPORTED_API > OUTSIDE_CAPTURE_WINDOW). Boundaries of skipped journals were never seen.
  Forks and resumed copies share the lineage and repeat copied turns exactly, so a copied turn
  is a duplicate whatever physical conversation id the copy carries, while a fork's own new turn
  is never one, even if it reuses a host turn id (docs/replay.md, "Forks");
- completed prompt runs are counted per physical conversation in time order over all its
  contributing journals, each run once (R-SIM-9), giving each boundary the number that ended
  before its request.

So the merged result depends only on the order of the journals; `pipeline.units` runs
independent groups of journals in parallel and keeps that order.
"""

from __future__ import annotations

import bisect
import collections
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path

import msgspec

from clearing_analysis.inputs.configs import Api, Routes
from clearing_analysis.inputs.sidecar import ConversationPolicy, SidecarView
from clearing_analysis.replay.arguments import ArgumentKey
from clearing_analysis.replay.journal_replay import replay_journal
from clearing_analysis.replay.model import (
    BoundarySkipReason,
    JournalOutcome,
    JournalSkipReason,
    ReplayedJournal,
    SkippedJournal,
)

_SUPPORTED = frozenset(api.value for api in Api)


class MergedJournal(msgspec.Struct, frozen=True):
    """A contributing journal, the final skip (if any) of each of its boundaries, and for each
    boundary the completed prompt runs of its physical conversation that ended before it."""

    journal: ReplayedJournal
    boundary_skips: tuple[BoundarySkipReason | None, ...]
    completed_prompt_runs_before: tuple[int, ...]


class ReplayResult(msgspec.Struct, frozen=True):
    """Everything the replayed snapshot contributes, plus the skip counts (all keys present)."""

    journals: tuple[MergedJournal, ...]
    skipped_journals: Mapping[JournalSkipReason, int]
    skipped_boundaries: Mapping[BoundarySkipReason, int]
    conversation_policies: Mapping[str, ConversationPolicy]
    invalid_details: Mapping[str, int]
    # UNSUPPORTED_API boundaries whose API is one of the four supported ones: routes.json has
    # no entry for it. Only the supported API names are keys (foreign labels are never echoed).
    boundaries_without_route: Mapping[Api, int]

    @property
    def replayed_journals(self) -> int:
        """Journals that contribute."""
        return len(self.journals)


def merge(outcomes: Iterable[JournalOutcome]) -> ReplayResult:
    """Merge per-journal outcomes in the order given (see the module docstring)."""
    skipped_journals = dict.fromkeys(JournalSkipReason, 0)
    skipped_boundaries = dict.fromkeys(BoundarySkipReason, 0)
    without_route = dict.fromkeys(Api, 0)
    invalid_details: collections.Counter[str] = collections.Counter()
    journal_ids: set[str] = set()
    boundary_owner: dict[tuple[str, str, bytes], int] = {}
    contributing: list[tuple[ReplayedJournal, tuple[BoundarySkipReason | None, ...]]] = []
    runs: dict[str, set[tuple[int, str, str]]] = collections.defaultdict(set)
    policies: dict[str, ConversationPolicy] = {}
    for outcome in outcomes:
        if isinstance(outcome, SkippedJournal):
            skipped_journals[outcome.reason] += 1
            if outcome.reason is JournalSkipReason.INVALID and outcome.detail is not None:
                invalid_details[outcome.detail] += 1
            continue
        if outcome.journal_id in journal_ids:
            skipped_journals[JournalSkipReason.DUPLICATE] += 1
            continue
        journal_ids.add(outcome.journal_id)
        position = len(contributing)
        skips: list[BoundarySkipReason | None] = []
        for boundary in outcome.boundaries:
            key = (outcome.logical_conversation_id, boundary.host_turn_id, boundary.input_key)
            first = boundary_owner.setdefault(key, position)
            skip = BoundarySkipReason.DUPLICATE if first != position else boundary.local_skip
            if skip is not None:
                skipped_boundaries[skip] += 1
            if skip is BoundarySkipReason.UNSUPPORTED_API and boundary.api in _SUPPORTED:
                without_route[Api(boundary.api)] += 1
            skips.append(skip)
        contributing.append((outcome, tuple(skips)))
        runs[outcome.physical_conversation_id].update(
            (run.ended_ms, run.host_turn_id, run.run_id) for run in outcome.completed_prompt_runs
        )
        if outcome.conversation_policy is not None:
            policies.setdefault(outcome.physical_conversation_id, outcome.conversation_policy)
    ended = {physical: sorted(ms for ms, _, _ in found) for physical, found in runs.items()}
    merged = tuple(
        MergedJournal(
            journal,
            skips,
            tuple(
                bisect.bisect_left(ended.get(journal.physical_conversation_id, []), b.request_ms)
                for b in journal.boundaries
            ),
        )
        for journal, skips in contributing
    )
    return ReplayResult(
        journals=merged,
        skipped_journals=skipped_journals,
        skipped_boundaries=skipped_boundaries,
        conversation_policies=policies,
        invalid_details=dict(sorted(invalid_details.items())),
        boundaries_without_route=without_route,
    )


def replay_outcomes(
    paths: Sequence[Path],
    routes: Routes,
    sidecar: SidecarView,
    *,
    argument_key: ArgumentKey | None = None,
) -> Iterator[JournalOutcome]:
    """Per-journal outcomes in the order of `paths`."""
    for path in paths:
        yield replay_journal(path, routes, sidecar, argument_key=argument_key)


def _reporting(
    outcomes: Iterable[JournalOutcome], progress: Callable[[int], None]
) -> Iterator[JournalOutcome]:
    for done, outcome in enumerate(outcomes, start=1):
        progress(done)
        yield outcome


def replay_journals(
    paths: Sequence[Path],
    routes: Routes,
    sidecar: SidecarView,
    *,
    progress: Callable[[int], None] | None = None,
    argument_key: ArgumentKey | None = None,
) -> ReplayResult:
    """Replay `paths` (already in deterministic order) and merge them; `progress` is called
    with the number of journals done after each one."""
    outcomes = replay_outcomes(paths, routes, sidecar, argument_key=argument_key)
    return merge(outcomes if progress is None else _reporting(outcomes, progress))
