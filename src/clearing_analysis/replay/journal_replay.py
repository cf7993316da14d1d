"""Replay one journal into boundaries and tool results, or skip it whole (R-RP-1..4).

`replay_journal` is a pure function of the journal file and a read-only context (routes and
the sidecar view). It either returns the journal's whole contribution or a `SkippedJournal`
that contributes nothing, boundary skips included. Cross-journal decisions (DUPLICATE journal
ids and boundaries) are taken later, in deterministic order, by `replay.merge`.

Checks beyond the decoder (docs/replay.md): broken references make the journal INVALID (a
record for an unknown or ended run, a run for an unknown turn, a repeated run / call / call end
/ result, a tool result whose call was not started in its run, a tool name that differs between
the call's start, the assistant's toolCall and the toolResult, a redaction not targeting an
earlier tool result, a kept seq at or after its checkpoint); then INTERRUPTED (any run ended
"interrupted", or a run never ended before close).
"""

from __future__ import annotations

import bisect
import functools
import gc
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from clearing_analysis.identity import ToolIdentity, finalized_tool_id
from clearing_analysis.inputs.configs import Api, Routes
from clearing_analysis.inputs.period import EVERYTHING, Period
from clearing_analysis.inputs.sidecar import ConversationPolicy, RetainedRow, SidecarView
from clearing_analysis.journal import DecodedJournal, RejectedJournal, decode_path_into
from clearing_analysis.journal.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ToolCall,
    ToolResultMessage,
)
from clearing_analysis.journal.records import (
    Checkpoint,
    Header,
    McpOrigin,
    MessageRecord,
    OutcomeUnknownEnd,
    Redaction,
    RunEnd,
    RunStart,
    ToolCallEnd,
    ToolCallStart,
    TurnStart,
)
from clearing_analysis.policy import catalog_model_id
from clearing_analysis.replay import guard, heuristic
from clearing_analysis.replay.arguments import NO_DIGESTS, ArgumentKey, CallDigests, call_digests
from clearing_analysis.replay.model import (
    NATIVE_JOURNAL,
    BoundarySkipReason,
    BrokenReference,
    CallStatus,
    CapturedOrigin,
    CheckpointObservation,
    CompletedPromptRun,
    HistorySource,
    JournalOutcome,
    JournalSkipReason,
    OriginSource,
    ReplayedBoundary,
    ReplayedJournal,
    RequestUsage,
    ResultShape,
    SkippedJournal,
    ToolResult,
)
from clearing_analysis.replay.retention import RetentionStatus, identity_linked, match_retention
from clearing_analysis.toolclass import ToolClass, is_web, tool_class

_SUPPORTED_APIS = frozenset(api.value for api in Api)
_ENCODER = msgspec.json.Encoder()


class _Broken(Exception):  # noqa: N818  (internal control flow, never escapes this module)
    def __init__(self, reason: BrokenReference) -> None:
        self.reason = reason


class _Run(msgspec.Struct):
    host_turn_id: str
    turn_index: int
    reason: str
    open: bool = True
    status: str | None = None
    # toolCall names the run's assistant messages requested, by call id (identity binding),
    # and the `api` of the message that requested each (the result's API cohort, R-CM-8).
    requested: dict[str, str] = msgspec.field(default_factory=dict)
    requested_api: dict[str, str] = msgspec.field(default_factory=dict)
    # The keyed digests of each requested call's arguments (replay.arguments), by call id.
    requested_digests: dict[str, CallDigests] = msgspec.field(default_factory=dict)


class _Call(msgspec.Struct):
    start_index: int
    tool_name: str
    origin: McpOrigin | None
    end: ToolCallEnd | None = None
    has_result: bool = False
    digests: CallDigests = NO_DIGESTS


class _PendingResult(msgspec.Struct):
    seq: int
    run_id: str
    turn_index: int
    message: ToolResultMessage
    tokens: int
    context_from: int
    prefix_estimate: int
    checkpoints_before: int
    context_until: int | None = None
    compacted_by: int | None = None
    web_envelope_redacted: bool = False


