"""The reviewed tool table (policy/tools.json, docs/formats/tools.md): sourced entries, one class
per name, the classes the docs state, and no UNKNOWN name in real sessions (pi's writer's, in
tests/data, the public session files of docs/public-data.md and the public Claude Code
transcripts)."""

from __future__ import annotations

import json
import lzma
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest

from clearing_analysis.policy import BuiltinClass, ToolClasses, read_policy_bytes, tool_classes
from clearing_analysis.toolclass import ToolClass, ToolNames, is_web, mcp_tool_part, tool_class
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


# Claude Code transcripts (ToolNames.CLAUDE_CODE): the built-ins of its releases, MCP app names.


def test_every_claude_code_entry_names_its_source() -> None:
    """Each Claude Code release entry names a repository, a revision (a commit, or the npm
    version read) and the source; each tool a kind and what it does; no built-in has the MCP
    prefix."""
    policy = tool_classes()
    agents = policy.claude_code_agents
    assert {a.agent for a in agents} == {"Claude Code"}
    for agent in agents:
        assert agent.repository and agent.source and agent.version
        assert REVISION.fullmatch(agent.revision), agent.version
        for tool in agent.tools:
            assert tool.does, tool.name
            assert not tool.name.startswith(policy.mcp_tool_prefix), tool.name
    assert policy.mcp_tool_prefix == "mcp__"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Read", ToolClass.READ_ONLY_BUILTIN),
        ("Grep", ToolClass.READ_ONLY_BUILTIN),
        ("Glob", ToolClass.READ_ONLY_BUILTIN),
        ("LS", ToolClass.READ_ONLY_BUILTIN),
        ("NotebookRead", ToolClass.READ_ONLY_BUILTIN),
        ("LSP", ToolClass.READ_ONLY_BUILTIN),  # navigation and diagnostics, no rename
        ("WebFetch", ToolClass.READ_ONLY_BUILTIN),
        ("WebSearch", ToolClass.READ_ONLY_BUILTIN),
        ("Bash", ToolClass.EFFECTFUL_BUILTIN),
        ("BashOutput", ToolClass.EFFECTFUL_BUILTIN),  # polls a background shell
        ("TaskOutput", ToolClass.EFFECTFUL_BUILTIN),  # BashOutput's successor
        ("KillShell", ToolClass.EFFECTFUL_BUILTIN),
        ("KillBash", ToolClass.EFFECTFUL_BUILTIN),
        ("TaskStop", ToolClass.EFFECTFUL_BUILTIN),
        ("Edit", ToolClass.EFFECTFUL_BUILTIN),
        ("MultiEdit", ToolClass.EFFECTFUL_BUILTIN),
        ("Write", ToolClass.EFFECTFUL_BUILTIN),
        ("NotebookEdit", ToolClass.EFFECTFUL_BUILTIN),
        ("Task", ToolClass.EFFECTFUL_BUILTIN),  # spawns a subagent
        ("Agent", ToolClass.EFFECTFUL_BUILTIN),
        ("AskUserQuestion", ToolClass.EFFECTFUL_BUILTIN),
        ("TodoWrite", ToolClass.INSTRUCTION_BUILTIN),
        ("ExitPlanMode", ToolClass.INSTRUCTION_BUILTIN),
        ("EnterPlanMode", ToolClass.INSTRUCTION_BUILTIN),
        ("SlashCommand", ToolClass.INSTRUCTION_BUILTIN),
        ("Skill", ToolClass.INSTRUCTION_BUILTIN),
        ("ToolSearch", ToolClass.INSTRUCTION_BUILTIN),
        ("TaskCreate", ToolClass.INSTRUCTION_BUILTIN),
        ("ListAgents", ToolClass.HISTORY_BUILTIN),
        ("mcp__github__get_issue", ToolClass.APP),
        ("mcp__a__b", ToolClass.APP),
        # The prefix alone, or a server without a tool, is no MCP name Claude Code writes.
        ("mcp__", ToolClass.UNKNOWN),
        ("mcp__github", ToolClass.UNKNOWN),
        ("mcp__github__", ToolClass.UNKNOWN),
        ("mcp____get_issue", ToolClass.UNKNOWN),
        ("read", ToolClass.UNKNOWN),  # pi's name, not Claude Code's: names are case-sensitive
        ("zz_extension_tool", ToolClass.UNKNOWN),
        ("", ToolClass.UNKNOWN),
    ],
)
def test_claude_code_classes(name: str, expected: ToolClass) -> None:
    """The classes docs/formats/tools.md states for Claude Code transcripts: built-ins by their
    kind, `mcp__<server>__<tool>` an app tool, any other name UNKNOWN."""
    assert tool_class(name, ToolNames.CLAUDE_CODE) is expected


