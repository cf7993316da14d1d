"""Replay one Codex rollout: read, map onto journal records, replay (explore, R-SRC-1).

The rollout is read (`codex.read_rollout`), mapped onto in-memory journal records
(`codex.mapping.map_rollout`) and replayed by the same code as a native journal, under the
CODEX_ROLLOUT rules (`HistorySource`: the imported-history rules with Codex's tool names). A
file that cannot be read is skipped whole with its fixed outcome: UNSUPPORTED_VERSION (the
2025 format before the envelope), or INVALID with its detail, COMPRESSED and
UNSUPPORTED_PROVIDER included (docs/formats/codex.md, "Files that are not read").
"""

from __future__ import annotations

from pathlib import Path

from clearing_analysis.codex import RejectedRollout, RolloutOutcome, read_rollout
from clearing_analysis.codex.mapping import map_rollout
from clearing_analysis.codex.read import thread_id_of
from clearing_analysis.inputs.configs import Routes
from clearing_analysis.inputs.period import EVERYTHING, Period
from clearing_analysis.replay.journal_replay import replay_decoded
from clearing_analysis.replay.model import (
    HistorySource,
    JournalOutcome,
    JournalSkipReason,
    SkippedJournal,
)


def _skipped(rejected: RejectedRollout) -> SkippedJournal:
    if rejected.outcome is RolloutOutcome.UNSUPPORTED_VERSION:
        return SkippedJournal(JournalSkipReason.UNSUPPORTED_VERSION, None)
    if rejected.outcome is RolloutOutcome.INVALID:
        detail = None if rejected.detail is None else rejected.detail.value
        return SkippedJournal(JournalSkipReason.INVALID, detail)
    # COMPRESSED, UNSUPPORTED_PROVIDER: nothing of the file can be read, its detail says why.
    return SkippedJournal(JournalSkipReason.INVALID, rejected.outcome.value)


def replay_codex_rollout(path: Path, routes: Routes, period: Period = EVERYTHING) -> JournalOutcome:
    """One rollout's whole contribution, or its skip; never raises for a bad file."""
    read = read_rollout(path)
    if isinstance(read, RejectedRollout):
        return _skipped(read)
    return replay_decoded(map_rollout(read), routes, None, HistorySource.CODEX_ROLLOUT, period)


def grouping_keys(path: Path) -> tuple[str, ...]:
    """The thread id of a rollout, from its first line, for grouping files of the same thread
    into one unit (a copy given twice is then a DUPLICATE); none when it has no readable
    first line."""
    thread = thread_id_of(path)
    return () if thread is None else (f"session\0{thread}",)


__all__ = ["grouping_keys", "replay_codex_rollout"]
