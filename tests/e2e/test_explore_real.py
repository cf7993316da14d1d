"""`explore` on real public pi sessions (docs/explore.md, "Real sessions in the tests").

The two sessions are pi's own test fixtures, in the `real-pi` folder of the public session
files (docs/public-data.md; skipped where CLEARING_PUBLIC_DATA is unset): real version-1
histories of pi's author with compactions, two APIs and 821 tool results. The test copies them
and recounts, with plain `json` and the documented rules alone (not the reader), the requests,
prompt turns, tool results and their bytes by class, compactions and observed usage per API;
the explore report must state exactly those numbers. The run goes through the real command in
a fresh interpreter, and nothing of the sessions' text, ids or paths may reach its output.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests._public_data import public_folder, session_copies
from tests._seed_route import SEED_ROUTE
from tests.e2e import _pi_recount
from tests.e2e._cli import run_cli

PUBLIC = ("before-compaction.jsonl", "large-session.jsonl")
APIS = ("anthropic-messages", "openai-responses")
READ_ONLY = {"read", "grep", "find", "ls", "web_fetch"}
EFFECTFUL = {"bash", "edit", "write"}


@dataclass
class Recount(_pi_recount.Recount):
    """The shared tallies, and the compactions of the files."""

    compactions: int = 0


def _tool_class(name: str) -> str:
    if name in READ_ONLY:
        return "READ_ONLY_BUILTIN"
    if name in EFFECTFUL:
        return "EFFECTFUL_BUILTIN"
    return "APP"


def recount(paths: list[Path]) -> Recount:
    """Version-1 files are linear: every line after the header is on the path."""
    counted = Recount()
    for path in paths:
        lines = path.read_text(encoding="utf-8").splitlines()
        assert json.loads(lines[0])["type"] == "session"
        assert "version" not in json.loads(lines[0])  # version 1: no ids, no tree
        turn_api: str | None = None
        for line in lines[1:]:
            entry = json.loads(line)
            if entry["type"] == "compaction":
                counted.compactions += 1
            if entry["type"] != "message":
                continue
            message = entry["message"]
            role = message["role"]
            if role == "user":
                turn_api = None
            elif role == "assistant":
                if turn_api is None:
                    turn_api = message["api"]
                    counted.turns[turn_api] += 1
                # R-CM-8: a request belongs to the API its own message names.
                api = message["api"]
                counted.requests[api] += 1
                usage = message["usage"]
                keys = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
                # R-CM-1: only a missing or all-zero usage is a fallback; an aborted or
                # errored request that reports usage is costed from it.
                if not any(usage.get(key) for key in keys):
                    counted.fallback[api] += 1
                else:
                    for key in ("input", "output", "cacheRead", "cacheWrite"):
                        counted.usage[api][key] += usage[key]
            elif role == "toolResult":
                # The result of the request just before it (its toolCall), on that one's API.
                tool_class = _tool_class(message["toolName"])
                counted.results[api][tool_class] += 1
                counted.result_bytes[api][tool_class] += _pi_recount.plain_text_bytes(
                    message["content"]
                )
    return counted


@pytest.fixture(scope="module")
def real_sessions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The public sessions, copied into a directory of their own."""
    root = session_copies(public_folder("real-pi"), tmp_path_factory.mktemp("real") / "sessions")
    assert sorted(path.name for path in root.iterdir()) == list(PUBLIC)
    return root


@pytest.fixture(scope="module")
def explored(real_sessions: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The explore report of the real sessions, from the real command."""
    routes = tmp_path_factory.mktemp("routes") / "routes.json"
    routes.write_text(json.dumps([{**SEED_ROUTE, "api": api} for api in APIS]))
    done = run_cli(["explore", "--sessions", str(real_sessions), "--routes", str(routes)])
    assert (done.returncode, done.stderr) == (0, b"")
    for name in PUBLIC:
        text = (real_sessions / name).read_text(encoding="utf-8")
        header = json.loads(text.split("\n", 1)[0])
        for secret in (header["id"], header["cwd"], "badlogic"):
            assert secret.encode() not in done.stdout
    for word in (b"BUILD", b"DEFER", b"STOP"):
        assert word not in done.stdout
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def test_counts_equal_an_independent_recount(real_sessions: Path, explored: dict[str, Any]) -> None:
    """Requests, fallback requests, prompt turns, tool results and their plain-text bytes by
    class, and observed usage sums, per API, are exactly the recount's."""
    counted = recount(sorted(real_sessions.glob("*.jsonl")))
    assert sum(counted.requests.values()) == 937  # not vacuous: the files are what we think
    assert sum(sum(c.values()) for c in counted.results.values()) == 821
    for api in APIS:
        part = explored["perApi"][api]
        assert part["requests"]["requests"] == counted.requests[api], api
        assert part["requests"]["fallback"] == counted.fallback[api], api
        assert part["promptTurns"] == counted.turns[api], api
        usage = part["usage"]
        assert usage["observedRequests"] == counted.requests[api] - counted.fallback[api]
        for key in ("input", "output", "cacheRead", "cacheWrite"):
            assert usage[key] == counted.usage[api][key], (api, key)
        by_class = {row["toolClass"]: row for row in part["toolResults"]}
        for tool_class, row in by_class.items():
            assert row["results"] == counted.results[api][tool_class], (api, tool_class)
            assert row["textBytes"] == counted.result_bytes[api][tool_class], (api, tool_class)


def test_compactions_and_sessions_are_counted(explored: dict[str, Any]) -> None:
    """Both compactions of the first session lie inside its window; both sessions are read as
    version 1, none skipped, nothing unrecognized."""
    sessions = explored["sessions"]
    assert sessions["sessionsRead"] == 2
    assert sessions["byVersion"] == {"1": 2, "2": 0, "3": 0}
    assert set(sessions["skippedSessions"].values()) == {0}
    assert set(sessions["unrecognized"].values()) == {0}
    anthropic = explored["perApi"]["anthropic-messages"]
    assert anthropic["compactions"]["checkpoints"] == 2
    # The estimated drains are far below the recorded tokens before (compaction drained).
    assert sum(anthropic["compactions"]["tokensBefore"]["counts"][8:]) == 2


def test_upper_bound_is_labeled_and_never_a_verdict(explored: dict[str, Any]) -> None:
    """The report is the explore format, not gating, with the fixed statements."""
    assert explored["format"] == "clearing-analysis-explore"
    assert explored["gating"] is False
    assert explored["bound"] == "UPPER"
    assert "NEVER_A_VERDICT" in explored["statements"]
    strings: set[str] = set()
    todo: list[Any] = [explored]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            strings.update(node)
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
        elif isinstance(node, str):
            strings.add(node)
    assert "verdict" not in strings
    assert not {"BUILD", "DEFER", "STOP"} & strings
    assert "UPPER" in strings  # the walk reached the values
    simulated = explored["perApi"]["anthropic-messages"]["simulation"]
    assert simulated["admittedNetTokens"] <= simulated["upperBoundNetTokens"]
