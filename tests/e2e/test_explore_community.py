"""`explore` on real public sessions of pi and OpenClaw users (the `community` folder of the
public session files, SOURCES.md there; docs/public-data.md: skipped where CLEARING_PUBLIC_DATA
is unset), recounted independently.

The test decompresses copies of the sessions and recounts, with plain `json` and the documented
rules alone (docs/formats/pi-sessions.md, docs/model.md "Per-API cohorts", docs/formats/tools.md),
per API: requests and usage fallbacks (all-zero usage only, R-CM-1; each on its own message's
API, R-CM-8), prompt turns, tool results and their plain-text bytes by class, observed usage
sums, orphan tool results, and the boundaries of an API without a route; the explore report
from the real command must state exactly those numbers. The sessions' compactions are checked
against two routes (docs/model.md, "The route's trigger against observed compactions"), and
nothing of their text, ids or paths may reach the output.
"""

from __future__ import annotations

import collections
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests._public_data import public_folder, session_copies
from tests._seed_route import SEED_ROUTE
from tests._upper_bound import excluded_by_reason
from tests.e2e import _pi_recount
from tests.e2e._cli import run_cli

ROUTED = ("anthropic-messages", "openai-codex-responses", "openai-completions")
# The class of every tool name these sessions use (docs/formats/tools.md); "" is the empty name
# of OpenClaw's orphan results, in no table.
CLASSES = {
    "read": "READ_ONLY_BUILTIN",
    "web_fetch": "READ_ONLY_BUILTIN",
    "web_search": "READ_ONLY_BUILTIN",
    "agents_list": "READ_ONLY_BUILTIN",
    "bash": "EFFECTFUL_BUILTIN",
    "exec": "EFFECTFUL_BUILTIN",
    "write": "EFFECTFUL_BUILTIN",
    "edit": "EFFECTFUL_BUILTIN",
    "message": "EFFECTFUL_BUILTIN",
    "sessions_spawn": "EFFECTFUL_BUILTIN",
    "": "UNKNOWN",
}
USAGE = ("input", "output", "cacheRead", "cacheWrite")


@dataclass
class Recount(_pi_recount.Recount):
    """The shared tallies, and what only these sessions show."""

    unrouted_turns: int = 0
    orphans: int = 0
    compactions: list[int] = field(default_factory=list)


