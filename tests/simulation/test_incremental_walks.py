"""The incremental walks against the walks as first written (`tests/simulation/reference.py`).

`simulation.clearing` and `simulation.what_if` keep running structures over slot ranges so
that no step costs the size of a context (R-REL-7); the reference lists every context at every
boundary and point. On the generated corpora and on seeded random histories built to hit the
edges (results placed out of order, tiny and empty results, checkpoints between and inside
turns keeping from the first entry, from a recent turn or nothing, re-prompts of an earlier
turn, resumed copies of a conversation, budgets running out), both give the same gated tables,
the same occurrence counts, and for every what-if policy the same sums, trace and cleared
results, alone and in lockstep.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest

from clearing_analysis.eligibility import Assessment, Boundary, OccurrenceTally, assess
from clearing_analysis.inputs.configs import Routes, parse_agent_config, parse_routes
from clearing_analysis.inputs.sidecar import open_sidecar
from clearing_analysis.policy import placeholder_text, what_if_table
from clearing_analysis.replay import replay_journals
from clearing_analysis.replay.heuristic import text_tokens
from clearing_analysis.simulation import clearing, what_if
from clearing_analysis.simulation.clearing import Columns
from clearing_analysis.simulation.slots import JournalIndex
from tests._seed_route import SEED_ROUTE
from tests.replay.builder import JournalBuilder, SidecarBuilder, usage
from tests.simulation import reference


def _gated(assessment: Assessment, routes: Routes, simulator: Any) -> Any:
    """The gated walk's tables, cleared ids and occurrence counts, by `simulator`'s class
    (unit.walk's loop)."""
    placeholder = text_tokens(placeholder_text())
    columns = Columns()
    tallies = {api: OccurrenceTally() for api in assessment.per_api}
    walker = simulator(assessment, dict(routes.by_api), columns, tallies, placeholder)
    conversations: dict[str, list[Boundary]] = {}
    lineages: dict[str, int] = {}
    for boundary in assessment.boundaries:
        conversations.setdefault(boundary.physical_conversation_id, []).append(boundary)
        lineages.setdefault(boundary.logical_conversation_id, len(lineages))
    cleared: set[str] = set()
    for ordinal, boundaries in enumerate(conversations.values()):
        lineage = lineages[boundaries[0].logical_conversation_id]
        cleared |= walker.run(boundaries, ordinal, lineage)
    counts = {api: (t.by_class, t.by_reason) for api, t in tallies.items()}
    return (
        columns.boundaries.columns,
        columns.cleared.columns,
        columns.requests.columns,
        cleared,
        counts,
    )


def _policy(run: Any) -> Any:
    return (
        run.per_api,
        run.trace,
        run.cleared_net,
        [result.finalized_id for result in run.cleared_results],
    )


def _assert_same_walks(assessment: Assessment, routes: Routes) -> int:
    """Every walk equal to its definition; the number of results any walk cleared."""
    gated = _gated(assessment, routes, clearing.ConversationSimulator)
    assert gated == _gated(assessment, routes, reference.ConversationSimulator)
    cleared = len(gated[3])
    for policy in what_if_table().policies:
        run = what_if.run_policy(assessment, routes, policy, trace=True)
        assert _policy(run) == _policy(reference.run_policy(assessment, routes, policy, trace=True))
        cleared += len(run.cleared_results)
    assert what_if.run_what_ifs(assessment, routes) == reference.run_what_ifs(assessment, routes)
    return cleared


def test_the_walks_equal_their_definition_on_generated_corpora(
    assessed: tuple[Assessment, Routes],
) -> None:
    """Gated tables and occurrence counts, every policy's sums, trace and cleared results,
    and the lockstep sums: equal on every generated corpus, and something is cleared."""
    assert _assert_same_walks(*assessed) > 0


TRIGGER = 200_000
ROUTES = parse_routes([{**SEED_ROUTE, "triggerTokens": TRIGGER}])
NAMES = ("read", "grep", "web_fetch", "bash", "skill")


def _random_journal(rng: random.Random, journal: JournalBuilder, turns: int, tag: str) -> None:
    """`turns` prompt turns of one run each (a re-prompt of an earlier turn now and then),
    with several requests, tool calls placed in any order, results from empty to large, and
    checkpoints between and inside turns that keep from the first entry, from a recent turn's
    input or nothing."""
    starts: list[tuple[str, int]] = []  # (turn id, seq of its turn_start)
    for index in range(turns):
        if starts and rng.random() < 0.1:
            turn_id = rng.choice(starts)[0]  # a re-prompt continues that turn's boundary
            journal.turn(turn_id, at=journal.clock + rng.choice((5_000, 400_000)))
            reason = "reprompt"
        else:
            turn_id = f"{tag}t{index}"
            seq = journal.turn(turn_id, at=journal.clock + rng.choice((5_000, 400_000)))
            starts.append((turn_id, seq))
            reason = "prompt"
        run_id = f"{turn_id}-r{index}"
        journal.run(run_id, turn_id, reason=reason)
        for request in range(rng.randint(1, 4)):
            calls = [
                (f"{run_id}-c{request}-{n}", rng.choice(NAMES), {"n": n})
                for n in range(rng.choice((0, 1, 2, 3, 6)))
            ]
            estimate = rng.randint(TRIGGER // 2, TRIGGER + TRIGGER // 10)
            journal.assistant(run_id, "", calls=calls, use=usage(total=estimate, input_=estimate))
            for call_id, name, args in calls:
                journal.call_start(run_id, call_id, name, args)
                journal.call_end(run_id, call_id)
            for call_id, name, _args in rng.sample(calls, len(calls)):
                size = rng.choice((0, 3, 60, 400, 3_000, 40_000, 200_000))
                journal.result(run_id, call_id, name, text="y" * size)
            if rng.random() < 0.15:
                _checkpoint(rng, journal, starts)
        journal.assistant(run_id, "done")
        journal.run_end(run_id)
        if rng.random() < 0.15:
            _checkpoint(rng, journal, starts)


def _checkpoint(rng: random.Random, journal: JournalBuilder, starts: list[tuple[str, int]]) -> None:
    kept = rng.choice([None, 1, starts[-1][1], starts[max(0, len(starts) - 3)][1]])
    journal.checkpoint("summary", first_kept=kept, before=190_000, after=30_000)


def _random_history(tmp_path: Path, seed: int) -> Assessment:
    """One or two conversations; the second journal of a conversation, when there is one, is
    a resumed copy of the first up to some record, continued differently."""
    rng = random.Random(seed)
    journals: list[JournalBuilder] = []
    for conversation in range(rng.randint(1, 2)):
        first = JournalBuilder(f"j{conversation}a", f"p{conversation}", f"l{conversation}")
        _random_journal(rng, first, rng.randint(6, 20), f"c{conversation}a")
        journals.append(first)
        if rng.random() < 0.6:
            copy = JournalBuilder(f"j{conversation}b", f"p{conversation}", f"l{conversation}")
            ends = [i + 1 for i, r in enumerate(first.records) if r["kind"] == "run_end"]
            copy.copy_records(first, rng.choice(ends))  # after a run that ended
            _random_journal(rng, copy, rng.randint(3, 8), f"c{conversation}b")
            journals.append(copy)
    directory = tmp_path / "journals"
    directory.mkdir()
    sidecar = SidecarBuilder(tmp_path / "h.sqlite", capture_enabled=("p0", "p1"))
    paths = []
    retained: set[tuple[str, str, str, str]] = set()
    for position, journal in enumerate(journals):
        journal.close()
        paths.append(journal.write(directory, f"{position:02d}.jsonl"))
        for record in journal.records:
            message = record.get("message", {})
            if record["kind"] == "message" and message.get("role") == "toolResult":
                turn = next(
                    r["hostTurnId"]
                    for r in journal.records
                    if r["kind"] == "run_start" and r["runId"] == record["runId"]
                )
                identity = (journal.physical, turn, record["runId"], message["toolCallId"])
                if identity not in retained and rng.random() < 0.9:
                    retained.add(identity)
                    sidecar.retain(identity, message["content"][0]["text"])
    config = {"builtins": ["read", "grep", "web_fetch"], "mcpTools": "none"}
    with open_sidecar(sidecar.finish()) as view:
        replayed = replay_journals(paths, ROUTES, view)
    assert replayed.replayed_journals == len(journals), json.dumps(
        {k.value: v for k, v in replayed.skipped_journals.items()}
    )
    return assess(replayed, ROUTES, parse_agent_config(config))


def _edges(assessment: Assessment) -> dict[str, int]:
    """Which of the edges a history reaches."""
    journals = assessment.replay.journals
    conversations = {m.journal.physical_conversation_id for m in journals}
    seen = {"copies": int(len(journals) > len(conversations))}
    seen["out_of_order"] = seen["mid_turn"] = seen["reprompt"] = 0
    for merged in journals:
        results = merged.journal.results
        seen["out_of_order"] += any(
            a.start_index > b.start_index for a, b in itertools.pairwise(results)
        )
        for boundary in merged.journal.boundaries:
            requests = boundary.requests
            seen["mid_turn"] += any(
                r.checkpoints_before > requests[0].checkpoints_before for r in requests
            )
            turn_results = boundary.turn_results
            seen["reprompt"] += bool(turn_results) and (
                turn_results[-1] - turn_results[0] + 1 != len(turn_results)
            )
    return seen


def test_the_walks_equal_their_definition_on_random_histories(tmp_path: Path) -> None:
    """Eight seeded random histories: the same walks as the definition on each; and over
    them (not vacuous) results placed out of order, checkpoints inside turns, re-prompted
    turns whose results are not one run of slots, resumed copies, and results cleared."""
    reached = {"out_of_order": 0, "mid_turn": 0, "reprompt": 0, "copies": 0, "cleared": 0}
    for seed in range(8):
        (tmp_path / str(seed)).mkdir()
        assessment = _random_history(tmp_path / str(seed), seed)
        reached["cleared"] += _assert_same_walks(assessment, ROUTES)
        for edge, count in _edges(assessment).items():
            reached[edge] += count
    assert all(reached.values()), reached


class TestJournalIndex:
    """The slot ranges the walks read, against the results' own intervals."""

    def test_ranges_are_the_intervals(self, assessed: tuple[Assessment, Routes]) -> None:
        """At every boundary the context range holds exactly the results whose interval
        holds the turn, and from each request's `carried_from` on exactly those no checkpoint
        before it compacted."""
        assessment, _ = assessed
        checked = 0
        for merged in assessment.replay.journals:
            results = merged.journal.results
            index = JournalIndex(results)
            for boundary in merged.journal.boundaries:
                turn = boundary.turn_index
                lo, hi = index.context(turn)
                inside = [
                    s
                    for s, r in enumerate(results)
                    if r.context_from <= turn
                    and (r.context_until is None or turn < r.context_until)
                ]
                assert inside == list(range(lo, hi))
                for request in boundary.requests:
                    first = index.carried_from(request.checkpoints_before)
                    carried = [
                        s
                        for s, r in enumerate(results)
                        if r.compacted_by is None or r.compacted_by >= request.checkpoints_before
                    ]
                    assert carried == list(range(first, len(results)))
                    checked += 1
        assert checked > 0

    def test_decreasing_intervals_are_refused(self, assessed: tuple[Assessment, Routes]) -> None:
        """Results whose intervals decrease with the slot (which replay never makes) are a
        programming error, not a silent wrong answer."""
        assessment, _ = assessed
        results = next(
            m.journal.results
            for m in assessment.replay.journals
            if len({r.context_from for r in m.journal.results}) > 1
        )
        JournalIndex(results)
        with pytest.raises(RuntimeError):
            JournalIndex(list(reversed(results)))
