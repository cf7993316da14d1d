"""Map a read rollout onto journal v2 records, in memory (docs/formats/codex.md).

The records are what `replay` consumes, so a Codex rollout is replayed, assessed, simulated and
modeled by the same code as a native journal or a pi session, under the imported-history rules
(an imported `replay.HistorySource`, tool names from `ToolNames.CODEX`). What Codex records
maps field for field; what it does not is taken as for pi sessions, in the direction that can
only enlarge the upper bound, except a tool result's outcome, which is never guessed:

- every prompt (a `user_message` event, with its own context item) starts a prompt turn with
  one run, reason `prompt`; the run ends `completed` at `task_complete` or the next prompt,
  `aborted` at `turn_aborted` (its results are then not clearable: RUN_NOT_COMPLETED);
- context messages (developer and user instructions, environment context) join the open run
  as user-role messages; one before any prompt opens a turn of its own (no request, no
  boundary);
- each request is an assistant message: its text blocks, one redacted thinking block per
  reasoning item (Codex stores reasoning encrypted or summarised), one tool call per call
  (arguments are never read by replay: none is carried); usage `input` = input - cached,
  `cacheRead` = cached, `cacheWrite` 0, `output` = output (reasoning included); API and
  provider the file's (`read.Api`, `read.PROVIDER_OF`), model the latest `turn_context`'s;
- each tool result ends its call, returned and placed, with the status its documented exit
  status states: `success` (exit 0), `error` (is_error, any other code); where the output
  states none, the call ends with an `OutcomeUnknownEnd` (in memory only, never a journal
  line) and the result is excluded as UNKNOWN_OUTCOME in both bounds (R-SRC-3: not
  clearable). A result whose call no request of its run made gets a call of its own under a
  name no table has (UNKNOWN);
- a `compacted` line is a checkpoint, trigger `threshold`, tokens before as the reader counts
  them, nothing kept (the replacement history is the whole new context).

Identifiers (conversation, turn, run, call) are ordinals or the thread's own id, kept in memory
and never printed.
"""

from __future__ import annotations

import msgspec

from clearing_analysis import ranges
from clearing_analysis.codex import lines as cl
from clearing_analysis.codex import read as cr
from clearing_analysis.codex.outcome import Outcome
from clearing_analysis.journal import DecodedJournal
from clearing_analysis.journal import messages as jm
from clearing_analysis.journal import records as jr

# The call name of a result whose call the rollout does not hold: in no table, so UNKNOWN.
UNPAIRED_RESULT_TOOL = "(unpaired result)"
# A model Codex did not name (no turn_context before the request): matches no route.
UNNAMED_MODEL = "(unnamed model)"
_DATA_URL_PREFIX = "data:"
_STATUS: dict[Outcome, jr.ToolStatus] = {
    Outcome.SUCCESS: "success",
    Outcome.ERROR: "error",
}


def _image(block: cl.InputImage) -> jm.ImageContent:
    """An image block as pi-ai's: a data URL's MIME type and base64 data (any other URL keeps
    no data; only its presence counts)."""
    url = block.image_url
    if url.startswith(_DATA_URL_PREFIX) and ";base64," in url:
        mime, _, data = url[len(_DATA_URL_PREFIX) :].partition(";base64,")
        return jm.ImageContent(data, mime or "image/*")
    return jm.ImageContent("", "image/*")


def _blocks(content: tuple[cl.ContentItem, ...]) -> list[jm.TextContent | jm.ImageContent]:
    return [
        _image(block) if isinstance(block, cl.InputImage) else jm.TextContent(block.text)
        for block in content
    ]


