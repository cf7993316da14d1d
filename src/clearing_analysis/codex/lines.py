"""Codex CLI rollout lines, typed (docs/formats/codex.md).

A rollout is JSONL: every line an envelope `{"timestamp", "type", "payload"}` whose `type` is
one of Codex's `RolloutItem` kinds. The structs below are the typed form of every payload the
reader uses, as openai/codex `codex-rs/protocol` defines them (`RolloutLine`, `RolloutItem`,
`SessionMeta`, `TurnContextItem`, `CompactedItem`, `ResponseItem`, `EventMsg`,
`TokenUsageInfo`, `TokenUsage`).

Codex grows fields between releases: fields the reader does not use are ignored (never kept,
never printed), while every field it uses must have its documented type. Line, item and event
types the reader does not use are counted by a fixed code by the reader, never decoded here.
"""

from __future__ import annotations

from typing import Any

import msgspec

from clearing_analysis.journal.messages import Count, NonEmptyStr, Tokens

# The five `RolloutItem` kinds (the envelope's `type`).
SESSION_META = "session_meta"
TURN_CONTEXT = "turn_context"
RESPONSE_ITEM = "response_item"
EVENT_MSG = "event_msg"
COMPACTED = "compacted"
LINE_TYPES = frozenset({SESSION_META, TURN_CONTEXT, RESPONSE_ITEM, EVENT_MSG, COMPACTED})

# The provider id Codex gives OpenAI (`model_provider`); early rollouts had no other and omit it.
OPENAI_PROVIDER = "openai"


class _Shape(msgspec.Struct, frozen=True):
    """Immutable, snake_case on the wire (as Codex's serde writes it); unused fields ignored."""


class Envelope(_Shape, frozen=True):
    """One `RolloutLine`: when it was written, its item kind and the item."""

    timestamp: str
    type: str
    payload: Any


class SessionMeta(_Shape, frozen=True):
    """The first line's payload. `id` is the thread id (kept in memory, never printed)."""

    id: NonEmptyStr
    model_provider: str | None = None


class TurnContext(_Shape, frozen=True):
    """The settings of the following sampling requests; the reader takes the model."""

    model: str | None = None


class TokenUsage(_Shape, frozen=True):
    """One response's (or the session's running) usage. `cached_input_tokens` is part of
    `input_tokens`, `reasoning_output_tokens` part of `output_tokens`."""

    input_tokens: Count
    cached_input_tokens: Count = 0
    output_tokens: Count = 0
    reasoning_output_tokens: Count = 0
    total_tokens: Count = 0


class RequestUsage(_Shape, frozen=True):
    """`last_token_usage`: one request's usage, each count within a request's range."""

    input_tokens: Tokens
    cached_input_tokens: Tokens = 0
    output_tokens: Tokens = 0
    reasoning_output_tokens: Tokens = 0
    total_tokens: Tokens = 0


class TokenInfo(_Shape, frozen=True):
    """`TokenUsageInfo`: the running sum and the latest response's usage."""

    total_token_usage: TokenUsage
    last_token_usage: RequestUsage


class RateLimits(_Shape, frozen=True):
    """`RateLimitSnapshot`: the ChatGPT plan's usage windows (null or absent otherwise); only
    whether a window is present is read."""

    primary: dict[str, Any] | None = None
    secondary: dict[str, Any] | None = None


class TokenCount(_Shape, frozen=True, tag_field="type", tag="token_count"):
    """`EventMsg::TokenCount`."""

    info: TokenInfo | None = None
    rate_limits: RateLimits | None = None


class UserMessageEvent(_Shape, frozen=True, tag_field="type", tag="user_message"):
    """`EventMsg::UserMessage`: the prompt as typed."""

    message: str


class Compacted(_Shape, frozen=True):
    """`CompactedItem`: the summary and (since 2025) the items that replaced the context."""

    message: str
    replacement_history: list[Any] | None = None


class InputText(_Shape, frozen=True, tag_field="type", tag="input_text"):
    """A text block the model reads."""

    text: str


class OutputText(_Shape, frozen=True, tag_field="type", tag="output_text"):
    """A text block the model wrote."""

    text: str


