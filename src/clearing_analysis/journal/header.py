"""A journal's header, read from its first line alone, for planning before replay.

The units of a snapshot are planned from the ids in each journal's header (`units.plan_units`):
journals that share a journal id, a lineage or a physical conversation are replayed together.
The header is read here with the decoder's own rules and limits (`decode.decode_header`): the
first line is read up to the longest valid line and decided exactly as decoding the journal
decides it, so a first line nested thousands deep, too long, not JSON or not a header gives no
keys (the journal is skipped whole, alone, with that line's fixed outcome when it is replayed),
never an exception (R-REL-4).
"""

from __future__ import annotations

from pathlib import Path

from clearing_analysis.journal.decode import (
    InvalidReason,
    JournalOutcome,
    RejectedJournal,
    decode_header,
)
from clearing_analysis.journal.records import Header
from clearing_analysis.policy import limits


def read_header(path: Path) -> Header | RejectedJournal:
    """The header of a journal file, or the outcome its first line alone fixes (INVALID with
    its detail, UNSUPPORTED_VERSION; OPEN for a file that is one line without its newline).
    At most the longest valid line and one byte more is read."""
    max_line = limits().max_journal_line_bytes
    try:
        with path.open("rb") as stream:
            line = stream.readline(max_line + 1)
    except OSError:
        return RejectedJournal(JournalOutcome.INVALID, InvalidReason.UNREADABLE)
    if not line.endswith(b"\n"):
        if not line:
            return RejectedJournal(JournalOutcome.INVALID, InvalidReason.EMPTY_FILE)
        if len(line) > max_line:
            return RejectedJournal(JournalOutcome.INVALID, InvalidReason.LINE_TOO_LONG)
        return RejectedJournal(JournalOutcome.OPEN)  # one fragment: the writer is mid-line
    return decode_header(line[:-1])


# The header fields a journal shares with related journals, each key prefixed by its field's
# name so that equal values of different fields never meet.
PHYSICAL_KEY_PREFIX = "physicalConversationId\0"


def grouping_keys(path: Path) -> tuple[str, ...]:
    """The keys a journal shares with related journals: its journal id, lineage (logical
    conversation) and physical conversation, from its header; none when the first line is no
    valid header (such a journal is skipped whole, and alone)."""
    header = read_header(path)
    if isinstance(header, RejectedJournal):
        return ()
    return (
        f"journalId\0{header.journal_id}",
        f"logicalConversationId\0{header.logical_conversation_id}",
        f"{PHYSICAL_KEY_PREFIX}{header.physical_conversation_id}",
    )


__all__ = ["PHYSICAL_KEY_PREFIX", "grouping_keys", "read_header"]
