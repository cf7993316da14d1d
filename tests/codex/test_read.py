"""The Codex rollout reader per rule (docs/formats/codex.md): requests from changed totals,
usage, the API, compactions, copied histories, tool results, counted and refused lines."""

from __future__ import annotations

import io
import json

from clearing_analysis.codex import (
    Api,
    ReadRollout,
    RejectedRollout,
    RolloutCount,
    RolloutInvalid,
    RolloutOutcome,
    read_stream,
)
from clearing_analysis.codex.lines import InputText
from clearing_analysis.codex.read import (
    ZSTD_MAGIC,
    Compaction,
    ContextMessage,
    Prompt,
    Request,
    ToolOutput,
    TurnEnd,
)
from tests.codex.builder import Rollout, usage


def _read(raw: Rollout | str | bytes) -> ReadRollout | RejectedRollout:
    text = raw.text() if isinstance(raw, Rollout) else raw
    return read_stream(io.BytesIO(text.encode() if isinstance(text, str) else text))


def _ok(raw: Rollout | str | bytes) -> ReadRollout:
    read = _read(raw)
    assert isinstance(read, ReadRollout), read
    return read


def _invalid(raw: Rollout | str | bytes) -> RolloutInvalid | None:
    read = _read(raw)
    assert isinstance(read, RejectedRollout), read
    assert read.outcome is RolloutOutcome.INVALID
    return read.detail


def test_a_request_is_a_token_count_whose_total_changed() -> None:
    """Repeats (same total) and events without info are dropped and counted; each changed
    total is one request with its last_token_usage."""
    rollout = Rollout().prompt().token_count(None).request(100, 40, 7).repeat().repeat()
    rollout.request(200, 150, 9).repeat()
    read = _ok(rollout)
    assert [
        (r.usage.input_tokens, r.usage.cached_input_tokens, r.usage.output_tokens)
        for r in read.requests
    ] == [
        (100, 40, 7),
        (200, 150, 9),
    ]
    assert read.counts[RolloutCount.REPEATED_TOKEN_COUNTS] == 4


def test_a_synthetic_event_with_an_unchanged_total_is_no_request() -> None:
    """An event whose last usage is zero but for total_tokens, its running total unchanged (as
    around a compaction), is dropped."""
    rollout = Rollout().prompt().request(100, 0, 5)
    rollout.token_count({**usage(0), "total_tokens": 105}, total=dict(rollout.total))
    assert len(_ok(rollout).requests) == 1


def test_the_request_carries_the_output_since_the_previous_one() -> None:
    """Assistant text, reasoning and calls before a request's token_count are its output; the
    model is the latest turn_context's."""
    rollout = Rollout().prompt()
    rollout.item({"type": "reasoning", "summary": [], "content": None, "encrypted_content": "x"})
    rollout.call("c1").call("c2", "write_stdin").request(10, 0, 1, text="hi")
    (request,) = _ok(rollout).requests
    assert (request.texts, request.reasoning_items, request.model) == (("hi",), 1, "gpt-5.3-codex")
    assert [(c.call_id, c.name) for c in request.calls] == [
        ("c1", "exec_command"),
        ("c2", "write_stdin"),
    ]


def test_cached_input_above_input_is_inconsistent() -> None:
    """Cached input is part of input: more cached than input makes the file INVALID."""
    assert _invalid(Rollout().prompt().request(10, 11, 1)) is RolloutInvalid.USAGE_INCONSISTENT


def test_a_token_count_above_the_request_range_is_out_of_range() -> None:
    """A request's usage above 10^9 tokens is VALUE_OUT_OF_RANGE."""
    assert _invalid(Rollout().prompt().request(10**9 + 1)) is RolloutInvalid.VALUE_OUT_OF_RANGE


def test_the_api_follows_the_rate_limit_windows() -> None:
    """A file with a plan window is openai-codex-responses (ChatGPT sign-in); without any,
    openai-responses (API key); an absent model_provider is OpenAI's."""
    assert _ok(Rollout().prompt().request(1)).api is Api.OPENAI_CODEX_RESPONSES
    assert _ok(Rollout(windows=False).prompt().request(1)).api is Api.OPENAI_RESPONSES
    assert _ok(Rollout(provider=None).prompt().request(1)).api is Api.OPENAI_CODEX_RESPONSES