class _Turn(msgspec.Struct):
    host_turn_id: str
    index: int
    estimate: int
    usage_based: bool
    input_key: bytes
    tool_starts_before: int
    first_owner_missing: bool | None = None
    api: str | None = None
    request_ms: int = 0
    gap_ms: int | None = None
    requests: list[RequestUsage] = msgspec.field(default_factory=list)
    results: list[int] = msgspec.field(default_factory=list)


class _Context:
    """The current context (after the latest checkpoint) with a running boundary estimate.

    Its messages are kept as columns (seq, heuristic tokens, result slot or None), not as an
    object each: a message's valid usage matters only as it is appended. A checkpoint keeps
    the messages from its first kept seq on, which are always the context's last ones (seqs
    only grow), so the context is the columns from `_start` on, after the latest summary:
    compacting moves `_start` (found by bisection) and sums the kept tokens from running
    totals, never walking the kept messages (a checkpoint that keeps from the first entry
    costs nothing more than one that keeps nothing, R-REL-7)."""

    def __init__(self) -> None:
        self.seqs: list[int] = []
        self.tokens: list[int] = []
        self.results: list[int | None] = []
        self._cumulative = [0]  # tokens of the columns before each index
        self._start = 0  # the first column still in context
        self.last_usage: int | None = None
        self.after_usage = 0  # heuristic tokens after the latest valid usage
        self.total = 0  # heuristic tokens of everything (used when no valid usage)

    def append(
        self, seq: int, tokens: int, usage: int | None = None, result: int | None = None
    ) -> None:
        self.seqs.append(seq)
        self.tokens.append(tokens)
        self.results.append(result)
        self._cumulative.append(self._cumulative[-1] + tokens)
        self.total += tokens
        if usage is not None:
            self.last_usage = usage
            self.after_usage = 0
        else:
            self.after_usage += tokens

    def estimate_with(self, tokens: int) -> tuple[int, bool]:
        """E if a message of `tokens` were appended (R-SIM-1): usage plus trailing heuristic."""
        if self.last_usage is not None:
            return self.last_usage + self.after_usage + tokens, True
        return self.total + tokens, False

    def compact(self, summary_tokens: int, first_kept_seq: int | None) -> list[int]:
        """The summary (as a user-role message), then the kept messages, then what follows.

        Kept messages re-enter as heuristic text only: usage recorded before the latest
        checkpoint measured a context that no longer exists and never counts again (R-SIM-9).
        Returns the result slots compacted away (the previous summary, a seq of none, is
        compacted away with them).
        """
        end = len(self.seqs)
        kept_from = end
        if first_kept_seq is not None:
            kept_from = bisect.bisect_left(self.seqs, first_kept_seq, self._start, end)
        dropped = [r for r in self.results[self._start : kept_from] if r is not None]
        self._start = kept_from
        kept_tokens = self._cumulative[end] - self._cumulative[kept_from]
        self.last_usage = None
        self.total = self.after_usage = summary_tokens + kept_tokens
        if kept_from > 4096 and kept_from > end // 2:
            # What no later checkpoint can keep again is let go (memory stays the context's).
            base = self._cumulative[kept_from]
            del self.seqs[:kept_from], self.tokens[:kept_from], self.results[:kept_from]
            self._cumulative = [total - base for total in self._cumulative[kept_from:]]
            self._start = 0
        return dropped


