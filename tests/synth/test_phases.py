"""Sessions in phases (`Profile.phases`) and corpora of chosen APIs (`Profile.apis`).

The `read-then-edit` profile reads for six prompt turns after the session's start and after
every compaction, then edits and tests until the next compaction, and writes one API only.
The journals are read back as JSON lines, independently of the generator's own bookkeeping.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from clearing_analysis.synth import PROFILES, generate
from clearing_analysis.synth.toolmix import APP_TOOLS

PROFILE = PROFILES["read-then-edit"]
READING, EDITING = PROFILE.phases
APP_NAMES = {tool.tool for tool in APP_TOOLS}


def _names(weights: dict[str, float]) -> set[str]:
    """The tool names a phase's mix can produce (its app entry stands for every app tool)."""
    names = set(weights) - {"app"}
    return names | APP_NAMES if "app" in weights else names


def _tools_by_phase(journal: Path) -> tuple[Counter[str], Counter[str], int]:
    """Tool calls of reading turns and of editing turns, and the checkpoints met."""
    reading: Counter[str] = Counter()
    editing: Counter[str] = Counter()
    since_checkpoint = -1  # prompt turns since the start or the last checkpoint, minus one
    checkpoints = 0
    for line in journal.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["kind"] == "checkpoint":
            since_checkpoint = -1
            checkpoints += 1
        elif record["kind"] == "run_start" and record["reason"] == "prompt":
            since_checkpoint += 1
        elif record["kind"] == "tool_call_start":
            phase = reading if since_checkpoint < READING.turns else editing
            phase[record["toolName"]] += 1
    return reading, editing, checkpoints


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("phases") / "corpus"
    generate(root, 5, conversations=2, profile="read-then-edit")
    return root


def test_turns_read_after_each_start_and_compaction_then_edit(corpus: Path) -> None:
    """The first six prompt turns after the start and after every checkpoint call only the
    reading mix's tools, every later turn only the editing mix's; reads dominate the first,
    edits and shell commands the second, and every session compacts several times."""
    for journal in sorted((corpus / "journals").glob("*.jsonl")):
        reading, editing, checkpoints = _tools_by_phase(journal)
        assert checkpoints >= 3
        assert set(reading) <= _names(READING.tool_weights)
        assert set(editing) <= _names(EDITING.tool_weights)
        assert reading["read"] > reading.total() / 2
        assert editing["edit"] + editing["bash"] > editing.total() / 2
        assert "edit" not in reading
        assert "web_fetch" not in editing


def test_corpus_holds_only_the_profiles_api(corpus: Path) -> None:
    """Every assistant message and the routes file name only openai-responses."""
    routes = json.loads((corpus / "routes.json").read_text(encoding="utf-8"))
    assert [route["api"] for route in routes] == list(PROFILE.apis) == ["openai-responses"]
    apis: set[str] = set()
    for journal in (corpus / "journals").glob("*.jsonl"):
        for line in journal.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            message = record.get("message", {})
            if record["kind"] == "message" and message.get("role") == "assistant":
                apis.add(message["api"])
    assert apis == {"openai-responses"}


def test_profiles_without_phases_draw_from_their_own_mix(tmp_path: Path) -> None:
    """A profile without phases has one tool mix for every turn: the same tools before and
    after the sixth turn of each compaction cycle (read, bash and edit both times)."""
    generate(tmp_path / "c", 5, conversations=1, profile="build")
    (journal,) = sorted((tmp_path / "c" / "journals").glob("*.jsonl"))
    reading, editing, _ = _tools_by_phase(journal)
    for tool in ("read", "bash", "edit"):
        assert reading[tool] > 0
        assert editing[tool] > 0
