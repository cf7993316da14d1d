"""Where a journal's results lie, as ranges of result slots, and the two structures the walks
keep over them, so that no step of a walk costs the size of its context (R-REL-7).

Replay places results in slot order and compacts the context only from its start (a
checkpoint drops the messages before its first kept one, `replay.journal_replay`), so along a
journal each result's `context_from`, `context_until` and `compacted_by` never decrease with its
slot. Hence the results in context at a boundary are one range of slots, [lo, hi), and those a
request still carries, after the turn's checkpoints before it, are the slots from one point on.
`JournalIndex` finds those ranges by bisection; `SlotScan` finds the next slot still to
consider in ascending order, skipping removed ones in amortized constant time; `Fenwick` sums a
weight over any range of slots in logarithmic time.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Sequence

from clearing_analysis.replay.model import ToolResult

# Stands for "never" (not compacted away, no such slot), above every turn and checkpoint.
_NEVER = 1 << 62


class Fenwick:
    """Weights of slots 0..n-1 (all 0 at first): add to one, sum over a prefix or a range."""

    __slots__ = ("_tree",)

    def __init__(self, size: int) -> None:
        self._tree = [0] * (size + 1)

    @classmethod
    def of(cls, weights: Sequence[int]) -> Fenwick:
        """Slots 0..len(weights)-1 with these weights, built in linear time (the same tree
        as adding each weight in turn)."""
        fenwick = cls(0)
        tree = fenwick._tree = [0, *weights]
        size = len(tree)
        for index in range(1, size):
            parent = index + (index & -index)
            if parent < size:
                tree[parent] += tree[index]
        return fenwick

    def add(self, slot: int, weight: int) -> None:
        """Add `weight` to `slot`'s weight."""
        tree = self._tree
        index = slot + 1
        size = len(tree)
        while index < size:
            tree[index] += weight
            index += index & -index

    def prefix(self, end: int) -> int:
        """The weights of the slots below `end`."""
        tree = self._tree
        total = 0
        index = min(end, len(tree) - 1)
        while index > 0:
            total += tree[index]
            index -= index & -index
        return total

    def range(self, start: int, end: int) -> int:
        """The weights of the slots in [start, end)."""
        return self.prefix(end) - self.prefix(start) if end > start else 0


class SlotScan:
    """The slots of a journal still to consider (those `present` at first, ascending, less
    those removed since), found in ascending order: `next_at(slot)` is the first one at or
    after `slot` (the journal's size when none is left). A removed slot is linked past (path
    halving), so a walk that removes what it visits pays for each slot once, not once per
    visit. The weights of the slots still there are summed by range on request (`weights`)."""

    __slots__ = ("_next", "_weight_of", "_weights")

    def __init__(
        self, size: int, present: Iterable[int], weight_of: Sequence[int] | None = None
    ) -> None:
        # _next[s] == s: s is still there; else a slot at or before the next one still there
        # (at first the next one itself: each run of slots not there is linked past at once).
        link = self._next = [size] * (size + 1)
        self._weight_of = weight_of
        self._weights: Fenwick | None = None  # made at the first `weight`
        after = 0  # the first slot after the last one placed
        for slot in present:  # ascending
            if slot > after:
                link[after:slot] = [slot] * (slot - after)
            link[slot] = slot
            after = slot + 1

    def next_at(self, slot: int) -> int:
        """The first slot still there at or after `slot` (the size when none is)."""
        link = self._next
        while link[slot] != slot:
            link[slot] = link[link[slot]]
            slot = link[slot]
        return slot

    def remove(self, slot: int) -> None:
        """Remove `slot` for good (nothing when it is not there)."""
        if self._next[slot] == slot and slot < len(self._next) - 1:
            self._next[slot] = slot + 1
            if self._weights is not None and self._weight_of is not None:
                self._weights.add(slot, -self._weight_of[slot])

    def weight(self, start: int, end: int) -> int:
        """The weights of the slots still there in [start, end) (needs `weight_of`)."""
        weights = self._weights
        if weights is None:
            weight_of = self._weight_of
            if weight_of is None:
                raise RuntimeError("this scan keeps no weights")
            link = self._next
            weights = self._weights = Fenwick.of(
                [weight_of[slot] if link[slot] == slot else 0 for slot in range(len(link) - 1)]
            )
        return weights.range(start, end)

    def present(self, start: int, end: int) -> Iterable[int]:
        """The slots still there in [start, end), ascending (removing one meanwhile is fine)."""
        slot = self.next_at(start) if start < end else end
        while slot < end:
            yield slot
            slot = self.next_at(slot + 1)


