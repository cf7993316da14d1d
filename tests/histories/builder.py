"""Build Claude Code transcripts (docs/formats/claude-code.md) line by line, as Claude Code
writes them: each line's parent is the previous conversation line unless `parent=` says
otherwise; an assistant response is written as one line per content block, every line
repeating the response's message id, request id and usage. Nothing is read back through the
reader under test.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BASE_MS = 1_764_547_200_000  # 2025-12-01T00:00:00Z


def iso(ms: int) -> str:
    """Claude Code's ISO timestamp with milliseconds."""
    seconds, millis = divmod(ms, 1000)
    moment = datetime.datetime.fromtimestamp(seconds, tz=datetime.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{millis:03d}Z"


@dataclass
class Transcript:
    """A transcript file under construction."""

    session_id: str = "11111111-2222-3333-4444-555555555555"
    agent_id: str | None = None
    sidechain: bool = False
    cwd: str = "/home/someone/project"
    lines: list[dict[str, Any]] = field(default_factory=list)
    last_uuid: str | None = None
    clock: int = BASE_MS
    counter: int = 0

    def _uuid(self) -> str:
        self.counter += 1
        return f"00000000-0000-0000-0000-{self.counter:012d}"

    def _base(self, kind: str, parent: str | None) -> dict[str, Any]:
        self.clock += 1000
        line: dict[str, Any] = {
            "parentUuid": self.last_uuid if parent is None else parent,
            "isSidechain": self.sidechain,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": "2.1.16",
            "gitBranch": "main",
            "type": kind,
            "uuid": self._uuid(),
            "timestamp": iso(self.clock),
        }
        if self.agent_id is not None:
            line["agentId"] = self.agent_id
        return line

    def add(self, line: dict[str, Any], *, chain: bool = True) -> str:
        """Append a line; a conversation line becomes the next line's parent."""
        self.lines.append(line)
        if chain and "uuid" in line:
            self.last_uuid = line["uuid"]
        return str(line.get("uuid", ""))

    def bookkeeping(self) -> None:
        """A file-history snapshot, as transcripts often open with (no tree position)."""
        self.add(
            {
                "type": "file-history-snapshot",
                "messageId": "m",
                "snapshot": {"trackedFileBackups": {}},
                "isSnapshotUpdate": False,
            }
        )

    def prompt(
        self, text: str = "do the thing", *, parent: str | None = None, meta: bool = False
    ) -> str:
        """A user prompt (or, with `meta`, a command's context line)."""
        line = self._base("user", parent)
        line["message"] = {"role": "user", "content": text}
        if meta:
            line["isMeta"] = True
        return self.add(line)

    def response(
        self,
        blocks: list[dict[str, Any]],
        *,
        message_id: str | None = None,
        request_id: str | None = None,
        input_tokens: int = 10,
        cache_write: int = 100,
        cache_read: int = 1000,
        outputs: list[int] | None = None,
        stop_reason: str | None = "end_turn",
        model: str = "claude-sonnet-4-5-20250929",
        parent: str | None = None,
    ) -> list[str]:
        """One response, one line per block; `outputs` gives each line's output_tokens
        (growing, as Claude Code writes them); the last line carries `stop_reason`."""
        self.counter += 1
        message_id = message_id or f"msg_{self.counter:04d}"
        request_id = request_id or f"req_{self.counter:04d}"
        outputs = outputs or [5] * (len(blocks) - 1) + [50]
        uuids: list[str] = []
        for index, block in enumerate(blocks):
            line = self._base("assistant", parent if index == 0 else None)
            last = index == len(blocks) - 1
            line["requestId"] = request_id
            line["message"] = {
                "model": model,
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "content": [block],
                "stop_reason": stop_reason if last else None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": input_tokens,
                    "cache_creation_input_tokens": cache_write,
                    "cache_read_input_tokens": cache_read,
                    "cache_creation": {
                        "ephemeral_5m_input_tokens": cache_write,
                        "ephemeral_1h_input_tokens": 0,
                    },
                    "output_tokens": outputs[index],
                    "service_tier": "standard",
                },
            }
            uuids.append(self.add(line))
        return uuids

    def results(
        self,
        results: list[tuple[str, str]],
        *,
        error: bool = False,
        parent: str | None = None,
    ) -> str:
        """A user line holding tool_result blocks (call id, text)."""
        line = self._base("user", parent)
        line["message"] = {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": call, "content": text, "is_error": error}
                for call, text in results
            ],
        }
        line["toolUseResult"] = {"stdout": results[0][1] if results else ""}
        return self.add(line)

    def compaction(self, trigger: str = "auto", pre_tokens: int = 155_554) -> str:
        """A compact boundary (no parent, the previous line as logical parent) and the
        summary user line below it."""
        line = self._base("system", None)
        line["parentUuid"] = None
        line["logicalParentUuid"] = self.last_uuid
        line["subtype"] = "compact_boundary"
        line["content"] = "Conversation compacted"
        line["compactMetadata"] = {"trigger": trigger, "preTokens": pre_tokens}
        boundary = self.add(line)
        summary = self._base("user", None)
        summary["message"] = {"role": "user", "content": "This session is being continued."}
        summary["isCompactSummary"] = True
        self.add(summary)
        return boundary

    def system(self, subtype: str = "turn_duration") -> str:
        """A system line that is no part of the context."""
        line = self._base("system", None)
        line["subtype"] = subtype
        line["durationMs"] = 1234
        return self.add(line)

    def text(self) -> str:
        """The file's text, one JSON object per line."""
        return "".join(json.dumps(line) + "\n" for line in self.lines)

    def write(self, path: Path) -> Path:
        """Write the file (parents created); returns its path."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.text(), encoding="utf-8")
        return path


def text(value: str) -> dict[str, Any]:
    """A text block."""
    return {"type": "text", "text": value}


def thinking(value: str) -> dict[str, Any]:
    """A thinking block."""
    return {"type": "thinking", "thinking": value, "signature": "c2ln"}


def tool_use(call: str, name: str = "Read", **arguments: Any) -> dict[str, Any]:
    """A tool_use block."""
    return {"type": "tool_use", "id": call, "name": name, "input": arguments or {"x": 1}}
