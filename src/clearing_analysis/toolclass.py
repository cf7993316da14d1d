"""A tool's class by its name, from the reviewed tables of policy/tools.json (R-EL-6).

Four tables, by where the history comes from (docs/formats/tools.md):

- NATIVE (native journals, `analyze`): the native agent's built-ins; every other name is an app
  (MCP) tool, proven only by captured origin (seed: "Without captured provenance, app results
  remain upper-bound only").
- PI_FAMILY (pi sessions, `explore`): the built-ins of pi and of the pi-based agents that write
  pi's session format (OpenClaw, oh-my-pi, ...), each with its public source; a name none of
  them has is UNKNOWN: pi records no origin, so nothing says what such a tool does. It is
  reported with its result count and bytes and excluded from the upper bound.
- CLAUDE_CODE (Claude Code transcripts, `explore`): the built-ins of Claude Code's releases, each
  with its public source. Claude Code names an MCP server's tool `mcp__<server>__<tool>`, so
  such a name is an app tool (APP: the allowlist rules apply, and a transcript records no
  captured origin, so its results stay upper bound only); any other name is UNKNOWN, as in pi.
- CODEX (Codex CLI rollouts, `explore`): Codex's built-ins, with their source; Codex names an
  MCP server's tool `mcp__<server>__<tool>` as Claude Code does, so the same APP rule holds, and
  any other name is UNKNOWN.

Replay classifies each result once; later stages read `ToolResult.tool_class`.
"""

from __future__ import annotations

import enum
import functools

from clearing_analysis.policy import tool_classes


class ToolClass(enum.StrEnum):
    """Tool class by name."""

    READ_ONLY_BUILTIN = "READ_ONLY_BUILTIN"
    EFFECTFUL_BUILTIN = "EFFECTFUL_BUILTIN"
    INSTRUCTION_BUILTIN = "INSTRUCTION_BUILTIN"
    HISTORY_BUILTIN = "HISTORY_BUILTIN"
    APP = "APP"
    UNKNOWN = "UNKNOWN"


class ToolNames(enum.StrEnum):
    """Which reviewed table names a history's tools."""

    NATIVE = "NATIVE"
    PI_FAMILY = "PI_FAMILY"
    CLAUDE_CODE = "CLAUDE_CODE"
    CODEX = "CODEX"


@functools.cache
def _table(names: ToolNames) -> tuple[dict[str, ToolClass], frozenset[str]]:
    """(name -> class, web names) of one table."""
    policy = tool_classes()
    if names is ToolNames.PI_FAMILY:
        return {n: ToolClass(c.value) for n, c in policy.pi_classes.items()}, policy.pi_web
    if names is ToolNames.CLAUDE_CODE:
        classes = {n: ToolClass(c.value) for n, c in policy.claude_code_classes.items()}
        return classes, policy.claude_code_web
    if names is ToolNames.CODEX:
        classes = {n: ToolClass(c.value) for n, c in policy.codex_classes.items()}
        return classes, policy.codex_web
    classes = {
        **dict.fromkeys(policy.read_only_builtins, ToolClass.READ_ONLY_BUILTIN),
        **dict.fromkeys(policy.effectful_builtins, ToolClass.EFFECTFUL_BUILTIN),
        **dict.fromkeys(policy.instruction_builtins, ToolClass.INSTRUCTION_BUILTIN),
        **dict.fromkeys(policy.history_builtins, ToolClass.HISTORY_BUILTIN),
    }
    return classes, policy.web_builtins


# The tables whose agents name an MCP tool `mcp__<server>__<tool>`.
_MCP_NAMED = frozenset({ToolNames.CLAUDE_CODE, ToolNames.CODEX})


def mcp_tool_part(name: str) -> str | None:
    """The tool part of a Claude Code MCP name `mcp__<server>__<tool>` (server and tool not
    empty), else None. The server part ends at its first separator: Claude Code keeps only
    letters, digits, `_` and `-` of a server's name, so a name holding `__` is not split
    where the server meant, and only the web category reads the part."""
    prefix = tool_classes().mcp_tool_prefix
    if not name.startswith(prefix):
        return None
    server, separator, tool = name[len(prefix) :].partition("__")
    return tool if server and separator and tool else None


def tool_class(name: str, names: ToolNames = ToolNames.NATIVE) -> ToolClass:
    """The class of a tool by its message name, in the table `names`."""
    classes, _ = _table(names)
    found = classes.get(name)
    if found is not None:
        return found
    if names is ToolNames.NATIVE:
        return ToolClass.APP
    if names in _MCP_NAMED and mcp_tool_part(name) is not None:
        return ToolClass.APP
    return ToolClass.UNKNOWN


def is_web(name: str, names: ToolNames = ToolNames.NATIVE) -> bool:
    """The web category: web built-ins, and app tools whose (native) name or (Claude Code) MCP
    tool part has the web prefix."""
    _, web = _table(names)
    if name in web:
        return True
    if tool_class(name, names) is not ToolClass.APP:
        return False
    prefix = tool_classes().web_app_tool_prefix
    app_name = mcp_tool_part(name) if names in _MCP_NAMED else name
    return app_name is not None and app_name.startswith(prefix)


__all__ = ["ToolClass", "ToolNames", "is_web", "mcp_tool_part", "tool_class"]