class _JournalReplay:
    """One pass over a journal's records, each taken as it is decoded (`feed`)."""

    def __init__(self, source: HistorySource, argument_key: ArgumentKey | None = None) -> None:
        self.source = source
        self.argument_key = argument_key
        self.tool_table = source.tool_names.value
        self.context = _Context()
        self.turns: dict[str, _Turn] = {}
        self.runs: dict[str, _Run] = {}
        self.calls: dict[tuple[str, str], _Call] = {}
        self.results: list[_PendingResult] = []
        self.result_by_seq: dict[int, int] = {}
        self.tool_starts = 0
        self.completed_prompt_runs: list[CompletedPromptRun] = []
        self.last_assistant_timestamp: int | None = None
        self.last_api: str | None = None
        self.requested_since_checkpoint = False
        self.interrupted = False
        self.fingerprints: set[str] = set()
        self.checkpoints: list[CheckpointObservation] = []
        self.broken: BrokenReference | None = None

    def feed(self, record: object) -> None:
        """Take the next record (a `decode_path_into` sink: never raises). The first broken
        reference is kept and ends the replay: the rest of the journal is only decoded, so
        that the decoder's own outcome still comes first."""
        if self.broken is not None:
            return
        step = _STEPS.get(type(record))
        if step is None:
            return
        try:
            step(self, record)
        except _Broken as broken:
            self.broken = broken.reason

    def end(self) -> None:
        """After the last record: a run never ended makes the journal INTERRUPTED."""
        if any(run.open for run in self.runs.values()):
            self.interrupted = True

    def _turn_start(self, record: TurnStart) -> None:
        tokens = heuristic.message_tokens(record.message)
        if record.host_turn_id not in self.turns:
            # A new prompt turn: snapshot the boundary before its input joins the context;
            # E includes the input itself (the request being built, R-SIM-10).
            index = len(self.turns)
            estimate, usage_based = self.context.estimate_with(tokens)
            self.turns[record.host_turn_id] = _Turn(
                host_turn_id=record.host_turn_id,
                index=index,
                estimate=estimate,
                usage_based=usage_based,
                input_key=_input_key(record),
                tool_starts_before=self.tool_starts,
            )
        # A re-prompt continues its existing boundary; its input still joins the context.
        self.context.append(record.seq, tokens)

    def _open_run(self, run_id: str) -> _Run:
        run = self.runs.get(run_id)
        if run is None or not run.open:
            raise _Broken(BrokenReference.RUN_NOT_OPEN)
        return run

    def _run_start(self, record: RunStart) -> None:
        turn = self.turns.get(record.host_turn_id)
        if turn is None:
            raise _Broken(BrokenReference.TURN_UNKNOWN)
        if record.run_id in self.runs:
            raise _Broken(BrokenReference.RUN_REPEATED)
        self.runs[record.run_id] = _Run(record.host_turn_id, turn.index, record.reason)
        if turn.first_owner_missing is None:
            turn.first_owner_missing = record.owner is None
        if record.toolset_fingerprint is not None:
            self.fingerprints.add(record.toolset_fingerprint)

    def _message(self, record: MessageRecord) -> None:
        run = self._open_run(record.run_id)
        turn = self.turns[run.host_turn_id]
        message = record.message
        tokens = heuristic.message_tokens(message)
        if isinstance(message, AssistantMessage):
            self._bind_requested_calls(record.run_id, run, message)
            self.last_api = message.api
            self.requested_since_checkpoint = True
            usage = heuristic.valid_usage(message)
            u = message.usage
            estimate, _ = self.context.estimate_with(0)
            turn.requests.append(
                RequestUsage(
                    u.input,
                    u.output,
                    u.cache_read,
                    u.cache_write,
                    u.total_tokens,
                    heuristic.usage_recorded(u),
                    message.timestamp,
                    message.stop_reason,
                    message.api,
                    self.context.total,
                    tokens,
                    len(self.checkpoints),
                    estimate,
                    len(turn.results),
                    catalog_model_id(message.provider, message.model),
                )
            )
            if turn.api is None:
                # The turn's first assistant message is the boundary's request: pi-ai stamps
                # it when the request starts, so the gap ends here (R-SIM-9), measured from
                # the latest earlier assistant message of any stop reason.
                turn.api = message.api
                turn.request_ms = message.timestamp
                if self.last_assistant_timestamp is not None:
                    turn.gap_ms = message.timestamp - self.last_assistant_timestamp
            self.last_assistant_timestamp = message.timestamp
            usage_total = None if usage is None else heuristic.usage_tokens(usage)
            self.context.append(record.seq, tokens, usage=usage_total)
        elif isinstance(message, ToolResultMessage):
            call = self.calls.get((record.run_id, message.tool_call_id))
            if call is None:
                raise _Broken(BrokenReference.CALL_UNKNOWN)
            if call.has_result:
                raise _Broken(BrokenReference.RESULT_REPEATED)
            if message.tool_name != call.tool_name:
                raise _Broken(BrokenReference.TOOL_NAME_MISMATCH)
            call.has_result = True
            slot = len(self.results)
            self.results.append(
                _PendingResult(
                    record.seq,
                    record.run_id,
                    run.turn_index,
                    message,
                    tokens,
                    len(self.turns),
                    self.context.estimate_with(0)[0],
                    len(self.checkpoints),
                )
            )
            self.result_by_seq[record.seq] = slot
            turn.results.append(slot)
            self.context.append(record.seq, tokens, result=slot)
        else:
            self.context.append(record.seq, tokens)

    def _bind_requested_calls(self, run_id: str, run: _Run, message: AssistantMessage) -> None:
        """Record the toolCall names; one that contradicts a started call is broken."""
        for block in message.content:
            if isinstance(block, ToolCall):
                run.requested[block.id] = block.name
                run.requested_api[block.id] = message.api
                if self.argument_key is not None:
                    run.requested_digests[block.id] = call_digests(
                        self.argument_key, self.tool_table, block.name, block.arguments
                    )
                call = self.calls.get((run_id, block.id))
                if call is not None and call.tool_name != block.name:
                    raise _Broken(BrokenReference.TOOL_NAME_MISMATCH)

    def _call_start(self, record: ToolCallStart) -> None:
        run = self._open_run(record.run_id)
        key = (record.run_id, record.call_id)
        if key in self.calls:
            raise _Broken(BrokenReference.CALL_REPEATED)
        requested = run.requested.get(record.call_id)
        if requested is not None and requested != record.tool_name:
            raise _Broken(BrokenReference.TOOL_NAME_MISMATCH)
        origin = None if record.payload is None else record.payload.origin
        # The arguments the assistant requested (every history format carries them there),
        # else those the call start records.
        digests = run.requested_digests.get(record.call_id)
        if digests is None and self.argument_key is not None:
            digests = call_digests(
                self.argument_key, self.tool_table, record.tool_name, record.arguments
            )
        self.calls[key] = _Call(
            self.tool_starts, record.tool_name, origin, digests=digests or NO_DIGESTS
        )
        self.tool_starts += 1

    def _call_end(self, record: ToolCallEnd) -> None:
        self._open_run(record.run_id)
        call = self.calls.get((record.run_id, record.call_id))
        if call is None:
            raise _Broken(BrokenReference.CALL_UNKNOWN)
        if call.end is not None:
            raise _Broken(BrokenReference.CALL_END_REPEATED)
        call.end = record

    def _run_end(self, record: RunEnd) -> None:
        run = self._open_run(record.run_id)
        run.open = False
        run.status = record.status
        if record.status == "completed" and run.reason == "prompt":
            self.completed_prompt_runs.append(
                CompletedPromptRun(record.timestamp, run.host_turn_id, record.run_id)
            )
        elif record.status == "interrupted":
            self.interrupted = True

    def _checkpoint(self, record: Checkpoint) -> None:
        if record.first_kept_seq is not None and record.first_kept_seq >= record.seq:
            raise _Broken(BrokenReference.KEPT_SEQ_AFTER_CHECKPOINT)
        summary_tokens = heuristic.text_tokens(record.summary)
        for slot in self.context.compact(summary_tokens, record.first_kept_seq):
            self.results[slot].context_until = len(self.turns)
            self.results[slot].compacted_by = len(self.checkpoints)
        tokens_after = record.tokens_after
        if self.source.imported:
            # Not recorded by pi: the compacted context's estimate, the E the next boundary
            # starts from (R-SIM-9), so G's span and its drains are in the same units.
            tokens_after = self.context.total
        self.checkpoints.append(
            CheckpointObservation(
                record.trigger,
                record.tokens_before,
                tokens_after,
                summary_tokens,
                record.timestamp,
                len(self.turns),
                self.last_api,
                self.requested_since_checkpoint,
            )
        )
        self.requested_since_checkpoint = False

    def _redaction(self, record: Redaction) -> None:
        slot = self.result_by_seq.get(record.target_seq)
        if slot is None:
            raise _Broken(BrokenReference.REDACTION_TARGET)
        if record.scope == "web_envelope" and record.format == "json":
            self.results[slot].web_envelope_redacted = True


