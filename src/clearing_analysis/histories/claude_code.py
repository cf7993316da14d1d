"""Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`): recognize, read
strictly, map onto journal records (R-SRC-1, R-SRC-2; docs/formats/claude-code.md).

Reading (`read_transcript`):
- Each line is decoded under the same strict JSON rules as a native journal line
  (`strictjson`). A line that is not a JSON object makes the file INVALID with the fixed
  detail of its defect (MALFORMED_JSON for a line that is not JSON), except a final line
  without its newline (a write torn off by a crash or a copy in progress), which is dropped and
  counted (`SessionShape.torn_final_lines`) whatever it holds.
- Every line must have a string `type`. The known types are decoded into typed entries (only
  the fields used, each checked for its type; the others are ignored, never kept); an unknown
  type, or an unknown content block type, is counted (`Unrecognized.ENTRY_TYPE`) and left out.
- Lines with a `uuid` form a tree through `parentUuid`; a `compact_boundary` has no parent and
  names the entry before it in `logicalParentUuid`. Uuids are unique and every parent is an
  entry of the file, else INVALID (ENTRY_ID_REPEATED, PARENT_UNKNOWN); an unknown logical
  parent (the history before it lives in another file) starts the path at the boundary.
- The **path** is the one Claude Code resumes: from the last user, assistant or system entry of
  the file up through its parents (and across a compaction to its logical parent) to the root,
  plus the tool-result lines that hang off it beside the path (Claude Code chains parallel tool
  calls one after another and hangs each result below its own call, so every result but the
  last is a side branch of one entry; the model saw them all). Everything else (a rewound or
  abandoned branch, a sidechain left in a main file) is only counted as off the path.

Counting (R-SRC-2): a request is one distinct (message.id, requestId) of assistant lines; a
request's lines repeat its input and cache fields and grow its output, so input and cache are
taken once and output is the largest seen; the content blocks split across its lines are joined
(in path order) into one assistant message. Model `<synthetic>` (a message Claude Code writes
itself, no request) is excluded and counted. A request whose output tokens are a streaming
placeholder (`placeholder_output`) is counted as recorded and flagged, never trusted silently.

Mapping: the path is translated into pi's typed entries and mapped by `pisession.map_session`,
so the records follow the same rules as a pi session's: a user prompt opens a turn, a `isMeta`
user line (a command's caveat or output) joins the context without opening one, each
`tool_result` block is a tool result (`is_error`: status error) whose call is the `tool_use`
block of the same id (a `<persisted-output>` preview is kept as it stands: it is what the model
saw), a `compact_boundary` is a compaction (trigger auto: `threshold`, manual: `manual`; its
`preTokens` the tokens before; its summary the `isCompactSummary` user line below it; nothing
kept). The API is anthropic-messages, the provider anthropic.

A subagent's file (`<session>/subagents/agent-<id>.jsonl`, or the older top-level
`agent-<id>.jsonl`, all lines `isSidechain: true`) is a conversation of its own: its journal id
is its session id and agent id. Identifiers are kept in memory only and never printed.
"""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO, Literal, TypeVar

import msgspec

from clearing_analysis import jsonlines, strictjson
from clearing_analysis.inputs.recognize import HistoryFormat, line_object
from clearing_analysis.journal import DecodedJournal
from clearing_analysis.journal import records as jr
from clearing_analysis.journal.messages import MAX_SAFE_INTEGER, NonEmptyStr, StopReason, Tokens
from clearing_analysis.pisession import entries as pe
from clearing_analysis.pisession import map_session
from clearing_analysis.pisession.read import (
    PathEntry,
    ReadSession,
    RejectedSession,
    SessionInvalid,
    SessionOutcome,
    SessionShape,
    Unrecognized,
    transcript_only,
)
from clearing_analysis.policy import claude_code_policy, limits
from clearing_analysis.toolclass import ToolNames

API = "anthropic-messages"
PROVIDER = "anthropic"
SYNTHETIC_MODEL = "<synthetic>"

