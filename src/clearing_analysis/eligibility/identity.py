"""Identity proof for a tool result (R-EL-3..6, seed "Optional --agent-config…").

- Built-in read-only tools (policy/tools.json) are proven only by an `--agent-config`
  attestation covering the result's run: the tool must be enabled, and no MCP tool may be
  exposed under its name (a collision is IDENTITY_AMBIGUOUS). A period attestation is void when
  the replayed runs show more than one distinct non-null toolset fingerprint (the configuration
  changed within the period). A per-run proof array covers only the runs it names, each in
  the physical conversation it names (run ids are unique per journal only).
  A built-in name with a captured MCP origin is ambiguous: an MCP server exposed that name.
- Every other name is an app (MCP) tool: proven only by captured origin (the journal's
  tool_call_start payload.origin, else the sidecar row's origin columns) that matches an
  `--app-allowlist` entry exactly (server, tool, serverIdentityDigest), whose tool equals the
  message tool name, with readOnlyHint true and no destructive hint. Without captured origin
  the result is upper bound only: a name alone never qualifies.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from clearing_analysis.eligibility.reasons import ExclusionReason
from clearing_analysis.inputs.configs import AgentConfig, AppAllowlist
from clearing_analysis.replay.model import ToolResult
from clearing_analysis.toolclass import ToolClass

_EXCLUDED_CLASSES = {
    ToolClass.INSTRUCTION_BUILTIN: ExclusionReason.INSTRUCTION_BUILTIN,
    ToolClass.HISTORY_BUILTIN: ExclusionReason.HISTORY_BUILTIN,
    ToolClass.EFFECTFUL_BUILTIN: ExclusionReason.EFFECTFUL_BUILTIN,
    ToolClass.UNKNOWN: ExclusionReason.UNKNOWN_TOOL,
}


def class_exclusion(result: ToolResult) -> ExclusionReason | None:
    """Exclusions that need no proof: known built-in names, then a captured destructive hint."""
    reason = _EXCLUDED_CLASSES.get(result.tool_class)
    if reason is not None:
        return reason
    if result.origin is not None and result.origin.destructive_hint is True:
        return ExclusionReason.DESTRUCTIVE_HINT
    return None


class IdentityProofs(msgspec.Struct, frozen=True):
    """The supplied proofs and whether a period attestation still holds for the snapshot."""

    agent_config: AgentConfig | None
    app_allowlist: AppAllowlist | None
    period_attestation_valid: bool

    @classmethod
    def for_snapshot(
        cls,
        agent_config: AgentConfig | None,
        app_allowlist: AppAllowlist | None,
        toolset_fingerprints: Iterable[str],
    ) -> IdentityProofs:
        """Void a period attestation when the snapshot's runs show a configuration change."""
        distinct = set(toolset_fingerprints)
        return cls(agent_config, app_allowlist, period_attestation_valid=len(distinct) <= 1)


def _builtin_identity(result: ToolResult, proofs: IdentityProofs) -> ExclusionReason | None:
    if result.origin is not None:
        return ExclusionReason.IDENTITY_AMBIGUOUS
    config = proofs.agent_config
    if config is None:
        return ExclusionReason.IDENTITY_UNPROVEN
    if config.per_run is None and not proofs.period_attestation_valid:
        return ExclusionReason.IDENTITY_UNPROVEN
    identity = result.identity
    attestation = config.attestation_for(identity.physical_conversation_id, identity.run_id)
    if attestation is None or result.tool_name not in attestation.builtins:
        return ExclusionReason.IDENTITY_UNPROVEN
    if not attestation.proves_builtin(result.tool_name):
        return ExclusionReason.IDENTITY_AMBIGUOUS
    return None


def _app_identity(result: ToolResult, proofs: IdentityProofs) -> ExclusionReason | None:
    origin = result.origin
    allowlist = proofs.app_allowlist
    if origin is None or allowlist is None:
        return ExclusionReason.IDENTITY_UNPROVEN
    if (
        origin.tool != result.tool_name
        or origin.read_only_hint is not True
        or origin.destructive_hint is True
        or not allowlist.allows(origin.server, origin.tool, origin.server_identity_digest)
    ):
        return ExclusionReason.IDENTITY_UNPROVEN
    return None


def identity_shortfall(result: ToolResult, proofs: IdentityProofs) -> ExclusionReason | None:
    """None when the result's read-only identity is proven, else AMBIGUOUS or UNPROVEN.

    Call only for results `class_exclusion` does not exclude.
    """
    if result.tool_class is ToolClass.READ_ONLY_BUILTIN:
        return _builtin_identity(result, proofs)
    return _app_identity(result, proofs)