# Each record kind's step, looked up by the record's exact type (the decoder's own structs); the
# header and the close change nothing. Unbound, so that a replay's state holds no cycle.
_STEPS: dict[type, Callable[[_JournalReplay, Any], None]] = {
    TurnStart: _JournalReplay._turn_start,
    RunStart: _JournalReplay._run_start,
    MessageRecord: _JournalReplay._message,
    ToolCallStart: _JournalReplay._call_start,
    ToolCallEnd: _JournalReplay._call_end,
    OutcomeUnknownEnd: _JournalReplay._call_end,
    RunEnd: _JournalReplay._run_end,
    Checkpoint: _JournalReplay._checkpoint,
    Redaction: _JournalReplay._redaction,
}


def _call_status(end: ToolCallEnd | None) -> CallStatus | None:
    if end is None:
        return None
    # Only an imported history's mapping makes this type; the decoder never does.
    return "unknown" if isinstance(end, OutcomeUnknownEnd) else end.status


def _shape(message: ToolResultMessage) -> ResultShape:
    content = message.content
    if len(content) == 1:  # almost every result: its one block decides
        single = content[0]
        if isinstance(single, TextContent):
            if single.text_signature is None:
                return ResultShape.PLAIN_TEXT
            return ResultShape.OPAQUE_OR_MIXED
        return (
            ResultShape.IMAGE if isinstance(single, ImageContent) else ResultShape.OPAQUE_OR_MIXED
        )
    if any(isinstance(block, ImageContent) for block in content):
        return ResultShape.IMAGE
    return ResultShape.OPAQUE_OR_MIXED


