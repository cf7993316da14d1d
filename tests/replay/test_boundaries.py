"""Pre-turn boundaries: skip reasons, re-prompt continuation, cross-journal duplicates."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from clearing_analysis.inputs.configs import Api
from clearing_analysis.inputs.sidecar import SidecarView, open_sidecar
from clearing_analysis.replay import (
    BoundarySkipReason,
    ReplayedJournal,
    replay_journal,
    replay_journals,
)
from tests.replay.builder import OPENAI, JournalBuilder, SidecarBuilder, routes

OpenView = Callable[[SidecarBuilder], SidecarView]


def _merge(tmp_path: Path, view: SidecarView, *builders: JournalBuilder, apis: tuple = ()):
    paths = [b.write(tmp_path, f"{i:02d}.jsonl") for i, b in enumerate(builders)]
    return replay_journals(paths, routes(*apis), view)


def test_turn_without_assistant_is_not_a_boundary(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """A turn that made no request is counted as turnsWithoutRequest, not as a boundary."""
    b = JournalBuilder()
    b.turn("t1")
    b.run("r1", "t1")
    b.run_end("r1", "failed")
    b.plain_turn("t2")
    b.close()
    outcome = replay_journal(b.write(tmp_path), routes(), open_view(sidecar_builder))
    assert isinstance(outcome, ReplayedJournal)
    assert [x.host_turn_id for x in outcome.boundaries] == ["t2"]
    assert outcome.turns_without_request == 1


def test_owner_missing_and_unsupported_api(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """Owner null on the first run: OWNER_MISSING; an unknown api or one without a route:
    UNSUPPORTED_API; owner missing wins over an unsupported api."""
    b = JournalBuilder()
    b.plain_turn("t1", owner=None)
    b.plain_turn("t2", api="vendor-x")
    b.plain_turn("t3", api=OPENAI)  # no route for it below
    b.plain_turn("t4", api="vendor-x", owner=None)
    b.plain_turn("t5")
    b.close()
    result = _merge(tmp_path, open_view(sidecar_builder), b, apis=("anthropic-messages",))
    assert result.journals[0].boundary_skips == (
        BoundarySkipReason.OWNER_MISSING,
        BoundarySkipReason.UNSUPPORTED_API,
        BoundarySkipReason.UNSUPPORTED_API,
        BoundarySkipReason.OWNER_MISSING,
        None,
    )
    assert result.skipped_boundaries == {
        BoundarySkipReason.OWNER_MISSING: 2,
        BoundarySkipReason.UNSUPPORTED_API: 2,
        BoundarySkipReason.DUPLICATE: 0,
        BoundarySkipReason.OUTSIDE_CAPTURE_WINDOW: 0,
        BoundarySkipReason.OUTSIDE_PERIOD: 0,
    }
    # Of the two UNSUPPORTED_API boundaries, one has a supported API without a route; the
    # foreign label is counted only as UNSUPPORTED_API, never named.
    assert result.boundaries_without_route == {
        Api.ANTHROPIC_MESSAGES: 0,
        Api.OPENAI_RESPONSES: 1,
        Api.OPENAI_CODEX_RESPONSES: 0,
        Api.OPENAI_COMPLETIONS: 0,
    }


def test_owner_of_first_run_decides(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """An owned retry after an unowned first run does not rescue the boundary."""
    b = JournalBuilder()
    b.turn("t1")
    b.run("r1", "t1", owner=None)
    b.assistant("r1", stop="error")
    b.run_end("r1", "failed")
    b.run("r2", "t1", reason="retry")
    b.assistant("r2")
    b.run_end("r2")
    b.close()
    result = _merge(tmp_path, open_view(sidecar_builder), b)
    assert result.journals[0].boundary_skips == (BoundarySkipReason.OWNER_MISSING,)


def test_api_is_that_of_the_first_assistant_message(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """A turn whose later request uses another api keeps the first request's api."""
    b = JournalBuilder()
    b.turn("t1")
    b.run("r1", "t1")
    b.assistant("r1", api=OPENAI)
    b.assistant("r1", api="anthropic-messages")
    b.run_end("r1")
    b.close()
    outcome = replay_journal(b.write(tmp_path), routes(), open_view(sidecar_builder))
    assert isinstance(outcome, ReplayedJournal)
    assert outcome.boundaries[0].api == OPENAI
    assert len(outcome.boundaries[0].requests) == 2


