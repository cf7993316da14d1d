"""Observed re-fetches on a hand-built history with known re-reads (R-RF-1)."""

from __future__ import annotations

from pathlib import Path

from clearing_analysis.assemble.refetch import population
from clearing_analysis.eligibility import Assessment, Bound, assess
from clearing_analysis.inputs.configs import Api, parse_routes
from clearing_analysis.replay.arguments import ArgumentKey
from clearing_analysis.replay.merge import merge
from clearing_analysis.replay.pi_replay import replay_pi_session
from clearing_analysis.simulation.refetch import RefetchTally
from clearing_analysis.simulation.unit import walk
from tests._seed_route import SEED_ROUTE
from tests.pisession.builder import Session
from tests.simulation.scenario import COLD, Conversation, routes, run

MODEL_PAGE = Path(__file__).resolve().parents[2] / "docs" / "model.md"
PI_ROUTES = parse_routes([SEED_ROUTE])
BIG = 80_112  # 20,000 net tokens: worth clearing
API = Api.ANTHROPIC_MESSAGES


def history(tmp_path: Path, key: ArgumentKey) -> Assessment:
    """t0 reads a.py and b.py (lines 1-50), t1 edits b.py and reads c.py, t2 holds ten small
    searches (so the reads are outside the ten latest tool starts), t5 is cold and pressured:
    its boundary clears the three big reads. t5 then reads a.py again (a re-fetch), b.py
    lines 1-50 again (after the edit: counted apart), c.py from line 10 (another range: no
    re-fetch) and runs the same bash command twice (effectful: never compared); t6 reads a.py
    once more."""
    c = Conversation()
    a = {"path": "a.py"}
    b = {"path": "b.py", "offset": 1, "limit": 50}
    bash = {"command": "cat a.py"}
    c.turn("t0", e_next=60_000, first_usage=1, calls=[("read", a, BIG), ("read", b, BIG)])
    c.turn(
        "t1",
        e_next=110_000,
        first_usage=60_000,
        calls=[
            ("edit", {"path": "b.py", "oldText": "x", "newText": "y"}, 40),
            ("read", {"path": "c.py"}, BIG),
        ],
    )
    c.turn(
        "t2",
        e_next=120_000,
        first_usage=110_000,
        calls=[("find", {"pattern": f"p{i}"}, 100) for i in range(10)],
    )
    c.turn("t3", e_next=140_000, first_usage=120_000)
    c.turn("t4", e_next=160_000, first_usage=140_000)
    c.turn(
        "t5",
        gap=COLD,
        e_next=120_000,
        first_usage=160_000,
        calls=[
            ("read", {"path": "a.py"}, 400),
            ("read", {"limit": 50, "path": "b.py", "offset": 1}, 400),
            ("read", {"path": "c.py", "offset": 10}, 400),
            ("bash", bash, 40),
            ("bash", bash, 40),
        ],
    )
    c.turn("t6", e_next=100_000, first_usage=120_000, calls=[("read", {"path": "a.py"}, 400)])
    assessment, _ = run(tmp_path, [c], argument_key=key)
    return assessment


def tally(tmp_path: Path, key: ArgumentKey) -> RefetchTally:
    walked = walk(history(tmp_path, key), routes())
    return walked.refetches[API]


def test_hand_count(tmp_path: Path) -> None:
    """The cleared reads of a.py, b.py and c.py: a.py re-fetched (0 turns after the
    clearing point), b.py re-read after its edit, c.py read in another range only; of all
    20 results, 17 have canonical arguments, a.py is re-fetched twice (5 turns and 1 turn
    later), b.py once after a write."""
    counts = tally(tmp_path, ArgumentKey.generate())
    cleared = counts.cleared
    assert (cleared.results, cleared.comparable) == (3, 3)
    assert (cleared.refetched, cleared.refetched_after_write) == (1, 1)
    assert cleared.turns == [0]
    every = counts.all_results
    assert (every.results, every.comparable) == (20, 17)
    assert (every.refetched, every.refetched_after_write) == (2, 1)
    assert every.turns == [5, 1]


def test_token_distance_is_growth_between(tmp_path: Path) -> None:
    """The token distance is E just before the re-read joined the context minus E at the
    point it is measured from (the clearing boundary; for all results, just after the
    first read joined), floored at 0 (no compaction lies between)."""
    key = ArgumentKey.generate()
    assessment = history(tmp_path, key)
    results = assessment.replay.journals[0].journal.results
    first, reread, again = (
        r
        for r in results
        if r.tool_name == "read" and r.argument_digest == results[0].argument_digest
    )
    boundary = next(b for b in assessment.boundaries if b.replayed.turn_index == 5)
    counts = walk(assessment, routes()).refetches[API]
    assert counts.cleared.tokens == [max(0, reread.prefix_estimate - boundary.replayed.estimate)]
    expected = [
        reread.prefix_estimate - first.prefix_estimate - first.tokens,
        max(0, again.prefix_estimate - reread.prefix_estimate - reread.tokens),
    ]
    assert counts.all_results.tokens == expected
    assert expected[0] > 0


