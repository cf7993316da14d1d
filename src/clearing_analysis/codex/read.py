"""Read one Codex CLI rollout into its requests, context and tool results, or refuse it whole.

Guarantees (docs/formats/codex.md):
- Each line is decoded under the same strict JSON rules as a native journal line
  (`strictjson`: UTF-8, no duplicate keys, no NaN, nesting and length limits from policy/).
- The first line is a `session_meta` envelope with a string `id`; the 2025 format before the
  envelope (a first line `{"id", "timestamp", "instructions"}`) is UNSUPPORTED_VERSION, a
  zstd-compressed file is COMPRESSED (remedy: `zstd -d`), a `model_provider` other than
  OpenAI's is UNSUPPORTED_PROVIDER.
- Every later line must be an envelope. A known line type, and each payload the reader uses,
  must have its documented shape; other line types, response items and events are counted by
  a fixed code and left out, never decoded or echoed.
- **Requests** (R-SRC-3): a `token_count` event whose `info.total_token_usage` differs from the
  previous event's is one request, its usage `last_token_usage`; repeats (the same total, or no
  `info`) are counted and dropped. The response items since the previous request (assistant
  text, reasoning, tool calls) are that request's output.
- A `compacted` line is a compaction, its tokens before the last request's input + output.
- A later `session_meta` line starts a copy of another thread's history (a fork, an agent
  spawned with its parent's history). Its `token_count` events are no requests, and the copy's
  lines up to its last such event are counted and left out; the copy ends at the first total
  below the previous one (the file's own running sum starting again), which is a request.
- A last line without its newline is torn: dropped and counted; the rest is read.
- Any other defect makes the file INVALID with one fixed detail; such a file contributes
  nothing. No error carries input text.
"""

from __future__ import annotations

import datetime
import enum
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

import msgspec

from clearing_analysis import jsonlines, strictjson
from clearing_analysis.codex import lines as cl
from clearing_analysis.codex.outcome import Outcome, outcome_of
from clearing_analysis.inputs.configs import Api
from clearing_analysis.journal.messages import MAX_SAFE_INTEGER
from clearing_analysis.policy import limits

# The first bytes of every zstd frame (RFC 8878, section 3.1.1).
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


class RolloutOutcome(enum.StrEnum):
    """Why a rollout contributes nothing."""

    UNSUPPORTED_VERSION = "UNSUPPORTED_VERSION"
    UNSUPPORTED_PROVIDER = "UNSUPPORTED_PROVIDER"
    COMPRESSED = "COMPRESSED"
    INVALID = "INVALID"


class RolloutInvalid(enum.StrEnum):
    """Detail codes of an INVALID rollout (docs/formats/codex.md)."""

    EMPTY_FILE = "EMPTY_FILE"
    NOT_A_SESSION = "NOT_A_SESSION"
    LINE_TOO_LONG = "LINE_TOO_LONG"
    INVALID_UTF8 = strictjson.INVALID_UTF8
    MALFORMED_JSON = strictjson.MALFORMED_JSON
    DUPLICATE_KEY = strictjson.DUPLICATE_KEY
    NON_FINITE_NUMBER = strictjson.NON_FINITE_NUMBER
    NUMBER_OUT_OF_RANGE = strictjson.NUMBER_OUT_OF_RANGE
    NESTING_TOO_DEEP = strictjson.NESTING_TOO_DEEP
    WRONG_SHAPE = strictjson.WRONG_SHAPE
    VALUE_OUT_OF_RANGE = strictjson.VALUE_OUT_OF_RANGE
    NOT_AN_OBJECT = "NOT_AN_OBJECT"
    USAGE_INCONSISTENT = "USAGE_INCONSISTENT"
    TIMESTAMP_INVALID = "TIMESTAMP_INVALID"


class RolloutCount(enum.StrEnum):
    """What the reader counts and leaves out (never names, never text)."""

    # A last line without its newline.
    TORN_LINES = "TORN_LINES"
    # Envelope types other than the five `RolloutItem` kinds.
    UNKNOWN_LINES = "UNKNOWN_LINES"
    # Response items the reader does not map (ghost snapshots, image generation, ...).
    UNKNOWN_ITEMS = "UNKNOWN_ITEMS"
    # Events other than the few the reader uses (agent_message, agent_reasoning, ...).
    IGNORED_EVENTS = "IGNORED_EVENTS"
    # token_count events with no `info`, or repeating the previous total.
    REPEATED_TOKEN_COUNTS = "REPEATED_TOKEN_COUNTS"  # noqa: S105  (a code, not a secret)
    # Lines of a copied history (forks, spawned agents), and the token_count events among them.
    COPIED_LINES = "COPIED_LINES"
    COPIED_TOKEN_COUNTS = "COPIED_TOKEN_COUNTS"  # noqa: S105  (a code, not a secret)
    # web_search_call items: run by the server, no result in the context.
    SERVER_TOOL_CALLS = "SERVER_TOOL_CALLS"
    # Items of a compaction's replacement_history.
    REPLACEMENT_ITEMS = "REPLACEMENT_ITEMS"
    # Response items after the last request (a session stopped mid-response): no usage.
    UNBILLED_ITEMS = "UNBILLED_ITEMS"
    # Tool results whose call no earlier request of the file made.
    ORPHAN_RESULTS = "ORPHAN_RESULTS"


