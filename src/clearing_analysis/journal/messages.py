"""pi-ai's message shapes, as they appear inside journal records (R-J, docs/formats/journal-v2.md).

These mirror pi-ai's `Message` union (user / assistant / toolResult) and its content blocks
(text / image / thinking / toolCall) field for field, so a pi history maps onto a journal
without translation. Every struct is frozen and rejects unknown fields: a record that does not
have exactly this shape is not a valid v2 journal line.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from clearing_analysis import ranges

# Millisecond timestamps and counts: non-negative integers a JavaScript writer can represent
# exactly (Number.MAX_SAFE_INTEGER).
MAX_SAFE_INTEGER = ranges.MAX_EXACT_INTEGER
Millis = Annotated[int, msgspec.Meta(ge=0, le=MAX_SAFE_INTEGER)]
Count = Annotated[int, msgspec.Meta(ge=0, le=MAX_SAFE_INTEGER)]
# Token counts of one request or one checkpoint: at most ranges.MAX_TOKENS (10^9), so that the
# sums a report prints stay exact (clearing_analysis.ranges).
Tokens = Annotated[int, msgspec.Meta(ge=0, le=ranges.MAX_TOKENS)]
NonEmptyStr = Annotated[str, msgspec.Meta(min_length=1)]

StopReason = Literal["stop", "length", "toolUse", "error", "aborted"]


class _Shape(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True, rename="camel"
):
    """Common options: immutable, strict, camelCase on the wire."""


class TextContent(_Shape, frozen=True, tag_field="type", tag="text"):
    """A plain text block."""

    text: str
    text_signature: str | None = None


class ImageContent(_Shape, frozen=True, tag_field="type", tag="image"):
    """A base64 image block; the heuristic charges a fixed token count per image."""

    data: str
    mime_type: str


class ThinkingContent(_Shape, frozen=True, tag_field="type", tag="thinking"):
    """Reasoning, possibly signed or redacted by the provider."""

    thinking: str
    thinking_signature: str | None = None
    redacted: bool | None = None


class ToolCall(_Shape, frozen=True, tag_field="type", tag="toolCall"):
    """A tool call inside an assistant message."""

    id: NonEmptyStr
    name: NonEmptyStr
    arguments: dict[str, Any]
    thought_signature: str | None = None


class UsageCost(_Shape, frozen=True):
    """Cost as the writer computed it; recorded but never used (prices come from routes)."""

    input: float
    output: float
    cache_read: float
    cache_write: float
    total: float


class Usage(_Shape, frozen=True):
    """Provider-reported token usage of one request."""

    input: Tokens
    output: Tokens
    cache_read: Tokens
    cache_write: Tokens
    total_tokens: Tokens
    cost: UsageCost | None = None


class UserMessage(_Shape, frozen=True, tag_field="role", tag="user"):
    """A user input: a prompt, or a steering message inside a run."""

    content: str | list[TextContent | ImageContent]
    timestamp: Millis


class AssistantMessage(_Shape, frozen=True, tag_field="role", tag="assistant"):
    """One model response. Every assistant message is one request (R-CM-1)."""

    content: list[TextContent | ThinkingContent | ToolCall]
    api: NonEmptyStr
    provider: NonEmptyStr
    model: NonEmptyStr
    usage: Usage
    stop_reason: StopReason
    timestamp: Millis
    error_message: str | None = None
    response_id: str | None = None


class ToolResultMessage(_Shape, frozen=True, tag_field="role", tag="toolResult"):
    """The result of one tool call as placed into the conversation."""

    tool_call_id: NonEmptyStr
    tool_name: NonEmptyStr
    content: list[TextContent | ImageContent]
    is_error: bool
    timestamp: Millis
    details: Any = None


Message = UserMessage | AssistantMessage | ToolResultMessage
