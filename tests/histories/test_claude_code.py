"""The Claude Code reader and mapping (docs/formats/claude-code.md): one rule per test, each on
a hand-built transcript (tests/histories/builder.py)."""

from __future__ import annotations

import io
import json

import msgspec
import pytest

from clearing_analysis.histories.claude_code import (
    ReadTranscript,
    map_transcript,
    placeholder_output,
    read_stream,
)
from clearing_analysis.journal import DecodedJournal
from clearing_analysis.journal import messages as jm
from clearing_analysis.journal import records as jr
from clearing_analysis.pisession.read import (
    RejectedSession,
    SessionInvalid,
    SessionOutcome,
    Unrecognized,
)
from clearing_analysis.policy import ClaudeCodePolicy, claude_code_policy, read_policy_bytes
from tests.histories.builder import Transcript, text, thinking, tool_use


def _read(raw: str | bytes) -> ReadTranscript | RejectedSession:
    data = raw.encode() if isinstance(raw, str) else raw
    return read_stream(io.BytesIO(data))


def _readable(transcript: Transcript) -> ReadTranscript:
    read = _read(transcript.text())
    assert isinstance(read, ReadTranscript), read
    return read


def _records(transcript: Transcript) -> tuple[jr.Record, ...]:
    mapped = map_transcript(_readable(transcript))
    assert isinstance(mapped, DecodedJournal), mapped
    return mapped.records


def _assistants(records: tuple[jr.Record, ...]) -> list[jm.AssistantMessage]:
    return [
        r.message
        for r in records
        if isinstance(r, jr.MessageRecord) and isinstance(r.message, jm.AssistantMessage)
    ]


def _results(records: tuple[jr.Record, ...]) -> list[jm.ToolResultMessage]:
    return [
        r.message
        for r in records
        if isinstance(r, jr.MessageRecord) and isinstance(r.message, jm.ToolResultMessage)
    ]


def _usage_sums(read: ReadTranscript) -> tuple[int, int, int, int]:
    keys = {
        node.entry.key
        for node in read.path
        if hasattr(node.entry, "key") and not getattr(node.entry, "synthetic", True)
    }
    requests = [read.requests[key] for key in keys]
    return (
        sum(r.input for r in requests),
        sum(r.cache_write for r in requests),
        sum(r.cache_read for r in requests),
        sum(r.output for r in requests),
    )


def test_split_assistant_lines_are_one_request_with_usage_once_and_output_largest() -> None:
    """Three lines of one (message.id, requestId) are one request: input and cache once, output
    the largest seen, their blocks joined into one assistant message in order."""
    t = Transcript()
    t.bookkeeping()
    t.prompt()
    t.response(
        [thinking("hmm"), text("reading"), tool_use("toolu_1")],
        input_tokens=7,
        cache_write=11,
        cache_read=13,
        outputs=[2, 2, 90],
        stop_reason="tool_use",
    )
    t.results([("toolu_1", "file body")])
    t.response([text("done")], input_tokens=3, cache_write=0, cache_read=20, outputs=[40])
    records = _records(t)
    assistants = _assistants(records)
    assert len(assistants) == 2
    first = assistants[0]
    assert [type(b).__name__ for b in first.content] == [
        "ThinkingContent",
        "TextContent",
        "ToolCall",
    ]
    assert (first.usage.input, first.usage.cache_write, first.usage.cache_read) == (7, 11, 13)
    assert first.usage.output == 90
    assert first.api == "anthropic-messages"
    assert first.stop_reason == "toolUse"
    assert _usage_sums(_readable(t)) == (10, 11, 33, 130)
    assert [r.tool_name for r in _results(records)] == ["Read"]


def test_a_request_split_by_an_unrelated_line_still_joins() -> None:
    """A request's lines are joined by (message.id, requestId) even when another line sits
    between them on the path (a progress or system line)."""
    t = Transcript()
    t.prompt()
    t.response([text("a")], message_id="msg_x", request_id="req_x", outputs=[1], stop_reason=None)
    t.system("api_error")
    t.response([text("b")], message_id="msg_x", request_id="req_x", outputs=[30])
    assistants = _assistants(_records(t))
    assert len(assistants) == 1
    assert [b.text for b in assistants[0].content if isinstance(b, jm.TextContent)] == ["a", "b"]
    assert assistants[0].usage.output == 30