def test_another_provider_is_unsupported() -> None:
    """A model_provider other than OpenAI's skips the file whole."""
    read = _read(Rollout(provider="ollama").prompt().request(1))
    assert read == RejectedRollout(RolloutOutcome.UNSUPPORTED_PROVIDER)


def test_a_compaction_counts_the_last_request() -> None:
    """A compacted line's tokens before are the last request's input + output (cached
    included); one before any request has 0."""
    rollout = Rollout().prompt()
    rollout.line("compacted", {"message": "s"})
    rollout.request(100, 90, 5).request(300, 200, 8)
    rollout.line("compacted", {"message": "s", "replacement_history": [{"type": "message"}] * 3})
    rollout.event({"type": "context_compacted"})
    compactions = [c for c in _ok(rollout).items if isinstance(c, Compaction)]
    assert [(c.tokens_before, c.replaced) for c in compactions] == [(0, False), (308, True)]
    assert _ok(rollout).counts[RolloutCount.REPLACEMENT_ITEMS] == 3


def test_a_copied_history_is_not_counted_again() -> None:
    """After a later session_meta (a fork's copy of its parent), token_count events are no
    requests until the running total drops below the previous one (the file's own sum)."""
    rollout = Rollout().line("session_meta", {"id": "parent"}).prompt("parent prompt")
    rollout.request(100, 0, 5).request(300, 0, 5)
    rollout.total = usage(0)
    rollout.prompt("own prompt").request(50, 10, 2).request(70, 10, 3)
    read = _ok(rollout)
    assert [r.usage.input_tokens for r in read.requests] == [50, 70]
    assert read.counts[RolloutCount.COPIED_TOKEN_COUNTS] == 2
    # session_meta, the parent's prompt (4 lines) and two requests (2 lines each)
    assert read.counts[RolloutCount.COPIED_LINES] == 9
    assert [p.content for p in read.items if isinstance(p, Prompt)] == [(InputText("own prompt"),)]


def test_a_prompt_takes_its_own_context_item() -> None:
    """The user message item before a user_message event is that prompt, not context; other
    user and developer messages are context."""
    rollout = Rollout()
    rollout.item(
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "d"}]}
    )
    rollout.item(
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "env"}]}
    )
    rollout.prompt("p").request(1)
    read = _ok(rollout)
    kinds = [(type(i).__name__, getattr(i, "role", None)) for i in read.items]
    assert kinds == [
        ("ContextMessage", "developer"),
        ("ContextMessage", "user"),
        ("Prompt", None),
        ("Request", None),
    ]
    assert next(i for i in read.items if isinstance(i, Prompt)).content == (InputText("p"),)


def test_a_user_message_event_alone_is_the_prompt() -> None:
    """Without its context item (older releases), the event's text is the prompt."""
    rollout = Rollout().event({"type": "user_message", "message": "typed"})
    (prompt,) = (i for i in _ok(rollout).items if isinstance(i, Prompt))
    assert prompt.content == (InputText("typed"),)


def test_results_follow_their_request() -> None:
    """A result written before its request's token_count is placed after the request; its
    size is the output's UTF-8 bytes."""
    rollout = Rollout().prompt().call("c1").output("c1", "é!").request(10)
    read = _ok(rollout)
    kinds = [type(i) for i in read.items]
    assert kinds == [Prompt, Request, ToolOutput]
    assert next(i for i in read.items if isinstance(i, ToolOutput)).byte_size == 3


def test_a_result_without_its_call_is_counted() -> None:
    """A result no request called is kept and counted as an orphan."""
    read = _ok(Rollout().prompt().request(10).output("nobody"))
    assert read.counts[RolloutCount.ORPHAN_RESULTS] == 1


def test_custom_and_local_shell_calls() -> None:
    """custom_tool_call (+ output) and local_shell_call are calls; content-item outputs count
    their text."""
    rollout = Rollout().prompt()
    rollout.item(
        {
            "type": "custom_tool_call",
            "name": "apply_patch",
            "input": "p",
            "call_id": "a",
            "status": "completed",
        }
    )
    rollout.item(
        {
            "type": "local_shell_call",
            "call_id": "b",
            "status": "completed",
            "action": {"type": "exec"},
        }
    )
    rollout.request(10)
    rollout.item({"type": "custom_tool_call_output", "call_id": "a", "output": "Success."})
    rollout.item(
        {
            "type": "function_call_output",
            "call_id": "b",
            "output": [{"type": "input_text", "text": "abc"}],
        }
    )
    read = _ok(rollout)
    (request,) = read.requests
    assert [(c.name, c.kind) for c in request.calls] == [
        ("apply_patch", "CUSTOM"),
        ("local_shell", "LOCAL_SHELL"),
    ]
    assert [o.byte_size for o in read.items if isinstance(o, ToolOutput)] == [8, 3]


