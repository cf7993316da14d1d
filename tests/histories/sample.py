"""The sample Claude Code project committed under tests/data/claude-code/ (docs/explore.md
runs `explore` on it): a session with split responses, parallel built-in and MCP calls, an
error result, a rewind and an auto compaction, and a subagent in the current layout. Written
by the builder, so `python -m tests.histories.sample` rewrites it and a test checks that the
committed files are what it writes."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.histories.builder import Transcript, text, thinking, tool_use

SESSION = "5a3e0c1d-7f2b-4c8e-9d10-3b6a2f4e8c71"
FOLDER = Path(__file__).resolve().parents[1] / "data" / "claude-code"


def _session() -> Transcript:
    t = Transcript(session_id=SESSION, cwd="/home/dev/shop")
    t.bookkeeping()
    root = t.prompt("Find where prices are rounded and fix the off-by-one.")
    t.response([text("Let me look.")], input_tokens=4, cache_write=9_000, cache_read=0)
    t.prompt(
        "Actually, start with the tests.", parent=root
    )  # a rewind: the line above is abandoned
    calls = t.response(
        [
            thinking("The tests will show the failing case."),
            tool_use("toolu_s1", "Grep", pattern="round("),
            tool_use("toolu_s2", "Read", file_path="/home/dev/shop/tests/test_prices.py"),
            tool_use("toolu_s3", "mcp__tracker__search_issues", query="rounding"),
        ],
        input_tokens=6,
        cache_write=9_400,
        cache_read=0,
        outputs=[12, 40, 80, 120],
        stop_reason="tool_use",
    )
    t.results([("toolu_s1", "prices.py:42: return round(value - 0.5)\n" * 3)], parent=calls[1])
    t.results(
        [("toolu_s2", "def test_round():\n    assert price(1.25) == 1.3\n" * 20)],
        parent=calls[2],
    )
    t.results([("toolu_s3", "#118 Prices off by one cent (open)\n" * 5)], parent=calls[3])
    more = t.response(
        [tool_use("toolu_s4", "Task", description="check callers", prompt="List the callers.")],
        input_tokens=3,
        cache_write=2_100,
        cache_read=9_400,
        outputs=[60],
        stop_reason="tool_use",
    )
    t.results([("toolu_s4", "Two callers: checkout.py and invoice.py.")], parent=more[0])
    fix = t.response(
        [tool_use("toolu_s5", "Edit", file_path="/home/dev/shop/prices.py", old="- 0.5", new="")],
        input_tokens=3,
        cache_write=800,
        cache_read=11_500,
        outputs=[90],
        stop_reason="tool_use",
    )
    t.results([("toolu_s5", "The file was edited.")], parent=fix[0])
    test = t.response(
        [tool_use("toolu_s6", "Bash", command="pytest -q tests/test_prices.py")],
        input_tokens=3,
        cache_write=300,
        cache_read=12_300,
        outputs=[40],
        stop_reason="tool_use",
    )
    t.results([("toolu_s6", "1 failed: expected 1.3, got 1.2\n" * 30)], error=True, parent=test[0])
    t.response([text("One case still fails; rounding half up next.")], outputs=[30])
    t.compaction("manual", 14_000)
    t.prompt("Go on.")
    t.response([text("Fixed with Decimal rounding; the tests pass.")], cache_read=3_000)
    t.system("turn_duration")
    return t


def _subagent() -> Transcript:
    t = Transcript(session_id=SESSION, agent_id="a71c2e4", sidechain=True, cwd="/home/dev/shop")
    t.prompt("List the callers.")
    calls = t.response(
        [tool_use("toolu_a1", "Grep", pattern="price(")],
        input_tokens=2,
        cache_write=4_000,
        cache_read=0,
        outputs=[30],
        stop_reason="tool_use",
    )
    t.results([("toolu_a1", "checkout.py:10\ninvoice.py:22\n")], parent=calls[0])
    t.response([text("Two callers: checkout.py and invoice.py.")], cache_read=4_000, outputs=[15])
    return t


def write(folder: Path = FOLDER) -> list[Path]:
    """Write the sample project under `folder`; the files written."""
    project = folder / "-home-dev-shop"
    return [
        _session().write(project / f"{SESSION}.jsonl"),
        _subagent().write(project / SESSION / "subagents" / "agent-a71c2e4.jsonl"),
    ]


if __name__ == "__main__":
    for path in write():
        sys.stdout.write(f"{path}\n")