# Entry types of the format that the reader knows; any other is counted (ENTRY_TYPE).
USER = "user"
ASSISTANT = "assistant"
SYSTEM = "system"
ENTRY_TYPES = frozenset(
    {USER, ASSISTANT, SYSTEM, "summary", "file-history-snapshot", "queue-operation", "progress"}
)
# The types a resumed path can end at (its leaf).
_LEAF_TYPES = frozenset({USER, ASSISTANT, SYSTEM})
COMPACT_BOUNDARY = "compact_boundary"


# --- typed entries (only the fields used; every other field is ignored) -------------------


class _Camel(msgspec.Struct, frozen=True, rename="camel"):
    """An entry's own fields are camelCase."""


class _Api(msgspec.Struct, frozen=True):
    """Message payloads are the Messages API's, snake_case."""


class TextBlock(_Api, frozen=True, tag_field="type", tag="text"):
    """A text block."""

    text: str


class ImageSource(_Api, frozen=True):
    """An image's source; only base64 sources carry data."""

    data: str = ""
    media_type: str = ""


class ImageBlock(_Api, frozen=True, tag_field="type", tag="image"):
    """An image block."""

    source: ImageSource


class ThinkingBlock(_Api, frozen=True, tag_field="type", tag="thinking"):
    """A reasoning block."""

    thinking: str
    signature: str | None = None


class RedactedThinkingBlock(_Api, frozen=True, tag_field="type", tag="redacted_thinking"):
    """An encrypted reasoning block."""

    data: str


class ToolUseBlock(_Api, frozen=True, tag_field="type", tag="tool_use"):
    """A tool call the model requested."""

    id: NonEmptyStr
    name: str
    input: dict[str, Any]


class ToolResultBlock(_Api, frozen=True, tag_field="type", tag="tool_result"):
    """A tool's result as placed into the context; content blocks are checked one by one."""

    tool_use_id: NonEmptyStr
    content: str | list[dict[str, Any]] | None = None
    is_error: bool | None = None


AssistantBlock = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock
UserBlock = TextBlock | ImageBlock | ToolResultBlock
_ASSISTANT_BLOCKS = {"text", "thinking", "redacted_thinking", "tool_use"}
_USER_BLOCKS = {"text", "image", "tool_result"}
_RESULT_BLOCKS = {"text", "image"}


class Usage(_Api, frozen=True):
    """A request's usage as the line records it (the 5-minute / 1-hour split of cache writes
    is in `cache_creation`, whose sum `cache_creation_input_tokens` is)."""

    input_tokens: Tokens
    output_tokens: Tokens
    cache_creation_input_tokens: Tokens | None = None
    cache_read_input_tokens: Tokens | None = None


class AssistantPayload(_Api, frozen=True):
    """An assistant line's message: one line of one request."""

    id: NonEmptyStr
    model: NonEmptyStr
    content: list[dict[str, Any]]
    usage: Usage
    stop_reason: str | None = None


class UserPayload(_Api, frozen=True):
    """A user line's message."""

    content: str | list[dict[str, Any]]


class CompactMetadata(_Camel, frozen=True):
    """What a compact boundary records."""

    trigger: Literal["auto", "manual"]
    pre_tokens: Tokens


class Line(_Camel, frozen=True, kw_only=True):
    """The fields of a known line that the reader uses."""

    type: str
    uuid: str | None = None
    parent_uuid: str | None = None
    logical_parent_uuid: str | None = None
    session_id: str | None = None
    agent_id: str | None = None
    is_sidechain: bool = False
    is_meta: bool = False
    is_compact_summary: bool = False
    timestamp: str | None = None
    request_id: str | None = None
    subtype: str | None = None
    message: dict[str, Any] | None = None
    compact_metadata: CompactMetadata | None = None


RequestKey = tuple[str, str | None]


class UserEntry(msgspec.Struct, frozen=True):
    """A user line: prompt text, a command's context (`meta`) or tool results."""

    blocks: tuple[UserBlock, ...] | str
    meta: bool
    compact_summary: bool


