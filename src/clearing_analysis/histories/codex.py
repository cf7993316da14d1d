"""OpenAI Codex CLI rollouts behind the adapter interface (docs/formats/codex.md, R-SRC-1).

The reader, the request counting (R-SRC-3) and the mapping are `clearing_analysis.codex`'s:
this module names them as the steps of `histories.HistoryAdapter`, turns the reader's refusals
into the fixed outcomes and details every imported format reports (`RejectedSession`), and its
counts into the shared `SessionShape`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from clearing_analysis.codex import mapping
from clearing_analysis.codex import read as cr
from clearing_analysis.inputs.recognize import HistoryFormat, line_object
from clearing_analysis.journal import DecodedJournal
from clearing_analysis.pisession.read import (
    RejectedSession,
    SessionInvalid,
    SessionOutcome,
    SessionShape,
    Unrecognized,
)
from clearing_analysis.pisession.read import transcript_only as _no_transcript_only
from clearing_analysis.toolclass import ToolNames

# Refusals that are no detail of the strict JSON rules: nothing of the file is read.
_WHOLE_FILE = {
    cr.RolloutOutcome.COMPRESSED: SessionInvalid.COMPRESSED,
    cr.RolloutOutcome.UNSUPPORTED_PROVIDER: SessionInvalid.UNSUPPORTED_PROVIDER,
}
# Grouping keys of a thread: a copy of a rollout given twice is then a DUPLICATE session.
_THREAD_KEY = "codex-thread\0"


def rejected(refused: cr.RejectedRollout) -> RejectedSession:
    """A rollout's refusal as an imported session's: UNSUPPORTED_VERSION (the format before
    the envelope), or INVALID with its detail (COMPRESSED and UNSUPPORTED_PROVIDER included)."""
    if refused.outcome is cr.RolloutOutcome.UNSUPPORTED_VERSION:
        return RejectedSession(SessionOutcome.UNSUPPORTED_VERSION)
    whole = _WHOLE_FILE.get(refused.outcome)
    if whole is not None:
        return RejectedSession(SessionOutcome.INVALID, whole)
    detail = None if refused.detail is None else SessionInvalid(refused.detail.value)
    return RejectedSession(SessionOutcome.INVALID, detail)


class Codex:
    """The Codex rollout adapter (`histories.HistoryAdapter`)."""

    @property
    def format(self) -> HistoryFormat:
        """CODEX."""
        return HistoryFormat.CODEX

    @property
    def tool_names(self) -> ToolNames:
        """Codex's tools."""
        return ToolNames.CODEX

    def recognizes(self, first_lines: Sequence[bytes]) -> bool:
        """A `session_meta` envelope (`{"type": "session_meta", "payload": {...}}`) or the
        older pre-envelope line (`{"id", "timestamp", "instructions", ...}`, refused as
        UNSUPPORTED_VERSION) on the first line; or zstd's frame magic, Codex being the one
        format written compressed (refused as COMPRESSED)."""
        if not first_lines:
            return False
        if first_lines[0].startswith(cr.ZSTD_MAGIC):
            return True
        value = line_object(first_lines[0])
        if value is None:
            return False
        if value.get("type") == "session_meta" and isinstance(value.get("payload"), dict):
            return True
        return {"id", "timestamp", "instructions"} <= value.keys()

    def read(self, path: Path) -> cr.ReadRollout | RejectedSession:
        """`codex.read_rollout`."""
        read = cr.read_rollout(path)
        return rejected(read) if isinstance(read, cr.RejectedRollout) else read

    def map(self, read: cr.ReadRollout) -> DecodedJournal | RejectedSession:
        """`codex.mapping.map_rollout` (a read rollout always maps)."""
        return mapping.map_rollout(read)

    def shape(self, read: cr.ReadRollout) -> SessionShape:
        """The reader's counts in the shared shape: lines as entries, a copied history's lines
        as entries off the path, unknown line and item types as ENTRY_TYPE, results without
        their call as ORPHAN_TOOL_RESULT, a dropped torn last line."""
        counts = read.counts
        unknown = counts[cr.RolloutCount.UNKNOWN_LINES] + counts[cr.RolloutCount.UNKNOWN_ITEMS]
        return SessionShape(
            version=0,
            entries=read.lines,
            off_path_entries=counts[cr.RolloutCount.COPIED_LINES],
            leaves=1,
            unrecognized={
                Unrecognized.ENTRY_TYPE: unknown,
                Unrecognized.MESSAGE_ROLE: 0,
                Unrecognized.ORPHAN_TOOL_RESULT: counts[cr.RolloutCount.ORPHAN_RESULTS],
            },
            transcript_only=_no_transcript_only(()),
            format=HistoryFormat.CODEX,
            torn_final_lines=counts[cr.RolloutCount.TORN_LINES],
        )

    def grouping_keys(self, path: Path) -> tuple[str, ...]:
        """The thread id of the first line (memory only)."""
        thread = cr.thread_id_of(path)
        return () if thread is None else (f"{_THREAD_KEY}{thread}",)


CODEX = Codex()

__all__ = ["CODEX", "Codex", "rejected"]
