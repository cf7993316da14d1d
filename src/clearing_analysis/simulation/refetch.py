"""Observed re-fetches (R-RF-1; docs/model.md, "Observed re-fetches"): informational only.

For each result the simulation clears (the gated lower bound in `analyze`, the upper bound in
`explore`), whether a later call of the same tool with equal canonical arguments returned in
the same journal after the clearing point, and how far later; and the same for every result of
the counted turns regardless of clearing, from just after it returned (the agent's baseline
re-read habit). Calls are compared only through the keyed digests replay kept
(`replay.arguments`): nothing here sees an argument, and what leaves is counts and distances.

A re-read of a file after a write or edit of that file (between the result and its re-read) is
counted apart, as legitimate. A result whose call has no canonical arguments (an app tool, an
effectful or polling call) cannot be re-fetched: it is counted among the results but not among
the comparable ones, the share's denominator.

Work is linear in a journal's results: each fetching call's later equals are found by
bisection in the list of its digest's results, writes of a path by bisection in that path's.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence

import msgspec

from clearing_analysis.eligibility import Assessment
from clearing_analysis.inputs.configs import Api
from clearing_analysis.replay.arguments import refetch_policy
from clearing_analysis.replay.model import CheckpointObservation, ToolResult
from clearing_analysis.simulation.figures import Buckets, token_buckets


def _turn_buckets() -> Buckets:
    return Buckets.over(refetch_policy().distance_turn_edges)


class RefetchSums(msgspec.Struct):
    """One API's counts for one population (cleared results, or all results).

    Per re-fetch (not after a write), how far later, in prompt turns and tokens of growth: listed
    while a unit is measured (`turns`, `tokens`), then counted into the report's buckets by
    `bucket`, so that what a unit sends and the main process adds has a fixed size."""

    results: int = 0
    comparable: int = 0  # with canonical arguments: the share's denominator
    refetched: int = 0  # re-fetched with no write of the file between
    refetched_after_write: int = 0  # re-read after a write or edit of the same file
    turns: list[int] = msgspec.field(default_factory=list)
    tokens: list[int] = msgspec.field(default_factory=list)
    turn_distances: Buckets = msgspec.field(default_factory=_turn_buckets)
    token_distances: Buckets = msgspec.field(default_factory=token_buckets)

    def bucket(self) -> None:
        """Count the listed distances into the buckets, and empty the lists."""
        self.turn_distances.extend(self.turns)
        self.token_distances.extend(self.tokens)
        self.turns, self.tokens = [], []

    def add(self, other: RefetchSums) -> None:
        """Add another unit's counts."""
        self.results += other.results
        self.comparable += other.comparable
        self.refetched += other.refetched
        self.refetched_after_write += other.refetched_after_write
        self.turns.extend(other.turns)
        self.tokens.extend(other.tokens)
        self.turn_distances.merge(other.turn_distances)
        self.token_distances.merge(other.token_distances)


class RefetchTally(msgspec.Struct):
    """One API's re-fetch counts: of the cleared results, and of all results."""

    cleared: RefetchSums = msgspec.field(default_factory=RefetchSums)
    all_results: RefetchSums = msgspec.field(default_factory=RefetchSums)

    def add(self, other: RefetchTally) -> None:
        """Add another unit's tally."""
        self.cleared.add(other.cleared)
        self.all_results.add(other.all_results)

    def bucket(self) -> None:
        """Both populations' distances into their buckets (`RefetchSums.bucket`)."""
        self.cleared.bucket()
        self.all_results.bucket()


class ClearingPoint(msgspec.Struct, frozen=True):
    """Where the simulation cleared a result: the boundary's journal (assessment position),
    its turn index and E, and the cohort that cleared it."""

    journal: int
    turn: int
    estimate: int
    api: Api


