"""Tiny builders for hand-written journals, sidecars and configs used by replay tests.

A `JournalBuilder` appends records with consecutive `seq` values and a monotonic clock, so a
test states only what it is about. `SidecarBuilder` creates a real SQLite file from
policy/sidecar.sql in a temporary directory (rollback-journal mode, nothing left beside it).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

from clearing_analysis.identity import ToolIdentity, finalized_tool_id
from clearing_analysis.inputs.configs import (
    AgentConfig,
    AppAllowlist,
    Routes,
    parse_agent_config,
    parse_app_allowlist,
    parse_routes,
)
from clearing_analysis.policy import read_policy_bytes

ANTHROPIC = "anthropic-messages"
OPENAI = "openai-responses"
DIGEST = "a" * 64


def usage(total: int = 0, input_: int = 0, output: int = 0, read: int = 0, write: int = 0) -> dict:
    """A usage object; every count defaults to zero."""
    return {
        "input": input_,
        "output": output,
        "cacheRead": read,
        "cacheWrite": write,
        "totalTokens": total,
    }


def origin(
    server: str = "srv",
    tool: str = "lookup",
    digest: str = DIGEST,
    read_only: bool | None = True,
    destructive: bool | None = None,
) -> dict:
    """A captured MCP origin payload."""
    annotations: dict[str, bool] = {}
    if read_only is not None:
        annotations["readOnlyHint"] = read_only
    if destructive is not None:
        annotations["destructiveHint"] = destructive
    return {
        "server": server,
        "tool": tool,
        "serverIdentityDigest": digest,
        "annotations": annotations,
    }


class JournalBuilder:
    """Appends journal v2 records; `seq` and timestamps are filled in."""

    def __init__(
        self,
        journal_id: str = "j1",
        physical: str = "p1",
        logical: str = "l1",
        origin: str = "native",
        version: int = 2,
    ) -> None:
        self.physical = physical
        self.clock = 1_000_000
        self.records: list[dict[str, Any]] = []
        self._add(
            "header",
            format="pi-native-journal",
            version=version,
            journalId=journal_id,
            physicalConversationId=physical,
            logicalConversationId=logical,
            origin=origin,
            createdAt=self.clock,
        )

    def _tick(self, at: int | None) -> int:
        self.clock = at if at is not None else self.clock + 1000
        return self.clock

    def _add(self, kind: str, **fields: Any) -> int:
        seq = len(self.records)
        self.records.append({"seq": seq, "kind": kind, **fields})
        return seq

    def turn(
        self, turn_id: str, text: str = "hi", at: int | None = None, content: Any = None
    ) -> int:
        message = {"role": "user", "content": text if content is None else content}
        message["timestamp"] = self._tick(at)
        return self._add("turn_start", hostTurnId=turn_id, message=message)

    def run(
        self,
        run_id: str,
        turn_id: str,
        owner: str | None = "owner",
        reason: str = "prompt",
        fingerprint: str | None = None,
    ) -> int:
        fields: dict[str, Any] = {
            "hostTurnId": turn_id,
            "runId": run_id,
            "owner": owner,
            "reason": reason,
            "timestamp": self._tick(None),
        }
        if fingerprint is not None:
            fields["toolsetFingerprint"] = fingerprint
        return self._add("run_start", **fields)

    def assistant(
        self,
        run_id: str,
        text: str = "ok",
        *,
        api: str = ANTHROPIC,
        calls: list[tuple[str, str, dict]] | None = None,
        use: dict | None = None,
        stop: str | None = None,
        at: int | None = None,
        content: list[dict] | None = None,
    ) -> int:
        blocks: list[dict[str, Any]] = [] if content is None else list(content)
        if content is None and text:
            blocks.append({"type": "text", "text": text})
        for call_id, name, args in calls or []:
            blocks.append({"type": "toolCall", "id": call_id, "name": name, "arguments": args})
        message = {
            "role": "assistant",
            "content": blocks,
            "api": api,
            "provider": "prov",
            "model": "m",
            "usage": usage() if use is None else use,
            "stopReason": stop or ("toolUse" if calls else "stop"),
            "timestamp": self._tick(at),
        }
        return self._add("message", runId=run_id, message=message)

    def user(self, run_id: str, text: str) -> int:
        message = {"role": "user", "content": text, "timestamp": self._tick(None)}
        return self._add("message", runId=run_id, message=message)

    def call_start(
        self, run_id: str, call_id: str, name: str, args: dict | None = None, payload: Any = None
    ) -> int:
        fields: dict[str, Any] = {
            "runId": run_id,
            "callId": call_id,
            "toolName": name,
            "arguments": args or {},
            "timestamp": self._tick(None),
        }
        if payload is not None:
            fields["payload"] = {"origin": payload}
        return self._add("tool_call_start", **fields)

    def call_end(
        self,
        run_id: str,
        call_id: str,
        status: str = "success",
        returned: bool = True,
        placed: bool = True,
    ) -> int:
        return self._add(
            "tool_call_end",
            runId=run_id,
            callId=call_id,
            status=status,
            returned=returned,
            placed=placed,
            timestamp=self._tick(None),
        )

    def result(
        self,
        run_id: str,
        call_id: str,
        name: str,
        *,
        text: str = "result text",
        content: list[dict] | None = None,
        is_error: bool = False,
    ) -> int:
        message = {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": name,
            "content": [{"type": "text", "text": text}] if content is None else content,
            "isError": is_error,
            "timestamp": self._tick(None),
        }
        return self._add("message", runId=run_id, message=message)

    def run_end(self, run_id: str, status: str = "completed") -> int:
        return self._add("run_end", runId=run_id, status=status, timestamp=self._tick(None))

    def checkpoint(
        self,
        summary: str,
        first_kept: int | None,
        before: int = 1000,
        after: int = 100,
        trigger: str = "threshold",
    ) -> int:
        return self._add(
            "checkpoint",
            trigger=trigger,
            tokensBefore=before,
            tokensAfter=after,
            summary=summary,
            firstKeptSeq=first_kept,
            timestamp=self._tick(None),
        )

    def redaction(self, target: int, scope: str = "web_envelope", fmt: str = "json") -> int:
        return self._add("redaction", targetSeq=target, scope=scope, format=fmt)

    def close(self) -> int:
        return self._add("close", timestamp=self._tick(None))

    # Convenience: whole turns.
    def tool_turn(
        self,
        turn_id: str,
        calls: list[tuple[str, str]],
        *,
        text: str = "result text",
        api: str = ANTHROPIC,
        owner: str | None = "owner",
        run_status: str = "completed",
        fingerprint: str | None = None,
        payloads: dict[str, Any] | None = None,
        use: dict | None = None,
    ) -> str:
        """A turn with one run: a tool-use request, the calls and results, a final answer."""
        run_id = f"{turn_id}-r"
        self.turn(turn_id)
        self.run(run_id, turn_id, owner=owner, fingerprint=fingerprint)
        self.assistant(run_id, "", api=api, calls=[(c, n, {"q": c}) for c, n in calls])
        for call_id, name in calls:
            payload = (payloads or {}).get(call_id)
            self.call_start(run_id, call_id, name, {"q": call_id}, payload=payload)
            self.call_end(run_id, call_id)
            self.result(run_id, call_id, name, text=f"{text} {call_id}")
        self.assistant(run_id, "done", api=api, use=use)
        self.run_end(run_id, run_status)
        return run_id

    def plain_turn(self, turn_id: str, api: str = ANTHROPIC, owner: str | None = "owner") -> str:
        """A turn with one run and one answer, no tools."""
        run_id = f"{turn_id}-r"
        self.turn(turn_id)
        self.run(run_id, turn_id, owner=owner)
        self.assistant(run_id, "answer", api=api)
        self.run_end(run_id)
        return run_id

    def copy_records(self, other: JournalBuilder, end: int) -> None:
        """Copy `other`'s records 1..end-1 (everything after its header) exactly, renumbered,
        as a resumed copy or a fork does; the clock continues after the copied ones."""
        for record in other.records[1:end]:
            fields = {k: v for k, v in record.items() if k not in ("seq", "kind")}
            self._add(record["kind"], **json.loads(json.dumps(fields)))
        self.clock = max(self.clock, other.clock)

    def to_bytes(self) -> bytes:
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in self.records).encode()

    def write(self, directory: Path, name: str | None = None) -> Path:
        path = directory / (name or f"{self.records[0]['journalId']}.jsonl")
        path.write_bytes(self.to_bytes())
        return path


def result_id(physical: str, turn_id: str, run_id: str, call_id: str) -> str:
    """The finalized id of a result, as the writer computes it."""
    return finalized_tool_id(ToolIdentity(physical, turn_id, run_id, call_id))


class SidecarBuilder:
    """Builds a sidecar SQLite file from policy/sidecar.sql.

    `capture_enabled` lists physical conversations whose capture policy row is written with
    `capture_enabled_since` 0, so all their boundaries lie inside the capture window (R-SIM-9).
    """

    def __init__(self, path: Path, capture_enabled: tuple[str, ...] = ()) -> None:
        self.path = path
        self.db = sqlite3.connect(path)
        self.db.executescript(read_policy_bytes("sidecar.sql").decode())
        self.db.execute("INSERT INTO sidecar_meta VALUES ('schema_version', '1')")
        self._next_row = 1
        for physical in capture_enabled:
            self.policy(physical)

    def policy(self, physical: str, since: int = 0, budget: int = 8_388_608) -> None:
        self.db.execute(
            "INSERT INTO conversation_policy VALUES (?, ?, ?)", (physical, since, budget)
        )

    def retain(
        self,
        identity: tuple[str, str, str, str],
        text: str,
        *,
        state: str = "finalized",
        redacted: bool = False,
        truncated: bool = False,
        tombstone: bool = False,
        integrity: str = "ok",
        byte_length: int | None = None,
        digest: bytes | None = None,
        stored_text: str | None = None,
        indexed: bool = True,
        origin: tuple[str, str, str, bool | None, bool | None] | None = None,
        row_identity: tuple[str, str, str, str] | None = None,
    ) -> None:
        """Retain `text` for `identity` and index it under `identity`'s finalized id.

        `row_identity` writes other identity columns on the row (an index entry that points at
        a row of another result).
        """
        raw = text.encode()
        row_id = self._next_row
        self._next_row += 1
        o = origin or (None, None, None, None, None)
        self.db.execute(
            "INSERT INTO retained_result VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                row_id,
                *(identity if row_identity is None else row_identity),
                state,
                len(raw) if byte_length is None else byte_length,
                hashlib.sha256(raw).digest() if digest is None else digest,
                None if tombstone else (text if stored_text is None else stored_text),
                int(redacted),
                int(truncated),
                int(tombstone),
                integrity,
                0,
                o[0],
                o[1],
                o[2],
                None if o[3] is None else int(o[3]),
                None if o[4] is None else int(o[4]),
            ),
        )
        if indexed:
            self.db.execute(
                "INSERT INTO committed_id_index VALUES (?, ?)", (result_id(*identity), row_id)
            )

    def finish(self) -> Path:
        self.db.commit()
        self.db.close()
        return self.path


def routes(*apis: str) -> Routes:
    """Routes with one entry per API (default: anthropic-messages and openai-responses)."""
    weights = {"input": 3, "cacheRead": 0.3, "cacheWrite": 3.75, "output": 15}
    entries = [
        {
            "api": api,
            "triggerTokens": 200000,
            "drainTokens": 40000,
            "summaryInputTokens": 40000,
            "summaryOutputTokens": 2000,
            "cacheLifetimeMs": 300000,
            "cacheMarginMs": 30000,
            "prices": weights,
            "quota": weights,
            "quotaBudget": 100000000,
        }
        for api in (apis or (ANTHROPIC, OPENAI))
    ]
    return parse_routes(entries)


def agent_config(value: Any) -> AgentConfig:
    """Decode an agent-config value."""
    return parse_agent_config(value)


def allowlist(*entries: tuple[str, str, str]) -> AppAllowlist:
    """Decode an allowlist of (server, tool, digest) declarations."""
    return parse_app_allowlist(
        [
            {"server": s, "tool": t, "serverIdentityDigest": d, "readOnly": True}
            for s, t, d in entries
        ]
    )
