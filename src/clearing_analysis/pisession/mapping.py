"""Map a session's resumed path onto journal v2 records, in memory (docs/formats/pi-sessions.md).

The records are what `replay` consumes, so a pi session is replayed, assessed, simulated and
modeled by the same code as a native journal. The journal's header says `origin: "imported"`
(it is imported history: `explore` replays it with the imported-history rules of
`replay.HistorySource`, the pi family's tools, `analyze` never sees it). What pi records maps
field for field; what it does not record is taken in the direction that can only enlarge the
upper bound (docs/formats/pi-sessions.md, "What pi does not record"):

- every `user` message starts a prompt turn (a pre-turn boundary) with one run, reason
  `prompt`, ended `completed` when the next prompt starts or the path ends;
- every other message in the context (assistant, tool result, a `!` command as pi renders it,
  an extension's message, a branch summary) joins the open run; one that comes before any
  prompt opens a turn of its own (a turn with no request, so no boundary);
- each `toolCall` block of an assistant message starts a call; its `toolResult` ends it with
  status `success`, or `error` when `isError`, returned and placed (the result is in the
  session, hence in the context). Call ids are renumbered per run so a provider that reuses an
  id within a turn still pairs each result with its own call; a result whose call no message
  of its turn requested (an orphan, seen in real sessions) gets a call of its own, started
  just before it under the result's tool name (counted as ORPHAN_TOOL_RESULT by the reader);
- a `compaction` is a checkpoint whose kept entries start at the record of its first kept
  entry; pi records no trigger and no tokens after compaction: the trigger is `threshold` and
  `tokensAfter` 0, both unread under the imported-history rules (replay estimates the drain);
- `model_change`, `thinking_level_change`, `custom`, `label`, `session_info` and unknown
  entries are not part of the context and produce no record;
- an assistant message an agent wrote that is no model request (an OpenClaw delivery-mirror
  copy of a reply, `read.transcript_only_code`) produces no record either: it is no request,
  no fallback and no gap's end, and the agent leaves it out of the context it sends (R-CM-8;
  the reader counts it by its code). So a session whose path starts with one is read.

Identifiers (journal, conversation, turn, run, call) are ordinals or the session's own id, kept
in memory and never printed.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping

import msgspec

from clearing_analysis.journal import DecodedJournal
from clearing_analysis.journal import messages as jm
from clearing_analysis.journal import records as jr
from clearing_analysis.pisession import entries as pe
from clearing_analysis.pisession.read import (
    ReadSession,
    RejectedSession,
    SessionInvalid,
    transcript_only_code,
)
from clearing_analysis.pisession.read import SessionOutcome as Outcome

_BRANCH_SUMMARY_PREFIX = (
    "The following is a summary of a branch that this conversation came back from:"
)


class _Refused(Exception):  # noqa: N818  (internal control flow, never escapes this module)
    def __init__(self, detail: SessionInvalid) -> None:
        self.detail = detail


def iso_millis(text: str) -> int:
    """An entry's ISO-8601 timestamp (as pi's `toISOString` writes it) in Unix milliseconds."""
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise _Refused(SessionInvalid.TIMESTAMP_INVALID) from None
    if moment.tzinfo is None:
        raise _Refused(SessionInvalid.TIMESTAMP_INVALID)
    millis = (moment - datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)) // datetime.timedelta(
        milliseconds=1
    )
    if not 0 <= millis <= jm.MAX_SAFE_INTEGER:
        raise _Refused(SessionInvalid.TIMESTAMP_INVALID)
    return millis


def _blocks(
    content: str | list[pe.Text | pe.Image],
) -> str | list[jm.TextContent | jm.ImageContent]:
    if isinstance(content, str):
        return content
    return [
        jm.TextContent(block.text, block.text_signature)
        if isinstance(block, pe.Text)
        else jm.ImageContent(block.data, block.mime_type)
        for block in content
    ]


def _result_blocks(content: list[pe.Text | pe.Image]) -> list[jm.TextContent | jm.ImageContent]:
    blocks = _blocks(content)
    assert not isinstance(blocks, str)
    return blocks


def bash_text(message: pe.BashExecutionMessage) -> str:
    """A `!` command as pi puts it into the context (pi's `bashExecutionToText`)."""
    text = f"Ran `{message.command}`\n"
    text += f"```\n{message.output}\n```" if message.output else "(no output)"
    if message.cancelled:
        text += "\n\n(command cancelled)"
    elif message.exit_code not in (None, 0):
        text += f"\n\nCommand exited with code {message.exit_code}"
    if message.truncated and message.full_output_path:
        text += f"\n\n[Output truncated. Full output: {message.full_output_path}]"
    return text


def _context_user(message: pe.Message) -> jm.UserMessage | None:
    """A non-prompt context message as the user-role message pi sends (None: not sent)."""
    if isinstance(message, pe.BashExecutionMessage):
        if message.exclude_from_context:
            return None
        return jm.UserMessage(bash_text(message), message.timestamp)
    if isinstance(message, pe.CustomMessage | pe.HookMessage):
        return jm.UserMessage(_blocks(message.content), message.timestamp)
    if isinstance(message, pe.BranchSummaryMessage):
        return jm.UserMessage(f"{_BRANCH_SUMMARY_PREFIX}\n{message.summary}", message.timestamp)
    if isinstance(message, pe.CompactionSummaryMessage):
        return jm.UserMessage(message.summary, message.timestamp)
    raise RuntimeError("not a context-only message")


class _Mapper(msgspec.Struct):
    session: ReadSession
    records: list[jr.Record] = msgspec.field(default_factory=list)
    turns: int = 0
    run: str | None = None
    run_last_ms: int = 0
    # pi call id -> our ids, in order
    calls: dict[str, list[str]] = msgspec.field(default_factory=dict)
    call_count: int = 0
    entry_seq: dict[int, int] = msgspec.field(default_factory=dict)  # path position -> first seq
    # A compaction's trigger by path position, where the format records one (pi does not).
    triggers: Mapping[int, jr.CheckpointTrigger] = msgspec.field(default_factory=dict)

    @property
    def seq(self) -> int:
        return len(self.records) + 1  # the header is seq 0

    def add(self, record: jr.Record) -> None:
        self.records.append(record)

    def end_run(self) -> None:
        if self.run is not None:
            self.add(jr.RunEnd(self.seq, self.run, "completed", self.run_last_ms))
            self.run = None

    def open_turn(self, message: jm.UserMessage) -> None:
        self.end_run()
        turn = f"t{self.turns}"
        self.turns += 1
        self.add(jr.TurnStart(self.seq, turn, message))
        self.run = f"r{turn}"
        self.calls = {}
        self.run_last_ms = message.timestamp
        self.add(jr.RunStart(self.seq, turn, self.run, None, "prompt", message.timestamp))

    def in_run(self, message: jm.UserMessage | jm.AssistantMessage | jm.ToolResultMessage) -> None:
        if self.run is None:
            raise RuntimeError("a message needs an open run")
        self.run_last_ms = max(self.run_last_ms, message.timestamp)
        self.add(jr.MessageRecord(self.seq, self.run, message))

    def context(self, message: jm.UserMessage) -> None:
        if self.run is None:
            self.open_turn(message)
        else:
            self.in_run(message)

    def assistant(self, message: pe.AssistantMessage) -> None:
        if self.run is None:
            raise _Refused(SessionInvalid.REQUEST_WITHOUT_PROMPT)
        content: list[jm.TextContent | jm.ThinkingContent | jm.ToolCall] = []
        starts: list[tuple[str, str]] = []
        for block in message.content:
            if isinstance(block, pe.Text):
                content.append(jm.TextContent(block.text, block.text_signature))
            elif isinstance(block, pe.Thinking):
                content.append(
                    jm.ThinkingContent(block.thinking, block.thinking_signature, block.redacted)
                )
            else:
                self.call_count += 1
                ours = f"c{self.call_count}"
                self.calls.setdefault(block.id, []).append(ours)
                content.append(
                    jm.ToolCall(ours, block.name, block.arguments, block.thought_signature)
                )
                starts.append((ours, block.name))
        u = message.usage
        self.in_run(
            jm.AssistantMessage(
                content=content,
                api=message.api,
                provider=message.provider,
                model=message.model,
                usage=jm.Usage(u.input, u.output, u.cache_read, u.cache_write, u.total_tokens),
                stop_reason=message.stop_reason,
                timestamp=message.timestamp,
            )
        )
        for ours, name in starts:
            # Arguments are never read by replay: the call start carries none.
            self.add(jr.ToolCallStart(self.seq, self.run, ours, name, {}, message.timestamp))

    def tool_result(self, message: pe.ToolResultMessage) -> None:
        if self.run is None:
            raise _Refused(SessionInvalid.RESULT_WITHOUT_CALL)
        pending = self.calls.get(message.tool_call_id)
        if pending:
            ours = pending.pop(0)
        else:
            # An orphan result (read.orphan_results counts it): it is in the context, so it is
            # mapped with a call of its own, named as the result names it.
            self.call_count += 1
            ours = f"c{self.call_count}"
            self.add(
                jr.ToolCallStart(self.seq, self.run, ours, message.tool_name, {}, message.timestamp)
            )
        status: jr.ToolStatus = "error" if message.is_error else "success"
        self.add(jr.ToolCallEnd(self.seq, self.run, ours, status, True, True, message.timestamp))
        self.in_run(
            jm.ToolResultMessage(
                tool_call_id=ours,
                tool_name=message.tool_name,
                content=_result_blocks(message.content),
                is_error=message.is_error,
                timestamp=message.timestamp,
            )
        )

    def message(self, message: pe.Message) -> None:
        if isinstance(message, pe.UserMessage):
            self.open_turn(jm.UserMessage(_blocks(message.content), message.timestamp))
        elif isinstance(message, pe.AssistantMessage):
            self.assistant(message)
        elif isinstance(message, pe.ToolResultMessage):
            self.tool_result(message)
        else:
            rendered = _context_user(message)
            if rendered is not None:
                self.context(rendered)

    def compaction(self, position: int, entry: pe.Compaction) -> None:
        kept = self.session.first_kept[position]
        first_kept_seq = None if kept is None else self.entry_seq[kept]
        if first_kept_seq is not None and first_kept_seq >= self.seq:
            first_kept_seq = None  # the kept entries produced no record: nothing is kept
        self.add(
            jr.Checkpoint(
                self.seq,
                self.triggers.get(position, "threshold"),
                entry.tokens_before,
                0,
                entry.summary,
                first_kept_seq,
                iso_millis(entry.timestamp),
            )
        )

    def entry(self, position: int, entry: pe.Entry, message: pe.Message | None) -> None:
        if transcript_only_code(message) is not None:
            message = None  # no request: no record (the module docstring)
        if isinstance(message, pe.UserMessage):
            # A kept prompt's first record is its turn start, not the previous run's end.
            self.end_run()
        self.entry_seq[position] = self.seq
        if isinstance(entry, pe.MessageEntry):
            if message is not None:
                self.message(message)
        elif isinstance(entry, pe.Compaction):
            self.compaction(position, entry)
        elif isinstance(entry, pe.BranchSummary):
            if entry.summary:
                millis = iso_millis(entry.timestamp)
                self.context(jm.UserMessage(f"{_BRANCH_SUMMARY_PREFIX}\n{entry.summary}", millis))
        elif isinstance(entry, pe.CustomMessageEntry):
            self.context(jm.UserMessage(_blocks(entry.content), iso_millis(entry.timestamp)))

    def run_path(self) -> None:
        for position, item in enumerate(self.session.path):
            if item.entry is None:
                self.entry_seq[position] = self.seq
                continue
            self.entry(position, item.entry, item.message)
        self.end_run()


def map_session(
    session: ReadSession, triggers: Mapping[int, jr.CheckpointTrigger] | None = None
) -> DecodedJournal | RejectedSession:
    """The session's resumed path as a decoded journal (origin `imported`), or INVALID.
    `triggers` names the trigger of a compaction (by path position) for a format that records
    it (another format mapped through pi's entries, `histories`); pi's are `threshold`."""
    mapper = _Mapper(session, triggers={} if triggers is None else triggers)
    try:
        created = iso_millis(session.header.timestamp)
        mapper.run_path()
    except _Refused as refused:
        return RejectedSession(Outcome.INVALID, refused.detail)
    header = jr.Header(
        seq=0,
        format="pi-native-journal",
        version=2,
        journal_id=session.header.id,
        physical_conversation_id=session.header.id,
        logical_conversation_id=session.lineage,
        origin="imported",
        created_at=created,
    )
    last = max((r.timestamp for r in mapper.records if isinstance(r, jr.RunEnd)), default=created)
    records: tuple[jr.Record, ...] = (header, *mapper.records, jr.Close(mapper.seq, last))
    return DecodedJournal(header=header, records=records, byte_size=session.byte_size)


__all__ = ["bash_text", "iso_millis", "map_session"]
