"""The Codex adapter (histories/codex.py, R-SRC-1): recognized among the formats by its first
line, refusals as every imported format's fixed outcomes, counts in the shared shape."""

from __future__ import annotations

import json
from pathlib import Path

from clearing_analysis.codex import ReadRollout
from clearing_analysis.histories import adapter_of, first_lines
from clearing_analysis.histories.codex import CODEX
from clearing_analysis.inputs.recognize import HistoryFormat
from clearing_analysis.pisession.read import (
    RejectedSession,
    SessionInvalid,
    SessionOutcome,
    Unrecognized,
)
from tests.codex.builder import Rollout
from tests.pisession.builder import Session


def test_recognized_among_the_formats(tmp_path: Path) -> None:
    """A rollout, a pre-envelope rollout and a compressed file go to the Codex adapter; a pi
    session does not."""
    rollout = tmp_path / "a.jsonl"
    rollout.write_text(Rollout().prompt().request(1).text())
    old = tmp_path / "b.jsonl"
    old.write_text(
        json.dumps({"id": "x", "timestamp": "2025-04-01T00:00:00Z", "instructions": ""}) + "\n"
    )
    zst = tmp_path / "c.jsonl.zst"
    zst.write_bytes(b"\x28\xb5\x2f\xfd\x00\x01\n")
    pi = tmp_path / "d.jsonl"
    Session(session_id="p").write(pi)
    assert [adapter_of(p).format for p in (rollout, old, zst, pi)] == [
        HistoryFormat.CODEX,
        HistoryFormat.CODEX,
        HistoryFormat.CODEX,
        HistoryFormat.PI_SESSION,
    ]
    assert not CODEX.recognizes(first_lines(pi))
    assert not CODEX.recognizes(())


def test_refusals_are_the_shared_outcomes(tmp_path: Path) -> None:
    """Pre-envelope: UNSUPPORTED_VERSION; compressed, other provider, inconsistent usage and a
    first line of another format: INVALID with their details."""
    cases = {
        "old": (json.dumps({"id": "x", "timestamp": "t", "instructions": ""}) + "\n").encode(),
        "zst": b"\x28\xb5\x2f\xfd\x00",
        "provider": Rollout(provider="azure").text().encode(),
        "usage": Rollout().prompt().request(10, 20).text().encode(),
        "other": b'{"type": "session", "id": "x"}\n',
    }
    got = {}
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        got[name] = CODEX.read(path)
    assert got == {
        "old": RejectedSession(SessionOutcome.UNSUPPORTED_VERSION),
        "zst": RejectedSession(SessionOutcome.INVALID, SessionInvalid.COMPRESSED),
        "provider": RejectedSession(SessionOutcome.INVALID, SessionInvalid.UNSUPPORTED_PROVIDER),
        "usage": RejectedSession(SessionOutcome.INVALID, SessionInvalid.USAGE_INCONSISTENT),
        "other": RejectedSession(SessionOutcome.INVALID, SessionInvalid.NOT_A_SESSION),
    }


def test_shape_counts(tmp_path: Path) -> None:
    """Lines are entries, a copied history's lines are off the path, unknown line and item
    types are ENTRY_TYPE, unpaired results ORPHAN_TOOL_RESULT, a torn last line is counted."""
    rollout = Rollout().line("session_meta", {"id": "parent"}).prompt().request(5)
    rollout.total = dict.fromkeys(rollout.total, 0)
    rollout.prompt().request(3).output("nobody")
    rollout.line("world_state", {}).item({"type": "ghost_snapshot"})
    path = tmp_path / "r.jsonl"
    path.write_text(rollout.text() + '{"torn')
    read = CODEX.read(path)
    assert isinstance(read, ReadRollout)
    shape = CODEX.shape(read)
    assert (shape.format, shape.version, shape.leaves) == (HistoryFormat.CODEX, 0, 1)
    assert shape.entries == len(rollout.lines) - 1
    assert shape.off_path_entries == 1 + 4 + 2  # the parent's meta, prompt and one request
    assert shape.unrecognized == {
        Unrecognized.ENTRY_TYPE: 2,
        Unrecognized.MESSAGE_ROLE: 0,
        Unrecognized.ORPHAN_TOOL_RESULT: 1,
    }
    assert shape.torn_final_lines == 1
    assert CODEX.grouping_keys(path) == ("codex-thread\0thread-0",)