class _Mapper(msgspec.Struct):
    rollout: cr.ReadRollout
    records: list[jr.Record] = msgspec.field(default_factory=list)
    turns: int = 0
    run: str | None = None
    run_last_ms: int = 0
    calls: dict[str, list[str]] = msgspec.field(default_factory=dict)  # Codex call id -> ours
    names: dict[str, str] = msgspec.field(default_factory=dict)  # our call id -> tool name
    call_count: int = 0

    @property
    def seq(self) -> int:
        return len(self.records) + 1  # the header is seq 0

    def end_run(self, status: jr.RunStatus = "completed") -> None:
        if self.run is not None:
            self.records.append(jr.RunEnd(self.seq, self.run, status, self.run_last_ms))
            self.run = None

    def open_turn(self, message: jm.UserMessage) -> None:
        self.end_run()
        turn = f"t{self.turns}"
        self.turns += 1
        self.records.append(jr.TurnStart(self.seq, turn, message))
        self.run = f"r{turn}"
        self.calls = {}
        self.run_last_ms = message.timestamp
        self.records.append(
            jr.RunStart(self.seq, turn, self.run, None, "prompt", message.timestamp)
        )

    def in_run(self, message: jm.UserMessage | jm.AssistantMessage | jm.ToolResultMessage) -> None:
        if self.run is None:
            self.open_turn(jm.UserMessage("", message.timestamp))
        assert self.run is not None
        self.run_last_ms = max(self.run_last_ms, message.timestamp)
        self.records.append(jr.MessageRecord(self.seq, self.run, message))

    def context(self, item: cr.ContextMessage) -> None:
        message = jm.UserMessage(_blocks(item.content), item.millis)
        if self.run is None:
            self.open_turn(message)
        else:
            self.in_run(message)

    def request(self, item: cr.Request) -> None:
        content: list[jm.TextContent | jm.ThinkingContent | jm.ToolCall] = [
            jm.TextContent(text) for text in item.texts
        ]
        content += [jm.ThinkingContent("", None, True)] * item.reasoning_items
        starts: list[tuple[str, str]] = []
        for call in item.calls:
            self.call_count += 1
            ours = f"c{self.call_count}"
            self.calls.setdefault(call.call_id, []).append(ours)
            self.names[ours] = call.name or UNPAIRED_RESULT_TOOL
            content.append(jm.ToolCall(ours, self.names[ours], {}))
            starts.append((ours, self.names[ours]))
        u = item.usage
        total = min(u.input_tokens + u.output_tokens, ranges.MAX_TOKENS)
        api = self.rollout.api
        self.in_run(
            jm.AssistantMessage(
                content=content,
                api=api.value,
                provider=cr.PROVIDER_OF[api],
                model=item.model or UNNAMED_MODEL,
                usage=jm.Usage(
                    u.input_tokens - u.cached_input_tokens,
                    u.output_tokens,
                    u.cached_input_tokens,
                    0,
                    total,
                ),
                stop_reason="toolUse" if item.calls else "stop",
                timestamp=item.millis,
            )
        )
        assert self.run is not None
        for ours, name in starts:
            self.records.append(jr.ToolCallStart(self.seq, self.run, ours, name, {}, item.millis))

    def tool_output(self, item: cr.ToolOutput) -> None:
        pending = self.calls.get(item.call_id)
        if self.run is None or not pending:
            self.unpaired(item)
            return
        ours = pending.pop(0)
        self.end_call(ours, self.names[ours], item)

    def unpaired(self, item: cr.ToolOutput) -> None:
        if self.run is None:
            self.open_turn(jm.UserMessage("", item.millis))
        assert self.run is not None
        self.call_count += 1
        ours = f"c{self.call_count}"
        self.records.append(
            jr.ToolCallStart(self.seq, self.run, ours, UNPAIRED_RESULT_TOOL, {}, item.millis)
        )
        self.end_call(ours, UNPAIRED_RESULT_TOOL, item)

    def end_call(self, ours: str, name: str, item: cr.ToolOutput) -> None:
        assert self.run is not None
        if item.outcome is Outcome.UNKNOWN:
            end: jr.ToolCallEnd = jr.OutcomeUnknownEnd(
                self.seq, self.run, ours, "aborted", True, True, item.millis
            )
        else:
            end = jr.ToolCallEnd(
                self.seq, self.run, ours, _STATUS[item.outcome], True, True, item.millis
            )
        self.records.append(end)
        self.in_run(
            jm.ToolResultMessage(
                tool_call_id=ours,
                tool_name=name,
                content=_blocks(item.content),
                is_error=item.outcome is Outcome.ERROR,
                timestamp=item.millis,
            )
        )

    def compaction(self, item: cr.Compaction) -> None:
        self.records.append(
            jr.Checkpoint(
                self.seq, "threshold", item.tokens_before, 0, item.summary, None, item.millis
            )
        )

    def item(self, item: cr.Item) -> None:
        if isinstance(item, cr.Prompt):
            self.open_turn(jm.UserMessage(_blocks(item.content), item.millis))
        elif isinstance(item, cr.ContextMessage):
            self.context(item)
        elif isinstance(item, cr.Request):
            self.request(item)
        elif isinstance(item, cr.ToolOutput):
            self.tool_output(item)
        elif isinstance(item, cr.Compaction):
            self.compaction(item)
        else:
            self.run_last_ms = max(self.run_last_ms, item.millis)
            self.end_run("aborted" if item.aborted else "completed")


def map_rollout(rollout: cr.ReadRollout) -> DecodedJournal:
    """The rollout as a decoded journal (origin `imported`)."""
    mapper = _Mapper(rollout)
    for item in rollout.items:
        mapper.item(item)
    mapper.end_run()
    created = rollout.created_millis
    header = jr.Header(
        seq=0,
        format="pi-native-journal",
        version=2,
        journal_id=rollout.thread_id,
        physical_conversation_id=rollout.thread_id,
        logical_conversation_id=rollout.thread_id,
        origin="imported",
        created_at=created,
    )
    ends = (r.timestamp for r in mapper.records if isinstance(r, jr.RunEnd))
    last = max(ends, default=created)
    records: tuple[jr.Record, ...] = (header, *mapper.records, jr.Close(mapper.seq, last))
    return DecodedJournal(header=header, records=records, byte_size=rollout.byte_size)


__all__ = ["UNNAMED_MODEL", "UNPAIRED_RESULT_TOOL", "map_rollout"]