def _path(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Version 3: the last entry and its ancestors, oldest first."""
    by_id = {entry["id"]: entry for entry in lines[1:]}
    path: list[dict[str, Any]] = []
    entry: dict[str, Any] | None = lines[-1]
    while entry is not None:
        path.append(entry)
        parent = entry.get("parentId")
        entry = by_id[parent] if parent is not None else None
    return path[::-1]


def _count_session(counted: Recount, lines: list[dict[str, Any]]) -> None:
    """Per prompt turn: the boundary belongs to its first request's API; each request, and
    each result, to the API of its own message (a result: of the request that asked for it;
    an orphan: of the turn's boundary), R-CM-8."""
    turn_api: str | None = None
    calls: dict[str, list[str]] = collections.defaultdict(list)  # call id -> requesting APIs
    turn_results: list[tuple[str | None, dict[str, Any]]] = []

    def close_turn() -> None:
        if turn_api is None:
            return
        if turn_api not in ROUTED:
            counted.unrouted_turns += 1
            return
        counted.turns[turn_api] += 1
        for request_api, result in turn_results:
            api = turn_api if request_api is None else request_api
            if api not in ROUTED:
                continue
            tool = CLASSES[result["toolName"]]
            counted.results[api][tool] += 1
            counted.result_bytes[api][tool] += _pi_recount.plain_text_bytes(result["content"])
        for request in requests:
            _count_request(counted, request)

    requests: list[dict[str, Any]] = []
    for entry in _path(lines):
        if entry["type"] == "compaction":
            counted.compactions.append(entry["tokensBefore"])
        if entry["type"] != "message":
            continue
        message = entry["message"]
        role = message["role"]
        if role == "user":
            close_turn()
            turn_api, turn_results, requests = None, [], []
            calls = collections.defaultdict(list)
        elif role == "assistant":
            turn_api = turn_api or message["api"]
            requests.append(message)
            for block in message["content"]:
                if block["type"] == "toolCall":
                    calls[block["id"]].append(message["api"])
        elif role == "toolResult":
            pending = calls[message["toolCallId"]]
            if pending:
                turn_results.append((pending.pop(0), message))
            else:
                counted.orphans += 1
                turn_results.append((None, message))
    close_turn()


def _count_request(counted: Recount, message: dict[str, Any]) -> None:
    """A request belongs to the API of its own message (R-CM-8)."""
    api = message["api"]
    if api not in ROUTED:
        return
    usage = message["usage"]
    counted.requests[api] += 1
    if not any(usage.get(key) for key in (*USAGE, "totalTokens")):
        counted.fallback[api] += 1
    else:
        for key in USAGE:
            counted.usage[api][key] += usage[key]


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The community sessions, decompressed into a directory of their own."""
    folder = public_folder("community")
    return session_copies(folder, tmp_path_factory.mktemp("community") / "sessions")


def _explore(sessions: Path, routes: list[dict[str, Any]], tmp: Path) -> dict[str, Any]:
    route_file = tmp / "routes.json"
    route_file.write_text(json.dumps(routes))
    done = run_cli(["explore", "--sessions", str(sessions), "--routes", str(route_file)])
    assert (done.returncode, done.stderr) == (0, b"")
    for path in sessions.iterdir():
        header = json.loads(path.read_text(encoding="utf-8").split("\n", 1)[0])
        for secret in (header["id"], header["cwd"], "openclaw", "/Users/"):
            assert secret.encode() not in done.stdout
    report: dict[str, Any] = json.loads(done.stdout)
    return report


@pytest.fixture(scope="module")
def explored(sessions: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The explore report under the seed's route for the three routed APIs."""
    routes = [{**SEED_ROUTE, "api": api} for api in ROUTED]
    return _explore(sessions, routes, tmp_path_factory.mktemp("routes"))


def test_counts_equal_an_independent_recount(sessions: Path, explored: dict[str, Any]) -> None:
    """Requests, fallbacks, prompt turns, tool results and bytes by class, usage sums, orphan
    results and unrouted boundaries: exactly the recount's."""
    counted = Recount()
    for path in sorted(sessions.glob("*.jsonl")):
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        _count_session(counted, lines)
    assert sum(counted.requests.values()) == 472  # not vacuous: the files are what we think
    assert counted.orphans == 22
    assert explored["sessions"]["sessionsRead"] == 4
    assert explored["sessions"]["unrecognized"]["ORPHAN_TOOL_RESULT"] == counted.orphans
    assert explored["sessions"]["skippedBoundaries"]["UNSUPPORTED_API"] == counted.unrouted_turns
    for api in ROUTED:
        part = explored["perApi"][api]
        assert part["requests"]["requests"] == counted.requests[api], api
        assert part["requests"]["fallback"] == counted.fallback[api], api
        assert part["promptTurns"] == counted.turns[api], api
        usage = part["usage"]
        assert [usage[k] for k in USAGE] == [counted.usage[api][k] for k in USAGE], api
        rows = {row["toolClass"]: row for row in part["toolResults"]}
        for tool, count in counted.results[api].items():
            assert rows[tool]["results"] == count, (api, tool)
            assert rows[tool]["textBytes"] == counted.result_bytes[api][tool], (api, tool)
        assert sum(row["results"] for row in rows.values()) == sum(counted.results[api].values())


def test_openclaw_shell_tools_are_never_cleared(explored: dict[str, Any]) -> None:
    """exec and the other effectful tools are EFFECTFUL_BUILTIN: none enters the upper bound;
    the orphans' empty name is UNKNOWN and excluded too."""
    for part in explored["perApi"].values():
        rows = {row["toolClass"]: row for row in part["toolResults"]}
        for tool in ("EFFECTFUL_BUILTIN", "UNKNOWN"):
            assert rows[tool]["cleared"] == 0
            assert rows[tool]["eligible"] == 0
    completions = explored["perApi"]["openai-completions"]
    assert excluded_by_reason(completions["eligibility"])["UNKNOWN_TOOL"] > 0


def test_compactions_against_the_route_trigger(
    sessions: Path, explored: dict[str, Any], tmp_path: Path
) -> None:
    """The OpenClaw session compacted at 180,158 tokens on claude-opus-4-6 (and once more at
    1,061 right after, with no request between: not a threshold compaction). Under the seed's
    T = 200,000 that is below T by 19,842, more than the tolerance (4,000, 2% of T): OpenClaw
    compacts at its window minus a 20,000-token reserve, so T is too high (`belowTrigger`);
    under the catalog's 983,616-token trigger (`routes init` for that model) it is below the
    band's floor. Both ROUTE_TRIGGER_CONTRADICTED, with the implied trigger below 180,158."""
    anthropic = explored["perApi"]["anthropic-messages"]
    route = anthropic["routeTrigger"]
    assert anthropic["limitations"] == ["ROUTE_TRIGGER_CONTRADICTED"]
    assert (route["thresholdCompactions"], route["belowTrigger"], route["belowBand"]) == (1, 1, 0)
    assert (route["toleranceTokens"], route["impliedTriggerBelow"]) == (4_000, 180_158)
    catalog = run_cli(["routes", "init", "--model", "anthropic/claude-opus-4-6"])
    assert catalog.returncode == 0
    catalog_route = json.loads(catalog.stdout)[0]
    assert catalog_route["triggerTokens"] == 983_616
    contradicted = _explore(sessions, [catalog_route], tmp_path)["perApi"]["anthropic-messages"]
    assert contradicted["limitations"] == ["ROUTE_TRIGGER_CONTRADICTED"]
    assert contradicted["routeTrigger"]["belowBand"] == 1
    assert contradicted["routeTrigger"]["belowTrigger"] == 0
    assert contradicted["routeTrigger"]["impliedTriggerBelow"] == 180_158
