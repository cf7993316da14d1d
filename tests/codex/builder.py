"""Hand-built Codex rollouts for the reader's tests: each line an envelope as Codex writes it
(docs/formats/codex.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

_WINDOW = {"used_percent": 1.0, "window_minutes": 300, "resets_at": 1771864831}


def usage(input_: int, cached: int = 0, output: int = 0, reasoning: int = 0) -> dict[str, int]:
    """A `TokenUsage` object."""
    return {
        "input_tokens": input_,
        "cached_input_tokens": cached,
        "output_tokens": output,
        "reasoning_output_tokens": reasoning,
        "total_tokens": input_ + output,
    }


@dataclass
class Rollout:
    """A rollout being built; `text()` is the file."""

    provider: str | None = "openai"
    windows: bool = True
    lines: list[dict[str, Any]] = field(default_factory=list)
    second: int = 0
    total: dict[str, int] = field(default_factory=lambda: usage(0))

    def __post_init__(self) -> None:
        meta: dict[str, Any] = {"id": "thread-0", "timestamp": self._time(), "cwd": "/w"}
        if self.provider is not None:
            meta["model_provider"] = self.provider
        self.line("session_meta", meta)

    def _time(self) -> str:
        self.second += 1
        return f"2026-02-23T11:{self.second // 60:02d}:{self.second % 60:02d}.000Z"

    def line(self, kind: str, payload: Any) -> Rollout:
        self.lines.append({"timestamp": self._time(), "type": kind, "payload": payload})
        return self

    def item(self, payload: dict[str, Any]) -> Rollout:
        return self.line("response_item", payload)

    def event(self, payload: dict[str, Any]) -> Rollout:
        return self.line("event_msg", payload)

    def prompt(self, text: str = "do it") -> Rollout:
        self.event({"type": "task_started", "turn_id": "t"})
        self.item(
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
        )
        self.event({"type": "user_message", "message": text, "images": []})
        return self.line("turn_context", {"turn_id": "t", "model": "gpt-5.3-codex"})

    def call(self, call_id: str, name: str = "exec_command") -> Rollout:
        return self.item(
            {"type": "function_call", "name": name, "arguments": "{}", "call_id": call_id}
        )

    def output(self, call_id: str, text: str = "out") -> Rollout:
        return self.item({"type": "function_call_output", "call_id": call_id, "output": text})

    def token_count(
        self, last: dict[str, int] | None, *, total: dict[str, int] | None = None
    ) -> Rollout:
        """A token_count event: with `last`, the running total grows by it (or is `total`);
        with None, `info` is null."""
        limits = {"primary": _WINDOW, "secondary": None} if self.windows else None
        if last is None:
            return self.event({"type": "token_count", "info": None, "rate_limits": limits})
        if total is None:
            total = {k: self.total[k] + last[k] for k in last}
        self.total = total
        info = {
            "total_token_usage": total,
            "last_token_usage": last,
            "model_context_window": 258400,
        }
        return self.event({"type": "token_count", "info": info, "rate_limits": limits})

    def repeat(self) -> Rollout:
        """The previous token_count again (same total), as Codex re-emits it."""
        previous = next(
            line for line in reversed(self.lines) if line["payload"].get("type") == "token_count"
        )
        return self.event(json.loads(json.dumps(previous["payload"])))

    def request(self, input_: int, cached: int = 0, output: int = 0, text: str = "ok") -> Rollout:
        self.item(
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text}],
            }
        )
        return self.token_count(usage(input_, cached, output))

    def text(self) -> str:
        return "".join(json.dumps(line) + "\n" for line in self.lines)