class AssistantEntry(msgspec.Struct, frozen=True):
    """One line of one request (its blocks; the request's facts are in `Request`)."""

    key: RequestKey
    blocks: tuple[AssistantBlock, ...]
    synthetic: bool


class CompactBoundary(msgspec.Struct, frozen=True):
    """A compaction."""

    trigger: Literal["auto", "manual"]
    pre_tokens: int


Entry = UserEntry | AssistantEntry | CompactBoundary | None  # None: no part of the context


class Node(msgspec.Struct, frozen=True):
    """A line of the tree: its line number, the type, its entry and timestamp (milliseconds)."""

    line: int
    uuid: str
    parent: str | None
    logical_parent: str | None
    kind: str
    entry: Entry
    timestamp: int | None
    sidechain: bool


class Request(msgspec.Struct):
    """One request (distinct message.id, requestId), over all its lines."""

    model: str
    input: int
    cache_read: int
    cache_write: int
    output: int = 0
    stop_reason: str | None = None
    content_bytes: int = 0


class ReadTranscript(msgspec.Struct, frozen=True):
    """A readable transcript: its ids (in memory only), the path, every request's facts and
    the counts beyond the path."""

    journal_id: str
    lineage: str
    created: int
    path: tuple[Node, ...]
    requests: dict[RequestKey, Request]
    shape: SessionShape
    byte_size: int


class _Rejected(Exception):  # noqa: N818  (internal control flow, never escapes this module)
    def __init__(self, detail: SessionInvalid) -> None:
        self.detail = detail


# --- reading ----------------------------------------------------------------------------


_T = TypeVar("_T")


def _decoded(step: Callable[..., _T], *args: Any) -> _T:
    """One `jsonlines` step, its refusal as this reader's INVALID detail of the same name."""
    try:
        return step(*args)
    except jsonlines.LineRejected as rejected:
        raise _Rejected(SessionInvalid(rejected.reason)) from None


def _lines(stream: BinaryIO) -> Iterator[tuple[bytes, bool]]:
    """(line without its newline, whether it ended with one); refuses over-long lines."""
    for body, ended in jsonlines.lines(stream):
        yield _decoded(jsonlines.check_length, body), ended


def _object(raw: bytes) -> dict[str, Any]:
    return _decoded(jsonlines.json_object, raw)


def _convert(value: Any, type_: Any) -> Any:
    return _decoded(jsonlines.convert, value, type_)


def _text_field(value: dict[str, Any], key: str) -> str | None:
    found = value.get(key)
    if found is not None and not isinstance(found, str):
        raise _Rejected(SessionInvalid.WRONG_SHAPE)
    return found


def iso_millis(text: str | None) -> int | None:
    """An ISO-8601 timestamp with its offset in Unix milliseconds (None when absent)."""
    if text is None:
        return None
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise _Rejected(SessionInvalid.TIMESTAMP_INVALID) from None
    if moment.tzinfo is None:
        raise _Rejected(SessionInvalid.TIMESTAMP_INVALID)
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
    millis = (moment - epoch) // datetime.timedelta(milliseconds=1)
    if not 0 <= millis <= MAX_SAFE_INTEGER:
        raise _Rejected(SessionInvalid.TIMESTAMP_INVALID)
    return millis


def lineage_of(message: object) -> str:
    """A digest of the first user message (in memory only): a copy of the conversation repeats
    it, separate conversations differ (each prompt carries its own line)."""
    return hashlib.blake2b(msgspec.json.encode(message), digest_size=16).hexdigest()


def _content_bytes(block: AssistantBlock) -> int:
    """The size of what a block says (text, reasoning, a call's arguments), for the
    placeholder rule; signatures and encrypted reasoning are not what the model wrote out."""
    if isinstance(block, TextBlock):
        return len(block.text.encode())
    if isinstance(block, ThinkingBlock):
        return len(block.thinking.encode())
    if isinstance(block, ToolUseBlock):
        return len(msgspec.json.encode(block.input))
    return 0