def test_a_rewound_branch_is_off_the_path_and_its_request_uncounted() -> None:
    """A prompt re-parented onto an earlier line (a rewind) starts the resumed branch; the
    abandoned branch's lines are off the path and its request is not counted."""
    t = Transcript()
    root = t.prompt("first")
    t.response([text("one")], input_tokens=100)
    t.prompt("abandoned")
    t.response([text("two")], input_tokens=1000)
    t.prompt("rewritten", parent=root)
    t.response([text("three")], input_tokens=5)
    read = _readable(t)
    assert read.shape.leaves == 2
    assert read.shape.off_path_entries == 3  # "one", "abandoned", "two"
    assert _usage_sums(read)[0] == 5
    assert len(_assistants(_records(t))) == 1


def test_parallel_tool_results_beside_the_path_are_on_it() -> None:
    """Claude Code hangs each parallel call's result below its own call line; every result
    but the last sits beside the path, and all of them are mapped (the model saw them)."""
    t = Transcript()
    t.prompt()
    calls = t.response([tool_use("toolu_a"), tool_use("toolu_b", "Grep")], stop_reason="tool_use")
    t.results([("toolu_a", "A")], parent=calls[0])
    t.results([("toolu_b", "B")], parent=calls[1])
    t.response([text("both seen")])
    read = _readable(t)
    assert read.shape.off_path_entries == 0
    assert read.shape.unrecognized[Unrecognized.ORPHAN_TOOL_RESULT] == 0
    assert sorted(r.tool_name for r in _results(_records(t))) == ["Grep", "Read"]


def test_an_error_result_maps_to_an_error_call_end() -> None:
    """A tool_result with is_error is a result with isError and a call ended `error`."""
    t = Transcript()
    t.prompt()
    t.response([tool_use("toolu_e", "Bash")], stop_reason="tool_use")
    t.results([("toolu_e", "exit 1")], error=True)
    t.response([text("it failed")])
    records = _records(t)
    assert [r.is_error for r in _results(records)] == [True]
    assert [r.status for r in records if isinstance(r, jr.ToolCallEnd)] == ["error"]


def test_a_compact_boundary_is_a_compaction_with_its_trigger_and_tokens_before() -> None:
    """compact_boundary (trigger auto, preTokens) is a checkpoint `threshold` with those tokens
    before, its summary the isCompactSummary line; the history before it stays on the path
    through logicalParentUuid; a manual one is `manual`."""
    t = Transcript()
    t.prompt()
    t.response([text("before")], input_tokens=50)
    t.compaction("auto", 155_554)
    t.response([text("after")], input_tokens=7)
    t.prompt("again")
    t.response([text("x")], input_tokens=1)
    t.compaction("manual", 9_000)
    records = _records(t)
    checkpoints = [r for r in records if isinstance(r, jr.Checkpoint)]
    assert [(c.trigger, c.tokens_before) for c in checkpoints] == [
        ("threshold", 155_554),
        ("manual", 9_000),
    ]
    assert checkpoints[0].summary == "This session is being continued."
    assert checkpoints[0].first_kept_seq is None
    assert _usage_sums(_readable(t))[0] == 58
    assert len(_assistants(records)) == 3


def test_a_torn_final_line_is_dropped_and_counted() -> None:
    """A final line without its newline is dropped and counted; the rest is read."""
    t = Transcript()
    t.prompt()
    t.response([text("ok")])
    read = _read(t.text() + '{"type":"assistant","mess')
    assert isinstance(read, ReadTranscript)
    assert read.shape.torn_final_lines == 1
    complete = _readable(t)
    assert complete.shape.torn_final_lines == 0
    assert read.requests == complete.requests


def test_a_line_that_is_not_json_makes_the_file_invalid() -> None:
    """A middle line that is not JSON (even one a redactor broke) refuses the file whole,
    MALFORMED_JSON; a final line with its newline is no torn line either."""
    t = Transcript()
    t.prompt()
    t.response([text("ok")])
    lines = t.text().splitlines(keepends=True)
    broken = lines[0] + '{"type":"user","message":{"content":"To: [REDACTED]\n' + lines[1]
    assert _read(broken) == RejectedSession(SessionOutcome.INVALID, SessionInvalid.MALFORMED_JSON)
    assert _read(t.text() + "not json\n") == RejectedSession(
        SessionOutcome.INVALID, SessionInvalid.MALFORMED_JSON
    )


