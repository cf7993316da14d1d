"""The mapping of a session's resumed path onto journal records (docs/formats/pi-sessions.md,
"Mapping table"): assistant -> request, user -> prompt turn, tool calls and results, compaction
-> checkpoint, context messages, and the two refusals the mapping finds."""

from __future__ import annotations

import io

from clearing_analysis.journal import DecodedJournal
from clearing_analysis.journal import messages as jm
from clearing_analysis.journal import records as jr
from clearing_analysis.pisession import (
    ReadSession,
    RejectedSession,
    SessionInvalid,
    SessionOutcome,
    map_session,
    read_stream,
)
from clearing_analysis.pisession.read import Unrecognized
from tests.pisession.builder import Session


def _map(session: Session) -> DecodedJournal | RejectedSession:
    read = read_stream(io.BytesIO(session.text().encode()))
    assert isinstance(read, ReadSession), read
    return map_session(read)


def _records(session: Session) -> tuple[jr.Record, ...]:
    mapped = _map(session)
    assert isinstance(mapped, DecodedJournal), mapped
    return mapped.records


def _kinds(records: tuple[jr.Record, ...]) -> list[str]:
    out: list[str] = []
    for record in records:
        name = type(record).__name__
        if isinstance(record, jr.MessageRecord):
            name = type(record.message).__name__
        out.append(name)
    return out


def test_user_starts_a_prompt_turn_and_assistant_is_a_request() -> None:
    """Each user message opens a turn with one prompt run (the previous run ends completed);
    each assistant message is a message record; tool calls start after their message and end
    with their result, success or error by isError."""
    session = Session()
    session.turn(["read", "ls"])
    session.user("second")
    session.assistant(["bash"])
    session.result("toolu_0003", "bash", error=True)
    session.assistant()
    records = _records(session)
    assert _kinds(records) == [
        "Header",
        "TurnStart",
        "RunStart",
        "AssistantMessage",
        "ToolCallStart",
        "ToolCallStart",
        "ToolCallEnd",
        "ToolResultMessage",
        "ToolCallEnd",
        "ToolResultMessage",
        "AssistantMessage",
        "RunEnd",
        "TurnStart",
        "RunStart",
        "AssistantMessage",
        "ToolCallStart",
        "ToolCallEnd",
        "ToolResultMessage",
        "AssistantMessage",
        "RunEnd",
        "Close",
    ]
    header = records[0]
    assert isinstance(header, jr.Header)
    assert header.origin == "imported"
    runs = [r for r in records if isinstance(r, jr.RunStart)]
    assert {(r.owner, r.reason) for r in runs} == {(None, "prompt")}
    ends = [r for r in records if isinstance(r, jr.RunEnd)]
    assert {r.status for r in ends} == {"completed"}
    statuses = [r.status for r in records if isinstance(r, jr.ToolCallEnd)]
    assert statuses == ["success", "success", "error"]
    assert all(r.returned and r.placed for r in records if isinstance(r, jr.ToolCallEnd))
    assert [r.seq for r in records] == list(range(len(records)))


def test_a_reused_call_id_pairs_each_result_with_its_own_call() -> None:
    """Call ids are renumbered: a provider reusing an id still pairs results in order."""
    session = Session()
    session.user()
    session.assistant(["read"])
    session.result("toolu_0001", "read")
    session.assistant(["grep"])
    session.lines[-1]["message"]["content"][0]["id"] = "toolu_0001"
    session.result("toolu_0001", "grep")
    session.assistant()
    records = _records(session)
    starts = {r.call_id: r.tool_name for r in records if isinstance(r, jr.ToolCallStart)}
    results = [
        (r.message.tool_call_id, r.message.tool_name)
        for r in records
        if isinstance(r, jr.MessageRecord) and isinstance(r.message, jm.ToolResultMessage)
    ]
    assert [(call, starts[call]) for call, _ in results] == results
    assert len(set(starts)) == 2


def test_compaction_is_a_checkpoint_keeping_from_its_first_kept_entry() -> None:
    """A compaction is a checkpoint with its summary and tokens before; its kept records start
    at the first record of the first kept entry."""
    session = Session()
    session.turn(["read"])
    kept = session.user("kept")
    session.assistant()
    session.entry("compaction", summary="the summary", tokensBefore=42_000, firstKeptEntryId=kept)
    session.turn(["read"])
    records = _records(session)
    checkpoint = next(r for r in records if isinstance(r, jr.Checkpoint))
    assert (checkpoint.summary, checkpoint.tokens_before) == ("the summary", 42_000)
    first_kept = records[checkpoint.first_kept_seq or 0]
    assert isinstance(first_kept, jr.TurnStart)
    assert isinstance(first_kept.message, jm.UserMessage)
    assert first_kept.message.content == [jm.TextContent("kept", None)]


def test_context_entries_join_the_open_run_or_open_a_turn() -> None:
    """branch_summary, custom_message, custom / hookMessage roles and `!` commands become user
    context; `!!` commands (excludeFromContext) and model / thinking changes produce nothing."""
    session = Session()
    session.entry("model_change", provider="anthropic", modelId="m")
    session.entry("thinking_level_change", thinkingLevel="low")
    bash = {"role": "bashExecution", "command": "ls", "output": "a", "exitCode": 0}
    session.message({**bash, "timestamp": session.tick()})  # before any prompt: own turn
    session.message({**bash, "excludeFromContext": True, "timestamp": session.tick()})
    session.user()
    session.assistant()
    session.entry("branch_summary", summary="other branch", fromId="x")
    session.entry("custom_message", customType="t", content="note", display=True)
    session.message(
        {
            "role": "custom",
            "customType": "t",
            "content": "c",
            "display": True,
            "timestamp": session.tick(),
        }
    )
    session.assistant()
    records = _records(session)
    assert _kinds(records) == [
        "Header",
        "TurnStart",  # the `!` command before any prompt: a turn without a request
        "RunStart",
        "RunEnd",
        "TurnStart",
        "RunStart",
        "AssistantMessage",
        "UserMessage",
        "UserMessage",
        "UserMessage",
        "AssistantMessage",
        "RunEnd",
        "Close",
    ]


