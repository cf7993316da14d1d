"""`explore` on session files written by the pinned pi coding agent (docs/pi-session-writer.md).

`tests/data/pi-sessions/writer/` holds a version-3 session and its fork, written by pi's own
session manager against a scripted model on 127.0.0.1. The test recounts, with plain `json`
and the documented rules alone (not the reader), what explore must state: the resumed path is
the last entry and its `parentId` ancestors; a prompt turn of a lineage (the file's first
message) already seen with the same ordinal and user message in an earlier file (sorted
order) is a duplicate and counts once; a compaction counts when a counted turn of its file lies
before it and another after it. Requests, fallback requests, turns, usage sums, tool results
and their plain-text bytes by class, compactions and duplicate boundaries must be exactly the
recount's, and none of the files' ids, paths or text may reach the output.
"""

from __future__ import annotations

import collections
import json
from pathlib import Path
from typing import Any

import pytest

from clearing_analysis.inputs.requests import ExploreRequest
from clearing_analysis.pipeline.jobs import explore_job
from tests._seed_route import SEED_ROUTE
from tests._upper_bound import excluded_by_reason, upper_bound_eligible
from tests.e2e._cli import run_cli
from tests.e2e._pi_recount import plain_text_bytes
from tests.e2e.test_explore_real import Recount, _tool_class

ROOT = Path(__file__).resolve().parents[2]
WRITER = ROOT / "tests" / "data" / "pi-sessions" / "writer"
API = "openai-completions"