def test_claude_code_names_stay_in_their_table() -> None:
    """Claude Code's names do not leak into the pi or native tables, nor pi's into Claude
    Code's; an MCP name is an app tool natively too, but UNKNOWN for pi (no origin, no
    naming rule)."""
    assert tool_class("Read", ToolNames.PI_FAMILY) is ToolClass.UNKNOWN
    assert tool_class("Read", ToolNames.NATIVE) is ToolClass.APP
    assert tool_class("bash", ToolNames.CLAUDE_CODE) is ToolClass.UNKNOWN
    assert tool_class("mcp__github__get_issue", ToolNames.PI_FAMILY) is ToolClass.UNKNOWN


def test_claude_code_web_category() -> None:
    """WebFetch and WebSearch are web; an MCP tool is web when its tool part has the web
    prefix (as a native app tool's name), never by its server part."""
    assert is_web("WebFetch", ToolNames.CLAUDE_CODE)
    assert is_web("WebSearch", ToolNames.CLAUDE_CODE)
    assert is_web("mcp__search__web_lookup", ToolNames.CLAUDE_CODE)
    assert not is_web("mcp__web_tools__lookup", ToolNames.CLAUDE_CODE)
    assert not is_web("Read", ToolNames.CLAUDE_CODE)
    assert not is_web("web_fetch", ToolNames.CLAUDE_CODE)  # pi's and OpenClaw's name


def test_mcp_tool_part() -> None:
    """The tool part of an MCP name is what follows the server's separator."""
    assert mcp_tool_part("mcp__github__get_issue") == "get_issue"
    assert mcp_tool_part("mcp__srv__a__b") == "a__b"
    assert mcp_tool_part("mcp__srv") is None
    assert mcp_tool_part("Read") is None


def _tools_document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(read_policy_bytes("tools.json"))
    return document


def _decode(document: dict[str, Any]) -> ToolClasses:
    return msgspec.json.decode(json.dumps(document).encode(), type=ToolClasses)


def test_the_claude_code_section_is_read_strictly() -> None:
    """The loader refuses a Claude Code tool with two classes, a built-in with the MCP prefix,
    an unknown field, a missing prefix and an unknown kind."""
    assert _decode(_tools_document()).claude_code_classes == tool_classes().claude_code_classes
    two = _tools_document()
    two["claudeCodeAgents"][0]["tools"].append({"name": "Read", "kind": "EDIT", "does": "x"})
    with pytest.raises(msgspec.ValidationError, match="two classes"):
        _decode(two)
    prefixed = _tools_document()
    prefixed["claudeCodeAgents"][0]["tools"].append(
        {"name": "mcp__a__b", "kind": "READ", "does": "x"}
    )
    with pytest.raises(msgspec.ValidationError, match="MCP prefix"):
        _decode(prefixed)
    unknown = _tools_document()
    unknown["claudeCodeAgents"][0]["homepage"] = "x"
    with pytest.raises(msgspec.ValidationError, match="homepage"):
        _decode(unknown)
    missing = _tools_document()
    del missing["mcpToolPrefix"]
    with pytest.raises(msgspec.ValidationError, match="mcpToolPrefix"):
        _decode(missing)
    kind = _tools_document()
    kind["claudeCodeAgents"][0]["tools"][0]["kind"] = "NETWORK"
    with pytest.raises(msgspec.ValidationError):
        _decode(kind)


def _transcript_tool_names(path: Path) -> set[str]:
    """tool_use names of a Claude Code transcript's readable lines (one public file has lines
    its owner's redactor broke, SOURCES.md)."""
    names: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                names.add(block["name"])
    return names


def test_public_claude_code_transcripts_use_no_unknown_name() -> None:
    """Every tool name of the public Claude Code transcripts (2.0.72 to 2.1.16, main sessions
    and both subagent layouts) has a class."""
    paths = sorted(public_folder("claude-code").rglob("*.jsonl"))
    assert len(paths) == 5
    names = set().union(*(_transcript_tool_names(p) for p in paths))
    assert {"Bash", "Read", "Task", "TaskOutput", "TodoWrite"} <= names  # not vacuous
    assert {n for n in names if tool_class(n, ToolNames.CLAUDE_CODE) is ToolClass.UNKNOWN} == set()
