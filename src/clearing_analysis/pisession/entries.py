"""pi coding-agent session entries, typed (docs/formats/pi-sessions.md).

A pi session file is JSONL: a `session` header, then entries. The structs below are the typed
form of every entry and message shape the reader uses, as pi's own session documentation and
`session-manager.ts` define them across the format's versions (1: a linear list without ids;
2: the `id` / `parentId` tree; 3: the `hookMessage` role renamed `custom`).

Unlike the native journal (whose writer this product specifies), pi's format grows fields
between releases: fields the reader does not use are ignored (never kept, never printed), while
every field it uses must have its documented type. Entry types and message roles the reader
does not know are counted by a fixed code by the reader, never decoded here.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from clearing_analysis import ranges
from clearing_analysis.journal.messages import Count, Millis, NonEmptyStr, StopReason, Tokens

SESSION_TYPE = "session"
# Versions pi has written: 1 (no `version` field), 2 and 3 (docs/formats/pi-sessions.md).
KNOWN_VERSIONS = frozenset({1, 2, 3})
Version = Annotated[int, msgspec.Meta(ge=1)]
# A user command's exit status as a process has one: a 32-bit signed integer.
ExitCode = Annotated[int, msgspec.Meta(ge=ranges.MIN_EXIT_CODE, le=ranges.MAX_EXIT_CODE)]


class _Shape(msgspec.Struct, frozen=True, rename="camel"):
    """Immutable, camelCase on the wire; unused fields are ignored (module docstring)."""


class Text(_Shape, frozen=True, tag_field="type", tag="text"):
    """A text block."""

    text: str
    text_signature: str | None = None


class Image(_Shape, frozen=True, tag_field="type", tag="image"):
    """A base64 image block."""

    data: str
    mime_type: str


class Thinking(_Shape, frozen=True, tag_field="type", tag="thinking"):
    """A reasoning block."""

    thinking: str
    thinking_signature: str | None = None
    redacted: bool | None = None


class ToolCallBlock(_Shape, frozen=True, tag_field="type", tag="toolCall"):
    """A tool call requested by an assistant message. The name may be empty: a model can ask for
    a tool without naming one (pi answers "Tool  not found"); such a name is in no table."""

    id: NonEmptyStr
    name: str
    arguments: dict[str, Any]
    thought_signature: str | None = None


class Usage(_Shape, frozen=True):
    """Provider-reported usage; `totalTokens` is absent in files of older pi releases."""

    input: Tokens
    output: Tokens
    cache_read: Tokens
    cache_write: Tokens
    total_tokens: Tokens = 0


class UserMessage(_Shape, frozen=True, tag_field="role", tag="user"):
    """A user prompt (pi-ai `UserMessage`)."""

    content: str | list[Text | Image]
    timestamp: Millis


class AssistantMessage(_Shape, frozen=True, tag_field="role", tag="assistant"):
    """One model response: one request (pi-ai `AssistantMessage`)."""

    content: list[Text | Thinking | ToolCallBlock]
    api: NonEmptyStr
    provider: NonEmptyStr
    model: NonEmptyStr
    usage: Usage
    stop_reason: StopReason
    timestamp: Millis


class ToolResultMessage(_Shape, frozen=True, tag_field="role", tag="toolResult"):
    """A tool's result as placed into the context (pi-ai `ToolResultMessage`); the tool name
    may be empty, as its call's (seen in real OpenClaw sessions)."""

    tool_call_id: NonEmptyStr
    tool_name: str
    content: list[Text | Image]
    is_error: bool
    timestamp: Millis


class BashExecutionMessage(_Shape, frozen=True, tag_field="role", tag="bashExecution"):
    """A user `!` command; pi renders it into the context as user text (unless `!!`)."""

    command: str
    output: str
    timestamp: Millis
    exit_code: ExitCode | None = None
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = None
    exclude_from_context: bool = False


class CustomMessage(_Shape, frozen=True, tag_field="role", tag="custom"):
    """An extension's message in the context (role `custom`, format version 3)."""

    content: str | list[Text | Image]
    timestamp: Millis


class HookMessage(_Shape, frozen=True, tag_field="role", tag="hookMessage"):
    """The same message under its version-2 role name (`hookMessage`)."""

    content: str | list[Text | Image]
    timestamp: Millis


