"""Replay one pi session file: read, map onto journal records, replay (explore, R-RP-1).

The session is read (`pisession.read_session`), its resumed path mapped onto in-memory journal
records (`pisession.map_session`) and replayed by the same code as a native journal, under the
PI_SESSION rules (`HistorySource`). A file that cannot be read or mapped is skipped whole with
its fixed outcome (UNSUPPORTED_VERSION, OPEN or INVALID with a detail), as a native journal is.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from clearing_analysis.inputs.configs import Routes
from clearing_analysis.inputs.period import EVERYTHING, Period
from clearing_analysis.pisession import RejectedSession, map_session, read_session
from clearing_analysis.replay.arguments import ArgumentKey
from clearing_analysis.replay.journal_replay import replay_decoded
from clearing_analysis.replay.model import (
    HistorySource,
    JournalOutcome,
    JournalSkipReason,
    ReplayedJournal,
    SkippedJournal,
)


def _skipped(rejected: RejectedSession) -> SkippedJournal:
    detail = None if rejected.detail is None else rejected.detail.value
    return SkippedJournal(JournalSkipReason(rejected.outcome.value), detail)


def replay_pi_session(
    path: Path,
    routes: Routes,
    period: Period = EVERYTHING,
    *,
    argument_key: ArgumentKey | None = None,
) -> JournalOutcome:
    """One session's whole contribution, or its skip; never raises for a bad file. With
    `argument_key`, its results keep their calls' argument digests (replay.arguments)."""
    read = read_session(path)
    if isinstance(read, RejectedSession):
        return _skipped(read)
    mapped = map_session(read)
    if isinstance(mapped, RejectedSession):
        return _skipped(mapped)
    outcome = replay_decoded(
        mapped, routes, None, HistorySource.PI_SESSION, period, argument_key=argument_key
    )
    if isinstance(outcome, ReplayedJournal):
        return dataclasses.replace(outcome, session=read.shape)
    return outcome


__all__ = ["replay_pi_session"]
