"""Replay one imported history file: recognize, read, map onto journal records, replay
(explore, R-RP-1, R-SRC-1).

The file's adapter (`histories.adapter_of`: a pi session, a Claude Code transcript, a Codex
rollout) reads it into its typed entries and maps them onto in-memory journal records, which are
replayed by the same code as a native journal under the imported-history rules, its tools named
by the adapter's table (`replay.model.HistorySource`). A file that cannot be read or mapped is
skipped whole with its fixed outcome (UNSUPPORTED_VERSION, OPEN or INVALID with a detail), as a
native journal is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from clearing_analysis.histories import HistoryAdapter, adapter_of
from clearing_analysis.histories.pi import PI_SESSIONS
from clearing_analysis.inputs.configs import Routes
from clearing_analysis.inputs.period import EVERYTHING, Period
from clearing_analysis.pisession import RejectedSession
from clearing_analysis.replay.arguments import ArgumentKey
from clearing_analysis.replay.journal_replay import replay_decoded
from clearing_analysis.replay.model import (
    JournalOutcome,
    JournalSkipReason,
    ReplayedJournal,
    SkippedJournal,
    imported_history,
)


def _skipped(rejected: RejectedSession) -> SkippedJournal:
    detail = None if rejected.detail is None else rejected.detail.value
    return SkippedJournal(JournalSkipReason(rejected.outcome.value), detail)


def replay_with(
    adapter: HistoryAdapter[Any],
    path: Path,
    routes: Routes,
    period: Period = EVERYTHING,
    *,
    argument_key: ArgumentKey | None = None,
) -> JournalOutcome:
    """One file's whole contribution as `adapter` reads it, or its skip; never raises for a
    bad file. With `argument_key`, its results keep their calls' argument digests
    (replay.arguments)."""
    read = adapter.read(path)
    if isinstance(read, RejectedSession):
        return _skipped(read)
    mapped = adapter.map(read)
    if isinstance(mapped, RejectedSession):
        return _skipped(mapped)
    source = imported_history(adapter.tool_names)
    outcome = replay_decoded(mapped, routes, None, source, period, argument_key=argument_key)
    if isinstance(outcome, ReplayedJournal):
        return msgspec.structs.replace(outcome, session=adapter.shape(read))
    return outcome


def replay_history(
    path: Path,
    routes: Routes,
    period: Period = EVERYTHING,
    *,
    argument_key: ArgumentKey | None = None,
) -> JournalOutcome:
    """One imported history file, read by the adapter that recognizes it."""
    return replay_with(adapter_of(path), path, routes, period, argument_key=argument_key)


def replay_pi_session(
    path: Path,
    routes: Routes,
    period: Period = EVERYTHING,
    *,
    argument_key: ArgumentKey | None = None,
) -> JournalOutcome:
    """One file read as a pi session, whatever its first lines say."""
    return replay_with(PI_SESSIONS, path, routes, period, argument_key=argument_key)


__all__ = ["replay_history", "replay_pi_session", "replay_with"]