def _origin(
    call: _Call, row: RetainedRow | None
) -> tuple[CapturedOrigin | None, OriginSource | None]:
    """The journal's captured origin, else the sidecar row's (docs/replay.md)."""
    if call.origin is not None:
        o = call.origin
        captured = CapturedOrigin(
            o.server,
            o.tool,
            o.server_identity_digest,
            o.annotations.read_only_hint,
            o.annotations.destructive_hint,
        )
        return captured, OriginSource.JOURNAL
    if (
        row is not None
        and row.origin_server is not None
        and row.origin_tool is not None
        and row.origin_server_identity_digest is not None
    ):
        captured = CapturedOrigin(
            row.origin_server,
            row.origin_tool,
            row.origin_server_identity_digest,
            row.origin_read_only_hint,
            row.origin_destructive_hint,
        )
        return captured, OriginSource.SIDECAR
    return None, None


ToolKind = tuple[ToolClass, bool]
"""A tool name's class and web category (toolclass), looked up once per name and journal."""


def _finish_result(
    state: _JournalReplay,
    pending: _PendingResult,
    identity: ToolIdentity,
    finalized_id: str,
    row: RetainedRow | None,
    *,
    kinds: dict[str, ToolKind],
) -> ToolResult:
    message = pending.message
    run = state.runs[pending.run_id]
    call = state.calls[(pending.run_id, message.tool_call_id)]
    name = call.tool_name
    kind = kinds.get(name)
    if kind is None:
        names = state.source.tool_names
        kind = kinds[name] = (tool_class(name, names), is_web(name, names))
    shape = _shape(message)
    text_bytes = escaped_bytes = escaped_units = 0
    scan_loss = False
    retention = RetentionStatus.NOT_PLAIN_TEXT
    if shape is ResultShape.PLAIN_TEXT:
        block = message.content[0]
        assert isinstance(block, TextContent)
        text = block.text
        encoded = text.encode("utf-8", "surrogatepass")
        text_bytes = len(encoded)
        # msgspec's JSON string is json.dumps(text, ensure_ascii=False) byte for byte (tested).
        escaped_bytes = len(_ENCODER.encode(text))
        # An ASCII text (as many UTF-8 bytes as characters) is as long in UTF-16 units as in
        # bytes, so its escaped string is too.
        escaped_units = (
            escaped_bytes
            if len(text) == text_bytes
            else heuristic.escaped_string_units(text, text_bytes, escaped_bytes)
        )
        retention = match_retention(row, identity, encoded)
        scan_loss = pending.web_envelope_redacted and guard.trips(text)
    # A row that is not identity-linked proves nothing, its captured origin included.
    origin, source = _origin(call, identity_linked(row, identity))
    end = call.end
    digests = call.digests
    # Positional, in ToolResult's field order (keywords cost a name search per field; a test
    # holds the order: tests/replay/test_finish.py).
    return ToolResult(
        identity,
        finalized_id,
        pending.turn_index,
        call.start_index,  # start_index
        name,  # tool_name
        run.requested_api.get(message.tool_call_id),  # request_api
        kind[0],  # tool_class
        kind[1],  # web
        message.is_error,
        _call_status(end),
        end is not None and end.returned and end.placed,  # returned_and_placed
        run.status == "completed",  # run_completed
        shape,
        pending.tokens,
        text_bytes,
        escaped_bytes,
        escaped_units,
        origin,
        source,  # origin_source
        retention,
        pending.web_envelope_redacted,
        pending.context_from,
        pending.context_until,
        pending.compacted_by,
        scan_loss,
        pending.prefix_estimate,
        pending.checkpoints_before,
        digests.arguments,  # argument_digest
        digests.read_path,  # read_path_digest
        digests.written_path,  # written_path_digest
    )


