"""One adapter per history format that `explore` reads (R-SRC-1, docs/formats/README.md).

An adapter does three things, each its own step so that each can be tested alone:

1. **recognize** a file of its format from the file's first lines (`recognizes`, given at most
   `FIRST_LINES` lines, each without its newline);
2. **read** the file strictly into its own typed entries (`read`: a value of the adapter's own
   type, or a `RejectedSession` with its fixed outcome and detail);
3. **map** what was read onto the in-memory journal v2 records (origin `imported`) that the
   replay stage consumes (`map`), and say what lay beyond them (`shape`, counts only).

`grouping_keys` gives the keys a file shares with related files (its session and lineage), read
cheaply, so that related files are replayed in one unit (`units.plan_units`).

A new format is one module implementing `HistoryAdapter` (its recognition rule with it), listed
in `adapters()` (before `pi.PI_SESSIONS`, the fallback that refuses what no adapter recognizes
as NOT_A_SESSION), its name in `HistoryFormat` (the report's per-format figures follow from it,
`report.explore_model.SessionFormat`), one section of policy/tools.json naming its tools
(`ToolNames`), analyze's refusal detail for its files (`NoJournalsDetail`), one page under
docs/formats/ and its tests. Replay takes what it needs from the adapter (its tool table), and
recognition asks the adapters (`histories.recognize`); tests/histories/test_registry.py fails
until every table names a listed adapter's format (docs/formats/README.md, "Adding a format").
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from clearing_analysis.inputs.recognize import HistoryFormat
from clearing_analysis.journal import DecodedJournal
from clearing_analysis.pisession.read import RejectedSession, SessionShape
from clearing_analysis.policy import limits
from clearing_analysis.toolclass import ToolNames

# How many leading lines recognition may look at: Claude Code transcripts can open with a few
# bookkeeping lines (file-history snapshots, queue operations) before the first that names the
# session.
FIRST_LINES = 8

ReadT = TypeVar("ReadT")


class HistoryAdapter(Protocol[ReadT]):
    """What `explore` needs of one history format (see the module docstring)."""

    @property
    def format(self) -> HistoryFormat:
        """The format this adapter reads (reported per format)."""
        ...

    @property
    def tool_names(self) -> ToolNames:
        """The reviewed table (policy/tools.json) that names this format's tools."""
        ...

    def recognizes(self, first_lines: Sequence[bytes]) -> bool:
        """Whether the file whose first lines these are holds this format."""
        ...

    def read(self, path: Path) -> ReadT | RejectedSession:
        """The file read strictly into typed entries, or refused whole; never raises."""
        ...

    def map(self, read: ReadT) -> DecodedJournal | RejectedSession:
        """What was read, as in-memory journal records (origin `imported`), or INVALID."""
        ...

    def shape(self, read: ReadT) -> SessionShape:
        """Counts about the file beyond the mapped records (never names, never text)."""
        ...

    def grouping_keys(self, path: Path) -> tuple[str, ...]:
        """Keys shared with related files, read from the file's first lines."""
        ...


def first_lines(path: Path) -> tuple[bytes, ...]:
    """Up to FIRST_LINES lines of the file (newlines removed), each at most
    `maxRecognitionLineBytes` long (a longer line ends the list); none if unreadable."""
    limit = limits().max_recognition_line_bytes
    lines: list[bytes] = []
    try:
        with path.open("rb") as stream:
            while len(lines) < FIRST_LINES:
                raw = stream.readline(limit + 1)
                if not raw:
                    break
                line = raw.rstrip(b"\r\n")
                if len(line) > limit:
                    break
                lines.append(line)
    except OSError:
        return ()
    return tuple(lines)


def adapters() -> tuple[HistoryAdapter[Any], ...]:
    """Every adapter, in the order they are asked; the pi-session adapter is last (fallback)."""
    from clearing_analysis.histories.claude_code import CLAUDE_CODE  # noqa: PLC0415
    from clearing_analysis.histories.codex import CODEX  # noqa: PLC0415
    from clearing_analysis.histories.pi import PI_SESSIONS  # noqa: PLC0415

    return (CLAUDE_CODE, CODEX, PI_SESSIONS)


def adapter_of(path: Path) -> HistoryAdapter[Any]:
    """The adapter that recognizes `path`; the pi-session adapter when none does (it refuses a
    file that is no pi session as INVALID NOT_A_SESSION, as `explore` always has)."""
    known = adapters()
    lines = first_lines(path)
    for adapter in known[:-1]:
        if adapter.recognizes(lines):
            return adapter
    return known[-1]


def grouping_keys(path: Path) -> tuple[str, ...]:
    """The grouping keys of `path` under the adapter that reads it (`units.plan_units`)."""
    return adapter_of(path).grouping_keys(path)


__all__ = [
    "FIRST_LINES",
    "HistoryAdapter",
    "adapter_of",
    "adapters",
    "first_lines",
    "grouping_keys",
]
