"""Boundary estimate E, request gap, completed-run counter, checkpoints (R-SIM-1/3/8)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from clearing_analysis.inputs.sidecar import SidecarView
from clearing_analysis.journal.messages import AssistantMessage, ToolCall, Usage
from clearing_analysis.replay import ReplayedJournal, replay_journal, replay_journals
from clearing_analysis.replay.heuristic import (
    json_stringify_units,
    message_tokens,
    usage_tokens,
    utf16_units,
)
from tests.replay.builder import JournalBuilder, SidecarBuilder, routes, usage

OpenView = Callable[[SidecarBuilder], SidecarView]
IMAGE = {"type": "image", "data": "AAAA", "mimeType": "image/png"}


def _replay(tmp_path: Path, view: SidecarView, b: JournalBuilder) -> ReplayedJournal:
    b.close()
    outcome = replay_journal(b.write(tmp_path), routes(), view)
    assert isinstance(outcome, ReplayedJournal)
    return outcome


def test_utf16_units_count_astral_characters_twice() -> None:
    """JavaScript string length: an emoji is two code units, an accented letter one."""
    assert utf16_units("abc") == 3
    assert utf16_units("é") == 1
    assert utf16_units("😀") == 2


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"q": "c1"}, '{"q":"c1"}'),
        ({"a": [1, 2.5, None, True, False]}, '{"a":[1,2.5,null,true,false]}'),
        ({"n": 1.0, "s": 1e-7, "t": 0.00001}, '{"n":1,"s":1e-7,"t":0.00001}'),
        ({"x": 'q"\n\u0001é'}, '{"x":"q\\"\\n\\u0001é"}'),
    ],
)
def test_json_stringify_length(value: object, expected: str) -> None:
    """Tool-call arguments are measured as JavaScript's JSON.stringify would print them."""
    assert json_stringify_units(value) == len(expected)


def test_assistant_tokens_include_thinking_and_tool_calls() -> None:
    """ceil((text + thinking + name + JSON arguments) / 4)."""
    message = AssistantMessage(
        content=[ToolCall(id="c", name="read", arguments={"q": "c1"})],
        api="a",
        provider="p",
        model="m",
        usage=Usage(0, 0, 0, 0, 0),
        stop_reason="toolUse",
        timestamp=0,
    )
    assert message_tokens(message) == 4  # ceil((4 + 10) / 4)


def test_usage_total_else_sum() -> None:
    """totalTokens when nonzero, else input + output + cacheRead + cacheWrite."""
    assert usage_tokens(Usage(1, 2, 3, 4, 50)) == 50
    assert usage_tokens(Usage(1, 2, 3, 4, 0)) == 10