class _JournalIndex:
    """A journal's fetching results by digest and its writes by path, in slot order."""

    def __init__(self, results: Sequence[ToolResult], checkpoints: Sequence[CheckpointObservation]):
        self.results = results
        self.by_call: dict[tuple[str, bytes], list[int]] = {}
        self.turns_of: dict[tuple[str, bytes], list[int]] = {}  # their turn indices
        self.writes: dict[bytes, list[int]] = {}
        self.slot_of: dict[str, int] = {}
        for slot, result in enumerate(results):
            self.slot_of.setdefault(result.finalized_id, slot)
            if result.argument_digest is not None:
                key = (result.tool_name, result.argument_digest)
                self.by_call.setdefault(key, []).append(slot)
                self.turns_of.setdefault(key, []).append(result.turn_index)
            if result.written_path_digest is not None:
                self.writes.setdefault(result.written_path_digest, []).append(slot)
        # Drain of each checkpoint, and the running sum before each (tokens of growth count
        # what grew, not what a compaction removed in between).
        self.drained = [0]
        for checkpoint in checkpoints:
            drain = max(0, checkpoint.tokens_before - checkpoint.tokens_after)
            self.drained.append(self.drained[-1] + drain)
        self.before_turn = [checkpoint.before_turn for checkpoint in checkpoints]

    def equals(self, slot: int) -> tuple[list[int], list[int]]:
        """The slots of the calls equal to slot's (its own included), and their turns."""
        result = self.results[slot]
        if result.argument_digest is None:
            return [], []
        key = (result.tool_name, result.argument_digest)
        return self.by_call[key], self.turns_of[key]

    def written_between(self, slot: int, later: int) -> bool:
        path = self.results[slot].read_path_digest
        if path is None:
            return False
        writes = self.writes.get(path, [])
        return bisect.bisect_right(writes, slot) < bisect.bisect_left(writes, later)

    def growth(self, start_estimate: int, start_checkpoints: int, later: int) -> int:
        """Tokens the context grew from E `start_estimate` (with `start_checkpoints` before
        it) to just before the result in slot `later` joined it: the difference of E plus
        what the checkpoints between drained, never negative."""
        result = self.results[later]
        end = max(start_checkpoints, result.checkpoints_before)
        drained = self.drained[end] - self.drained[start_checkpoints]
        return max(0, result.prefix_estimate - start_estimate + drained)


def _count(
    sums: RefetchSums, index: _JournalIndex, slot: int, later: int | None, distance: tuple[int, int]
) -> None:
    sums.comparable += 1
    if later is None:
        return
    if index.written_between(slot, later):
        sums.refetched_after_write += 1
        return
    sums.refetched += 1
    sums.turns.append(distance[0])
    sums.tokens.append(distance[1])


def _after_clearing(index: _JournalIndex, slot: int, point: ClearingPoint) -> int | None:
    """The first equal call whose result is in a turn at or after the clearing boundary's."""
    equals, turns = index.equals(slot)  # slot order: turn order
    position = bisect.bisect_left(turns, point.turn)
    while position < len(equals) and equals[position] <= slot:
        position += 1
    return equals[position] if position < len(equals) else None


def measure(
    assessment: Assessment, cleared: Mapping[str, ClearingPoint], apis: Iterable[Api]
) -> dict[Api, RefetchTally]:
    """Per API, the re-fetch counts of the cleared results (`cleared`: each cleared result's
    finalized id and where it was first cleared) and of every unique result of the counted
    boundaries' turns."""
    tallies = {api: RefetchTally() for api in apis}
    journals = assessment.replay.journals
    indexes: dict[int, _JournalIndex] = {}

    def index_of(position: int) -> _JournalIndex:
        index = indexes.get(position)
        if index is None:
            journal = journals[position].journal
            index = indexes[position] = _JournalIndex(journal.results, journal.checkpoints)
        return index

    seen: set[tuple[Api, str]] = set()
    for boundary in assessment.boundaries:
        cohorts = assessment.cohorts[boundary.journal]
        for slot in boundary.replayed.turn_results:
            api = cohorts[slot]
            if api is None:
                continue
            index = index_of(boundary.journal)
            result = index.results[slot]
            if (api, result.finalized_id) in seen:
                continue
            seen.add((api, result.finalized_id))
            sums = tallies[api].all_results
            sums.results += 1
            if result.argument_digest is None:
                continue
            equals, _ = index.equals(slot)
            position = bisect.bisect_right(equals, slot)
            later = equals[position] if position < len(equals) else None
            distance = (0, 0)
            if later is not None:
                after = index.results[later]
                start = result.prefix_estimate + result.tokens
                growth = index.growth(start, result.checkpoints_before, later)
                distance = (after.turn_index - result.turn_index, growth)
            _count(sums, index, slot, later, distance)
    for finalized_id, point in cleared.items():
        index = index_of(point.journal)
        sums = tallies[point.api].cleared
        sums.results += 1
        slot = index.slot_of[finalized_id]
        if index.results[slot].argument_digest is None:
            continue
        later = _after_clearing(index, slot, point)
        distance = (0, 0)
        if later is not None:
            checkpoints = bisect.bisect_right(index.before_turn, point.turn)
            growth = index.growth(point.estimate, checkpoints, later)
            distance = (index.results[later].turn_index - point.turn, growth)
        _count(sums, index, slot, later, distance)
    return tallies


__all__ = ["ClearingPoint", "RefetchSums", "RefetchTally", "measure"]