def _never_decreasing(values: Sequence[int]) -> bool:
    return all(a <= b for a, b in itertools.pairwise(values))


def _first_slot_from(keys: Sequence[int]) -> list[int]:
    """For each key k (0..max+1): the smallest slot whose key is >= k (len(keys) if none)."""
    size = len(keys)
    top = max(keys, default=-1) + 2
    first = [size] * (top + 1)
    for slot, key in enumerate(keys):
        if key >= 0 and slot < first[key]:
            first[key] = slot
    for key in range(top - 1, -1, -1):
        first[key] = min(first[key], first[key + 1])
    return first


class JournalIndex:
    """A journal's results as slot ranges: the context of each boundary, what each request
    still carries, the protection windows, and the results' tokens summed by range."""

    def __init__(self, results: Sequence[ToolResult]) -> None:
        self.size = len(results)
        self._from = [r.context_from for r in results]
        self._until = [_NEVER if r.context_until is None else r.context_until for r in results]
        self._compacted = [_NEVER if r.compacted_by is None else r.compacted_by for r in results]
        if not (
            _never_decreasing(self._from)
            and _never_decreasing(self._until)
            and _never_decreasing(self._compacted)
        ):
            # Replay guarantees it (results placed in order, compaction from the start).
            raise RuntimeError("a journal's context intervals must not decrease with the slot")
        self.cumulative_tokens = [0, *itertools.accumulate(r.tokens for r in results)]
        self._first_of_turn = _first_slot_from([r.turn_index for r in results])
        self._first_of_start = _first_slot_from([r.start_index for r in results])

    def context(self, turn: int) -> tuple[int, int]:
        """[lo, hi): the slots in context at a boundary of turn `turn` (placed before the turn,
        not compacted away before it)."""
        return bisect.bisect_right(self._until, turn), bisect.bisect_right(self._from, turn)

    def carried_from(self, checkpoints_before: int) -> int:
        """The first slot no checkpoint before a request with `checkpoints_before` compacted:
        the results it still carries are those from this slot on."""
        return bisect.bisect_left(self._compacted, checkpoints_before)

    def first_of_turn(self, turn: int) -> int:
        """The smallest slot whose result's turn is `turn` or later (the size when none)."""
        turn = max(turn, 0)
        return self._first_of_turn[turn] if turn < len(self._first_of_turn) else self.size

    def first_of_start(self, start: int) -> int:
        """The smallest slot whose result's tool start is `start` or later."""
        start = max(start, 0)
        return self._first_of_start[start] if start < len(self._first_of_start) else self.size

    def tokens(self, start: int, end: int) -> int:
        """The results' tokens over the slots [start, end)."""
        return self.cumulative_tokens[end] - self.cumulative_tokens[start]


def runs(slots: Sequence[int]) -> list[tuple[int, int, int]]:
    """Ascending `slots` as maximal runs of consecutive slots: (index of the run's first slot
    in `slots`, first slot, one past its last)."""
    found: list[tuple[int, int, int]] = []
    for index, slot in enumerate(slots):
        if found and found[-1][2] == slot:
            position, start, _ = found[-1]
            found[-1] = (position, start, slot + 1)
        else:
            found.append((index, slot, slot + 1))
    return found


__all__ = ["Fenwick", "JournalIndex", "SlotScan", "runs"]