class BranchSummaryMessage(_Shape, frozen=True, tag_field="role", tag="branchSummary"):
    """A branch summary as a message (pi builds these from entries; accepted if written)."""

    summary: str
    timestamp: Millis


class CompactionSummaryMessage(_Shape, frozen=True, tag_field="role", tag="compactionSummary"):
    """A compaction summary as a message (pi builds these from entries; accepted if written)."""

    summary: str
    timestamp: Millis


Message = (
    UserMessage
    | AssistantMessage
    | ToolResultMessage
    | BashExecutionMessage
    | CustomMessage
    | HookMessage
    | BranchSummaryMessage
    | CompactionSummaryMessage
)
MESSAGE_ROLES = frozenset(
    {
        "user",
        "assistant",
        "toolResult",
        "bashExecution",
        "custom",
        "hookMessage",
        "branchSummary",
        "compactionSummary",
    }
)


class SessionHeader(_Shape, frozen=True):
    """The first line. `version` is absent in version-1 files."""

    type: Literal["session"]
    id: NonEmptyStr
    timestamp: str
    version: Version | None = None

    @property
    def format_version(self) -> int:
        """The file's format version (1 when the field is absent)."""
        return 1 if self.version is None else self.version


class _Entry(_Shape, frozen=True, kw_only=True, tag_field="type"):
    """Every entry after the header. Version 1 has no `id` / `parentId` (a linear list)."""

    timestamp: str
    id: NonEmptyStr | None = None
    parent_id: str | None = None


class MessageEntry(_Entry, frozen=True, tag="message"):
    """A message; its role is checked before the message is decoded (unknown roles counted)."""

    message: dict[str, Any]


class ThinkingLevelChange(_Entry, frozen=True, tag="thinking_level_change"):
    """The user changed the thinking level (not part of the context)."""

    thinking_level: str


class ModelChange(_Entry, frozen=True, tag="model_change"):
    """The user switched models (each assistant message names its own)."""

    provider: str
    model_id: str


class Compaction(_Entry, frozen=True, tag="compaction"):
    """A compaction: the summary replaces the context before `firstKeptEntryId` (version 1:
    `firstKeptEntryIndex`, the line index of the first kept entry, the header being 0)."""

    summary: str
    tokens_before: Tokens
    first_kept_entry_id: str | None = None
    first_kept_entry_index: Count | None = None


class BranchSummary(_Entry, frozen=True, tag="branch_summary"):
    """A summary of an abandoned branch, placed in the context as user text."""

    summary: str


class CustomEntry(_Entry, frozen=True, tag="custom"):
    """Extension state; not part of the context."""


class CustomMessageEntry(_Entry, frozen=True, tag="custom_message"):
    """An extension's message that is part of the context (as user content)."""

    content: str | list[Text | Image]


class Label(_Entry, frozen=True, tag="label"):
    """A user bookmark; not part of the context."""


class SessionInfo(_Entry, frozen=True, tag="session_info"):
    """Session metadata (a display name); not part of the context."""


Entry = (
    MessageEntry
    | ThinkingLevelChange
    | ModelChange
    | Compaction
    | BranchSummary
    | CustomEntry
    | CustomMessageEntry
    | Label
    | SessionInfo
)
ENTRY_TYPES = frozenset(
    {
        "message",
        "thinking_level_change",
        "model_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
    }
)

__all__ = [
    "ENTRY_TYPES",
    "KNOWN_VERSIONS",
    "MESSAGE_ROLES",
    "SESSION_TYPE",
    "AssistantMessage",
    "BashExecutionMessage",
    "BranchSummary",
    "BranchSummaryMessage",
    "Compaction",
    "CompactionSummaryMessage",
    "CustomEntry",
    "CustomMessage",
    "CustomMessageEntry",
    "Entry",
    "HookMessage",
    "Image",
    "Label",
    "Message",
    "MessageEntry",
    "ModelChange",
    "SessionHeader",
    "SessionInfo",
    "Text",
    "Thinking",
    "ThinkingLevelChange",
    "ToolCallBlock",
    "ToolResultMessage",
    "Usage",
    "UserMessage",
]
