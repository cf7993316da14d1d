"""The public Claude Code transcripts recounted (R-SRC-2, R-DATA-1, docs/public-data.md): the
`claude-code` folder that CLEARING_PUBLIC_DATA names (skipped where it is unset, failing in CI).

The recount uses plain `json` and nothing of the reader under test: every assistant line of a
file whose line parses, requests the distinct (message.id, requestId), model `<synthetic>`
left out, input and cache fields once per request, output the largest over its lines; tool
results the `tool_result` blocks of user lines. The explore report of each file alone, from the
real command under the seed's route, must state exactly those requests and usage sums (and
SOURCES.md's own recount, restated below); the file whose owner's redactor broke 35 lines is
INVALID (MALFORMED_JSON); a folder mixing pi sessions and transcripts counts both formats.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests._public_data import public_folder
from tests._seed_route import SEED_ROUTE
from tests.e2e._cli import run_cli

FOLDER = "claude-code"
SESSION_SHARE = "moredip_session-share"
M_CLAUDE = "M-Thisness_M-Claude"
MAIN = f"{SESSION_SHARE}/0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl"
SUBAGENT = f"{SESSION_SHARE}/0ccf1a04-1b4c-43b6-8aa5-79e41db43a68/subagents/agent-a5bdbc1.jsonl"
READABLE = (
    MAIN,
    SUBAGENT,
    f"{M_CLAUDE}/abc757d1-3da3-42fb-bb7b-ffa293a4ba29.jsonl",
    f"{M_CLAUDE}/agent-abc3cb6.jsonl",
)
REDACTED = f"{M_CLAUDE}/3af9b1a7-6512-4883-ad18-320658ced099.jsonl"
# SOURCES.md's recount: requests, input, cache_creation, cache_read, output.
SOURCES = {
    MAIN: (11, 70, 46_482, 194_395, 32),
    SUBAGENT: (2, 6, 9_929, 8_915, 4),
    READABLE[2]: (94, 258, 346_886, 6_387_800, 42_661),
    READABLE[3]: (11, 26_244, 75_751, 393_107, 3_586),
}
API = "anthropic-messages"


def recount(path: Path) -> tuple[int, int, int, int, int, int]:
    """(requests, input, cache_creation, cache_read, output, tool results) by the plain rules
    of the module docstring."""
    requests: dict[tuple[Any, Any], list[dict[str, Any]]] = {}
    results = 0
    for raw in path.read_bytes().splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        message = line.get("message")
        if line.get("type") == "user" and isinstance(message.get("content"), list):
            results += sum(1 for b in message["content"] if b.get("type") == "tool_result")
        if line.get("type") != "assistant" or message.get("model") == "<synthetic>":
            continue
        requests.setdefault((message["id"], line.get("requestId")), []).append(message["usage"])
    firsts = [usages[0] for usages in requests.values()]
    return (
        len(requests),
        sum(u["input_tokens"] for u in firsts),
        sum(u.get("cache_creation_input_tokens") or 0 for u in firsts),
        sum(u.get("cache_read_input_tokens") or 0 for u in firsts),
        sum(max(u["output_tokens"] for u in usages) for usages in requests.values()),
        results,
    )


def _routes(into: Path) -> Path:
    routes = into / "routes.json"
    routes.write_text(json.dumps([SEED_ROUTE]))
    return routes


def _explore(sessions: Path, routes: Path) -> dict[str, Any]:
    done = run_cli(["explore", "--sessions", sessions, "--routes", routes])
    assert (done.returncode, done.stderr) == (0, b"")
    report: dict[str, Any] = json.loads(done.stdout)
    return report


@pytest.mark.parametrize("name", READABLE)
def test_each_public_transcript_states_the_independent_recount(name: str, tmp_path: Path) -> None:
    """One transcript explored alone: requests, the four usage sums and tool results equal the
    plain recount and SOURCES.md's; its output tokens, placeholders in these versions, are
    flagged OUTPUT_TOKENS_PLACEHOLDER."""
    source = public_folder(FOLDER) / name
    copy = tmp_path / "project" / Path(name).name
    copy.parent.mkdir()
    shutil.copyfile(source, copy)
    figures = recount(copy)
    assert figures[:5] == SOURCES[name]
    report = _explore(copy.parent, _routes(tmp_path))
    sessions = report["sessions"]
    assert sessions["sessionsRead"] == 1
    assert sessions["byFormat"] == {"CLAUDE_CODE": 1, "CODEX": 0, "PI_SESSION": 0}
    part = report["perApi"][API]
    usage = part["usage"]
    assert part["requests"]["requests"] == figures[0]
    assert (usage["input"], usage["cacheWrite"], usage["cacheRead"], usage["output"]) == (
        figures[1:5]
    )
    assert sum(row["results"] for row in part["toolResults"]) == figures[5]
    assert sessions["placeholderOutputRequests"] > 0
    assert "OUTPUT_TOKENS_PLACEHOLDER" in part["limitations"]


def test_the_folder_with_the_redacted_file_reads_the_rest_and_refuses_it(tmp_path: Path) -> None:
    """Both public projects together, subagent layouts as they are: the file with lines broken
    by its owner's redactor is INVALID MALFORMED_JSON; the other four are read, and their sums
    are the recount's."""
    copied = shutil.copytree(public_folder(FOLDER), tmp_path / "projects")
    (copied / "SOURCES.md").unlink()
    report = _explore(copied, _routes(tmp_path))
    sessions = report["sessions"]
    assert sessions["sessionsRead"] == 4
    assert sessions["skippedSessions"]["INVALID"] == 1
    assert sessions["invalidSessionDetails"] == {"MALFORMED_JSON": 1}
    assert recount(copied / REDACTED)[0] == 114  # SOURCES.md, over its valid lines
    totals = [sum(recount(copied / name)[i] for name in READABLE) for i in range(6)]
    part = report["perApi"][API]
    usage = part["usage"]
    assert [part["requests"]["requests"], usage["input"], usage["cacheWrite"]] == totals[:3]
    assert [usage["cacheRead"], usage["output"]] == totals[3:5]
    assert part["compactions"]["checkpoints"] == 0  # the one compaction is in the refused file


def test_a_mix_of_pi_sessions_and_transcripts_counts_each_format(tmp_path: Path) -> None:
    """pi sessions and Claude Code transcripts in one --sessions folder: each read by its own
    adapter, counted per format."""
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    shutil.copyfile(public_folder(FOLDER) / MAIN, mixed / "cc.jsonl")
    pi = sorted((Path(__file__).parents[1] / "data" / "pi-sessions").rglob("*.jsonl"))[0]
    shutil.copyfile(pi, mixed / "pi.jsonl")
    report = _explore(mixed, _routes(tmp_path))
    assert report["sessions"]["byFormat"] == {"CLAUDE_CODE": 1, "CODEX": 0, "PI_SESSION": 1}