def _resumed_path(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_id = {entry["id"]: entry for entry in entries}
    path: list[dict[str, Any]] = []
    node: dict[str, Any] | None = entries[-1]
    while node is not None:
        path.append(node)
        node = by_id.get(node["parentId"]) if node["parentId"] is not None else None
    return path[::-1]


def recount(paths: list[Path]) -> tuple[Recount, int]:
    """The recount over the resumed paths, and the number of duplicate turns skipped."""
    counted = Recount()
    seen: set[tuple[str, int, str]] = set()
    duplicates = 0
    for path in paths:
        lines = path.read_text(encoding="utf-8").splitlines()
        header, entries = json.loads(lines[0]), [json.loads(line) for line in lines[1:]]
        assert header["version"] == 3
        on_path = _resumed_path(entries)
        messages = [e["message"] for e in on_path if e["type"] == "message"]
        lineage = json.dumps(messages[0], sort_keys=True)
        ordinal, counting = 0, False
        counted_turns: list[int] = []  # positions on the path of counted prompt turns
        compaction_positions: list[int] = []
        for position, entry in enumerate(on_path):
            if entry["type"] == "compaction":
                compaction_positions.append(position)
            if entry["type"] != "message":
                continue
            message = entry["message"]
            if message["role"] == "user":
                ordinal += 1
                key = (lineage, ordinal, json.dumps(message["content"], sort_keys=True))
                counting = key not in seen
                if counting:
                    seen.add(key)
                    counted_turns.append(position)
                    counted.turns[API] += 1
                else:
                    duplicates += 1
            elif not counting:
                continue
            elif message["role"] == "assistant":
                assert message["api"] == API
                counted.requests[API] += 1
                usage = message["usage"]
                recorded = [usage[k] for k in ("input", "output", "cacheRead", "cacheWrite")]
                if message["stopReason"] in ("error", "aborted") or sum(recorded) == 0:
                    counted.fallback[API] += 1
                else:
                    for key_name in ("input", "output", "cacheRead", "cacheWrite"):
                        counted.usage[API][key_name] += usage[key_name]
            elif message["role"] == "toolResult":
                tool_class = _tool_class(message["toolName"])
                counted.results[API][tool_class] += 1
                counted.result_bytes[API][tool_class] += plain_text_bytes(message["content"])
        counted.compactions += sum(
            1
            for at in compaction_positions
            if any(t < at for t in counted_turns) and any(t > at for t in counted_turns)
        )
    return counted, duplicates


@pytest.fixture(scope="module")
def explored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The explore report of the writer's sessions, from the real command."""
    routes = tmp_path_factory.mktemp("routes") / "routes.json"
    routes.write_text(json.dumps([{**SEED_ROUTE, "api": API}]))
    done = run_cli(["explore", "--sessions", str(WRITER), "--routes", str(routes)])
    assert (done.returncode, done.stderr) == (0, b"")
    for path in WRITER.glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            for secret in (entry.get("id"), entry.get("cwd"), entry.get("parentSession")):
                if isinstance(secret, str):
                    assert secret.encode() not in done.stdout
    assert b"retry" not in done.stdout  # the scratch repository's words
    for word in (b"BUILD", b"DEFER", b"STOP"):
        assert word not in done.stdout
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def test_writer_counts_equal_an_independent_recount(explored: dict[str, Any]) -> None:
    """Requests, fallback, turns, usage, tool results and bytes by class, compactions and
    duplicate boundaries are exactly the recount's over the resumed paths."""
    counted, duplicates = recount(sorted(WRITER.glob("*.jsonl")))
    assert counted.requests[API] == 31  # not vacuous: 23 in main, 8 more in the fork
    assert duplicates == 6
    part = explored["perApi"][API]
    assert part["requests"]["requests"] == counted.requests[API]
    assert part["requests"]["fallback"] == counted.fallback[API]
    assert part["promptTurns"] == counted.turns[API]
    assert part["usage"]["observedRequests"] == counted.requests[API] - counted.fallback[API]
    for key in ("input", "output", "cacheRead", "cacheWrite"):
        assert part["usage"][key] == counted.usage[API][key], key
    by_class = {row["toolClass"]: row for row in part["toolResults"]}
    assert sum(row["results"] for row in by_class.values()) == sum(counted.results[API].values())
    for tool_class, row in by_class.items():
        assert row["results"] == counted.results[API][tool_class], tool_class
        assert row["textBytes"] == counted.result_bytes[API][tool_class], tool_class
    assert part["compactions"]["checkpoints"] == counted.compactions == 1
    assert explored["sessions"]["skippedBoundaries"]["DUPLICATE"] == duplicates


def test_a_trailing_compaction_is_counted_and_checked(tmp_path: Path) -> None:
    """main.jsonl ends with pi's compaction (its last entry, after the last prompt turn): it is
    observed and the route check sees it (before, read alone, the file showed none)."""
    routes = tmp_path / "routes.json"
    routes.write_text((ROOT / "tools" / "pi-sessions" / "routes.json").read_text())
    report = json.loads(
        explore_job(ExploreRequest(sessions=(WRITER / "main.jsonl",), routes=routes)).data
    )
    part = report["perApi"][API]
    assert part["compactions"]["checkpoints"] == 1
    assert part["routeTrigger"]["thresholdCompactions"] == 1
    assert part["routeTrigger"]["impliedTriggerBelow"] == 10_131  # its tokensBefore


def test_writer_sessions_are_read_as_version_3(explored: dict[str, Any]) -> None:
    """Both files are version 3, read whole (one branch each), nothing skipped or unknown:
    pi's model_change and thinking_level_change entries are known types."""
    sessions = explored["sessions"]
    assert sessions["sessionsRead"] == 2
    assert sessions["byVersion"] == {"1": 0, "2": 0, "3": 2}
    assert sessions["offPathEntries"] == 0
    assert set(sessions["skippedSessions"].values()) == {0}
    assert set(sessions["unrecognized"].values()) == {0}
    errors = collections.Counter(
        json.loads(line)["message"].get("isError")
        for path in WRITER.glob("*.jsonl")
        for line in path.read_text(encoding="utf-8").splitlines()
        if '"toolResult"' in line
    )
    # The scripted read of a missing file: once in main, twice in the fork (one copied).
    assert errors[True] == 3
    eligibility = explored["perApi"][API]["eligibility"]
    excluded = excluded_by_reason(eligibility)
    assert excluded["ERROR_RESULT"] > 0  # an isError result is never in the upper bound
    assert excluded["EFFECTFUL_BUILTIN"] > 0  # nor one of bash, edit, write
    assert upper_bound_eligible(eligibility) + sum(excluded.values()) == eligibility["occurrences"]
