"""Every file of the public session folders recounted (R-DATA-1, docs/public-data.md): the
`real-pi`, `real-pi2`, `real-pi3` and `community` folders that CLEARING_PUBLIC_DATA names
(skipped where it is unset, failing in CI).

Two recounts with plain `json`, nothing of the reader under test, along each file's resumed
path (version 1: every line; versions 2 and 3: the last entry and its ancestors):

- the **plain** recount, the folder's `expected.json` definitions: every assistant message is
  a request of its own `api`, a fallback when its usage is missing or all zero; `toolResult`
  messages and the UTF-8 bytes of their text blocks; compactions. It must equal the folder's
  `expected.json` where it has one (per file for `real-pi`, per folder otherwise), so the
  files are what their SOURCES.md says;
- the **rule** recount, the documented rules (docs/model.md "Per-API cohorts",
  docs/formats/pi-sessions.md): an OpenClaw transcript-only message (policy/transcript-only.json)
  is no request; a prompt turn counts when its first request's API has a route; each request
  of a counted turn counts on its own message's API (or without a route), each tool result on
  the API of the request that asked for it (an orphan: on its turn's), its plain-text bytes.

The explore report of each folder, from the real command under the folder's routes.json (the
seed's route for `community`, which has none), must state the rule recount: requests and
fallbacks per API, results and bytes, transcript-only messages, requests and boundaries
without a route, compactions, every session read.
"""

from __future__ import annotations

import collections
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests._public_data import expected, public_folder, session_copies
from tests._seed_route import SEED_ROUTE
from tests.e2e._cli import run_cli
from tests.e2e._pi_recount import plain_text_bytes

FOLDERS = ("real-pi", "real-pi2", "real-pi3", "community")
COMMUNITY_ROUTED = ("anthropic-messages", "openai-codex-responses", "openai-completions")
# policy/transcript-only.json, restated: (provider, model) of assistant messages an agent wrote.
TRANSCRIPT_ONLY = {
    ("openclaw", "delivery-mirror"): "OPENCLAW_DELIVERY_MIRROR",
    ("openclaw", "cli-mirror"): "OPENCLAW_CLI_MIRROR",
    ("openclaw", "gateway-injected"): "OPENCLAW_GATEWAY_INJECTED",
}
USAGE = ("input", "output", "cacheRead", "cacheWrite")


