"""Codex's tool table (policy/tools.json `codexAgents`, docs/formats/tools.md): a sourced entry,
the classes the docs state, MCP names as app tools, and no unknown name in the public
rollouts but the ones their publisher redacted."""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec
import pytest

from clearing_analysis.policy import ToolClasses, read_policy_bytes, tool_classes
from clearing_analysis.toolclass import ToolClass, ToolNames, is_web, tool_class
from tests._public_data import public_folder

REVISION = re.compile(r"[0-9a-f]{40}")
# The public rollouts' publisher replaced some MCP tool names (SOURCES.md).
REDACTED_NAME = re.compile(r"\[REDACTED_NAME len=\d+ sha=[0-9a-f]{8}\]")


def test_the_codex_entry_names_its_source() -> None:
    """The Codex entry names its repository, a commit and the source file; each tool what it
    does; no built-in has the MCP prefix."""
    policy = tool_classes()
    (agent,) = policy.codex_agents
    assert (agent.agent, agent.repository) == ("Codex", "openai/codex")
    assert REVISION.fullmatch(agent.revision)
    assert agent.source.startswith("codex-rs/core/src/tools/spec.rs")
    for tool in agent.tools:
        assert tool.does, tool.name
        assert not tool.name.startswith(policy.mcp_tool_prefix), tool.name


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("shell", ToolClass.EFFECTFUL_BUILTIN),
        ("container.exec", ToolClass.EFFECTFUL_BUILTIN),
        ("local_shell", ToolClass.EFFECTFUL_BUILTIN),
        ("shell_command", ToolClass.EFFECTFUL_BUILTIN),
        ("exec_command", ToolClass.EFFECTFUL_BUILTIN),
        ("write_stdin", ToolClass.EFFECTFUL_BUILTIN),  # writes to, or polls, a running command
        ("js_repl", ToolClass.EFFECTFUL_BUILTIN),
        ("apply_patch", ToolClass.EFFECTFUL_BUILTIN),
        ("request_user_input", ToolClass.EFFECTFUL_BUILTIN),
        ("spawn_agent", ToolClass.EFFECTFUL_BUILTIN),
        ("update_plan", ToolClass.INSTRUCTION_BUILTIN),
        ("view_image", ToolClass.READ_ONLY_BUILTIN),
        ("web_search", ToolClass.READ_ONLY_BUILTIN),
        ("list_mcp_resources", ToolClass.READ_ONLY_BUILTIN),
        ("list_mcp_resource_templates", ToolClass.READ_ONLY_BUILTIN),
        ("read_mcp_resource", ToolClass.READ_ONLY_BUILTIN),
        ("read_file", ToolClass.READ_ONLY_BUILTIN),
        ("get_memory", ToolClass.HISTORY_BUILTIN),
        ("mcp__n8n-mcp__n8n_health_check", ToolClass.APP),
        ("mcp__", ToolClass.UNKNOWN),
        ("mcp__server__", ToolClass.UNKNOWN),
        ("Bash", ToolClass.UNKNOWN),  # Claude Code's name, not Codex's
        ("bash", ToolClass.UNKNOWN),  # pi's
        ("", ToolClass.UNKNOWN),
    ],
)
def test_codex_classes(name: str, expected: ToolClass) -> None:
    """Built-ins by their kind, `mcp__<server>__<tool>` an app tool, any other name UNKNOWN."""
    assert tool_class(name, ToolNames.CODEX) is expected


def test_codex_names_stay_in_their_table() -> None:
    """Codex's names are not pi's or Claude Code's built-ins."""
    assert tool_class("exec_command", ToolNames.PI_FAMILY) is ToolClass.UNKNOWN
    assert tool_class("exec_command", ToolNames.CLAUDE_CODE) is ToolClass.UNKNOWN


def test_codex_web_category() -> None:
    """web_search is web; an MCP tool is web by its tool part."""
    assert is_web("web_search", ToolNames.CODEX)
    assert is_web("mcp__s__web_lookup", ToolNames.CODEX)
    assert not is_web("mcp__web__lookup", ToolNames.CODEX)
    assert not is_web("exec_command", ToolNames.CODEX)


def test_the_codex_section_is_read_strictly() -> None:
    """The loader refuses a Codex tool with two classes and a built-in with the MCP prefix."""
    document: dict[str, Any] = json.loads(read_policy_bytes("tools.json"))
    two = json.loads(json.dumps(document))
    two["codexAgents"][0]["tools"].append({"name": "shell", "kind": "READ", "does": "x"})
    with pytest.raises(msgspec.ValidationError, match="two classes"):
        msgspec.json.decode(json.dumps(two).encode(), type=ToolClasses)
    prefixed = json.loads(json.dumps(document))
    prefixed["codexAgents"][0]["tools"].append({"name": "mcp__a__b", "kind": "READ", "does": "x"})
    with pytest.raises(msgspec.ValidationError, match="MCP prefix"):
        msgspec.json.decode(json.dumps(prefixed).encode(), type=ToolClasses)


def test_public_rollouts_use_no_unknown_name_but_redacted_ones() -> None:
    """Every tool name of the public rollouts has a class, but the names their publisher
    redacted (UNKNOWN: excluded from the upper bound)."""
    names: set[str] = set()
    for path in public_folder("codex").rglob("rollout-*.jsonl"):
        for raw in path.read_bytes().splitlines():
            payload = json.loads(raw)["payload"]
            if payload.get("type") in ("function_call", "custom_tool_call"):
                names.add(payload["name"])
    assert {"exec_command", "apply_patch", "write_stdin", "update_plan"} <= names
    unknown = {n for n in names if tool_class(n, ToolNames.CODEX) is ToolClass.UNKNOWN}
    assert unknown and all(REDACTED_NAME.fullmatch(n) for n in unknown)