class InputImage(_Shape, frozen=True, tag_field="type", tag="input_image"):
    """An image block (a data URL or a URL; never decoded)."""

    image_url: str


ContentItem = InputText | OutputText | InputImage


class Message(_Shape, frozen=True, tag_field="type", tag="message"):
    """`ResponseItem::Message`."""

    role: str
    content: list[ContentItem]


class Reasoning(_Shape, frozen=True, tag_field="type", tag="reasoning"):
    """`ResponseItem::Reasoning`: its text is summaries or encrypted; only its presence is read."""


class FunctionCall(_Shape, frozen=True, tag_field="type", tag="function_call"):
    """`ResponseItem::FunctionCall`; its `arguments` (a JSON string) are never read."""

    name: str
    call_id: NonEmptyStr


class CustomToolCall(_Shape, frozen=True, tag_field="type", tag="custom_tool_call"):
    """`ResponseItem::CustomToolCall`: a free-text tool (`apply_patch`); its input is never
    read."""

    name: str
    call_id: NonEmptyStr


class LocalShellCall(_Shape, frozen=True, tag_field="type", tag="local_shell_call"):
    """`ResponseItem::LocalShellCall`: older releases' shell tool; its result is the
    `function_call_output` of the same `call_id` (or `id`)."""

    call_id: str | None = None
    id: str | None = None


class FunctionCallOutput(_Shape, frozen=True, tag_field="type", tag="function_call_output"):
    """`ResponseItem::FunctionCallOutput`: text, or (newer releases) content items."""

    call_id: NonEmptyStr
    output: str | list[ContentItem]


class CustomToolCallOutput(_Shape, frozen=True, tag_field="type", tag="custom_tool_call_output"):
    """`ResponseItem::CustomToolCallOutput`."""

    call_id: NonEmptyStr
    output: str | list[ContentItem]


class WebSearchCall(_Shape, frozen=True, tag_field="type", tag="web_search_call"):
    """`ResponseItem::WebSearchCall`: run by the server; no result enters the context."""


ResponseItem = (
    Message
    | Reasoning
    | FunctionCall
    | CustomToolCall
    | LocalShellCall
    | FunctionCallOutput
    | CustomToolCallOutput
    | WebSearchCall
)
RESPONSE_ITEM_TYPES = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "custom_tool_call",
        "local_shell_call",
        "function_call_output",
        "custom_tool_call_output",
        "web_search_call",
    }
)

# Events that start or end a turn (`task_started` was renamed `turn_started`, and so on); they
# carry nothing the reader needs beyond their place.
TURN_EVENTS = frozenset({"task_started", "turn_started", "task_complete", "turn_complete"})
TURN_ABORTED = "turn_aborted"
Event = TokenCount | UserMessageEvent
EVENT_TYPES = frozenset({"token_count", "user_message"})
# Written after a `compacted` line; the compaction is that line.
CONTEXT_COMPACTED = "context_compacted"


def is_openai(provider: str | None) -> bool:
    """Whether a `model_provider` is OpenAI's (absent in early rollouts, which had no other)."""
    return provider is None or provider == OPENAI_PROVIDER


__all__ = [
    "COMPACTED",
    "CONTEXT_COMPACTED",
    "EVENT_MSG",
    "EVENT_TYPES",
    "LINE_TYPES",
    "OPENAI_PROVIDER",
    "RESPONSE_ITEM",
    "RESPONSE_ITEM_TYPES",
    "SESSION_META",
    "TURN_ABORTED",
    "TURN_CONTEXT",
    "TURN_EVENTS",
    "Compacted",
    "ContentItem",
    "CustomToolCall",
    "CustomToolCallOutput",
    "Envelope",
    "Event",
    "FunctionCall",
    "FunctionCallOutput",
    "InputImage",
    "InputText",
    "LocalShellCall",
    "Message",
    "OutputText",
    "RateLimits",
    "Reasoning",
    "RequestUsage",
    "ResponseItem",
    "SessionMeta",
    "TokenCount",
    "TokenInfo",
    "TokenUsage",
    "TurnContext",
    "UserMessageEvent",
    "WebSearchCall",
    "is_openai",
]
