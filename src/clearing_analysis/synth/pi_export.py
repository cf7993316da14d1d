"""Write native journals as pi coding-agent session files (version 3), for `explore`.

The same history in pi's own form: what `analyze` reads as native journals, `explore` reads as
pi sessions, so the two can be compared on one corpus (the upper bound is never below what
`analyze` admits, tests/e2e/test_explore_bound.py) and the demo can show an exploration. Each
journal that decodes becomes one linear session file named after its journal's file:

- the header carries the journal id as the session id and its creation time;
- each `turn_start` message and each `message` record becomes a `message` entry with the same
  pi-ai message (pi-ai's shapes are the journal's, field for field);
- each `checkpoint` becomes a `compaction` entry whose `firstKeptEntryId` is the entry of its
  first kept record (none when nothing is kept) and whose `tokensBefore` is the journal's;
- run, tool-lifecycle, redaction and close records have no pi counterpart and are dropped
  (docs/formats/pi-sessions.md, "What pi does not record").

Journals that do not decode are not exported (pi would not have written them).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgspec

from clearing_analysis.journal import DecodedJournal, decode_file
from clearing_analysis.journal.records import Checkpoint, MessageRecord, TurnStart

_ENCODER = msgspec.json.Encoder()


def _iso(millis: int) -> str:
    moment = datetime.datetime.fromtimestamp(millis / 1000, tz=datetime.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{millis % 1000:03d}Z"


def session_lines(journal: DecodedJournal) -> list[bytes]:
    """The journal's history as the lines of a version-3 pi session file."""
    header = journal.header
    lines: list[dict[str, Any]] = [
        {
            "type": "session",
            "version": 3,
            "id": header.journal_id,
            "timestamp": _iso(header.created_at),
            "cwd": "/synthetic",
        }
    ]
    entry_of_seq: dict[int, str] = {}
    last_id: str | None = None
    last_ms = header.created_at

    def entry(fields: dict[str, Any], millis: int) -> str:
        nonlocal last_id, last_ms
        entry_id = f"{len(lines):08x}"
        last_ms = max(last_ms, millis)
        lines.append({**fields, "id": entry_id, "parentId": last_id, "timestamp": _iso(last_ms)})
        last_id = entry_id
        return entry_id

    for record in journal.records:
        if isinstance(record, TurnStart | MessageRecord):
            message = msgspec.to_builtins(record.message)
            entry_of_seq[record.seq] = entry(
                {"type": "message", "message": message}, record.message.timestamp
            )
        elif isinstance(record, Checkpoint):
            kept = None
            if record.first_kept_seq is not None:
                kept = next(
                    (
                        entry_of_seq[seq]
                        for seq in sorted(entry_of_seq)
                        if seq >= record.first_kept_seq
                    ),
                    None,
                )
            fields: dict[str, Any] = {
                "type": "compaction",
                "summary": record.summary,
                "tokensBefore": record.tokens_before,
            }
            if kept is not None:
                fields["firstKeptEntryId"] = kept
            entry(fields, record.timestamp)
    return [_ENCODER.encode(line) + b"\n" for line in lines]


def export_sessions(journal_paths: Iterable[Path], out: Path) -> int:
    """Write one session file per decodable journal into the new directory `out` (file names
    follow the journals'); return how many were written."""
    out.mkdir()
    written = 0
    for path in journal_paths:
        decoded = decode_file(path)
        if not isinstance(decoded, DecodedJournal):
            continue
        target = out / f"{written:05d}-{path.stem}.jsonl"
        target.write_bytes(b"".join(session_lines(decoded)))
        written += 1
    return written


__all__ = ["export_sessions", "session_lines"]