def placeholder_output(request: Request) -> bool:
    """Whether the request's recorded output tokens are a streaming placeholder rather than
    the response's size: none of its lines records a stop reason (the final `message_delta`
    that carries the real output count was never written), and the output is smaller than its
    content could be at the policy's most bytes per output token (policy/claude-code.json)."""
    if request.stop_reason is not None:
        return False
    per_token = claude_code_policy().placeholder_max_bytes_per_output_token
    return request.output * per_token < request.content_bytes


class _Reader(msgspec.Struct):
    nodes: list[Node] = msgspec.field(default_factory=list)
    requests: dict[RequestKey, Request] = msgspec.field(default_factory=dict)
    unrecognized: dict[Unrecognized, int] = msgspec.field(
        default_factory=lambda: dict.fromkeys(Unrecognized, 0)
    )
    entries: int = 0
    synthetic: int = 0
    session_id: str | None = None
    last_session_id: str | None = None
    agent_id: str | None = None
    lineage: str | None = None
    created: int | None = None

    def _blocks(self, raw: list[dict[str, Any]], known: set[str], type_: Any) -> list[Any]:
        blocks: list[Any] = []
        for value in raw:
            if not isinstance(value, dict) or not isinstance(value.get("type"), str):
                raise _Rejected(SessionInvalid.WRONG_SHAPE)
            if value["type"] not in known:
                self.unrecognized[Unrecognized.ENTRY_TYPE] += 1
                continue
            blocks.append(_convert(value, type_))
        return blocks

    def _user(self, line: Line) -> UserEntry:
        if line.message is None:
            raise _Rejected(SessionInvalid.WRONG_SHAPE)
        if self.lineage is None:
            self.lineage = lineage_of(line.message)
        payload: UserPayload = _convert(line.message, UserPayload)
        if isinstance(payload.content, str):
            return UserEntry(payload.content, line.is_meta, line.is_compact_summary)
        blocks = self._blocks(payload.content, _USER_BLOCKS, UserBlock)
        for block in blocks:
            if isinstance(block, ToolResultBlock) and isinstance(block.content, list):
                # Checked here, so that the mapping sees only known result blocks.
                kept = self._blocks(block.content, _RESULT_BLOCKS, TextBlock | ImageBlock)
                del kept
        return UserEntry(tuple(blocks), line.is_meta, line.is_compact_summary)

    def _assistant(self, line: Line) -> AssistantEntry:
        if line.message is None:
            raise _Rejected(SessionInvalid.WRONG_SHAPE)
        payload: AssistantPayload = _convert(line.message, AssistantPayload)
        blocks = tuple(self._blocks(payload.content, _ASSISTANT_BLOCKS, AssistantBlock))
        key = (payload.id, line.request_id)
        synthetic = payload.model == SYNTHETIC_MODEL
        if synthetic:
            self.synthetic += 1
            return AssistantEntry(key, blocks, synthetic)
        usage = payload.usage
        request = self.requests.get(key)
        if request is None:
            request = Request(
                payload.model,
                usage.input_tokens,
                usage.cache_read_input_tokens or 0,
                usage.cache_creation_input_tokens or 0,
            )
            self.requests[key] = request
        request.output = max(request.output, usage.output_tokens)
        if payload.stop_reason is not None:
            request.stop_reason = payload.stop_reason
        request.content_bytes += sum(_content_bytes(block) for block in blocks)
        return AssistantEntry(key, blocks, synthetic)

    def add(self, number: int, value: dict[str, Any]) -> None:
        self.entries += 1
        kind = value.get("type")
        if not isinstance(kind, str):
            raise _Rejected(SessionInvalid.WRONG_SHAPE)
        uuid = _text_field(value, "uuid")
        if kind not in ENTRY_TYPES:
            # Still a node of the tree when it has a uuid; its other fields are never decoded.
            self.unrecognized[Unrecognized.ENTRY_TYPE] += 1
            if uuid is not None:
                parent = _text_field(value, "parentUuid")
                self.nodes.append(Node(number, uuid, parent, None, kind, None, None, False))
            return
        line: Line = _convert(value, Line)
        if line.session_id is not None:
            self.session_id = self.session_id or line.session_id
            self.last_session_id = line.session_id
        if line.agent_id is not None and self.agent_id is None:
            self.agent_id = line.agent_id
        entry: Entry = None
        if kind == USER:
            entry = self._user(line)
        elif kind == ASSISTANT:
            entry = self._assistant(line)
        elif kind == SYSTEM and line.subtype == COMPACT_BOUNDARY:
            if line.compact_metadata is None:
                raise _Rejected(SessionInvalid.WRONG_SHAPE)
            entry = CompactBoundary(line.compact_metadata.trigger, line.compact_metadata.pre_tokens)
        if line.uuid is None:
            if kind in (USER, ASSISTANT):
                raise _Rejected(SessionInvalid.ENTRY_ID_MISSING)
            return
        timestamp = iso_millis(line.timestamp)
        if timestamp is not None and self.created is None:
            self.created = timestamp
        self.nodes.append(
            Node(
                number,
                line.uuid,
                line.parent_uuid,
                line.logical_parent_uuid,
                kind,
                entry,
                timestamp,
                line.is_sidechain,
            )
        )