def _path(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if lines[0].get("version") in (None, 1):
        return lines[1:]
    by_id = {entry["id"]: entry for entry in lines[1:]}
    path: list[dict[str, Any]] = []
    entry: dict[str, Any] | None = lines[-1]
    while entry is not None:
        path.append(entry)
        parent = entry.get("parentId")
        entry = by_id[parent] if parent is not None else None
    return path[::-1]


def _fallback(message: dict[str, Any]) -> bool:
    usage = message.get("usage") or {}
    return not any(usage.get(key) for key in USAGE)


@dataclass
class Plain:
    """The expected.json definitions."""

    requests: collections.Counter[str] = field(default_factory=collections.Counter)
    fallback: collections.Counter[str] = field(default_factory=collections.Counter)
    results: int = 0
    result_bytes: int = 0
    compactions: int = 0

    def count(self, path: list[dict[str, Any]]) -> None:
        for entry in path:
            self.compactions += entry["type"] == "compaction"
            message = entry.get("message") if entry["type"] == "message" else None
            if not isinstance(message, dict):
                continue
            if message["role"] == "assistant":
                self.requests[message["api"]] += 1
                self.fallback[message["api"]] += _fallback(message)
            elif message["role"] == "toolResult":
                self.results += 1
                self.result_bytes += sum(
                    len(block["text"].encode("utf-8"))
                    for block in message["content"]
                    if block.get("type") == "text"
                )


@dataclass
class Rules:
    """The documented rules (module docstring)."""

    routed: frozenset[str]
    requests: collections.Counter[str] = field(default_factory=collections.Counter)
    fallback: collections.Counter[str] = field(default_factory=collections.Counter)
    results: int = 0
    result_bytes: int = 0
    transcript_only: collections.Counter[str] = field(default_factory=collections.Counter)
    without_route: int = 0
    unrouted_turns: int = 0
    compactions: int = 0

    def count(self, path: list[dict[str, Any]]) -> None:
        turn: list[dict[str, Any]] = []
        for entry in path:
            self.compactions += entry["type"] == "compaction"
            message = entry.get("message") if entry["type"] == "message" else None
            if not isinstance(message, dict):
                continue
            if message["role"] == "user":
                self._turn(turn)
                turn = []
            turn.append(message)
        self._turn(turn)

    def _turn(self, messages: list[dict[str, Any]]) -> None:
        requests: list[dict[str, Any]] = []
        for message in messages:
            if message["role"] != "assistant":
                continue
            code = TRANSCRIPT_ONLY.get((message["provider"], message["model"]))
            if code is None:
                requests.append(message)
            else:
                self.transcript_only[code] += 1
        if not requests:
            return
        turn_api = requests[0]["api"]
        if turn_api not in self.routed:
            self.unrouted_turns += 1
            return
        asked: dict[str, list[str]] = collections.defaultdict(list)
        request_ids = {id(request) for request in requests}
        for message in messages:
            if id(message) in request_ids:
                api = message["api"]
                if api in self.routed:
                    self.requests[api] += 1
                    self.fallback[api] += _fallback(message)
                else:
                    self.without_route += 1
                for block in message["content"]:
                    if block["type"] == "toolCall":
                        asked[block["id"]].append(api)
            elif message["role"] == "toolResult":
                pending = asked[message["toolCallId"]]
                api = pending.pop(0) if pending else turn_api
                if api in self.routed:
                    self.results += 1
                    self.result_bytes += plain_text_bytes(message["content"])


def _routes(folder: Path, into: Path) -> Path:
    path = folder / "routes.json"
    if path.is_file():
        return path
    routes = into / "routes.json"
    routes.write_text(json.dumps([{**SEED_ROUTE, "api": api} for api in COMMUNITY_ROUTED]))
    return routes


@pytest.mark.parametrize("name", FOLDERS)
def test_every_public_file_recounted(name: str, tmp_path: Path) -> None:
    """The plain recount equals expected.json; the explore report states the rule recount."""
    folder = public_folder(name)
    sessions = session_copies(folder, tmp_path / "sessions")
    files = sorted(sessions.glob("*.jsonl"))
    routes_path = _routes(folder, tmp_path)
    routed = frozenset(route["api"] for route in json.loads(routes_path.read_text()))
    plain, rules = Plain(), Rules(routed)
    per_file: dict[str, Plain] = {}
    for path in files:
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        resumed = _path(lines)
        plain.count(resumed)
        rules.count(resumed)
        per_file[path.name] = Plain()
        per_file[path.name].count(resumed)
    recount = expected(folder)
    if recount is not None and name == "real-pi":
        for file_name, figures in recount.items():
            one = per_file[file_name]
            assert dict(one.requests) == figures["requestsByApi"], file_name
            assert (one.results, one.result_bytes) == (
                figures["toolResults"],
                figures["toolResultTextBytes"],
            )
            assert one.compactions == figures["compactions"], file_name
    elif recount is not None:
        assert dict(plain.requests) == recount["requests"]
        assert dict(plain.fallback) == recount["fallback"]
        assert (plain.results, plain.result_bytes) == (
            recount["toolResults"],
            recount["toolResultTextBytes"],
        )
        assert len(files) == recount["sessions"]
    done = run_cli(["explore", "--sessions", sessions, "--routes", routes_path])
    assert (done.returncode, done.stderr) == (0, b"")
    report: dict[str, Any] = json.loads(done.stdout)
    read = report["sessions"]
    assert read["sessionsRead"] == len(files)
    assert set(read["skippedSessions"].values()) == {0}
    assert {k: v for k, v in read["transcriptOnlyMessages"].items() if v} == dict(
        rules.transcript_only
    )
    assert read["requestsWithoutRoute"] == rules.without_route
    assert read["skippedBoundaries"]["UNSUPPORTED_API"] == rules.unrouted_turns
    for api, part in report["perApi"].items():
        assert part["requests"]["requests"] == rules.requests[api], api
        assert part["requests"]["fallback"] == rules.fallback[api], api
    rows = [row for part in report["perApi"].values() for row in part["toolResults"]]
    assert sum(row["results"] for row in rows) == rules.results
    assert sum(row["textBytes"] for row in rows) == rules.result_bytes
    observed = sum(part["compactions"]["checkpoints"] for part in report["perApi"].values())
    assert observed == rules.compactions == plain.compactions  # each inside a window here
