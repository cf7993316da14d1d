"""Replay one file of imported history by its format (explore, R-SRC-1).

`explore --sessions` takes pi sessions and Codex rollouts, mixed: each file's format is
recognized from its first line (`inputs.recognize`) and the file is read by that format's
reader and mapping, then replayed by the same code. A file of no format `explore` reads goes to
the pi session reader, which skips it as INVALID NOT_A_SESSION, as before; a zstd-compressed
file (no first line to recognize) is Codex's, the one format written compressed, and is
skipped INVALID COMPRESSED with its remedy documented (docs/formats/codex.md).
"""

from __future__ import annotations

from pathlib import Path

from clearing_analysis import pisession
from clearing_analysis.codex.read import is_compressed
from clearing_analysis.inputs.configs import Routes
from clearing_analysis.inputs.period import EVERYTHING, Period
from clearing_analysis.inputs.recognize import HistoryFormat, format_of
from clearing_analysis.replay import codex_replay
from clearing_analysis.replay.model import JournalOutcome
from clearing_analysis.replay.pi_replay import replay_pi_session


def _is_codex(path: Path) -> bool:
    return is_compressed(path) or format_of(path) is HistoryFormat.CODEX


def replay_imported(path: Path, routes: Routes, period: Period = EVERYTHING) -> JournalOutcome:
    """One imported file's whole contribution, or its skip; never raises for a bad file."""
    if _is_codex(path):
        return codex_replay.replay_codex_rollout(path, routes, period)
    return replay_pi_session(path, routes, period)


def grouping_keys(path: Path) -> tuple[str, ...]:
    """The grouping keys of an imported file by its format (units.py)."""
    if _is_codex(path):
        return codex_replay.grouping_keys(path)
    return pisession.grouping_keys(path)


__all__ = ["grouping_keys", "replay_imported"]