def _results_only(node: Node) -> bool:
    entry = node.entry
    return (
        isinstance(entry, UserEntry)
        and not isinstance(entry.blocks, str)
        and bool(entry.blocks)
        and all(isinstance(block, ToolResultBlock) for block in entry.blocks)
    )


def resumed_path(nodes: Sequence[Node]) -> tuple[list[Node], int]:
    """(the path in file order, branch tips); see the module docstring."""
    by_uuid: dict[str, Node] = {}
    for node in nodes:
        if node.uuid in by_uuid:
            raise _Rejected(SessionInvalid.ENTRY_ID_REPEATED)
        by_uuid[node.uuid] = node
    has_child: set[str] = set()
    for node in nodes:
        if node.parent is not None:
            if node.parent not in by_uuid:
                raise _Rejected(SessionInvalid.PARENT_UNKNOWN)
            has_child.add(node.parent)
        elif node.logical_parent is not None:
            has_child.add(node.logical_parent)  # continued across a compaction: no branch tip
    # A main file's leaf is on its main chain; a subagent's file is sidechain throughout.
    main = any(not node.sidechain for node in nodes if node.kind in _LEAF_TYPES)
    leaf = next(
        (
            node
            for node in reversed(nodes)
            if node.kind in _LEAF_TYPES and (node.sidechain is not main)
        ),
        None,
    )
    on_path: set[str] = set()
    current = leaf
    while current is not None:
        if current.uuid in on_path:  # a cycle of parents: no file Claude Code wrote
            raise _Rejected(SessionInvalid.PARENT_UNKNOWN)
        on_path.add(current.uuid)
        above = current.parent
        if above is None and current.logical_parent in by_uuid:
            above = current.logical_parent
        current = None if above is None else by_uuid[above]
    beside = {
        node.uuid
        for node in nodes
        if node.uuid not in on_path and node.parent in on_path and _results_only(node)
    }
    path = [node for node in nodes if node.uuid in on_path or node.uuid in beside]
    # Branch tips; a result beside the path is part of it, no branch.
    leaves = sum(1 for node in nodes if node.uuid not in has_child and node.uuid not in beside)
    return path, leaves


def orphan_results(path: Sequence[Node]) -> int:
    """Tool results on the path whose call no assistant line of the same prompt turn requested
    (mapped with a call of their own, as a pi session's are)."""
    orphans = 0
    open_calls: set[str] = set()
    for node in path:
        entry = node.entry
        if isinstance(entry, AssistantEntry) and not entry.synthetic:
            open_calls.update(b.id for b in entry.blocks if isinstance(b, ToolUseBlock))
        elif isinstance(entry, UserEntry) and not entry.compact_summary:
            if isinstance(entry.blocks, str) or not any(
                isinstance(block, ToolResultBlock) for block in entry.blocks
            ):
                if not entry.meta:
                    open_calls = set()
                continue
            for block in entry.blocks:
                if isinstance(block, ToolResultBlock):
                    if block.tool_use_id in open_calls:
                        open_calls.discard(block.tool_use_id)
                    else:
                        orphans += 1
    return orphans


