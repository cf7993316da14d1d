"""Reviewed data the analyzer enforces, read from the repository's `policy/` directory.

Thresholds, limits, tool classes, the placeholder text, guard detectors and schemas are data,
not literals in code: a reviewer changes them in one place (`policy/`) and the tests check them.
This is the one module that decodes them, each strictly into a frozen struct (unknown fields
refused), so a reviewer who breaks a file gets a startup failure, not a silently different
analysis. In a checkout `policy/` sits at the repository root; an installed wheel carries it
as `clearing_analysis/_policy`.

- limits.json: decoding limits for untrusted input;
- eligibility.json: protection windows (R-SIM-8), the heuristic's divisor and per-image charge
  (R-SIM-1), the retention coverage floor (R-RT-3);
- tools.json: built-in tool classes (R-EL-6, docs/replay.md);
- simulation.json, gate.json: the simulation's constants and the gate's fixed thresholds;
- histograms.json: the report's bucket edges; placeholder.txt: the cleared-result placeholder.
"""

from __future__ import annotations

import functools
import itertools
import json
from pathlib import Path
from typing import Annotated, Any

import msgspec

_PACKAGE_DIR = Path(__file__).resolve().parent


@functools.cache
def policy_dir() -> Path:
    """The directory holding the policy files (wheel copy first, then the checkout)."""
    for candidate in (_PACKAGE_DIR / "_policy", _PACKAGE_DIR.parent.parent / "policy"):
        if (candidate / "limits.json").is_file():
            return candidate
    raise RuntimeError("policy directory not found: broken installation")


def read_policy_bytes(name: str) -> bytes:
    """Raw bytes of one policy file (relative name, e.g. 'schemas/routes.schema.json')."""
    return (policy_dir() / name).read_bytes()


def load_policy_json(name: str) -> Any:
    """A policy JSON file, parsed. Policy files are reviewed, trusted data."""
    return json.loads(read_policy_bytes(name))


class Limits(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    """Resource limits for decoding untrusted input (bytes and nesting levels)."""

    max_journal_line_bytes: int
    max_nesting_depth: int
    max_config_file_bytes: int
    max_qualification_file_bytes: int


@functools.cache
def limits() -> Limits:
    """The decoding limits from policy/limits.json."""
    return msgspec.json.decode(read_policy_bytes("limits.json"), type=Limits)


PositiveInt = Annotated[int, msgspec.Meta(gt=0)]
UnitInterval = Annotated[float, msgspec.Meta(ge=0, le=1)]
ToolName = Annotated[str, msgspec.Meta(min_length=1)]


class _Policy(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    """Strict, immutable, camelCase on disk."""


class EligibilityPolicy(_Policy, frozen=True):
    """Protection windows, heuristic constants and the retention coverage floor."""

    protected_prompt_turns: PositiveInt
    protected_tool_starts: PositiveInt
    tokens_per_image: PositiveInt
    utf16_units_per_token: PositiveInt
    retention_coverage_floor: UnitInterval


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


class SimulationPolicy(_Policy, frozen=True):
    """The clearing simulation's constants (R-SIM-4, R-SIM-8..10, R-PM-2, R-CM-7)."""

    comment: str
    conversation_budget_bytes: PositiveInt
    batch_separation_prompt_runs: PositiveInt
    pressure_low_fraction: UnitInterval
    summary_tokens_per_cleared_result_cap: PositiveInt
    retrieval_output_tokens: PositiveInt


class GatePolicy(_Policy, frozen=True):
    """The fixed thresholds of the decision gate (R-G, R-CLI-4, R-CM-1)."""

    comment: str
    min_pressured_boundaries: PositiveInt
    min_logical_conversations: PositiveInt
    min_cold_pressured_boundaries: PositiveInt
    admitted_net_tokens_per_boundary: PositiveInt
    min_admitting_share: UnitInterval
    min_pressure_reduction: UnitInterval
    max_cost_increase: UnitInterval
    max_fallback_share: UnitInterval
    retrieval_sensitivities: tuple[UnitInterval, ...]
    default_retrieval_rate: UnitInterval


class HistogramEdges(_Policy, frozen=True):
    """Lower bucket edges of the report's histograms, strictly increasing."""

    comment: str
    request_gap_ms: tuple[int, ...]
    tokens: tuple[int, ...]

    def __post_init__(self) -> None:
        for edges in (self.request_gap_ms, self.tokens):
            if not edges or any(b <= a for a, b in itertools.pairwise(edges)):
                raise ValueError("histogram edges must be non-empty and strictly increasing")


@functools.cache
def eligibility_policy() -> EligibilityPolicy:
    """policy/eligibility.json, decoded once."""
    return msgspec.json.decode(read_policy_bytes("eligibility.json"), type=EligibilityPolicy)


@functools.cache
def tool_classes() -> ToolClasses:
    """policy/tools.json, decoded once."""
    return msgspec.json.decode(read_policy_bytes("tools.json"), type=ToolClasses)


@functools.cache
def simulation_policy() -> SimulationPolicy:
    """policy/simulation.json, decoded once."""
    return msgspec.json.decode(read_policy_bytes("simulation.json"), type=SimulationPolicy)


@functools.cache
def gate_policy() -> GatePolicy:
    """policy/gate.json, decoded once."""
    return msgspec.json.decode(read_policy_bytes("gate.json"), type=GatePolicy)


@functools.cache
def histogram_edges() -> HistogramEdges:
    """policy/histograms.json, decoded once."""
    return msgspec.json.decode(read_policy_bytes("histograms.json"), type=HistogramEdges)


@functools.cache
def placeholder_text() -> str:
    """The fixed placeholder a cleared result is replaced with, without one trailing newline
    (R-SIM-5, R-SIM-10)."""
    text = read_policy_bytes("placeholder.txt").decode("utf-8")
    return text.removesuffix("\n")
