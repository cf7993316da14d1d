"""Whole-journal outcomes: every skippedJournals reason, decided per journal or at merge."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from clearing_analysis.inputs.sidecar import SidecarView
from clearing_analysis.replay import (
    JournalSkipReason,
    ReplayedJournal,
    SkippedJournal,
    replay_journal,
    replay_journals,
)
from tests.replay.builder import JournalBuilder, SidecarBuilder, routes

OpenView = Callable[[SidecarBuilder], SidecarView]


def _replay(tmp_path: Path, view: SidecarView, builder: JournalBuilder) -> object:
    return replay_journal(builder.write(tmp_path), routes(), view)


def _good(journal_id: str = "j1", physical: str = "p1") -> JournalBuilder:
    b = JournalBuilder(journal_id=journal_id, physical=physical)
    b.tool_turn("t1", [("c1", "read")])
    return b


def test_complete_journal_replays(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """A closed native journal with ended runs is replayed whole."""
    b = _good()
    b.close()
    outcome = _replay(tmp_path, open_view(sidecar_builder), b)
    assert isinstance(outcome, ReplayedJournal)
    assert len(outcome.boundaries) == 1
    assert len(outcome.results) == 1


@pytest.mark.parametrize(
    ("origin", "version", "expected"),
    [
        ("imported", 2, JournalSkipReason.IMPORTED),
        ("inherited", 2, JournalSkipReason.INHERITED),
        ("native", 3, JournalSkipReason.UNSUPPORTED_VERSION),
    ],
)
def test_decoder_outcomes_become_skips(
    *,
    tmp_path: Path,
    sidecar_builder: SidecarBuilder,
    open_view: OpenView,
    origin: str,
    version: int,
    expected: JournalSkipReason,
) -> None:
    """Imported, inherited and other-version journals are skipped with their own code."""
    b = JournalBuilder(origin=origin, version=version)
    b.tool_turn("t1", [("c1", "read")])
    b.close()
    outcome = _replay(tmp_path, open_view(sidecar_builder), b)
    assert outcome == SkippedJournal(expected)


def test_journal_without_close_is_open(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """No close record: OPEN."""
    outcome = _replay(tmp_path, open_view(sidecar_builder), _good())
    assert isinstance(outcome, SkippedJournal)
    assert outcome.reason is JournalSkipReason.OPEN


def test_interrupted_run_status(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """A run that ended "interrupted" makes the journal INTERRUPTED."""
    b = JournalBuilder()
    b.tool_turn("t1", [("c1", "read")], run_status="interrupted")
    b.close()
    outcome = _replay(tmp_path, open_view(sidecar_builder), b)
    assert outcome == SkippedJournal(JournalSkipReason.INTERRUPTED)


def test_run_never_ended_is_interrupted(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """A run still open at close makes the journal INTERRUPTED."""
    b = JournalBuilder()
    b.turn("t1")
    b.run("r1", "t1")
    b.assistant("r1")
    b.close()
    outcome = _replay(tmp_path, open_view(sidecar_builder), b)
    assert outcome == SkippedJournal(JournalSkipReason.INTERRUPTED)


def _msg_for_unknown_run(b: JournalBuilder) -> None:
    b.turn("t1")
    b.assistant("nope")


def _msg_for_ended_run(b: JournalBuilder) -> None:
    b.plain_turn("t1")
    b.assistant("t1-r")


def _run_for_unknown_turn(b: JournalBuilder) -> None:
    b.run("r1", "missing")


def _run_repeated(b: JournalBuilder) -> None:
    b.plain_turn("t1")
    b.run("t1-r", "t1")


def _end_without_start(b: JournalBuilder) -> None:
    b.turn("t1")
    b.run("r1", "t1")
    b.call_end("r1", "c9")
    b.run_end("r1")


def _result_without_start(b: JournalBuilder) -> None:
    b.turn("t1")
    b.run("r1", "t1")
    b.assistant("r1", calls=[("c1", "read", {})])
    b.result("r1", "c1", "read")
    b.run_end("r1")


def _result_for_call_of_other_run(b: JournalBuilder) -> None:
    b.turn("t1")
    b.run("r1", "t1")
    b.call_start("r1", "c1", "read")
    b.call_end("r1", "c1")
    b.run_end("r1")
    b.run("r2", "t1", reason="continue")
    b.result("r2", "c1", "read")
    b.run_end("r2")


def _call_repeated(b: JournalBuilder) -> None:
    b.turn("t1")
    b.run("r1", "t1")
    b.call_start("r1", "c1", "read")
    b.call_start("r1", "c1", "read")
    b.run_end("r1")


def _call_end_repeated(b: JournalBuilder) -> None:
    b.turn("t1")
    b.run("r1", "t1")
    b.call_start("r1", "c1", "read")
    b.call_end("r1", "c1")
    b.call_end("r1", "c1")
    b.run_end("r1")


def _result_repeated(b: JournalBuilder) -> None:
    b.turn("t1")
    b.run("r1", "t1")
    b.call_start("r1", "c1", "read")
    b.call_end("r1", "c1")
    b.result("r1", "c1", "read")
    b.result("r1", "c1", "read")
    b.run_end("r1")


def _result_names_other_tool(b: JournalBuilder) -> None:
    """A `bash` call whose result says `read` (it must not pass for a read-only result)."""
    b.turn("t1")
    b.run("r1", "t1")
    b.assistant("r1", calls=[("c1", "bash", {})])
    b.call_start("r1", "c1", "bash")
    b.call_end("r1", "c1")
    b.result("r1", "c1", "read")
    b.run_end("r1")


def _start_names_other_tool_than_request(b: JournalBuilder) -> None:
    b.turn("t1")
    b.run("r1", "t1")
    b.assistant("r1", calls=[("c1", "bash", {})])
    b.call_start("r1", "c1", "read")
    b.run_end("r1")


def _request_after_start_names_other_tool(b: JournalBuilder) -> None:
    b.turn("t1")
    b.run("r1", "t1")
    b.call_start("r1", "c1", "read")
    b.assistant("r1", calls=[("c1", "grep", {})])
    b.run_end("r1")


def _redaction_of_non_result(b: JournalBuilder) -> None:
    seq = b.turn("t1")
    b.redaction(seq)


def _kept_seq_after_checkpoint(b: JournalBuilder) -> None:
    b.plain_turn("t1")
    b.checkpoint("s", first_kept=len(b.records) + 5)


@pytest.mark.parametrize(
    ("build", "detail"),
    [
        (_msg_for_unknown_run, "RUN_NOT_OPEN"),
        (_msg_for_ended_run, "RUN_NOT_OPEN"),
        (_run_for_unknown_turn, "TURN_UNKNOWN"),
        (_run_repeated, "RUN_REPEATED"),
        (_end_without_start, "CALL_UNKNOWN"),
        (_result_without_start, "CALL_UNKNOWN"),
        (_result_for_call_of_other_run, "CALL_UNKNOWN"),
        (_call_repeated, "CALL_REPEATED"),
        (_call_end_repeated, "CALL_END_REPEATED"),
        (_result_repeated, "RESULT_REPEATED"),
        (_result_names_other_tool, "TOOL_NAME_MISMATCH"),
        (_start_names_other_tool_than_request, "TOOL_NAME_MISMATCH"),
        (_request_after_start_names_other_tool, "TOOL_NAME_MISMATCH"),
        (_redaction_of_non_result, "REDACTION_TARGET"),
        (_kept_seq_after_checkpoint, "KEPT_SEQ_AFTER_CHECKPOINT"),
    ],
)
def test_broken_references_are_invalid(
    *,
    tmp_path: Path,
    sidecar_builder: SidecarBuilder,
    open_view: OpenView,
    build: Callable[[JournalBuilder], None],
    detail: str,
) -> None:
    """A broken cross-record reference makes the journal INVALID with a fixed detail."""
    b = JournalBuilder()
    build(b)
    b.close()
    outcome = _replay(tmp_path, open_view(sidecar_builder), b)
    assert outcome == SkippedJournal(JournalSkipReason.INVALID, detail)


def test_invalid_takes_precedence_over_interrupted(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """A journal both interrupted and broken is INVALID."""
    b = JournalBuilder()
    b.turn("t1")
    b.run("r1", "t1")
    b.run_end("r1", "interrupted")
    b.assistant("r1")
    b.close()
    outcome = _replay(tmp_path, open_view(sidecar_builder), b)
    assert isinstance(outcome, SkippedJournal)
    assert outcome.reason is JournalSkipReason.INVALID


def test_undecodable_journal_is_invalid(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """A line that is not JSON makes the journal INVALID."""
    path = tmp_path / "bad.jsonl"
    path.write_bytes(_good().to_bytes() + b"{not json\n")
    outcome = replay_journal(path, routes(), open_view(sidecar_builder))
    assert isinstance(outcome, SkippedJournal)
    assert outcome.reason is JournalSkipReason.INVALID


def _broken_early() -> JournalBuilder:
    """A journal whose fourth record already breaks a reference (a message for no run)."""
    b = _good()
    b.turn("t2")
    b.assistant("no-such-run")
    return b


@pytest.mark.parametrize(
    ("tail", "expected"),
    [
        (b"{not json\n", SkippedJournal(JournalSkipReason.INVALID, "MALFORMED_JSON")),
        (b"", SkippedJournal(JournalSkipReason.OPEN)),
    ],
)
def test_decoder_outcome_precedes_a_broken_reference_found_earlier(
    *,
    tmp_path: Path,
    sidecar_builder: SidecarBuilder,
    open_view: OpenView,
    tail: bytes,
    expected: SkippedJournal,
) -> None:
    """Records are replayed while the file is still being decoded, yet a journal the decoder
    rejects whole (a later line that is not JSON, no close) is skipped with the decoder's
    outcome, not with the broken reference replay met first; closed and decodable, the same
    journal is INVALID for that reference."""
    view = open_view(sidecar_builder)
    path = tmp_path / "j.jsonl"
    path.write_bytes(_broken_early().to_bytes() + tail)
    assert replay_journal(path, routes(), view) == expected
    closed = _broken_early()
    closed.close()
    outcome = _replay(tmp_path, view, closed)
    assert outcome == SkippedJournal(JournalSkipReason.INVALID, "RUN_NOT_OPEN")


def test_repeated_journal_id_is_duplicate_at_merge(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """The second successful journal with an already merged id is DUPLICATE and adds nothing."""
    first = _good("same", "p1")
    first.close()
    second = _good("same", "p2")
    second.close()
    paths = [first.write(tmp_path, "a.jsonl"), second.write(tmp_path, "b.jsonl")]
    result = replay_journals(paths, routes(), open_view(sidecar_builder))
    assert result.replayed_journals == 1
    assert result.skipped_journals[JournalSkipReason.DUPLICATE] == 1
    assert result.journals[0].journal.physical_conversation_id == "p1"


def test_skipped_journal_id_does_not_make_a_later_one_duplicate(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """Only successfully replayed journals claim their id: an OPEN copy first does not."""
    open_copy = _good("same")
    closed = _good("same")
    closed.close()
    paths = [open_copy.write(tmp_path, "a.jsonl"), closed.write(tmp_path, "b.jsonl")]
    result = replay_journals(paths, routes(), open_view(sidecar_builder))
    assert result.replayed_journals == 1
    assert result.skipped_journals[JournalSkipReason.OPEN] == 1
    assert result.skipped_journals[JournalSkipReason.DUPLICATE] == 0