def read_stream(stream: BinaryIO) -> ReadTranscript | RejectedSession:
    """Read a transcript from a binary stream (see the module docstring)."""
    reader = _Reader()
    size = torn = 0
    try:
        for number, (raw, ended) in enumerate(_lines(stream)):
            size += len(raw) + ended
            if not ended:
                torn = 1  # a final fragment: dropped and counted, whatever it holds
                break
            reader.add(number, _object(raw))
        if not reader.nodes or reader.session_id is None or reader.last_session_id is None:
            raise _Rejected(SessionInvalid.NOT_A_SESSION if size else SessionInvalid.EMPTY_FILE)
        path, leaves = resumed_path(reader.nodes)
    except _Rejected as rejected:
        return RejectedSession(SessionOutcome.INVALID, rejected.detail)
    journal_id = reader.last_session_id
    if reader.agent_id is not None:
        journal_id = f"{journal_id}\0agent\0{reader.agent_id}"
    counted = {
        node.entry.key
        for node in path
        if isinstance(node.entry, AssistantEntry) and not node.entry.synthetic
    }
    placeholders = sum(1 for key in counted if placeholder_output(reader.requests[key]))
    reader.unrecognized[Unrecognized.ORPHAN_TOOL_RESULT] = orphan_results(path)
    shape = SessionShape(
        version=0,
        entries=reader.entries,
        off_path_entries=reader.entries - len(path),
        leaves=leaves,
        unrecognized=reader.unrecognized,
        transcript_only=transcript_only(()),
        format=HistoryFormat.CLAUDE_CODE,
        torn_final_lines=torn,
        placeholder_output_requests={API: placeholders} if placeholders else {},
        synthetic_messages=reader.synthetic,
    )
    return ReadTranscript(
        journal_id=journal_id,
        lineage=reader.lineage or lineage_of(journal_id),
        created=reader.created or 0,
        path=tuple(path),
        requests=reader.requests,
        shape=shape,
        byte_size=size,
    )


def read_transcript(path: Path) -> ReadTranscript | RejectedSession:
    """Read one transcript file; an unreadable file is INVALID (EMPTY_FILE)."""
    try:
        with path.open("rb") as stream:
            return read_stream(stream)
    except OSError:
        return RejectedSession(SessionOutcome.INVALID, SessionInvalid.EMPTY_FILE)


# --- mapping ----------------------------------------------------------------------------

_STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "refusal": "stop",
    "tool_use": "toolUse",
    "max_tokens": "length",
}


def _result_content(block: ToolResultBlock) -> list[pe.Text | pe.Image]:
    if block.content is None:
        return []
    if isinstance(block.content, str):
        return [pe.Text(block.content)]
    content: list[pe.Text | pe.Image] = []
    for value in block.content:
        if value.get("type") not in _RESULT_BLOCKS:
            continue  # counted by the reader
        typed = msgspec.convert(value, TextBlock | ImageBlock)
        content.append(_user_block(typed))
    return content


def _user_block(block: TextBlock | ImageBlock) -> pe.Text | pe.Image:
    if isinstance(block, TextBlock):
        return pe.Text(block.text)
    return pe.Image(block.source.data, block.source.media_type)


def _assistant_block(block: AssistantBlock) -> pe.Text | pe.Thinking | pe.ToolCallBlock:
    if isinstance(block, TextBlock):
        return pe.Text(block.text)
    if isinstance(block, ThinkingBlock):
        return pe.Thinking(block.thinking, block.signature)
    if isinstance(block, RedactedThinkingBlock):
        return pe.Thinking("", block.data, True)
    return pe.ToolCallBlock(block.id, block.name, block.input)