class CallKind(enum.StrEnum):
    """Which response item made a tool call."""

    FUNCTION = "FUNCTION"
    CUSTOM = "CUSTOM"
    LOCAL_SHELL = "LOCAL_SHELL"


# The name Codex's older shell item runs under (it names no tool itself).
LOCAL_SHELL_NAME = "local_shell"


class ContextMessage(msgspec.Struct, frozen=True):
    """A user, developer or system message in the context that is no prompt of its own."""

    line: int
    millis: int
    role: str
    content: tuple[cl.ContentItem, ...]


class Prompt(msgspec.Struct, frozen=True):
    """A prompt: the `user_message` event, with the context item that carries it when one
    immediately precedes it."""

    line: int
    millis: int
    content: tuple[cl.ContentItem, ...]


class ToolCall(msgspec.Struct, frozen=True):
    """A tool call of a request."""

    call_id: str
    name: str
    kind: CallKind


class Request(msgspec.Struct, frozen=True):
    """One model request: its usage, model and output."""

    line: int
    millis: int
    usage: cl.RequestUsage
    model: str | None
    texts: tuple[str, ...]
    reasoning_items: int
    calls: tuple[ToolCall, ...]


class ToolOutput(msgspec.Struct, frozen=True):
    """A tool result as it entered the context: its text (or content items), UTF-8 size and
    the outcome its documented exit status states."""

    line: int
    millis: int
    call_id: str
    content: tuple[cl.ContentItem, ...]
    byte_size: int
    outcome: Outcome


class Compaction(msgspec.Struct, frozen=True):
    """A `compacted` line."""

    line: int
    millis: int
    tokens_before: int
    summary: str
    replaced: bool


class TurnEnd(msgspec.Struct, frozen=True):
    """A turn's end (`task_complete`, `turn_aborted`)."""

    line: int
    millis: int
    aborted: bool


Item = ContextMessage | Prompt | Request | ToolOutput | Compaction | TurnEnd


# The two APIs a rollout's requests can belong to (docs/formats/codex.md), with pi-ai's
# provider of each.
PROVIDER_OF: dict[Api, str] = {
    Api.OPENAI_CODEX_RESPONSES: "openai-codex",
    Api.OPENAI_RESPONSES: "openai",
}


class ReadRollout(msgspec.Struct, frozen=True):
    """A readable rollout: its thread id (memory only), where it starts, its API, its items in
    order and what was counted and left out."""

    thread_id: str
    created_millis: int
    api: Api
    items: tuple[Item, ...]
    counts: dict[RolloutCount, int]
    byte_size: int
    # Complete lines after the first (every envelope read, counted or not).
    lines: int = 0

    @property
    def requests(self) -> tuple[Request, ...]:
        """The file's requests, in order."""
        return tuple(item for item in self.items if isinstance(item, Request))


class RejectedRollout(msgspec.Struct, frozen=True):
    """A rollout that contributes nothing, with its fixed outcome and detail."""

    outcome: RolloutOutcome
    detail: RolloutInvalid | None = None


RolloutRead = ReadRollout | RejectedRollout


class _Rejected(Exception):  # noqa: N818  (internal control flow, never escapes this module)
    def __init__(self, outcome: RolloutOutcome, detail: RolloutInvalid | None = None) -> None:
        self.outcome = outcome
        self.detail = detail


def _invalid(detail: RolloutInvalid) -> _Rejected:
    return _Rejected(RolloutOutcome.INVALID, detail)


def millis_of(text: str) -> int:
    """An envelope's RFC 3339 timestamp in Unix milliseconds; TIMESTAMP_INVALID otherwise."""
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise _invalid(RolloutInvalid.TIMESTAMP_INVALID) from None
    if moment.tzinfo is None:
        raise _invalid(RolloutInvalid.TIMESTAMP_INVALID)
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
    millis = (moment - epoch) // datetime.timedelta(milliseconds=1)
    if not 0 <= millis <= MAX_SAFE_INTEGER:
        raise _invalid(RolloutInvalid.TIMESTAMP_INVALID)
    return millis