def test_a_request_before_any_prompt_is_invalid() -> None:
    """An assistant message before any user message cannot be placed in a turn."""
    session = Session()
    session.assistant()
    assert _map(session) == RejectedSession(
        SessionOutcome.INVALID, SessionInvalid.REQUEST_WITHOUT_PROMPT
    )


def test_openclaw_transcript_copies_are_no_requests() -> None:
    """OpenClaw's delivery-mirror copy of a reply (provider openclaw, all-zero usage) is no
    model request (R-CM-8, policy/transcript-only.json): one as the path's first entry no
    longer makes the session REQUEST_WITHOUT_PROMPT, one after a turn's answer is not mapped
    (no request, no fallback, no gap's end), and the reader counts each under its code."""
    session = Session()
    session.mirror()  # before any prompt, as a real OpenClaw session starts
    session.user()
    (call,) = session.assistant(["read"])
    session.result(call, "read")
    session.assistant()
    session.mirror()  # the reply copied to a channel
    session.mirror("gateway-injected")
    session.user("next turn")
    session.assistant()
    read = read_stream(io.BytesIO(session.text().encode()))
    assert isinstance(read, ReadSession)
    counts = {code.value: n for code, n in read.shape.transcript_only.items()}
    assert counts == {
        "OPENCLAW_DELIVERY_MIRROR": 2,
        "OPENCLAW_CLI_MIRROR": 0,
        "OPENCLAW_GATEWAY_INJECTED": 1,
    }
    records = _records(session)
    requests = [
        r.message
        for r in records
        if isinstance(r, jr.MessageRecord) and isinstance(r.message, jm.AssistantMessage)
    ]
    assert [m.provider for m in requests] == ["anthropic"] * 3
    assert sum(isinstance(r, jr.TurnStart) for r in records) == 2


def test_an_openclaw_provider_with_another_model_is_a_request() -> None:
    """Only the listed models of provider openclaw are transcript copies; a request of another
    model, or a delivery-mirror model name under another provider, is a request."""
    session = Session()
    session.user()
    session.assistant(provider="openclaw", model="some-model")
    session.assistant(provider="anthropic", model="delivery-mirror")
    read = read_stream(io.BytesIO(session.text().encode()))
    assert isinstance(read, ReadSession)
    assert set(read.shape.transcript_only.values()) == {0}
    records = _records(session)
    assert sum(isinstance(r, jr.MessageRecord) for r in records) == 2  # both requests


def test_an_orphan_result_gets_a_call_of_its_own() -> None:
    """A toolResult whose call no assistant message of its prompt turn requested (real OpenClaw
    sessions hold such results, with an empty tool name) is in the context: it is mapped with a
    call started just before it under its own tool name, and the reader counts it."""
    session = Session()
    session.user()
    (call,) = session.assistant(["read"])
    session.result("toolu_9999", "", text="Tool  not found", error=True)
    session.result(call, "read")
    session.assistant()
    session.user("next turn")
    session.result(call, "read")  # its call belongs to the previous turn: an orphan here
    session.assistant()
    read = read_stream(io.BytesIO(session.text().encode()))
    assert isinstance(read, ReadSession)
    assert read.shape.unrecognized[Unrecognized.ORPHAN_TOOL_RESULT] == 2
    records = _records(session)
    starts = [r for r in records if isinstance(r, jr.ToolCallStart)]
    assert [s.tool_name for s in starts] == ["read", "", "read"]
    results = [
        r.message
        for r in records
        if isinstance(r, jr.MessageRecord) and isinstance(r.message, jm.ToolResultMessage)
    ]
    assert [(m.tool_call_id, m.tool_name) for m in results] == [
        (starts[1].call_id, ""),
        (starts[0].call_id, "read"),
        (starts[2].call_id, "read"),
    ]


def test_a_result_before_any_prompt_is_invalid() -> None:
    """A toolResult with no prompt turn open has no run to join: RESULT_WITHOUT_CALL."""
    session = Session()
    session.result("toolu_0001", "read")
    session.user()
    session.assistant()
    assert _map(session) == RejectedSession(
        SessionOutcome.INVALID, SessionInvalid.RESULT_WITHOUT_CALL
    )


def test_an_invalid_timestamp_the_mapping_needs_is_invalid() -> None:
    """A compaction (or the header) whose ISO timestamp does not parse, or has no zone, is
    TIMESTAMP_INVALID: the reader needs it to place the checkpoint."""
    for bad in ("yesterday", "2025-12-01T00:00:00"):
        session = Session()
        session.turn(["read"])
        session.entry("compaction", summary="s", tokensBefore=10)
        session.lines[-1]["timestamp"] = bad
        assert _map(session) == RejectedSession(
            SessionOutcome.INVALID, SessionInvalid.TIMESTAMP_INVALID
        ), bad
    header = Session()
    header.lines[0]["timestamp"] = "not a time"
    header.turn(["read"])
    assert _map(header) == RejectedSession(SessionOutcome.INVALID, SessionInvalid.TIMESTAMP_INVALID)