class _Translation(msgspec.Struct):
    """The path as pi's entries (one PathEntry per message), and each compaction's trigger."""

    read: ReadTranscript
    path: list[PathEntry] = msgspec.field(default_factory=list)
    triggers: dict[int, jr.CheckpointTrigger] = msgspec.field(default_factory=dict)
    tool_names: dict[str, str] = msgspec.field(default_factory=dict)
    emitted: set[RequestKey] = msgspec.field(default_factory=set)
    pending_compaction: int | None = None
    # Each request's blocks over its lines on the path, in path order (split lines joined).
    blocks: dict[RequestKey, list[AssistantBlock]] = msgspec.field(default_factory=dict)

    def __post_init__(self) -> None:
        for node in self.read.path:
            if isinstance(node.entry, AssistantEntry):
                self.blocks.setdefault(node.entry.key, []).extend(node.entry.blocks)

    def _add(self, line: int, message: pe.Message, timestamp: str) -> None:
        entry = pe.MessageEntry(timestamp=timestamp, message={})
        self.path.append(PathEntry(line, entry, message))

    def _assistant(self, node: Node, entry: AssistantEntry, stamp: int, iso: str) -> None:
        if entry.synthetic or entry.key in self.emitted:
            return
        self.emitted.add(entry.key)
        blocks = [_assistant_block(block) for block in self.blocks[entry.key]]
        for block in blocks:
            if isinstance(block, pe.ToolCallBlock):
                self.tool_names[block.id] = block.name
        request = self.read.requests[entry.key]
        stop = _STOP_REASONS.get(request.stop_reason or "")
        if stop is None:
            calls = any(isinstance(block, pe.ToolCallBlock) for block in blocks)
            stop = "toolUse" if calls else "stop"
        usage = pe.Usage(
            input=request.input,
            output=request.output,
            cache_read=request.cache_read,
            cache_write=request.cache_write,
            total_tokens=request.input + request.output + request.cache_read + request.cache_write,
        )
        message = pe.AssistantMessage(blocks, API, PROVIDER, request.model, usage, stop, stamp)
        self._add(node.line, message, iso)

    def _user(self, node: Node, entry: UserEntry, stamp: int, iso: str) -> None:
        if entry.compact_summary and self.pending_compaction is not None:
            compaction = self.path[self.pending_compaction].entry
            assert isinstance(compaction, pe.Compaction)
            text = entry.blocks if isinstance(entry.blocks, str) else _joined(entry.blocks)
            self.path[self.pending_compaction] = PathEntry(
                node.line, msgspec.structs.replace(compaction, summary=text), None
            )
            self.pending_compaction = None
            return
        if isinstance(entry.blocks, str):
            if entry.meta:
                self._add(node.line, pe.CustomMessage(entry.blocks, stamp), iso)
            else:
                self._add(node.line, pe.UserMessage(entry.blocks, stamp), iso)
            return
        results = [block for block in entry.blocks if isinstance(block, ToolResultBlock)]
        others = [
            _user_block(block) for block in entry.blocks if not isinstance(block, ToolResultBlock)
        ]
        for block in results:
            message = pe.ToolResultMessage(
                block.tool_use_id,
                self.tool_names.get(block.tool_use_id, ""),
                _result_content(block),
                bool(block.is_error),
                stamp,
            )
            self._add(node.line, message, iso)
        if others:
            if entry.meta or results:
                self._add(node.line, pe.CustomMessage(others, stamp), iso)
            else:
                self._add(node.line, pe.UserMessage(others, stamp), iso)

    def run(self) -> None:
        last = self.read.created
        for node in self.read.path:
            stamp = last if node.timestamp is None else node.timestamp
            last = stamp
            iso = _iso(stamp)
            entry = node.entry
            if isinstance(entry, AssistantEntry):
                self._assistant(node, entry, stamp, iso)
            elif isinstance(entry, UserEntry):
                self._user(node, entry, stamp, iso)
            elif isinstance(entry, CompactBoundary):
                self.triggers[len(self.path)] = "threshold" if entry.trigger == "auto" else "manual"
                self.pending_compaction = len(self.path)
                compaction = pe.Compaction(
                    timestamp=iso, summary="", tokens_before=entry.pre_tokens
                )
                self.path.append(PathEntry(node.line, compaction, None))


