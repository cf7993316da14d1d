"""Journal v2 records: one JSON object per line, discriminated by `kind` (R-J-1..6).

The normative description, with a worked example, is docs/formats/journal-v2.md; the JSON
Schema is policy/schemas/journal-v2.record.schema.json. These structs are the typed form the
decoder produces; they only check each record's own shape. Cross-record rules (seq order,
header first, close last) are checked by `clearing_analysis.journal.decode`.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from clearing_analysis.journal.messages import (
    AssistantMessage,
    Count,
    Millis,
    NonEmptyStr,
    Tokens,
    ToolResultMessage,
    UserMessage,
)

JOURNAL_FORMAT = "pi-native-journal"
JOURNAL_VERSION = 2

Seq = Annotated[int, msgspec.Meta(ge=0, le=2**53 - 1)]
Origin = Literal["native", "imported", "inherited"]
RunReason = Literal["prompt", "retry", "reprompt", "continue"]
RunStatus = Literal["completed", "aborted", "failed", "interrupted"]
# The end statuses a journal line may carry; the decoder accepts these and no other.
ToolStatus = Literal["success", "error", "aborted", "denied"]
CheckpointTrigger = Literal["threshold", "overflow", "manual"]
RedactionScope = Literal["web_envelope", "text"]
RedactionFormat = Literal["json", "text"]


class _Record(
    msgspec.Struct,
    frozen=True,
    forbid_unknown_fields=True,
    omit_defaults=True,
    rename="camel",
    tag_field="kind",
):
    """Every record has a strictly increasing `seq` (0, 1, 2, ... with no gaps)."""

    seq: Seq


class Header(_Record, frozen=True, tag="header"):
    """First line of every journal: identity and provenance of the session (R-J-1)."""

    format: Literal["pi-native-journal"]
    version: Literal[2]
    journal_id: NonEmptyStr
    physical_conversation_id: NonEmptyStr
    logical_conversation_id: NonEmptyStr
    origin: Origin
    created_at: Millis


class TurnStart(_Record, frozen=True, tag="turn_start"):
    """A prompt turn begins with a user input; this is a pre-turn boundary (R-J-2)."""

    host_turn_id: NonEmptyStr
    message: UserMessage


class RunStart(_Record, frozen=True, tag="run_start"):
    """A run of the agent loop inside a turn: first prompt, retry, re-prompt or continue.

    `owner` is who dispatched the run (null when the writer could not attribute it);
    `toolset_fingerprint` is the host's opaque fingerprint of the enabled tool inventory at run
    start, used only to detect configuration changes within an attested period (R-EL-3).
    """

    host_turn_id: NonEmptyStr
    run_id: NonEmptyStr
    owner: NonEmptyStr | None
    reason: RunReason
    timestamp: Millis
    toolset_fingerprint: NonEmptyStr | None = None


class MessageRecord(_Record, frozen=True, tag="message"):
    """A message appended to the conversation inside a run (assistant, tool result, steering)."""

    run_id: NonEmptyStr
    message: UserMessage | AssistantMessage | ToolResultMessage


class McpAnnotations(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True, rename="camel"
):
    """MCP tool annotations as the server declared them."""

    read_only_hint: bool | None = None
    destructive_hint: bool | None = None


class McpOrigin(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True, rename="camel"
):
    """Captured provenance of an MCP app tool (no native writer records this yet, R-EL-4)."""

    server: NonEmptyStr
    tool: NonEmptyStr
    # Lengths pinned too: Python's `$` also matches before a final newline (JSON Schema's
    # ECMA-262 `$` does not), so the pattern alone would admit "<64 hex>\n".
    server_identity_digest: Annotated[
        str, msgspec.Meta(pattern="^[0-9a-f]{64}$", min_length=64, max_length=64)
    ]
    annotations: McpAnnotations = McpAnnotations()


class ToolCallPayload(
    msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True, rename="camel"
):
    """Optional payload of a tool call start."""

    origin: McpOrigin | None = None


class ToolCallStart(_Record, frozen=True, tag="tool_call_start"):
    """The host started executing a tool call (R-J-3)."""

    run_id: NonEmptyStr
    call_id: NonEmptyStr
    tool_name: NonEmptyStr
    arguments: dict[str, object]
    timestamp: Millis
    payload: ToolCallPayload | None = None


class ToolCallEnd(_Record, frozen=True, tag="tool_call_end"):
    """The tool call ended; whether its result was returned to and placed in the context."""

    run_id: NonEmptyStr
    call_id: NonEmptyStr
    status: ToolStatus
    returned: bool
    placed: bool
    timestamp: Millis


class OutcomeUnknownEnd(ToolCallEnd, frozen=True):
    """In memory only: an imported history's call ended, its result returned and placed, but
    the history states no outcome for it (R-SRC-3: UNKNOWN_OUTCOME, not clearable).

    Not a journal record: `Record` does not hold it, so the decoder never yields it and no
    journal line can state an unknown outcome (journal v2 keeps its four statuses). Its
    `status` is `aborted`, the journal status nearest in meaning, for a reader that looks no
    further than `ToolCallEnd`; replay reads the type and reports the outcome as unknown.
    """


class RunEnd(_Record, frozen=True, tag="run_end"):
    """A run ended with a status (R-J-2)."""

    run_id: NonEmptyStr
    status: RunStatus
    timestamp: Millis


class Checkpoint(_Record, frozen=True, tag="checkpoint"):
    """A compaction: the context was summarized (R-J-4).

    After it, the context is the summary followed by the kept messages: message records
    with `first_kept_seq <= seq < this record's seq` (none when `first_kept_seq` is null), then
    whatever comes later.
    """

    trigger: CheckpointTrigger
    tokens_before: Tokens
    tokens_after: Tokens
    summary: str
    first_kept_seq: Seq | None
    timestamp: Millis


class Redaction(_Record, frozen=True, tag="redaction"):
    """The writer redacted content of an earlier tool result message record (R-J-6)."""

    target_seq: Seq
    scope: RedactionScope
    format: RedactionFormat


class Close(_Record, frozen=True, tag="close"):
    """The writer closed the journal cleanly; a journal without it is open (R-J-5)."""

    timestamp: Millis


Record = (
    Header
    | TurnStart
    | RunStart
    | MessageRecord
    | ToolCallStart
    | ToolCallEnd
    | RunEnd
    | Checkpoint
    | Redaction
    | Close
)

RECORD_KINDS: frozenset[str] = frozenset(
    {
        "header",
        "turn_start",
        "run_start",
        "message",
        "tool_call_start",
        "tool_call_end",
        "run_end",
        "checkpoint",
        "redaction",
        "close",
    }
)

__all__ = ["JOURNAL_FORMAT", "JOURNAL_VERSION", "RECORD_KINDS", "Count", "Record"]
