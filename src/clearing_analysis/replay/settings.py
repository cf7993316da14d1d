"""The reviewed numbers and tool classes replay and eligibility enforce (policy/*.json).

`policy/eligibility.json` fixes the protection windows (R-SIM-8), the heuristic's divisor and
per-image charge (R-SIM-1) and the retention floor (R-RT-3); `policy/tools.json` fixes the
built-in tool classes (R-EL-6, docs/replay.md). Both decode strictly: a reviewer who breaks
one gets a startup failure, not a silently different analysis.
"""

from __future__ import annotations

import functools
from typing import Annotated

import msgspec

from clearing_analysis.policy import read_policy_bytes

PositiveInt = Annotated[int, msgspec.Meta(gt=0)]
Fraction = Annotated[float, msgspec.Meta(ge=0, le=1)]
ToolName = Annotated[str, msgspec.Meta(min_length=1)]


class _Policy(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    """Strict, immutable, camelCase on disk."""


class EligibilityPolicy(_Policy, frozen=True):
    """Protection windows, heuristic constants and the retention coverage floor."""

    protected_prompt_turns: PositiveInt
    protected_tool_starts: PositiveInt
    tokens_per_image: PositiveInt
    utf16_units_per_token: PositiveInt
    retention_coverage_floor: Fraction


class ToolClasses(_Policy, frozen=True):
    """Built-in tool names by class; every other name is an app (MCP) tool."""

    read_only_builtins: frozenset[ToolName]
    effectful_builtins: frozenset[ToolName]
    instruction_builtins: frozenset[ToolName]
    history_builtins: frozenset[ToolName]
    web_builtins: frozenset[ToolName]
    web_app_tool_prefix: ToolName

    def __post_init__(self) -> None:
        classes = (
            self.read_only_builtins,
            self.effectful_builtins,
            self.instruction_builtins,
            self.history_builtins,
        )
        names = [name for cls in classes for name in cls]
        if len(names) != len(set(names)):
            raise ValueError("a tool name belongs to two classes in policy/tools.json")
        if not self.web_builtins <= self.read_only_builtins:
            raise ValueError("web built-ins must be read-only built-ins in policy/tools.json")


@functools.cache
def eligibility_policy() -> EligibilityPolicy:
    """policy/eligibility.json, decoded once."""
    return msgspec.json.decode(read_policy_bytes("eligibility.json"), type=EligibilityPolicy)


@functools.cache
def tool_classes() -> ToolClasses:
    """policy/tools.json, decoded once."""
    return msgspec.json.decode(read_policy_bytes("tools.json"), type=ToolClasses)
