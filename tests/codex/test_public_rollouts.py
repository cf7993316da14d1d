"""The five public Codex rollouts (docs/public-data.md): the reader's requests and usage sums
equal an independent recount and the figures their SOURCES.md states (R-SRC-3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from clearing_analysis.codex import Api, ReadRollout, read_rollout
from clearing_analysis.codex.read import Compaction, ToolOutput
from tests._public_data import public_folder
from tests.e2e._cli import run_cli

# Per file (by the start of its name): requests, and input / cached / output summed, as
# SOURCES.md states them.
STATED = {
    "rollout-2026-02-23T12-54-34": (286, 33_810_485, 31_621_504, 133_999),
    "rollout-2026-02-23T12-40-23": (81, 7_204_025, 6_836_352, 36_075),
    "rollout-2026-02-23T12-41-04": (28, 1_751_428, 1_651_968, 14_600),
    "rollout-2026-02-23T13-19-38": (1, 34_469, 3_456, 431),
    "rollout-2026-02-23T20-34-25": (6, 298_373, 238_848, 1_123),
}
_FIELDS = ("input_tokens", "cached_input_tokens", "output_tokens")


def _rollouts() -> list[Path]:
    folder = public_folder("codex")
    return sorted(folder.rglob("rollout-*.jsonl"))


def _recount(path: Path) -> tuple[int, int, int, int, list[int], dict[str, int]]:
    """Requests, the three sums, each compaction's tokens before, and the final running total,
    by a plain pass over the JSON lines that shares nothing with the reader."""
    previous: Any = None
    requests, sums, last = 0, [0, 0, 0], None
    compactions: list[int] = []
    final: dict[str, int] = {}
    for raw in path.read_bytes().splitlines():
        line = json.loads(raw)
        payload = line["payload"]
        if line["type"] == "compacted":
            compactions.append(last["input_tokens"] + last["output_tokens"] if last else 0)
        if line["type"] != "event_msg" or payload.get("type") != "token_count":
            continue
        info = payload.get("info")
        if not info:
            continue
        if info["total_token_usage"] != previous:
            requests += 1
            last = info["last_token_usage"]
            sums = [s + last[f] for s, f in zip(sums, _FIELDS, strict=True)]
        previous = info["total_token_usage"]
        final = previous
    return requests, sums[0], sums[1], sums[2], compactions, final


def test_five_public_rollouts_are_present() -> None:
    """The folder holds the five rollouts SOURCES.md describes, each named once."""
    names = [p.name for p in _rollouts()]
    assert sorted(next(k for k in STATED if n.startswith(k)) for n in names) == sorted(STATED)


@pytest.mark.parametrize("prefix", sorted(STATED))
def test_requests_and_usage_equal_the_recount(prefix: str) -> None:
    """Requests and input / cached / output sums equal the independent recount, SOURCES.md's
    figures and the file's final running total; every file is ChatGPT-signed-in."""
    path = next(p for p in _rollouts() if p.name.startswith(prefix))
    read = read_rollout(path)
    assert isinstance(read, ReadRollout)
    requests, input_, cached, output, compactions, final = _recount(path)
    assert (requests, input_, cached, output) == STATED[prefix]
    assert (input_, cached, output) == tuple(final[f] for f in _FIELDS)
    got = read.requests
    assert len(got) == requests
    assert sum(r.usage.input_tokens for r in got) == input_
    assert sum(r.usage.cached_input_tokens for r in got) == cached
    assert sum(r.usage.output_tokens for r in got) == output
    assert [c.tokens_before for c in read.items if isinstance(c, Compaction)] == compactions
    assert read.api is Api.OPENAI_CODEX_RESPONSES
    assert all(r.model == "gpt-5.3-codex" for r in got)


def test_the_compaction_counts_the_last_request_before_it() -> None:
    """The one compaction's tokens before is its last request's input + output, as SOURCES.md
    states them (209,950 + 2,184)."""
    path = next(p for p in _rollouts() if p.name.startswith("rollout-2026-02-23T12-54-34"))
    read = read_rollout(path)
    assert isinstance(read, ReadRollout)
    (compaction,) = (c for c in read.items if isinstance(c, Compaction))
    assert compaction.tokens_before == 209_950 + 2_184
    assert compaction.replaced


def test_tool_results_pair_with_their_calls() -> None:
    """Every tool result of the public files pairs with a call of an earlier request; the
    redacted outputs state no exit status, so none has a known outcome."""
    for path in _rollouts():
        read = read_rollout(path)
        assert isinstance(read, ReadRollout)
        calls = {c.call_id for r in read.requests for c in r.calls}
        outputs = [o for o in read.items if isinstance(o, ToolOutput)]
        assert {o.call_id for o in outputs} <= calls
        assert all(o.outcome == "UNKNOWN" for o in outputs)
        assert all(o.byte_size > 0 for o in outputs)


def test_explore_on_the_public_rollouts_is_deterministic(tmp_path: Path) -> None:
    """`explore` over copies of the five rollouts: the openai-codex-responses usage is the
    recount's (input beyond the cache, cache read, output), every result is one of the five
    files', none is cleared (no output states an exit status: UNKNOWN_OUTCOME), and the
    report is the same bytes with one worker and two."""
    copies = tmp_path / "rollouts"
    copies.mkdir()
    for path in _rollouts():
        (copies / path.name).write_bytes(path.read_bytes())
    routes = tmp_path / "routes.json"
    made = run_cli(
        [
            "routes",
            "init",
            "--agent",
            "codex",
            "--model",
            "openai-codex/gpt-5.3-codex",
            "--out",
            str(routes),
        ]
    )
    assert made.returncode == 0, made.stderr
    reports = []
    for workers in ("1", "2"):
        out = tmp_path / f"report-{workers}.json"
        done = run_cli(
            [
                "explore",
                "--sessions",
                str(copies),
                "--routes",
                str(routes),
                "--workers",
                workers,
                "--out",
                str(out),
            ]
        )
        assert done.returncode == 0, done.stderr
        reports.append(out.read_bytes())
    assert reports[0] == reports[1]
    by_format = json.loads(reports[0])["sessions"]["byFormat"]
    assert by_format == {"CLAUDE_CODE": 0, "CODEX": 5, "PI_SESSION": 0}
    api = json.loads(reports[0])["perApi"]["openai-codex-responses"]
    stated = [sum(figures[i] for figures in STATED.values()) for i in range(4)]
    usage = api["usage"]
    assert usage["observedRequests"] == stated[0]
    assert (usage["input"], usage["cacheRead"]) == (stated[1] - stated[2], stated[2])
    assert usage["output"] == stated[3]
    results = {row["toolClass"]: row["results"] for row in api["toolResults"]}
    assert sum(results.values()) == 104 + 118 + 365 + 0 + 5
    assert sum(row["cleared"] for row in api["toolResults"]) == 0
    # Their occurrences are excluded for their class or, the rest, as UNKNOWN_OUTCOME; none as
    # NOT_SUCCESSFUL, which is for a call known not to have succeeded (R-SRC-3).
    eligibility = api["eligibility"]
    assert eligibility["byClass"]["EXCLUDED"] == eligibility["occurrences"]
    assert eligibility["byReason"]["NOT_SUCCESSFUL"] == 0
    assert eligibility["byReason"]["UNKNOWN_OUTCOME"] == 203
