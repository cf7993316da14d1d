"""Finishing a replayed tool result (`journal_replay._finish_result`), once per result.

It builds each `ToolResult` positionally (keywords cost msgspec a name search per field, and it
runs once per result), so the struct's field order is part of that call: a test names it, and
a field added, moved or renamed fails there before it could shift a value into another field.
The sizes, the finalized id and the retention comparison are checked against their
definitions on any text.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from clearing_analysis.inputs.sidecar import open_sidecar
from clearing_analysis.replay import ReplayedJournal, replay_journal
from clearing_analysis.replay.model import ToolResult
from clearing_analysis.replay.retention import RetentionStatus
from tests.replay.builder import JournalBuilder, SidecarBuilder, routes

FINISH_ORDER = (
    "identity",
    "finalized_id",
    "turn_index",
    "start_index",
    "tool_name",
    "request_api",
    "tool_class",
    "web",
    "is_error",
    "call_status",
    "returned_and_placed",
    "run_completed",
    "shape",
    "tokens",
    "text_bytes",
    "escaped_bytes",
    "escaped_units",
    "origin",
    "origin_source",
    "retention",
    "web_envelope_redacted",
    "context_from",
    "context_until",
    "compacted_by",
    "scan_loss",
    "prefix_estimate",
    "checkpoints_before",
    "argument_digest",
    "read_path_digest",
    "written_path_digest",
)


def test_tool_result_fields_are_in_the_order_finishing_passes_them() -> None:
    """`_finish_result` passes a result's values in this order, one per field."""
    assert ToolResult.__struct_fields__ == FINISH_ORDER


# Texts dense in what the sizes distinguish: JSON escapes, plain ASCII, non-ASCII in the BMP
# and above it (two UTF-16 units); lone surrogates never pass the decoder.
_texts = st.text(st.sampled_from('"\\\b\f\n\r\t\x00\x1f\x7f a\u00e9\u2028\U0001f600')) | st.text(
    st.characters(exclude_categories=("Cs",))
)

# What the sidecar holds for each result: the text itself, another text of the same UTF-8
# length under the text's digest, or a text of another length.
_stored = st.sampled_from(["same", "same-length", "other-length"])


def _stored_text(text: str, kind: str) -> str:
    if kind == "same":
        return text
    size = len(text.encode())
    if kind == "same-length":
        return "#" * size if text != "#" * size else "@" * size
    return text + "!"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_texts, _stored), min_size=1, max_size=4))
def test_each_result_is_sized_and_compared_once_as_defined(
    results: list[tuple[str, str]],
) -> None:
    """Each plain-text result's UTF-8 size, JSON string size and JSON.stringify length are
    those of its text (json.dumps), and its retention compares size, digest and whole text
    with its row, whatever the text holds."""
    journal = JournalBuilder(journal_id="j1", physical="p1", logical="l1")
    journal.turn("t1")
    journal.run("r1", "t1")
    calls = [(f"c{n}", "read", {"path": f"f{n}"}) for n in range(len(results))]
    journal.assistant("r1", "", calls=calls)
    for (call_id, name, args), (text, _) in zip(calls, results, strict=True):
        journal.call_start("r1", call_id, name, args)
        journal.call_end("r1", call_id)
        journal.result("r1", call_id, name, text=text)
    journal.assistant("r1", "done")
    journal.run_end("r1")
    journal.close()
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        sidecar = SidecarBuilder(root / "history.sqlite", capture_enabled=("p1",))
        for (call_id, _, _), (text, kind) in zip(calls, results, strict=True):
            stored = _stored_text(text, kind)
            sidecar.retain(
                ("p1", "t1", "r1", call_id),
                text,
                stored_text=stored,
                byte_length=len(stored.encode()),
            )
        with open_sidecar(sidecar.finish()) as view:
            outcome = replay_journal(journal.write(root), routes(), view)
    assert isinstance(outcome, ReplayedJournal)
    expected_status = {
        "same": RetentionStatus.MATCHED,
        "same-length": RetentionStatus.TEXT_MISMATCH,
        "other-length": RetentionStatus.BYTES_MISMATCH,
    }
    for result, (text, kind) in zip(outcome.results, results, strict=True):
        printed = json.dumps(text, ensure_ascii=False)
        assert result.text_bytes == len(text.encode())
        assert result.escaped_bytes == len(printed.encode())
        assert result.escaped_units == len(printed.encode("utf-16-le")) // 2
        stored = _stored_text(text, kind)
        assert result.retention is expected_status["same" if stored == text else kind]
        assert (
            result.finalized_id
            == hashlib.sha256(
                json.dumps(
                    list(result.identity), separators=(",", ":"), ensure_ascii=False
                ).encode()
            ).hexdigest()
        )