_T = TypeVar("_T")


def _decoded(step: Callable[..., _T], *args: Any) -> _T:
    """One `jsonlines` step, its refusal as this reader's INVALID detail of the same name."""
    try:
        return step(*args)
    except jsonlines.LineRejected as rejected:
        raise _invalid(RolloutInvalid(rejected.reason)) from None


def _object(raw: bytes) -> dict[str, Any]:
    return _decoded(jsonlines.json_object, raw)


def _convert(value: Any, type_: Any) -> Any:
    return _decoded(jsonlines.convert, value, type_)


def _first(raw: bytes) -> tuple[cl.SessionMeta, int]:
    """The session_meta line: (its payload, its envelope time)."""
    try:
        value = _object(raw)
    except _Rejected:
        raise _invalid(RolloutInvalid.NOT_A_SESSION) from None
    if value.get("type") != cl.SESSION_META:
        if {"id", "timestamp", "instructions"} <= value.keys():
            raise _Rejected(RolloutOutcome.UNSUPPORTED_VERSION)
        raise _invalid(RolloutInvalid.NOT_A_SESSION)
    payload = value.get("payload")
    if not isinstance(payload, dict) or not isinstance(payload.get("id"), str):
        raise _invalid(RolloutInvalid.NOT_A_SESSION)
    envelope: cl.Envelope = _convert(value, cl.Envelope)
    meta: cl.SessionMeta = _convert(payload, cl.SessionMeta)
    if not cl.is_openai(meta.model_provider):
        raise _Rejected(RolloutOutcome.UNSUPPORTED_PROVIDER)
    return meta, millis_of(envelope.timestamp)


def _blocks(output: str | list[cl.ContentItem]) -> tuple[cl.ContentItem, ...]:
    return (cl.InputText(output),) if isinstance(output, str) else tuple(output)


def _text_of(blocks: tuple[cl.ContentItem, ...]) -> str:
    return "".join(b.text for b in blocks if isinstance(b, cl.InputText | cl.OutputText))


def _usage_checked(usage: cl.RequestUsage | cl.TokenUsage) -> None:
    if usage.cached_input_tokens > usage.input_tokens:
        raise _invalid(RolloutInvalid.USAGE_INCONSISTENT)
    if usage.reasoning_output_tokens > usage.output_tokens:
        raise _invalid(RolloutInvalid.USAGE_INCONSISTENT)