def test_counts_do_not_depend_on_the_key(tmp_path: Path) -> None:
    """Two runs with different random keys give the same counts and distances."""
    first = tally(tmp_path / "one", ArgumentKey.generate())
    second = tally(tmp_path / "two", ArgumentKey.generate())
    assert first == second


def test_no_key_no_comparison(tmp_path: Path) -> None:
    """Replayed without a key, no result has canonical arguments: nothing is comparable."""
    walked = walk(history_without_key(tmp_path), routes())
    counts = walked.refetches[API]
    assert counts.all_results.results == 19 and counts.all_results.comparable == 0


def history_without_key(tmp_path: Path) -> Assessment:
    c = Conversation()
    c.turn("t0", e_next=60_000, first_usage=1, calls=[("read", {"path": "a.py"}, 400)] * 19)
    assessment, _ = run(tmp_path, [c])
    return assessment


def test_worked_example_in_model_md(tmp_path: Path) -> None:
    """docs/model.md, section 10: the part's figures digit for digit, as the page states them."""
    counts = tally(tmp_path, ArgumentKey.generate())
    section = MODEL_PAGE.read_text(encoding="utf-8").split("## 10. Observed re-fetches")[1]
    cleared, every = population(counts.cleared), population(counts.all_results)
    assert (cleared.observed_share, cleared.interval_low, cleared.interval_high) == (
        0.333333333333,
        0.0614919447204,
        0.792340399198,
    )
    assert (every.observed_share, every.interval_low, every.interval_high) == (
        0.117647058824,
        0.0328797737638,
        0.343363505949,
    )
    assert counts.all_results.tokens == [139_971, 0] and counts.cleared.tokens == [0]
    for part in (cleared, every):
        interval = (
            f"{part.observed_share!r} ({part.interval_low!r}\N{EN DASH}{part.interval_high!r})"
        )
        assert interval in section
    assert "| 5, 1 | 139,971, 0 |" in section


def _pi_turn(session: Session, calls: list[tuple[str, dict[str, object]]]) -> None:
    """A prompt turn of a pi session: one request with `calls` (their arguments set), their
    results, a final answer."""
    session.user()
    ids = session.assistant([name for name, _ in calls])
    blocks = session.lines[-1]["message"]["content"]
    for block, (_, arguments) in zip(blocks, calls, strict=True):
        block["arguments"] = arguments
    for call_id, (name, _) in zip(ids, calls, strict=True):
        session.result(call_id, name)
    session.assistant()


def test_pi_session_polling_alias_and_edit(tmp_path: Path) -> None:
    """A pi session, explored (upper bound): a.py read in turn 0; in turn 1 read again (a
    re-fetch, 1 turn later), read again under the file_path alias (equal: a re-fetch, 0
    turns), an OpenClaw process poll with the same arguments as turn 0's (polling: never
    compared) and an edit of a.py; turn 2 reads a.py after that edit (apart). Of 7 results 4
    are comparable, 2 re-fetched, 1 after a write."""
    poll = {"action": "poll", "sessionId": "s1"}
    session = Session()
    _pi_turn(session, [("read", {"path": "a.py"}), ("process", poll)])
    _pi_turn(
        session,
        [
            ("read", {"path": "a.py"}),
            ("read", {"file_path": "a.py"}),
            ("process", poll),
            ("edit", {"path": "a.py", "oldText": "x", "newText": "y"}),
        ],
    )
    _pi_turn(session, [("read", {"path": "a.py"})])
    path = session.write(tmp_path / "session.jsonl")
    key = ArgumentKey.generate()
    replayed = merge([replay_pi_session(path, PI_ROUTES, argument_key=key)])
    assessment = assess(replayed, PI_ROUTES, None, None, bound=Bound.UPPER)
    every = walk(assessment, PI_ROUTES).refetches[API].all_results
    assert (every.results, every.comparable) == (7, 4)
    assert (every.refetched, every.refetched_after_write) == (2, 1)
    assert every.turns == [1, 0]


def test_growth_adds_back_what_a_compaction_drained(tmp_path: Path) -> None:
    """A re-read after a compaction: the token distance is the difference of E plus the
    checkpoint's drain (tokens before minus after), what grew rather than what remained."""
    c = Conversation()
    c.turn("t0", e_next=60_000, first_usage=1, calls=[("read", {"path": "a.py"}, BIG)])
    c.turn("t1", e_next=100_000, first_usage=60_000)
    c.checkpoint(keep_from_turn="t1")
    c.turn("t2", e_next=100_000, first_usage=40_000, calls=[("read", {"path": "a.py"}, 400)])
    assessment, _ = run(tmp_path, [c], argument_key=ArgumentKey.generate())
    journal = assessment.replay.journals[0].journal
    first, again = (r for r in journal.results if r.tool_name == "read")
    (checkpoint,) = journal.checkpoints
    drained = checkpoint.tokens_before - checkpoint.tokens_after
    assert drained == 160_000
    every = walk(assessment, routes()).refetches[API].all_results
    assert every.refetched == 1
    expected = again.prefix_estimate - first.prefix_estimate - first.tokens + drained
    assert every.tokens == [expected] and expected > 0
