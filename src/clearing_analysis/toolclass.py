"""A tool's class by its name, from the reviewed tables of policy/tools.json (R-EL-6).

Two tables, by where the history comes from (docs/formats/tools.md):

- NATIVE (native journals, `analyze`): the native agent's built-ins; every other name is an app
  (MCP) tool, proven only by captured origin (seed: "Without captured provenance, app results
  remain upper-bound only").
- PI_FAMILY (pi sessions, `explore`): the built-ins of pi and of the pi-based agents that write
  pi's session format (OpenClaw, oh-my-pi, ...), each with its public source; a name none of
  them has is UNKNOWN: pi records no origin, so nothing says what such a tool does. It is
  reported with its result count and bytes and excluded from the upper bound.

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


@functools.cache
def _table(names: ToolNames) -> tuple[dict[str, ToolClass], frozenset[str]]:
    """(name -> class, web names) of one table."""
    policy = tool_classes()
    if names is ToolNames.PI_FAMILY:
        return {n: ToolClass(c.value) for n, c in policy.pi_classes.items()}, policy.pi_web
    classes = {
        **dict.fromkeys(policy.read_only_builtins, ToolClass.READ_ONLY_BUILTIN),
        **dict.fromkeys(policy.effectful_builtins, ToolClass.EFFECTFUL_BUILTIN),
        **dict.fromkeys(policy.instruction_builtins, ToolClass.INSTRUCTION_BUILTIN),
        **dict.fromkeys(policy.history_builtins, ToolClass.HISTORY_BUILTIN),
    }
    return classes, policy.web_builtins


def tool_class(name: str, names: ToolNames = ToolNames.NATIVE) -> ToolClass:
    """The class of a tool by its message name, in the table `names`."""
    classes, _ = _table(names)
    found = classes.get(name)
    if found is not None:
        return found
    return ToolClass.APP if names is ToolNames.NATIVE else ToolClass.UNKNOWN


def is_web(name: str, names: ToolNames = ToolNames.NATIVE) -> bool:
    """The web category: web built-ins, and (native) app tools whose name has the web prefix."""
    _, web = _table(names)
    if name in web:
        return True
    prefix = tool_classes().web_app_tool_prefix
    return tool_class(name, names) is ToolClass.APP and name.startswith(prefix)


__all__ = ["ToolClass", "ToolNames", "is_web", "tool_class"]