def test_estimate_is_latest_valid_usage_plus_trailing_heuristic(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """E = latest valid usage + heuristic of later messages (error request included) + input."""
    b = JournalBuilder()
    b.turn("t1", text="aaaa")
    b.run("r1", "t1")
    b.assistant("r1", text="x" * 8, use=usage(total=100))
    b.assistant("r1", text="y" * 10, use=usage(total=900), stop="error")
    b.run_end("r1", "failed")
    b.turn("t2", text="b" * 8)
    b.run("r2", "t2")
    b.assistant("r2")
    b.run_end("r2")
    journal = _replay(tmp_path, open_view(sidecar_builder), b)
    second = journal.boundaries[1]
    assert second.estimate == 100 + 3 + 2
    assert second.usage_based


def test_estimate_before_every_request_and_before_every_result(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """Each request carries E just before it and how many of the turn's results preceded it;
    each result, E just before it joined the context and the checkpoints before it (the
    what-ifs' clearing points and rewrite prefix, docs/model.md section 9). A checkpoint inside
    the turn restarts E from the summary's heuristic."""
    b = JournalBuilder()
    b.turn("t1", text="aaaa")  # 1 token
    b.run("r1", "t1")
    b.assistant("r1", text="", calls=[("c1", "read", {})], use=usage(total=100))
    b.call_start("r1", "c1", "read")
    b.call_end("r1", "c1")
    b.result("r1", "c1", "read", text="z" * 40)  # 10 tokens
    b.assistant("r1", text="y" * 10, use=usage(total=900), stop="error")  # 3 tokens
    b.checkpoint("s" * 20, first_kept=None)  # a 5-token summary
    b.assistant("r1", text="", calls=[("c2", "read", {})], use=usage(total=300))
    b.call_start("r1", "c2", "read")
    b.call_end("r1", "c2")
    b.result("r1", "c2", "read", text="w" * 8)  # 2 tokens
    b.assistant("r1", text="done", use=usage(total=400))
    b.run_end("r1")
    journal = _replay(tmp_path, open_view(sidecar_builder), b)
    (boundary,) = journal.boundaries
    requests = [(r.estimate, r.results_before, r.checkpoints_before) for r in boundary.requests]
    # No usage yet: the input alone; then 100 + the result; + the error's own text (its usage
    # is not valid); after the checkpoint the summary alone; then 300 + the second result.
    assert requests == [(1, 0, 0), (110, 1, 0), (5, 1, 1), (302, 2, 1)]
    assert boundary.requests[0].estimate == boundary.estimate
    first, second = journal.results
    assert (first.prefix_estimate, first.checkpoints_before) == (100, 0)
    assert (second.prefix_estimate, second.checkpoints_before) == (300, 1)


def test_estimate_without_valid_usage_is_heuristic_of_everything(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """With only aborted/error requests, E is the heuristic of the whole context."""
    b = JournalBuilder()
    b.turn("t1", text="aaaa")
    b.run("r1", "t1")
    b.assistant("r1", text="x" * 10, use=usage(total=500), stop="aborted")
    b.run_end("r1", "aborted")
    b.turn("t2", text="b" * 8)
    b.run("r2", "t2")
    b.assistant("r2")
    b.run_end("r2")
    journal = _replay(tmp_path, open_view(sidecar_builder), b)
    assert journal.boundaries[0].estimate == 1
    assert not journal.boundaries[0].usage_based
    assert journal.boundaries[1].estimate == 1 + 3 + 2
    assert not journal.boundaries[1].usage_based


def test_images_cost_1200_tokens(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """An image block is charged 1,200 tokens in tool results and in user input."""
    b = JournalBuilder()
    b.turn("t1", content=[IMAGE])
    b.run("r1", "t1")
    b.assistant("r1", text="", calls=[("c1", "read", {})], stop="error")
    b.call_start("r1", "c1", "read")
    b.call_end("r1", "c1")
    b.result("r1", "c1", "read", content=[{"type": "text", "text": "abcd"}, IMAGE])
    b.run_end("r1", "failed")
    b.turn("t2", text="")
    b.run("r2", "t2")
    b.assistant("r2")
    b.run_end("r2")
    journal = _replay(tmp_path, open_view(sidecar_builder), b)
    assert journal.boundaries[0].estimate == 1200
    assert journal.results[0].tokens == 1201
    # input image + request (read + {} = 6 units -> 2) + result + empty input
    assert journal.boundaries[1].estimate == 1200 + 2 + 1201


def _checkpointed(first_kept: bool) -> JournalBuilder:
    b = JournalBuilder()
    b.turn("t1", text="a" * 4)
    b.run("r1", "t1")
    b.assistant("r1", text="x" * 8, use=usage(total=1000))
    b.run_end("r1")
    kept = b.turn("t2", text="b" * 4)
    b.run("r2", "t2")
    b.assistant("r2", text="y" * 40, use=usage(total=2000), stop="error")
    b.run_end("r2", "failed")
    b.checkpoint("s" * 16, first_kept=kept if first_kept else None)
    b.plain_turn("t3")
    return b


def test_checkpoint_with_kept_entries(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """After a checkpoint: the summary, then kept messages; older usage no longer counts."""
    journal = _replay(tmp_path, open_view(sidecar_builder), _checkpointed(first_kept=True))
    assert journal.boundaries[1].estimate == 1000 + 1
    third = journal.boundaries[2]
    assert third.estimate == 4 + 1 + 10 + 1  # summary, kept input, kept request, new input
    assert not third.usage_based
    assert journal.checkpoints[0].summary_tokens == 4


def test_kept_assistant_usage_does_not_count_after_checkpoint(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """A kept assistant message with valid usage re-enters as heuristic text only: its usage
    measured the context before compaction (R-SIM-9)."""
    b = JournalBuilder()
    b.turn("t1", text="a" * 4)
    b.run("r1", "t1")
    b.assistant("r1", text="x" * 8, use=usage(total=1000))
    b.run_end("r1")
    kept = b.turn("t2", text="b" * 4)
    b.run("r2", "t2")
    b.assistant("r2", text="y" * 40, use=usage(total=234_087))
    b.run_end("r2")
    b.checkpoint("s" * 16, first_kept=kept, before=234_087, after=16)
    b.plain_turn("t3")
    journal = _replay(tmp_path, open_view(sidecar_builder), b)
    third = journal.boundaries[2]
    assert third.estimate == 4 + 1 + 10 + 1  # summary, kept input, kept answer, new input
    assert not third.usage_based


def test_new_usage_after_checkpoint_counts_again(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """The first valid usage after the checkpoint is again the base of E."""
    b = JournalBuilder()
    kept = b.turn("t1", text="a" * 4)
    b.run("r1", "t1")
    b.assistant("r1", text="x" * 8, use=usage(total=50_000))
    b.run_end("r1")
    b.checkpoint("s" * 16, first_kept=kept)
    b.turn("t2", text="b" * 4)
    b.run("r2", "t2")
    b.assistant("r2", text="y" * 8, use=usage(total=700))
    b.run_end("r2")
    b.plain_turn("t3")
    journal = _replay(tmp_path, open_view(sidecar_builder), b)
    assert journal.boundaries[1].estimate == 4 + 1 + 2 + 1
    assert journal.boundaries[2].estimate == 700 + 1
    assert journal.boundaries[2].usage_based


def test_checkpoint_without_kept_entries(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """A checkpoint keeping nothing leaves only the summary before the new input."""
    journal = _replay(tmp_path, open_view(sidecar_builder), _checkpointed(first_kept=False))
    assert journal.boundaries[2].estimate == 4 + 1


def test_results_before_checkpoint_leave_context_unless_kept(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """Only results after the latest checkpoint (kept included) are in a boundary's context."""
    b = JournalBuilder()
    b.tool_turn("t1", [("c1", "read")])
    kept = len(b.records)
    b.tool_turn("t2", [("c2", "read")])
    b.checkpoint("summary", first_kept=kept)
    b.plain_turn("t3")
    journal = _replay(tmp_path, open_view(sidecar_builder), b)
    third = journal.boundaries[2]
    in_context = [
        r.identity.call_id
        for r in journal.results
        if r.context_from <= third.turn_index
        and (r.context_until is None or third.turn_index < r.context_until)
    ]
    assert in_context == ["c2"]
    # c1 entered the context at t2's snapshot and left at the checkpoint before t3.
    assert [(r.context_from, r.context_until) for r in journal.results] == [(1, 2), (2, None)]


def test_gap_ends_at_the_turns_first_request(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """No gap before the first request; a later gap runs from the latest earlier assistant
    message (a failed one included) to the turn's first assistant message, not to the user
    message (R-SIM-9)."""
    b = JournalBuilder()
    b.turn("t1", at=10_000)
    b.run("r1", "t1")
    b.assistant("r1", at=20_000)
    b.run_end("r1")
    b.turn("t2", at=30_000)
    b.run("r2", "t2")
    b.assistant("r2", stop="error", at=40_000)
    b.run_end("r2", "failed")
    b.turn("t3", at=300_000)
    b.run("r3", "t3")
    b.assistant("r3", at=510_000)
    b.assistant("r3", at=600_000)
    b.run_end("r3")
    journal = _replay(tmp_path, open_view(sidecar_builder), b)
    assert [x.gap_ms for x in journal.boundaries] == [None, 20_000, 470_000]
    assert [x.request_ms for x in journal.boundaries] == [20_000, 40_000, 510_000]


def _runs_before(tmp_path: Path, view: SidecarView, *builders: JournalBuilder) -> list[tuple]:
    for b in builders:
        b.close()
    paths = [b.write(tmp_path, f"{i:02d}.jsonl") for i, b in enumerate(builders)]
    merged = replay_journals(paths, routes(), view)
    return [m.completed_prompt_runs_before for m in merged.journals]


def test_completed_prompt_runs_before_each_boundary(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """Only runs started for a prompt that ended "completed" count: not failed ones, not a
    completed retry or re-prompt."""
    b = JournalBuilder()
    b.plain_turn("t1")
    b.turn("t2")
    b.run("r2", "t2")
    b.assistant("r2", stop="error")
    b.run_end("r2", "failed")
    b.run("r2b", "t2", reason="retry")
    b.assistant("r2b")
    b.run_end("r2b")
    b.plain_turn("t3")
    b.turn("t3", text="again")
    b.run("r3b", "t3", reason="reprompt")
    b.assistant("r3b")
    b.run_end("r3b")
    b.plain_turn("t4")
    assert _runs_before(tmp_path, open_view(sidecar_builder), b) == [(0, 1, 1, 2)]


def test_completed_prompt_runs_count_per_conversation_across_files(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """The counter follows the physical conversation in time order, not the file: a file that
    continues a conversation starts from the runs of the earlier file, and a resumed copy's
    copied runs are counted once."""
    first = JournalBuilder(journal_id="a", physical="p")
    for turn in ("t1", "t2", "t3"):
        first.plain_turn(turn)
    continuation = JournalBuilder(journal_id="b", physical="p")
    continuation.clock = first.clock
    continuation.plain_turn("t4")
    copy = JournalBuilder(journal_id="c", physical="p")
    copy.copy_records(first, len(first.records))
    copy.clock = continuation.clock
    copy.plain_turn("t5")
    counts = _runs_before(tmp_path, open_view(sidecar_builder), first, continuation, copy)
    assert counts == [(0, 1, 2), (3,), (0, 1, 2, 4)]


def test_all_zero_usage_is_no_measurement_for_the_estimate(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """A completed request whose usage is all zero measured nothing (R-CM-1 decision): E keeps
    the earlier valid usage plus the heuristic after it, instead of collapsing to ~1."""
    b = JournalBuilder()
    b.turn("t1", text="aaaa")
    b.run("r1", "t1")
    b.assistant("r1", text="x" * 8, use=usage(input_=90, output=10))
    b.assistant("r1", text="y" * 10, use=usage())  # stopReason "stop", every count 0
    b.run_end("r1")
    b.turn("t2", text="b" * 8)
    b.run("r2", "t2")
    b.assistant("r2")
    b.run_end("r2")
    journal = _replay(tmp_path, open_view(sidecar_builder), b)
    second = journal.boundaries[1]
    assert second.estimate == 100 + 3 + 2
    assert second.usage_based
    recorded = [request.usage_recorded for request in journal.boundaries[0].requests]
    assert recorded == [True, False]


def test_aborted_request_with_usage_is_recorded_but_not_an_estimate(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """An aborted request that reports usage is recorded (billed, so costed from it), while E
    still skips it as pi does (R-SIM-1)."""
    b = JournalBuilder()
    b.turn("t1", text="aaaa")
    b.run("r1", "t1")
    b.assistant("r1", text="x" * 8, use=usage(input_=500, output=5), stop="aborted")
    b.run_end("r1", "aborted")
    b.turn("t2", text="b" * 8)
    b.run("r2", "t2")
    b.assistant("r2")
    b.run_end("r2")
    journal = _replay(tmp_path, open_view(sidecar_builder), b)
    assert journal.boundaries[0].requests[0].usage_recorded
    assert not journal.boundaries[1].usage_based
    assert journal.boundaries[1].estimate == 1 + 2 + 2
