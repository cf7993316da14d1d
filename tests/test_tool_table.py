"""The reviewed tool table (policy/tools.json, docs/formats/tools.md): sourced entries, one class
per name, the classes the docs state, and no UNKNOWN name in real sessions (pi's writer's, in
tests/data, and the public session files of docs/public-data.md)."""

from __future__ import annotations

import json
import lzma
import re
from pathlib import Path

import pytest

from clearing_analysis.policy import BuiltinClass, tool_classes
from clearing_analysis.toolclass import ToolClass, ToolNames, is_web, tool_class
from tests._public_data import public_folder

WRITER = Path(__file__).resolve().parent / "data" / "pi-sessions" / "writer"
# How many distinct tool names of each public folder are in no agent's table: real-pi2's
# 24-ang/earth-0 sessions call six tools of that project's own pi extension, which no agent
# ships (UNKNOWN is their class, excluded from the upper bound); every other name has a class.
PUBLIC_UNKNOWN_NAMES = {"real-pi": 0, "real-pi2": 6, "real-pi3": 0, "community": 0}
REVISION = re.compile(r"[0-9a-f]{40}|npm \d+\.\d+\.\d+")


def test_every_agent_entry_names_its_source() -> None:
    """Each agent names a repository, a revision (a commit, or the npm version read) and the
    source file; each tool a kind and what it does."""
    agents = tool_classes().pi_agents
    assert {a.agent for a in agents} >= {"pi", "OpenClaw", "oh-my-pi"}
    for agent in agents:
        assert agent.repository and agent.source and agent.version
        assert REVISION.fullmatch(agent.revision), agent.agent
        for tool in agent.tools:
            assert tool.does, tool.name


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("read", ToolClass.READ_ONLY_BUILTIN),
        ("web_fetch", ToolClass.READ_ONLY_BUILTIN),
        ("bash", ToolClass.EFFECTFUL_BUILTIN),
        ("exec", ToolClass.EFFECTFUL_BUILTIN),  # OpenClaw's shell
        ("process", ToolClass.EFFECTFUL_BUILTIN),  # OpenClaw's background shell sessions
        ("apply_patch", ToolClass.EFFECTFUL_BUILTIN),
        ("message", ToolClass.EFFECTFUL_BUILTIN),
        ("todo_write", ToolClass.INSTRUCTION_BUILTIN),
        ("sessions_history", ToolClass.HISTORY_BUILTIN),
        ("memory_search", ToolClass.HISTORY_BUILTIN),
        # oh-my-pi's lsp renames files and applies code actions: classed by that write mode.
        ("lsp", ToolClass.EFFECTFUL_BUILTIN),
        ("search", ToolClass.READ_ONLY_BUILTIN),  # oh-my-pi's legacy alias of grep
        # OpenClaw's session_status(model=...) sets a per-session model override.
        ("session_status", ToolClass.EFFECTFUL_BUILTIN),
        # OpenClaw 2026.9.6's tools beyond its documented groups.
        ("github_identity_status", ToolClass.READ_ONLY_BUILTIN),
        ("github_publish", ToolClass.EFFECTFUL_BUILTIN),
        ("mobile_ui", ToolClass.EFFECTFUL_BUILTIN),
        ("structured_output", ToolClass.INSTRUCTION_BUILTIN),
        ("transcripts", ToolClass.EFFECTFUL_BUILTIN),
        ("zz_extension_tool", ToolClass.UNKNOWN),
        ("", ToolClass.UNKNOWN),
    ],
)
def test_pi_family_classes(name: str, expected: ToolClass) -> None:
    """The classes docs/formats/tools.md states for pi sessions; an unlisted name is UNKNOWN."""
    assert tool_class(name, ToolNames.PI_FAMILY) is expected


def test_native_names_keep_the_app_rule() -> None:
    """In native journals an unlisted name is an app tool (provable by captured origin), never
    UNKNOWN; pi-family names do not leak into the native table."""
    assert tool_class("zz_extension_tool", ToolNames.NATIVE) is ToolClass.APP
    assert tool_class("exec", ToolNames.NATIVE) is ToolClass.APP
    assert tool_class("skill", ToolNames.NATIVE) is ToolClass.INSTRUCTION_BUILTIN
    assert is_web("web_lookup", ToolNames.NATIVE)
    assert not is_web("web_lookup", ToolNames.PI_FAMILY)
    assert is_web("web_search", ToolNames.PI_FAMILY)


def test_kinds_map_to_the_documented_classes() -> None:
    """READ and WEB read; SHELL, EDIT and EFFECTFUL_OTHER act; INSTRUCTION and HISTORY are
    their own classes."""
    assert {k.value: c for k, c in tool_classes().kind_classes.items()} == {
        "READ": BuiltinClass.READ_ONLY_BUILTIN,
        "WEB": BuiltinClass.READ_ONLY_BUILTIN,
        "SHELL": BuiltinClass.EFFECTFUL_BUILTIN,
        "EDIT": BuiltinClass.EFFECTFUL_BUILTIN,
        "EFFECTFUL_OTHER": BuiltinClass.EFFECTFUL_BUILTIN,
        "INSTRUCTION": BuiltinClass.INSTRUCTION_BUILTIN,
        "HISTORY": BuiltinClass.HISTORY_BUILTIN,
    }


def _session_tool_names(text: str) -> set[str]:
    names: set[str] = set()
    for line in text.splitlines()[1:]:
        entry = json.loads(line)
        message = entry.get("message") if entry.get("type") == "message" else None
        if isinstance(message, dict) and message.get("role") == "toolResult":
            names.add(message["toolName"])
    return names


def _unknown_names(texts: list[str]) -> set[str]:
    names = set().union(*(_session_tool_names(text) for text in texts)) - {""}
    assert "read" in names  # not vacuous: these are sessions with tool results
    return {n for n in names if tool_class(n, ToolNames.PI_FAMILY) is ToolClass.UNKNOWN}


def test_writer_sessions_use_no_unknown_name() -> None:
    """Every tool name of the sessions pi's own writer produced has a class."""
    texts = [p.read_text(encoding="utf-8") for p in sorted(WRITER.glob("*.jsonl"))]
    assert _unknown_names(texts) == set()


@pytest.mark.parametrize(("folder", "unknown"), sorted(PUBLIC_UNKNOWN_NAMES.items()))
def test_public_sessions_use_only_known_agents_names(folder: str, unknown: int) -> None:
    """Every tool name of the public sessions has a class (an empty name, which a model
    produced for an orphan result, is the one exception), but for one project's own extension
    tools (PUBLIC_UNKNOWN_NAMES)."""
    root = public_folder(folder)
    texts = [lzma.decompress(p.read_bytes()).decode() for p in sorted(root.glob("*.jsonl.xz"))]
    texts += [p.read_text(encoding="utf-8") for p in sorted(root.glob("*.jsonl"))]
    assert len(_unknown_names(texts)) == unknown