def test_wrong_field_types_and_tree_defects_are_fixed_details() -> None:
    """A used field of the wrong type is WRONG_SHAPE; a parent no line has is PARENT_UNKNOWN; a
    repeated uuid ENTRY_ID_REPEATED; a file of bookkeeping lines only NOT_A_SESSION."""
    t = Transcript()
    t.prompt()
    t.lines[0]["message"] = {"role": "user", "content": 5}
    assert _read(t.text()) == RejectedSession(SessionOutcome.INVALID, SessionInvalid.WRONG_SHAPE)
    t = Transcript()
    t.prompt(parent="00000000-dead-beef-0000-000000000000")
    assert _read(t.text()) == RejectedSession(SessionOutcome.INVALID, SessionInvalid.PARENT_UNKNOWN)
    t = Transcript()
    t.prompt()
    t.lines.append(dict(t.lines[0]))
    assert _read(t.text()) == RejectedSession(
        SessionOutcome.INVALID, SessionInvalid.ENTRY_ID_REPEATED
    )
    t = Transcript()
    t.bookkeeping()
    assert _read(t.text()) == RejectedSession(SessionOutcome.INVALID, SessionInvalid.NOT_A_SESSION)
    assert _read(b"") == RejectedSession(SessionOutcome.INVALID, SessionInvalid.EMPTY_FILE)


def test_unknown_entry_and_block_types_are_counted_not_fatal() -> None:
    """An unknown entry type (even one in the tree) and an unknown content block are counted
    as ENTRY_TYPE and left out; the file is read."""
    t = Transcript()
    t.prompt()
    t.add({"type": "brand-new-kind", "uuid": "u-new", "parentUuid": t.last_uuid, "x": [1]})
    t.response([text("ok"), {"type": "future_block", "data": 1}])
    read = _readable(t)
    assert read.shape.unrecognized[Unrecognized.ENTRY_TYPE] == 2
    assert len(_assistants(_records(t))) == 1


def test_synthetic_messages_are_excluded_and_counted() -> None:
    """An assistant line of model `<synthetic>` is no request: not counted, not mapped, but
    counted as a synthetic message."""
    t = Transcript()
    t.prompt()
    t.response([text("No response requested.")], model="<synthetic>", input_tokens=0)
    t.prompt("next")
    t.response([text("real")], input_tokens=4)
    read = _readable(t)
    assert read.shape.synthetic_messages == 1
    assert _usage_sums(read)[0] == 4
    assert [a.model for a in _assistants(_records(t))] == ["claude-sonnet-4-5-20250929"]


def test_placeholder_output_is_flagged_only_without_a_stop_reason_and_too_small() -> None:
    """Output tokens are a placeholder when no line of the request records a stop reason and
    16 bytes per token could not hold its content; a recorded stop reason, or an output large
    enough, is trusted."""
    t = Transcript()
    t.prompt()
    t.response([text("x" * 400)], outputs=[3], stop_reason=None)  # 48 < 400: placeholder
    t.prompt("2")
    t.response([text("x" * 400)], outputs=[3], stop_reason="end_turn")  # recorded: trusted
    t.prompt("3")
    t.response([text("x" * 400)], outputs=[30], stop_reason=None)  # 480 >= 400: trusted
    read = _readable(t)
    flags = [placeholder_output(request) for request in read.requests.values()]
    assert flags == [True, False, False]
    assert read.shape.placeholder_output_requests == {"anthropic-messages": 1}


def test_a_meta_line_joins_the_context_without_opening_a_turn() -> None:
    """An isMeta user line (a command's caveat or output) is context, not a prompt: one turn."""
    t = Transcript()
    t.prompt("caveat", meta=True)
    t.prompt("real prompt")
    t.prompt("command output", meta=True)
    t.response([text("ok")])
    records = _records(t)
    assert sum(isinstance(r, jr.TurnStart) for r in records) == 2  # the leading meta line too
    assert len(_assistants(records)) == 1


def test_subagent_files_are_conversations_of_their_own() -> None:
    """A subagent's file (sidechain lines with an agentId) maps to a journal id of its own,
    distinct from its parent session's, though both name the same sessionId."""
    main = Transcript()
    main.prompt()
    main.response([text("main")])
    agent = Transcript(agent_id="a5bdbc1", sidechain=True)
    agent.prompt("subtask")
    agent.response([text("sub")])
    main_read, agent_read = _readable(main), _readable(agent)
    assert main_read.journal_id != agent_read.journal_id
    assert main_read.lineage != agent_read.lineage
    mapped = map_transcript(agent_read)
    assert isinstance(mapped, DecodedJournal)
    assert mapped.header.origin == "imported"


def test_the_placeholder_policy_is_read_strictly() -> None:
    """policy/claude-code.json decodes into its struct, and an unknown field is refused."""
    document = json.loads(read_policy_bytes("claude-code.json"))
    assert claude_code_policy().placeholder_max_bytes_per_output_token == 16
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({**document, "extra": 1}, ClaudeCodePolicy)