def test_server_tools_unknown_items_and_events_are_counted() -> None:
    """web_search_call, unknown response items, unknown line types and unused events are
    counted and left out."""
    rollout = Rollout().prompt()
    rollout.item({"type": "web_search_call", "status": "completed"})
    rollout.item({"type": "ghost_snapshot", "ghost_commit": {}})
    rollout.line("world_state", {"x": 1})
    rollout.event({"type": "agent_message", "message": "m"})
    rollout.request(1)
    counts = _ok(rollout).counts
    assert counts[RolloutCount.SERVER_TOOL_CALLS] == 1
    assert counts[RolloutCount.UNKNOWN_ITEMS] == 1
    assert counts[RolloutCount.UNKNOWN_LINES] == 1
    assert counts[RolloutCount.IGNORED_EVENTS] == 1


def test_turn_ends_and_unbilled_items() -> None:
    """task_complete and turn_aborted end a turn; output after the last request is counted
    as unbilled."""
    rollout = Rollout().prompt().request(1)
    rollout.event({"type": "task_complete", "turn_id": "t"})
    rollout.prompt().event({"type": "turn_aborted", "reason": "interrupted"}).call("late")
    read = _ok(rollout)
    assert [e.aborted for e in read.items if isinstance(e, TurnEnd)] == [False, True]
    assert read.counts[RolloutCount.UNBILLED_ITEMS] == 1


def test_a_torn_last_line_is_dropped_and_counted() -> None:
    """A last line without its newline is dropped; the rest is read."""
    text = Rollout().prompt().request(5).text() + '{"timestamp": "2026-02-23T12:00:00Z", "ty'
    read = _ok(text)
    assert read.counts[RolloutCount.TORN_LINES] == 1
    assert len(read.requests) == 1


def test_a_broken_middle_line_invalidates_the_file() -> None:
    """A complete line that is not JSON makes the file INVALID (MALFORMED_JSON)."""
    lines = Rollout().prompt().request(5).text().splitlines(keepends=True)
    lines.insert(2, "{not json\n")
    assert _invalid("".join(lines)) is RolloutInvalid.MALFORMED_JSON


def test_refusals_by_first_line() -> None:
    """Empty, torn-only, non-rollout, pre-envelope and compressed files are refused by fixed
    outcome and detail."""
    assert _invalid(b"") is RolloutInvalid.EMPTY_FILE
    assert _invalid('{"timestamp": "x", "type": "session_meta"') is RolloutInvalid.EMPTY_FILE
    assert _invalid('{"type": "session", "id": "x"}\n') is RolloutInvalid.NOT_A_SESSION
    old = json.dumps({"id": "x", "timestamp": "2025-05-01T00:00:00Z", "instructions": None}) + "\n"
    assert _read(old) == RejectedRollout(RolloutOutcome.UNSUPPORTED_VERSION)
    assert _read(ZSTD_MAGIC + b"\x00" * 10**6) == RejectedRollout(RolloutOutcome.COMPRESSED)


def test_an_invalid_timestamp_invalidates_the_file() -> None:
    """An envelope timestamp without a zone is TIMESTAMP_INVALID."""
    rollout = Rollout().prompt()
    rollout.lines[-1]["timestamp"] = "2026-02-23T11:00:00"
    assert _invalid(rollout) is RolloutInvalid.TIMESTAMP_INVALID


def test_a_wrong_payload_shape_invalidates_the_file() -> None:
    """A token_count whose usage is not a number is WRONG_SHAPE."""
    rollout = Rollout().prompt().request(5)
    rollout.lines[-1]["payload"]["info"]["last_token_usage"]["input_tokens"] = "5"
    assert _invalid(rollout) is RolloutInvalid.WRONG_SHAPE


def test_context_messages_keep_their_content() -> None:
    """A developer message is context with its blocks."""
    rollout = Rollout().item(
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "d"}]}
    )
    (context,) = _ok(rollout).items
    assert isinstance(context, ContextMessage) and context.content == (InputText("d"),)
