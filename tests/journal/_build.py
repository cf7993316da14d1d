"""Hand-built journal bytes for decoder tests: a small valid journal and line-level edits."""

from __future__ import annotations

import json
from typing import Any

HEADER: dict[str, Any] = {
    "seq": 0,
    "kind": "header",
    "format": "pi-native-journal",
    "version": 2,
    "journalId": "journal-1",
    "physicalConversationId": "conv-1",
    "logicalConversationId": "lineage-1",
    "origin": "native",
    "createdAt": 1000,
}
TURN: dict[str, Any] = {
    "seq": 1,
    "kind": "turn_start",
    "hostTurnId": "turn-1",
    "message": {"role": "user", "content": "hi", "timestamp": 1001},
}
RUN: dict[str, Any] = {
    "seq": 2,
    "kind": "run_start",
    "hostTurnId": "turn-1",
    "runId": "run-1",
    "owner": "owner",
    "reason": "prompt",
    "timestamp": 1002,
}
RUN_END: dict[str, Any] = {
    "seq": 3,
    "kind": "run_end",
    "runId": "run-1",
    "status": "completed",
    "timestamp": 1003,
}
CLOSE: dict[str, Any] = {"seq": 4, "kind": "close", "timestamp": 1004}


def line(record: Any) -> bytes:
    """One newline-terminated compact JSON line."""
    return json.dumps(record, separators=(",", ":")).encode() + b"\n"


def journal(*records: Any, header: dict[str, Any] | None = None) -> bytes:
    """Header (default native) plus records, renumbered 0..n-1 in order, each on its own line."""
    first = HEADER if header is None else {**HEADER, **header}
    out = [line(first)]
    for seq, record in enumerate(records, start=1):
        out.append(line({**record, "seq": seq}))
    return b"".join(out)


def valid(**header: Any) -> bytes:
    """A small closed journal; header fields may be overridden."""
    return journal(TURN, RUN, RUN_END, CLOSE, header=header or None)