class _Reader:
    """The line-by-line state of one rollout."""

    def __init__(self) -> None:
        self.items: list[Item] = []
        self.counts = dict.fromkeys(RolloutCount, 0)
        self.model: str | None = None
        self.previous_total: cl.TokenUsage | None = None
        self.last_request: cl.RequestUsage | None = None
        self.windows = False
        self.lines = 0
        self.in_copy = False
        self.copy_start = 0
        self.copy_lines = 0
        self.known_calls: set[str] = set()
        # The open request's output, and results that arrived before its token_count.
        self.texts: list[str] = []
        self.reasoning = 0
        self.calls: list[ToolCall] = []
        self.early_results: list[ToolOutput] = []
        # A user-role context message not yet placed: the prompt's own item if a user_message
        # event follows it.
        self.held: ContextMessage | None = None

    @property
    def pending(self) -> int:
        return len(self.texts) + self.reasoning + len(self.calls) + len(self.early_results)

    def place_held(self) -> None:
        if self.held is not None:
            self.items.append(self.held)
            self.held = None

    def add(self, line: int, value: dict[str, Any]) -> None:
        self.lines += 1
        kind = value.get("type")
        if not isinstance(kind, str):
            raise _invalid(RolloutInvalid.WRONG_SHAPE)
        envelope: cl.Envelope = _convert(value, cl.Envelope)
        millis = millis_of(envelope.timestamp)
        payload = envelope.payload
        if self.in_copy:
            self.copy_lines += 1
        if kind == cl.SESSION_META:
            if not isinstance(payload, dict):
                raise _invalid(RolloutInvalid.WRONG_SHAPE)
            if not self.in_copy:  # a copied history starts (module docstring)
                self.in_copy, self.copy_start, self.copy_lines = True, len(self.items), 1
            return
        if kind not in cl.LINE_TYPES:
            self.counts[RolloutCount.UNKNOWN_LINES] += 1
            return
        if not isinstance(payload, dict):
            raise _invalid(RolloutInvalid.WRONG_SHAPE)
        if kind == cl.EVENT_MSG and payload.get("type") == "token_count":
            self.token_count(line, millis, _convert(payload, cl.TokenCount))
            return
        if kind == cl.TURN_CONTEXT:
            self.model = _convert(payload, cl.TurnContext).model
        elif kind == cl.COMPACTED:
            self.compacted(line, millis, _convert(payload, cl.Compacted))
        elif kind == cl.RESPONSE_ITEM:
            self.response_item(line, millis, payload)
        else:
            self.event(line, millis, payload)

    def token_count(self, line: int, millis: int, event: cl.TokenCount) -> None:
        if event.rate_limits is not None and (
            event.rate_limits.primary is not None or event.rate_limits.secondary is not None
        ):
            self.windows = True
        info = event.info
        if info is None:
            self.counts[RolloutCount.REPEATED_TOKEN_COUNTS] += 1
            return
        _usage_checked(info.total_token_usage)
        _usage_checked(info.last_token_usage)
        previous, self.previous_total = self.previous_total, info.total_token_usage
        if self.in_copy:
            restarted = (
                previous is not None and info.total_token_usage.total_tokens < previous.total_tokens
            )
            if not restarted:
                self.drop_copy()
                return
            self.in_copy = False
        if previous == info.total_token_usage:
            self.counts[RolloutCount.REPEATED_TOKEN_COUNTS] += 1
            return
        self.place_held()
        self.items.append(
            Request(
                line,
                millis,
                info.last_token_usage,
                self.model,
                tuple(self.texts),
                self.reasoning,
                tuple(self.calls),
            )
        )
        self.known_calls.update(call.call_id for call in self.calls)
        self.last_request = info.last_token_usage
        self.texts, self.reasoning, self.calls = [], 0, []
        self.items.extend(self.early_results)
        self.early_results = []

    def drop_copy(self) -> None:
        """A copied token_count: the copy so far (its lines up to this event) is the parent's
        and is left out; what follows may be the file's own, until the next copied event."""
        self.counts[RolloutCount.COPIED_TOKEN_COUNTS] += 1
        self.counts[RolloutCount.COPIED_LINES] += self.copy_lines
        self.copy_lines = 0
        del self.items[self.copy_start :]
        self.texts, self.reasoning, self.calls = [], 0, []
        self.early_results = []
        self.held = None

    def compacted(self, line: int, millis: int, item: cl.Compacted) -> None:
        self.place_held()
        last = self.last_request
        before = 0 if last is None else last.input_tokens + last.output_tokens
        replaced = item.replacement_history is not None
        if item.replacement_history is not None:
            self.counts[RolloutCount.REPLACEMENT_ITEMS] += len(item.replacement_history)
        self.items.append(Compaction(line, millis, before, item.message, replaced))

    def response_item(self, line: int, millis: int, payload: dict[str, Any]) -> None:
        kind = payload.get("type")
        if not isinstance(kind, str):
            raise _invalid(RolloutInvalid.WRONG_SHAPE)
        if kind not in cl.RESPONSE_ITEM_TYPES:
            self.counts[RolloutCount.UNKNOWN_ITEMS] += 1
            return
        item: cl.ResponseItem = _convert(payload, cl.ResponseItem)
        if isinstance(item, cl.Message):
            self.message(line, millis, item)
        elif isinstance(item, cl.Reasoning):
            self.reasoning += 1
        elif isinstance(item, cl.FunctionCall):
            self.calls.append(ToolCall(item.call_id, item.name, CallKind.FUNCTION))
        elif isinstance(item, cl.CustomToolCall):
            self.calls.append(ToolCall(item.call_id, item.name, CallKind.CUSTOM))
        elif isinstance(item, cl.LocalShellCall):
            call_id = item.call_id or item.id
            if not call_id:
                raise _invalid(RolloutInvalid.WRONG_SHAPE)
            self.calls.append(ToolCall(call_id, LOCAL_SHELL_NAME, CallKind.LOCAL_SHELL))
        elif isinstance(item, cl.WebSearchCall):
            self.counts[RolloutCount.SERVER_TOOL_CALLS] += 1
        else:
            self.tool_output(line, millis, item.call_id, _blocks(item.output))

    def message(self, line: int, millis: int, item: cl.Message) -> None:
        if item.role == "assistant":
            self.texts.append(_text_of(tuple(item.content)))
            return
        self.place_held()
        context = ContextMessage(line, millis, item.role, tuple(item.content))
        if item.role == "user":
            self.held = context
        else:
            self.items.append(context)

    def tool_output(
        self, line: int, millis: int, call_id: str, content: tuple[cl.ContentItem, ...]
    ) -> None:
        self.place_held()
        text = _text_of(content)
        result = ToolOutput(line, millis, call_id, content, len(text.encode()), outcome_of(text))
        if any(call.call_id == call_id for call in self.calls):
            self.early_results.append(result)  # its request's token_count is still to come
            return
        if call_id not in self.known_calls:
            self.counts[RolloutCount.ORPHAN_RESULTS] += 1
        self.items.append(result)

    def event(self, line: int, millis: int, payload: dict[str, Any]) -> None:
        kind = payload.get("type")
        if not isinstance(kind, str):
            raise _invalid(RolloutInvalid.WRONG_SHAPE)
        if kind == "user_message":
            event: cl.UserMessageEvent = _convert(payload, cl.UserMessageEvent)
            held, self.held = self.held, None
            content = held.content if held is not None else (cl.InputText(event.message),)
            self.items.append(Prompt(line, millis, content))
        elif kind in cl.TURN_EVENTS or kind == cl.TURN_ABORTED:
            if kind in ("task_complete", "turn_complete", cl.TURN_ABORTED):
                self.place_held()
                self.items.append(TurnEnd(line, millis, kind == cl.TURN_ABORTED))
        else:
            self.counts[RolloutCount.IGNORED_EVENTS] += 1

    def finish(self) -> None:
        self.place_held()
        self.counts[RolloutCount.UNBILLED_ITEMS] += self.pending


