"""The context of each boundary, swept incrementally from the results' context intervals.

Replay records, for each tool result, the turn indices between which it sits in context
(`context_from <= turn < context_until`); a boundary's context is never stored. A
`ContextCursor` walks one journal's turns forward and keeps the results in context in
placement order (oldest first), so every result-boundary occurrence (R-EL-8) is visited where
it arises and none is materialized: memory holds one journal's results, not its occurrences.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from clearing_analysis.policy import eligibility_policy
from clearing_analysis.replay.model import Protection, ReplayedBoundary, ToolResult


def protection(result: ToolResult, boundary: ReplayedBoundary) -> Protection | None:
    """Why `result` is protected at `boundary`, if it is (R-EL-2, R-SIM-8).

    The current turn (a guard: at a pre-turn boundary its results are not placed yet), one of
    the three prompt turns before the boundary's turn, or one of the ten latest tool starts.
    """
    policy = eligibility_policy()
    if result.turn_index == boundary.turn_index:
        return Protection.CURRENT_TURN
    if result.turn_index >= boundary.turn_index - policy.protected_prompt_turns:
        return Protection.RECENT_PROMPT_TURN
    if result.start_index >= boundary.tool_starts_before - policy.protected_tool_starts:
        return Protection.RECENT_TOOL_START
    return None


class ContextCursor:
    """The results in context at successive turns of one journal, oldest first.

    `advance(turn_index)` moves forward (never back) to the snapshot of that turn; `active`
    then yields result slots in placement order.
    """

    def __init__(self, results: Sequence[ToolResult]) -> None:
        self._results = results
        self._next_entry = 0  # results are in placement order, so context_from never decreases
        self._exits = sorted(
            (r.context_until, slot) for slot, r in enumerate(results) if r.context_until is not None
        )
        self._next_exit = 0
        self._active: dict[int, None] = {}  # insertion-ordered: placement order
        self._turn = -1

    def advance(self, turn_index: int) -> None:
        """Move to the snapshot of turn `turn_index` (results placed before it, not compacted)."""
        if turn_index < self._turn:
            raise RuntimeError("a context cursor only moves forward")
        self._turn = turn_index
        results = self._results
        while (
            self._next_entry < len(results) and results[self._next_entry].context_from <= turn_index
        ):
            self._active[self._next_entry] = None
            self._next_entry += 1
        while self._next_exit < len(self._exits) and self._exits[self._next_exit][0] <= turn_index:
            self._active.pop(self._exits[self._next_exit][1], None)
            self._next_exit += 1

    def active(self) -> Iterator[int]:
        """Result slots in context at the current turn, oldest first."""
        return iter(self._active)


__all__ = ["ContextCursor", "protection"]
