"""Build pi session files (docs/formats/pi-sessions.md) entry by entry, as pi writes them.

`Session` writes version 1 (no ids, a linear list), 2 or 3 (an `id` / `parentId` tree); by
default each entry's parent is the previous entry, `parent=` starts a branch elsewhere. Every
shape follows pi's session documentation and pi-ai's message types; nothing is read back
through the reader under test.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BASE_MS = 1_764_547_200_000  # 2025-12-01T00:00:00Z
API = "anthropic-messages"


def iso(ms: int) -> str:
    """pi's ISO timestamp with milliseconds."""
    seconds, millis = divmod(ms, 1000)
    moment = datetime.datetime.fromtimestamp(seconds, tz=datetime.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{millis:03d}Z"


def usage(input_tokens: int = 100, output: int = 10, cache_read: int = 0) -> dict[str, int]:
    """pi-ai usage (costs omitted: pi writes them, the reader ignores them)."""
    total = input_tokens + output + cache_read
    return {
        "input": input_tokens,
        "output": output,
        "cacheRead": cache_read,
        "cacheWrite": 0,
        "totalTokens": total,
    }


@dataclass
class Session:
    """A session file under construction."""

    version: int | None = 3
    session_id: str = "session-0001"
    lines: list[dict[str, Any]] = field(default_factory=list)
    last_id: str | None = None
    clock: int = BASE_MS
    calls: int = 0

    def __post_init__(self) -> None:
        header: dict[str, Any] = {
            "type": "session",
            "id": self.session_id,
            "timestamp": iso(self.clock),
            "cwd": "/work/project",
        }
        if self.version is not None:
            header["version"] = self.version
        self.lines.append(header)

    def tick(self, ms: int = 1000) -> int:
        self.clock += ms
        return self.clock

    def entry(self, kind: str, parent: str | bool | None = True, **fields: Any) -> str | None:
        """Append an entry; `parent` True means the previous entry. Returns its id."""
        value: dict[str, Any] = {"type": kind, "timestamp": iso(self.tick(1))}
        entry_id: str | None = None
        if self.version is not None and self.version >= 2:
            entry_id = f"e{len(self.lines):07x}"
            value["id"] = entry_id
            value["parentId"] = self.last_id if parent is True else parent
        value.update(fields)
        self.lines.append(value)
        self.last_id = entry_id
        return entry_id

    def message(self, message: dict[str, Any], parent: str | bool | None = True) -> str | None:
        return self.entry("message", parent=parent, message=message)

    def user(self, text: str = "do the thing", parent: str | bool | None = True) -> str | None:
        return self.message(
            {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": self.tick()},
            parent,
        )

    def assistant(
        self,
        tools: list[str] | None = None,
        *,
        api: str = API,
        stop: str | None = None,
        usage_: dict[str, int] | None = None,
        thinking: bool = False,
        provider: str = "anthropic",
        model: str = "claude-sonnet-4-5",
    ) -> list[str]:
        """An assistant message; with `tools`, one toolCall block per name. Returns call ids."""
        content: list[dict[str, Any]] = []
        if thinking:
            content.append({"type": "thinking", "thinking": "considering"})
        ids: list[str] = []
        for name in tools or []:
            self.calls += 1
            call_id = f"toolu_{self.calls:04d}"
            ids.append(call_id)
            content.append({"type": "toolCall", "id": call_id, "name": name, "arguments": {}})
        if not tools:
            content.append({"type": "text", "text": "done"})
        self.message(
            {
                "role": "assistant",
                "content": content,
                "api": api,
                "provider": provider,
                "model": model,
                "usage": usage_ or usage(),
                "stopReason": stop or ("toolUse" if tools else "stop"),
                "timestamp": self.tick(),
            }
        )
        return ids

    def mirror(self, model: str = "delivery-mirror") -> None:
        """An assistant message OpenClaw writes that is no request (a delivery-mirror copy of a
        reply: api openai-responses, provider openclaw, all-zero usage)."""
        zero = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}
        self.assistant(api="openai-responses", provider="openclaw", model=model, usage_=zero)

    def result(
        self,
        call_id: str,
        name: str,
        text: str = "x" * 400,
        *,
        error: bool = False,
        content: list[dict[str, Any]] | None = None,
    ) -> str | None:
        return self.message(
            {
                "role": "toolResult",
                "toolCallId": call_id,
                "toolName": name,
                "content": content if content is not None else [{"type": "text", "text": text}],
                "isError": error,
                "timestamp": self.tick(),
            }
        )

    def turn(self, tools: list[str], text: str = "do the thing", **result: Any) -> None:
        """A prompt turn: the user message, one request calling `tools`, their results, and a
        final text request."""
        self.user(text)
        for call_id, name in zip(self.assistant(tools), tools, strict=True):
            self.result(call_id, name, **result)
        self.assistant()

    def text(self) -> str:
        return "".join(json.dumps(line) + "\n" for line in self.lines)

    def write(self, path: Path) -> Path:
        path.write_text(self.text(), encoding="utf-8")
        return path