def read_stream(stream: BinaryIO) -> RolloutRead:
    """Read a rollout from a binary stream (see the module docstring)."""
    reader = _Reader()
    meta: cl.SessionMeta | None = None
    created = 0
    size = 0
    try:
        limit = limits().max_journal_line_bytes
        for line, (raw, ended) in enumerate(jsonlines.lines(stream)):
            size += len(raw) + ended
            if line == 0 and raw.startswith(ZSTD_MAGIC):
                raise _Rejected(RolloutOutcome.COMPRESSED)
            if len(raw) > limit:
                raise _invalid(RolloutInvalid.LINE_TOO_LONG)
            if meta is None:
                if not ended:  # a torn first line: nothing complete to read
                    raise _invalid(RolloutInvalid.EMPTY_FILE)
                meta, created = _first(raw)
                continue
            if not ended:
                reader.counts[RolloutCount.TORN_LINES] += 1  # dropped (module docstring)
                break
            reader.add(line, _object(raw))
        if meta is None:
            raise _invalid(RolloutInvalid.EMPTY_FILE)
    except _Rejected as rejected:
        return RejectedRollout(rejected.outcome, rejected.detail)
    reader.finish()
    api = Api.OPENAI_CODEX_RESPONSES if reader.windows else Api.OPENAI_RESPONSES
    return ReadRollout(
        thread_id=meta.id,
        created_millis=created,
        api=api,
        items=tuple(reader.items),
        counts=reader.counts,
        byte_size=size,
        lines=reader.lines,
    )


def read_rollout(path: Path) -> RolloutRead:
    """Read one rollout file; an unreadable file is INVALID (EMPTY_FILE)."""
    try:
        with path.open("rb") as stream:
            return read_stream(stream)
    except OSError:
        return RejectedRollout(RolloutOutcome.INVALID, RolloutInvalid.EMPTY_FILE)


def is_compressed(path: Path) -> bool:
    """Whether a file starts with zstd's frame magic (Codex's `.jsonl.zst` rollouts)."""
    try:
        with path.open("rb") as stream:
            return stream.read(len(ZSTD_MAGIC)) == ZSTD_MAGIC
    except OSError:
        return False


def thread_id_of(path: Path) -> str | None:
    """The thread id of a rollout's first line under the reader's own rules, or None (kept in
    memory only: it groups files, never printed)."""
    try:
        with path.open("rb") as stream:
            raw = stream.readline(limits().max_journal_line_bytes + 2)
    except OSError:
        return None
    if not raw.endswith(b"\n") or raw.startswith(ZSTD_MAGIC):
        return None
    try:
        meta, _ = _first(raw[:-1])
    except _Rejected:
        return None
    return meta.id


__all__ = [
    "LOCAL_SHELL_NAME",
    "PROVIDER_OF",
    "ZSTD_MAGIC",
    "Api",
    "CallKind",
    "Compaction",
    "ContextMessage",
    "Item",
    "Prompt",
    "ReadRollout",
    "RejectedRollout",
    "Request",
    "RolloutCount",
    "RolloutInvalid",
    "RolloutOutcome",
    "RolloutRead",
    "ToolCall",
    "ToolOutput",
    "TurnEnd",
    "is_compressed",
    "millis_of",
    "read_rollout",
    "read_stream",
    "thread_id_of",
]
