"""Journal v2 records for the canary input set: every text and id a fresh canary.

`Journal` appends records with consecutive seq values and a monotonic clock; `tool_turn`
writes a whole prompt turn (a request with thinking, signatures, text and tool calls, the
calls with captured MCP origins and canary arguments, results with details, a failed dispatch
with a provider error message, steering input and the answer); `World` holds the app tools,
servers and digests shared by the journals, sidecar and allowlist, and the results the
sidecar must retain.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tests.e2e._canary import Canaries

ANTHROPIC = "anthropic-messages"
OPENAI = "openai-responses"


class Journal:
    """Journal v2 records with consecutive seq values and a monotonic clock."""

    def __init__(self, c: Canaries, tag: str, *, physical: str, logical: str, **header: Any):
        self.c = c
        self.tag = tag
        self.clock = 1_767_225_600_000
        self.records: list[dict[str, Any]] = []
        # One fingerprint for the snapshot: a change would void the period attestation.
        self.fingerprint = c.values.get("toolsetFingerprint") or c("toolsetFingerprint")
        self.add(
            "header",
            format=header.pop("format", "pi-native-journal"),
            version=header.pop("version", 2),
            journalId=header.pop("journal_id", c(f"{tag}.journalId")),
            physicalConversationId=physical,
            logicalConversationId=logical,
            origin=header.pop("origin", "native"),
            createdAt=self.tick(),
        )

    def tick(self, step: int = 1000) -> int:
        self.clock += step
        return self.clock

    def add(self, kind: str, **fields: Any) -> int:
        seq = len(self.records)
        self.records.append({"seq": seq, "kind": kind, **fields})
        return seq

    def name(self, label: str) -> str:
        return self.c(f"{self.tag}.{label}")

    def turn(self, turn_id: str, gap: int = 1000, *, blocks: bool = False) -> None:
        label = f"{turn_id}.prompt{len(self.records)}"
        content: Any = self.name(label)
        if blocks:  # a prompt as content blocks: text and an image
            image = {"type": "image", "data": self.name(label + ".image"), "mimeType": "image/png"}
            content = [{"type": "text", "text": content}, image]
        message = {"role": "user", "content": content, "timestamp": self.tick(gap)}
        self.add("turn_start", hostTurnId=turn_id, message=message)

    def run(self, run_id: str, turn_id: str, owner: str | None, reason: str = "prompt") -> None:
        self.add(
            "run_start",
            hostTurnId=turn_id,
            runId=run_id,
            owner=owner,
            reason=reason,
            timestamp=self.tick(),
            toolsetFingerprint=self.fingerprint,
        )

    def assistant(
        self, run_id: str, blocks: list[dict[str, Any]], *, api: str, stop: str, **extra: Any
    ) -> None:
        message = {
            "role": "assistant",
            "content": blocks,
            "api": api,
            "provider": self.name(f"{run_id}.{len(self.records)}.provider"),
            "model": self.name(f"{run_id}.{len(self.records)}.model"),
            "usage": {
                "input": 900,
                "output": 50,
                "cacheRead": 4000,
                "cacheWrite": 100,
                "totalTokens": 5050,
            },
            "stopReason": stop,
            "timestamp": self.tick(),
            "responseId": self.name(f"{run_id}.{len(self.records)}.responseId"),
            **extra,
        }
        self.add("message", runId=run_id, message=message)

    def run_end(self, run_id: str, status: str = "completed") -> None:
        self.add("run_end", runId=run_id, status=status, timestamp=self.tick())

    def to_bytes(self) -> bytes:
        return b"".join(json.dumps(r).encode() + b"\n" for r in self.records)


@dataclass
class ToolUse:
    """One tool call of a turn: its name, result content and optional captured origin."""

    call_id: str
    name: str
    result: list[dict[str, Any]]
    origin: dict[str, Any] | None = None
    status: str = "success"
    is_error: bool = False
    retained_text: str | None = None  # when set, the sidecar retains this exact text


class World:
    """Shared identities of the rich journal: app tools, servers and digests."""

    def __init__(self, c: Canaries) -> None:
        self.c = c
        self.app_tool = c("app.tool.allowlisted")
        self.app_server = c("app.server.allowlisted")
        self.app_digest = c.hex("app.digest.allowlisted")
        self.other_tool = c("app.tool.unlisted")
        self.other_server = c("app.server.unlisted")
        self.other_digest = c.hex("app.digest.unlisted")
        self.sidecar_tool = c("app.tool.sidecarOrigin")
        self.sidecar_server = c("app.server.sidecarOrigin")
        self.sidecar_digest = c.hex("app.digest.sidecarOrigin")
        self.retained: list[tuple[tuple[str, str, str, str], str, dict[str, Any] | None]] = []

    def origin(self, server: str, tool: str, digest: str) -> dict[str, Any]:
        return {
            "server": server,
            "tool": tool,
            "serverIdentityDigest": digest,
            "annotations": {"readOnlyHint": True},
        }


def tool_turn(
    j: Journal,
    world: World,
    turn_id: str,
    uses: list[ToolUse],
    *,
    owner: str | None,
    api: str = ANTHROPIC,
    gap: int = 1000,
) -> str:
    """A turn: a request with thinking, text and tool calls, the calls, a failed dispatch,
    a steering message and a final answer, all texts and ids canaries."""
    run_id = j.name(f"{turn_id}.runId")
    j.turn(turn_id, gap)
    j.run(run_id, turn_id, owner)
    blocks: list[dict[str, Any]] = [
        {
            "type": "thinking",
            "thinking": j.name(f"{run_id}.thinking"),
            "thinkingSignature": j.name(f"{run_id}.thinkingSignature"),
        },
        {"type": "thinking", "thinking": j.name(f"{run_id}.redactedThinking"), "redacted": True},
        {
            "type": "text",
            "text": j.name(f"{run_id}.text"),
            "textSignature": j.name(f"{run_id}.textSignature"),
        },
    ]
    for use in uses:
        blocks.append(
            {
                "type": "toolCall",
                "id": use.call_id,
                "name": use.name,
                "arguments": {
                    j.name(f"{use.call_id}.argKey"): j.name(f"{use.call_id}.argValue"),
                    "nested": [{j.name(f"{use.call_id}.nestedKey"): 1}],
                    # Canonical arguments (policy/refetch.json), canaries too: the path is one
                    # per journal, so that reads repeat and their digests are compared.
                    **canonical_arguments(j, use.call_id),
                },
                "thoughtSignature": j.name(f"{use.call_id}.thoughtSignature"),
            }
        )
    j.assistant(run_id, blocks, api=api, stop="toolUse" if uses else "stop")
    for use in uses:
        start: dict[str, Any] = {
            "runId": run_id,
            "callId": use.call_id,
            "toolName": use.name,
            "arguments": {
                j.name(f"{use.call_id}.startArgKey"): j.name(f"{use.call_id}.startArg"),
                "path": j.c.values[f"{j.tag}.sharedPath"],
            },
            "timestamp": j.tick(),
        }
        if use.origin is not None:
            start["payload"] = {"origin": use.origin}
        j.add("tool_call_start", **start)
        j.add(
            "tool_call_end",
            runId=run_id,
            callId=use.call_id,
            status=use.status,
            returned=True,
            placed=True,
            timestamp=j.tick(),
        )
        result_seq = j.add(
            "message",
            runId=run_id,
            message={
                "role": "toolResult",
                "toolCallId": use.call_id,
                "toolName": use.name,
                "content": use.result,
                "isError": use.is_error,
                "timestamp": j.tick(),
                "details": {j.name(f"{use.call_id}.detailKey"): j.name(f"{use.call_id}.detail")},
            },
        )
        if use.retained_text is not None:
            identity = (j.records[0]["physicalConversationId"], turn_id, run_id, use.call_id)
            world.retained.append((identity, use.retained_text, None))
        if use.name == world.app_tool:
            j.add("redaction", targetSeq=result_seq, scope="web_envelope", format="json")
    # A failed dispatch with a provider error message, then steering input, then the answer.
    j.assistant(
        run_id,
        [],
        api=api,
        stop="error",
        errorMessage=j.name(f"{run_id}.errorMessage"),
    )
    steering = {"role": "user", "content": j.name(f"{run_id}.steering"), "timestamp": j.tick()}
    j.add("message", runId=run_id, message=steering)
    j.assistant(
        run_id, [{"type": "text", "text": j.name(f"{run_id}.answer")}], api=api, stop="stop"
    )
    j.run_end(run_id)
    return run_id


def canonical_arguments(j: Journal, call_id: str) -> dict[str, Any]:
    """Canary values under every canonical argument name of policy/refetch.json: a path
    shared by the journal's calls (equal reads repeat), the rest the call's own."""
    shared = j.c.values.get(f"{j.tag}.sharedPath") or j.name("sharedPath")
    return {
        "path": shared,
        "file_path": shared,
        "pattern": j.name(f"{call_id}.pattern"),
        "glob": j.name(f"{call_id}.glob"),
        "url": j.name(f"{call_id}.url"),
        "command": j.name(f"{call_id}.command"),
    }


def text_block(j: Journal, label: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": j.name(label)}]


def reads(j: Journal, turn_id: str, count: int) -> list[ToolUse]:
    uses = []
    for k in range(count):
        call_id = j.name(f"{turn_id}.call{k}")
        text = j.name(f"{call_id}.resultText")
        uses.append(ToolUse(call_id, "read", [{"type": "text", "text": text}], retained_text=text))
    return uses