def _input_key(record: TurnStart) -> bytes:
    """A digest of the turn's first input (content and timestamp), kept in memory only.

    A turn copied into another journal (a resumed copy, a fork) repeats this record exactly; a
    new turn that happens to reuse a host turn id does not.
    """
    return hashlib.blake2b(msgspec.json.encode(record.message), digest_size=16).digest()


def _local_skip(
    turn: _Turn,
    api: str,
    routes: Routes,
    policy: ConversationPolicy | None,
    source: HistorySource,
    *,
    period: Period,
) -> BoundarySkipReason | None:
    if source.imported:
        # No owner is recorded and there is no capture window without a sidecar (HistorySource).
        if api not in _SUPPORTED_APIS or Api(api) not in routes.by_api:
            return BoundarySkipReason.UNSUPPORTED_API
        if not period.contains(turn.request_ms):
            return BoundarySkipReason.OUTSIDE_PERIOD
        return None
    if turn.first_owner_missing:
        return BoundarySkipReason.OWNER_MISSING
    if api not in _SUPPORTED_APIS or Api(api) not in routes.by_api:
        return BoundarySkipReason.UNSUPPORTED_API
    if not period.contains(turn.request_ms):
        return BoundarySkipReason.OUTSIDE_PERIOD
    if policy is None or turn.request_ms < policy.capture_enabled_since:
        return BoundarySkipReason.OUTSIDE_CAPTURE_WINDOW
    return None


