"""pi coding-agent sessions behind the adapter interface (docs/formats/pi-sessions.md).

The reader and the mapping are `clearing_analysis.pisession`'s, unchanged: this module only
names them as the three steps of `histories.HistoryAdapter`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from clearing_analysis import pisession
from clearing_analysis.inputs.recognize import HistoryFormat, line_object
from clearing_analysis.journal import DecodedJournal
from clearing_analysis.pisession.read import ReadSession, RejectedSession, SessionShape
from clearing_analysis.toolclass import ToolNames


class PiSessions:
    """The pi-session adapter (every format version the reader knows)."""

    @property
    def format(self) -> HistoryFormat:
        """PI_SESSION."""
        return HistoryFormat.PI_SESSION

    @property
    def tool_names(self) -> ToolNames:
        """The pi family's tools."""
        return ToolNames.PI_FAMILY

    def recognizes(self, first_lines: Sequence[bytes]) -> bool:
        """A `session` header on the first line: `{"type": "session", "id": ...}` (every
        version)."""
        first = line_object(first_lines[0]) if first_lines else None
        return first is not None and first.get("type") == "session" and "id" in first

    def read(self, path: Path) -> ReadSession | RejectedSession:
        """`pisession.read_session`."""
        return pisession.read_session(path)

    def map(self, read: ReadSession) -> DecodedJournal | RejectedSession:
        """`pisession.map_session`."""
        return pisession.map_session(read)

    def shape(self, read: ReadSession) -> SessionShape:
        """The reader's counts."""
        return read.shape

    def grouping_keys(self, path: Path) -> tuple[str, ...]:
        """The session id and lineage (`pisession.grouping_keys`)."""
        return pisession.grouping_keys(path)


PI_SESSIONS = PiSessions()

__all__ = ["PI_SESSIONS", "PiSessions"]
