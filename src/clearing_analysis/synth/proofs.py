"""Identity proof for the synthetic corpus: DIR/agent-config.json and DIR/app-allowlist.json.

The generator decides whether a result is proven with the very decoder types the analyzer
uses (`inputs.configs.Attestation.proves_builtin`, exact allowlist triples), so the ground
truth cannot drift from the written files. Per-run proofs are streamed to the file as runs
start (memory stays flat); the array stops growing near `PER_RUN_FILE_CAP` so that the file
stays below the analyzer's config size limit, and later runs are then simply unproven
("missing inventory is not proof", R-EL-3).
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path
from typing import IO, Any

import msgspec

from clearing_analysis.inputs.configs import Attestation, McpTool
from clearing_analysis.synth.profiles import Profile, ProofMode
from clearing_analysis.synth.toolmix import (
    APP_TOOLS,
    EFFECTFUL_BUILTINS,
    READ_ONLY_BUILTINS,
    ToolOutcome,
)

PER_RUN_FILE_CAP = 12 * 1024 * 1024
_INVENTORY = [McpTool(exposed_name=tool.tool) for tool in APP_TOOLS]
_ALL_BUILTINS = [*READ_ONLY_BUILTINS, *EFFECTFUL_BUILTINS]
PROVING = Attestation(builtins=_ALL_BUILTINS, mcp_tools=_INVENTORY)
# An MCP server exposing a tool named "grep": the built-in grep is no longer proven.
COLLIDING = Attestation(
    builtins=_ALL_BUILTINS, mcp_tools=[*_INVENTORY, McpTool(exposed_name="grep")]
)
NOT_PROVING = Attestation(builtins=list(EFFECTFUL_BUILTINS), mcp_tools=_INVENTORY)


def _attestation_json(
    attestation: Attestation, run: tuple[str, str] | None = None
) -> dict[str, Any]:
    """The JSON of an attestation; with `run` (physical conversation id, run id), a run proof."""
    body: dict[str, Any] = {}
    if run is not None:
        body["physicalConversationId"], body["runId"] = run
    body["builtins"] = attestation.builtins
    tools = attestation.mcp_tools
    body["mcpTools"] = (
        tools if tools == "none" else [{"exposedName": t.exposed_name} for t in tools]
    )
    return body


def is_proven(outcome: ToolOutcome, attestation: Attestation | None) -> bool:
    """Whether the result's identity is proven by the written agent-config / allowlist."""
    if outcome.app is not None:
        origin = outcome.origin
        app = outcome.app
        # Exact allowlist match on captured origin, read-only and not destructive (R-EL-5).
        return (
            origin is not None
            and origin["tool"] == outcome.name
            and app.read_only
            and not app.destructive
            and app.allowlisted
            and not outcome.repointed
        )
    if outcome.name not in READ_ONLY_BUILTINS:
        return False  # effectful built-ins are excluded from both bounds (R-EL-6)
    return attestation is not None and attestation.proves_builtin(outcome.name)


class ProofWriter:
    """Writes agent-config.json (streaming for per-run proofs) and app-allowlist.json."""

    def __init__(self, out_dir: Path, profile: Profile, rng: random.Random) -> None:
        self._profile = profile
        self._rng = rng
        self._encoder = msgspec.json.Encoder()
        self._path = out_dir / "agent-config.json"
        self._stream: IO[bytes] | None = None
        self._written = 0
        self._entries = 0
        if profile.proof_mode is ProofMode.PER_RUN:
            self._stream = self._path.open("xb")
            self._stream.write(b"[")
        else:
            period = PROVING if profile.proof_mode is ProofMode.PERIOD else NOT_PROVING
            self._period = period
            self._path.write_bytes(self._encoder.encode(_attestation_json(period)) + b"\n")
        allowlist = [
            {
                "server": app.server,
                "tool": app.tool,
                "serverIdentityDigest": app.digest(),
                "readOnly": True,
            }
            for app in APP_TOOLS
            if app.allowlisted
        ]
        (out_dir / "app-allowlist.json").write_bytes(self._encoder.encode(allowlist) + b"\n")

    def for_run(
        self, physical_conversation_id: str, run_id: str, *, withhold: bool = False
    ) -> Attestation | None:
        """The attestation covering a new run of a conversation (written out for per-run
        proofs, which name both ids: run ids are unique per journal only). `withhold`: the
        owner attested other conversations only, so this run gets no proof."""
        if self._stream is None:
            return self._period
        profile, rng = self._profile, self._rng
        if rng.random() < profile.missing_proof_rate or self._written > PER_RUN_FILE_CAP:
            return None
        attestation = COLLIDING if rng.random() < profile.colliding_proof_rate else PROVING
        if withhold:
            return None  # decided after the draws, so that no later draw moves
        entry = self._encoder.encode(
            _attestation_json(attestation, (physical_conversation_id, run_id))
        )
        self._stream.write(b"," + entry if self._entries else entry)
        self._entries += 1
        self._written += len(entry) + 1
        return attestation

    def fingerprint(self, attestation: Attestation | None) -> str:
        """The run's toolsetFingerprint: a digest of the tool inventory it ran with.

        A run without a written proof still ran with the corpus' ordinary inventory.
        """
        if attestation is None:
            attestation = PROVING if self._stream is not None else self._period
        encoded = self._encoder.encode(_attestation_json(attestation))
        return hashlib.sha256(encoded).hexdigest()[:16]

    def close(self) -> None:
        """Finish the per-run array (a placeholder proof if no run was ever written)."""
        if self._stream is None:
            return
        if not self._entries:
            # An empty array is INPUT_INVALID; one proof for a run that never happened
            # proves nothing and keeps the file valid.
            unused = _attestation_json(NOT_PROVING, ("unused", "unused"))
            self._stream.write(self._encoder.encode(unused))
        self._stream.write(b"]\n")
        self._stream.close()