def _finish(
    state: _JournalReplay,
    header: Header,
    byte_size: int,
    routes: Routes,
    sidecar: SidecarView | None,
    *,
    period: Period = EVERYTHING,
) -> JournalOutcome:
    """The journal's contribution once every record has been taken."""
    state.end()
    if state.broken is not None:
        return SkippedJournal(JournalSkipReason.INVALID, state.broken.value)
    if state.interrupted:
        return SkippedJournal(JournalSkipReason.INTERRUPTED)
    source = state.source
    physical_id = header.physical_conversation_id
    # Only the policy of the conversation this journal touches is copied (R-RP-1).
    policy = None if sidecar is None else sidecar.conversation_policy(physical_id)
    runs = state.runs
    identities = [
        ToolIdentity(physical_id, runs[p.run_id].host_turn_id, p.run_id, p.message.tool_call_id)
        for p in state.results
    ]
    finalized_ids = [finalized_tool_id(identity) for identity in identities]
    # The committed ID index is read for this journal's ids in one batch, never copied (R-RP-1).
    rows = {} if sidecar is None else sidecar.retained_many(finalized_ids)
    kinds: dict[str, ToolKind] = {}
    results = tuple(
        _finish_result(state, pending, identity, finalized_id, rows.get(finalized_id), kinds=kinds)
        for pending, identity, finalized_id in zip(
            state.results, identities, finalized_ids, strict=True
        )
    )
    boundaries: list[ReplayedBoundary] = []
    without_request = 0
    for turn in state.turns.values():
        if turn.api is None:
            # No assistant message: no request was made, so no boundary (docs/replay.md).
            without_request += 1
            continue
        boundaries.append(
            ReplayedBoundary(
                host_turn_id=turn.host_turn_id,
                turn_index=turn.index,
                api=turn.api,
                local_skip=_local_skip(turn, turn.api, routes, policy, source, period=period),
                estimate=turn.estimate,
                usage_based=turn.usage_based,
                request_ms=turn.request_ms,
                gap_ms=turn.gap_ms,
                input_key=turn.input_key,
                tool_starts_before=turn.tool_starts_before,
                requests=tuple(turn.requests),
                turn_results=tuple(turn.results),
            )
        )
    return ReplayedJournal(
        journal_id=header.journal_id,
        physical_conversation_id=physical_id,
        logical_conversation_id=header.logical_conversation_id,
        byte_size=byte_size,
        boundaries=tuple(boundaries),
        results=results,
        toolset_fingerprints=frozenset(state.fingerprints),
        turns_without_request=without_request,
        checkpoints=tuple(state.checkpoints),
        completed_prompt_runs=tuple(state.completed_prompt_runs),
        conversation_policy=policy,
    )


@functools.cache
def _freeze_heap_once() -> None:
    """Before a process's first replay, move what it holds (the imported modules, the inputs
    read) out of the cycle collector's reach: replay's allocations otherwise trigger full
    passes that walk that whole heap again each time, for nothing (it is alive for the whole
    run). Objects frozen are still freed by reference counting; in a pool, each worker freezes
    its own heap at its first journal."""
    gc.freeze()


def _check_source(sidecar: SidecarView | None, source: HistorySource) -> None:
    if (sidecar is None) != source.imported:
        raise RuntimeError("a native journal needs the sidecar; an imported history has none")


def replay_decoded(
    journal: DecodedJournal,
    routes: Routes,
    sidecar: SidecarView | None,
    source: HistorySource = NATIVE_JOURNAL,
    period: Period = EVERYTHING,
    *,
    argument_key: ArgumentKey | None = None,
) -> JournalOutcome:
    """Replay an already decoded journal (see the module docstring). An imported history's
    records (a pi session, a Claude Code transcript, a Codex rollout) are replayed without a
    sidecar under the imported-history rules (`HistorySource`); a boundary outside `period` is
    skipped as OUTSIDE_PERIOD. With `argument_key`, each result keeps the keyed digests of its
    call's arguments (replay.arguments)."""
    _check_source(sidecar, source)
    _freeze_heap_once()
    state = _JournalReplay(source, argument_key)
    for record in journal.records:
        state.feed(record)
    return _finish(state, journal.header, journal.byte_size, routes, sidecar, period=period)


def _skipped(rejected: RejectedJournal) -> SkippedJournal:
    detail = None if rejected.reason is None else rejected.reason.value
    return SkippedJournal(JournalSkipReason(rejected.outcome.value), detail)


def replay_journal(
    path: Path,
    routes: Routes,
    sidecar: SidecarView,
    period: Period = EVERYTHING,
    *,
    argument_key: ArgumentKey | None = None,
) -> JournalOutcome:
    """Decode and replay one journal file; never raises for a bad journal, only skips it.

    Each record is replayed as its line is decoded, and none is kept once replayed; the
    decoder's outcome (a journal rejected whole) still comes before anything replay found."""
    _check_source(sidecar, NATIVE_JOURNAL)
    _freeze_heap_once()
    state = _JournalReplay(NATIVE_JOURNAL, argument_key)
    header, byte_size = decode_path_into(path, state.feed)
    if isinstance(header, RejectedJournal):
        return _skipped(header)
    return _finish(state, header, byte_size, routes, sidecar, period=period)


__all__ = ["replay_decoded", "replay_journal"]
