"""Deterministic merge: order decides what is first seen; only touched policies are copied."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from clearing_analysis.inputs.sidecar import ConversationPolicy, SidecarView
from clearing_analysis.replay import JournalSkipReason, merge, replay_journals
from clearing_analysis.replay.model import SkippedJournal
from tests.replay.builder import JournalBuilder, SidecarBuilder, routes

OpenView = Callable[[SidecarBuilder], SidecarView]


def _corpus(directory: Path) -> list[Path]:
    """Journals covering a contribution, duplicates of both kinds and a failed journal."""
    paths = []
    for i in range(6):
        b = JournalBuilder(journal_id=f"j{i % 5}", physical=f"p{i % 3}", logical=f"l{i % 2}")
        b.tool_turn(f"t{i}", [(f"c{i}", "read")])
        b.plain_turn("shared")
        if i == 4:
            b.turn("x")
            b.run("rx", "x")
            b.run_end("rx", "interrupted")
        b.close()
        paths.append(b.write(directory, f"{i:02d}.jsonl"))
    return paths


def test_skips_of_both_duplicate_kinds_and_a_failed_journal(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """A repeated journal id is a DUPLICATE journal; an interrupted journal is skipped whole."""
    view = open_view(sidecar_builder)
    result = replay_journals(_corpus(tmp_path), routes(), view)
    assert result.skipped_journals[JournalSkipReason.INTERRUPTED] == 1
    assert result.skipped_journals[JournalSkipReason.DUPLICATE] == 1


def test_merge_order_decides_first_seen(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """Reversing the journal order moves the DUPLICATE boundary to the other journal."""
    view = open_view(sidecar_builder)
    a = JournalBuilder(journal_id="a", physical="p")
    a.plain_turn("t1")
    a.close()
    b = JournalBuilder(journal_id="b", physical="p")
    b.plain_turn("t1")
    b.plain_turn("t2")
    b.close()
    paths = [a.write(tmp_path), b.write(tmp_path)]
    forward = replay_journals(paths, routes(), view)
    backward = replay_journals(paths[::-1], routes(), view)
    assert [m.boundary_skips for m in forward.journals] == [(None,), ("DUPLICATE", None)]
    assert [m.boundary_skips for m in backward.journals] == [(None, None), ("DUPLICATE",)]


def test_only_touched_conversation_policies_are_copied(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """Policies of conversations no contributing journal touches are not in the result."""
    sidecar_builder.policy("p9", since=5, budget=100)
    sidecar_builder.policy("p-untouched")
    view = open_view(sidecar_builder)
    b = JournalBuilder(physical="p9")
    b.plain_turn("t1")
    b.close()
    result = replay_journals([b.write(tmp_path)], routes(), view)
    assert result.conversation_policies == {"p9": ConversationPolicy(5, 100)}
    assert result.journals[0].journal.conversation_policy == ConversationPolicy(5, 100)


def test_all_skip_keys_present_and_invalid_details_counted() -> None:
    """Every reason key is present even at zero; INVALID details are tallied by code."""
    result = merge([SkippedJournal(JournalSkipReason.INVALID, "CALL_UNKNOWN")])
    assert set(result.skipped_journals) == set(JournalSkipReason)
    assert sum(result.skipped_boundaries.values()) == 0
    assert result.invalid_details == {"CALL_UNKNOWN": 1}