def test_reprompt_continues_boundary_even_when_skipped(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """A same-journal re-prompt is not a new boundary: the first (skipped) one stays skipped,
    is counted once, and the continuation's requests belong to it."""
    b = JournalBuilder()
    b.plain_turn("t1", owner=None)
    b.plain_turn("t2")
    b.turn("t1", text="again")
    b.run("r1b", "t1", reason="reprompt")
    b.assistant("r1b")
    b.run_end("r1b")
    b.close()
    result = _merge(tmp_path, open_view(sidecar_builder), b)
    merged = result.journals[0]
    assert [x.host_turn_id for x in merged.journal.boundaries] == ["t1", "t2"]
    assert merged.boundary_skips == (BoundarySkipReason.OWNER_MISSING, None)
    assert result.skipped_boundaries[BoundarySkipReason.OWNER_MISSING] == 1
    assert len(merged.journal.boundaries[0].requests) == 2


def test_reprompt_of_counted_boundary_adds_requests(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """Re-prompt requests and results count toward the original boundary's turn."""
    b = JournalBuilder()
    b.tool_turn("t1", [("c1", "read")])
    b.turn("t1", text="again")
    b.run("r1b", "t1", reason="reprompt")
    b.assistant("r1b", calls=[("c2", "read", {})])
    b.call_start("r1b", "c2", "read")
    b.call_end("r1b", "c2")
    b.result("r1b", "c2", "read")
    b.assistant("r1b")
    b.run_end("r1b")
    b.close()
    outcome = replay_journal(b.write(tmp_path), routes(), open_view(sidecar_builder))
    assert isinstance(outcome, ReplayedJournal)
    assert len(outcome.boundaries) == 1
    assert len(outcome.boundaries[0].requests) == 4
    assert len(outcome.boundaries[0].turn_results) == 2


def test_boundary_first_seen_in_another_journal_is_duplicate(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """A turn copied into a later journal is DUPLICATE, even when it would also be
    OWNER_MISSING there; the later journal's new turns still count."""
    first = JournalBuilder(journal_id="a", physical="p")
    first.plain_turn("t1")
    first.close()
    second = JournalBuilder(journal_id="b", physical="p")
    second.copy_records(first, len(first.records) - 1)
    second.records[2]["owner"] = None  # the copy's run lost its owner
    second.plain_turn("t2")
    second.close()
    result = _merge(tmp_path, open_view(sidecar_builder), first, second)
    assert result.journals[1].boundary_skips == (BoundarySkipReason.DUPLICATE, None)
    assert result.skipped_boundaries == {
        BoundarySkipReason.OWNER_MISSING: 0,
        BoundarySkipReason.UNSUPPORTED_API: 0,
        BoundarySkipReason.DUPLICATE: 1,
        BoundarySkipReason.OUTSIDE_CAPTURE_WINDOW: 0,
        BoundarySkipReason.OUTSIDE_PERIOD: 0,
    }


def test_skipped_boundary_is_still_first_seen(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """A boundary skipped as OWNER_MISSING in the first journal makes its copy DUPLICATE."""
    first = JournalBuilder(journal_id="a", physical="p")
    first.plain_turn("t1", owner=None)
    first.close()
    second = JournalBuilder(journal_id="b", physical="p")
    second.copy_records(first, len(first.records) - 1)
    second.records[2]["owner"] = "owner"
    second.close()
    result = _merge(tmp_path, open_view(sidecar_builder), first, second)
    assert result.journals[0].boundary_skips == (BoundarySkipReason.OWNER_MISSING,)
    assert result.journals[1].boundary_skips == (BoundarySkipReason.DUPLICATE,)


def _parent() -> JournalBuilder:
    parent = JournalBuilder(journal_id="parent", physical="p1", logical="l1")
    parent.plain_turn("t1")
    parent.plain_turn("t2")
    return parent


def test_fork_with_new_physical_id_repeats_parent_turns_as_duplicates(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """A fork written as a new physical conversation of the same lineage repeats the parent's
    turns exactly: they were first seen in the parent (not counted twice); its own new turn
    counts."""
    parent = _parent()
    fork_point = len(parent.records)
    parent.plain_turn("t3")
    parent.close()
    fork = JournalBuilder(journal_id="fork", physical="p2", logical="l1")
    fork.copy_records(parent, fork_point)
    fork.plain_turn("f3")
    fork.close()
    result = _merge(tmp_path, open_view(sidecar_builder), parent, fork)
    assert result.journals[0].boundary_skips == (None, None, None)
    assert result.journals[1].boundary_skips == (
        BoundarySkipReason.DUPLICATE,
        BoundarySkipReason.DUPLICATE,
        None,
    )


def test_fork_reusing_parent_physical_id_keeps_its_own_turns(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """A fork that keeps the parent's physical id and numbers its turns like the parent does
    (its own "t3" is not the parent's "t3"): the copied turns are duplicates; its own turn,
    with a reused host turn id but a different input, is a new boundary, not lost."""
    parent = _parent()
    fork_point = len(parent.records)
    parent.plain_turn("t3")
    parent.close()
    fork = JournalBuilder(journal_id="fork", physical="p1", logical="l1")
    fork.copy_records(parent, fork_point)
    fork.turn("t3", text="a different question")
    fork.run("fork-r3", "t3")
    fork.assistant("fork-r3")
    fork.run_end("fork-r3")
    fork.close()
    result = _merge(tmp_path, open_view(sidecar_builder), parent, fork)
    assert result.journals[1].boundary_skips == (
        BoundarySkipReason.DUPLICATE,
        BoundarySkipReason.DUPLICATE,
        None,
    )
    assert result.skipped_boundaries[BoundarySkipReason.DUPLICATE] == 2


def test_same_turn_id_in_other_lineage_is_not_duplicate(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """Equal host turn ids and inputs in two unrelated lineages are two boundaries."""
    first = JournalBuilder(journal_id="a", physical="p1", logical="l1")
    first.plain_turn("t1")
    first.close()
    other = JournalBuilder(journal_id="b", physical="p2", logical="l2")
    other.plain_turn("t1")
    other.close()
    result = _merge(tmp_path, open_view(sidecar_builder), first, other)
    assert result.journals[1].boundary_skips == (None,)


def test_capture_window(tmp_path: Path) -> None:
    """A boundary whose request precedes its conversation's capture_enabled_since, or whose
    conversation has no policy row, is OUTSIDE_CAPTURE_WINDOW; a request at the instant
    capture was enabled is inside; OWNER_MISSING takes precedence."""
    inside = JournalBuilder(journal_id="a", physical="p1")
    inside.plain_turn("before")
    inside.plain_turn("owner-gone", owner=None)
    inside.turn("at")
    inside.run("r-at", "at")
    inside.assistant("r-at", at=2_000_000)
    inside.run_end("r-at")
    inside.close()
    uncaptured = JournalBuilder(journal_id="b", physical="p-no-policy")
    uncaptured.plain_turn("t1")
    uncaptured.close()
    sidecar = SidecarBuilder(tmp_path / "h.sqlite")
    sidecar.policy("p1", since=2_000_000)
    with open_sidecar(sidecar.finish()) as view:
        result = _merge(tmp_path, view, inside, uncaptured)
    outside = BoundarySkipReason.OUTSIDE_CAPTURE_WINDOW
    assert result.journals[0].boundary_skips == (outside, BoundarySkipReason.OWNER_MISSING, None)
    assert result.journals[1].boundary_skips == (outside,)
    assert result.skipped_boundaries[outside] == 2


def test_failed_journal_discards_its_boundary_skips(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """An INTERRUPTED journal contributes no boundary skips and claims no boundaries."""
    failed = JournalBuilder(journal_id="a", physical="p")
    failed.plain_turn("t1", owner=None)
    failed.plain_turn("t2", api="vendor-x")
    failed.turn("t3")
    failed.run("r3", "t3")
    failed.assistant("r3")
    failed.run_end("r3", "interrupted")
    failed.close()
    later = JournalBuilder(journal_id="b", physical="p")
    later.plain_turn("t1")
    later.close()
    result = _merge(tmp_path, open_view(sidecar_builder), failed, later)
    assert result.replayed_journals == 1
    assert all(v == 0 for v in result.skipped_boundaries.values())
    assert result.journals[0].boundary_skips == (None,)