def _joined(blocks: Sequence[UserBlock]) -> str:
    return "\n".join(block.text for block in blocks if isinstance(block, TextBlock))


def _iso(millis: int) -> str:
    moment = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC) + datetime.timedelta(
        milliseconds=millis
    )
    return moment.isoformat()


def map_transcript(read: ReadTranscript) -> DecodedJournal | RejectedSession:
    """The transcript's path as a decoded journal (origin `imported`), or INVALID."""
    translation = _Translation(read)
    translation.run()
    header = pe.SessionHeader(type="session", id=read.journal_id, timestamp=_iso(read.created))
    session = ReadSession(
        header=header,
        lineage=read.lineage,
        path=tuple(translation.path),
        first_kept=dict.fromkeys(translation.triggers),
        shape=read.shape,
        byte_size=read.byte_size,
    )
    return map_session(session, translation.triggers)


# --- the adapter ------------------------------------------------------------------------


def _recognized(line: bytes) -> bool:
    """A record with `sessionId` and a tree position (`uuid` / `parentUuid`), or one of the
    bookkeeping lines a transcript can open with: `{"type": "summary", "leafUuid": ...}`,
    `{"type": "file-history-snapshot", "snapshot": ...}`, `{"type": "queue-operation",
    "sessionId": ...}` (docs/formats/claude-code.md)."""
    value = line_object(line)
    if value is None:
        return False
    if "sessionId" in value and ("uuid" in value or "parentUuid" in value):
        return True
    kind = value.get("type")
    return (
        (kind == "summary" and "leafUuid" in value)
        or (kind == "file-history-snapshot" and "snapshot" in value)
        or (kind == "queue-operation" and "sessionId" in value)
    )


class ClaudeCode:
    """The Claude Code adapter (`histories.HistoryAdapter`)."""

    @property
    def format(self) -> HistoryFormat:
        """CLAUDE_CODE."""
        return HistoryFormat.CLAUDE_CODE

    @property
    def tool_names(self) -> ToolNames:
        """Claude Code's tools."""
        return ToolNames.CLAUDE_CODE

    def recognizes(self, first_lines: Sequence[bytes]) -> bool:
        """The first line that is no bookkeeping line (a file-history snapshot, a queue
        operation, a summary) names the session and has a tree position; or the first line
        is one of those bookkeeping lines itself."""
        return bool(first_lines) and _recognized(first_lines[0])

    def read(self, path: Path) -> ReadTranscript | RejectedSession:
        """`read_transcript`."""
        return read_transcript(path)

    def map(self, read: ReadTranscript) -> DecodedJournal | RejectedSession:
        """`map_transcript`."""
        return map_transcript(read)

    def shape(self, read: ReadTranscript) -> SessionShape:
        """The reader's counts."""
        return read.shape

    def grouping_keys(self, path: Path) -> tuple[str, ...]:
        """The session id of the file's first line that names one (a subagent's file names its
        parent session's, so both are replayed in one unit)."""
        from clearing_analysis.histories import first_lines  # noqa: PLC0415

        for line in first_lines(path):
            try:
                value = strictjson.loads(line, max_depth=limits().max_nesting_depth)
            except strictjson.JsonRejected:
                return ()
            if isinstance(value, dict) and isinstance(value.get("sessionId"), str):
                return (f"claude-code-session\0{value['sessionId']}",)
        return ()


CLAUDE_CODE = ClaudeCode()

__all__ = [
    "API",
    "CLAUDE_CODE",
    "PROVIDER",
    "SYNTHETIC_MODEL",
    "ClaudeCode",
    "ReadTranscript",
    "map_transcript",
    "placeholder_output",
    "read_stream",
    "read_transcript",
    "resumed_path",
]
