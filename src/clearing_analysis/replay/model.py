"""The facts replay produces: per journal, its boundaries and tool results (R-RP, R-SIM-1/3).

Everything here is a frozen value that pickles (so a process pool can return it) and compares
by value (so 1-worker and N-worker replays can be checked for equality). Every value is a
frozen msgspec struct (docs/architecture.md, "Records"); what replay makes per record (a
request, a tool result, a boundary, ...) is one that the cycle collector does not track
(`gc=False`: it holds only immutable values, never a cycle). Identifiers
are kept because later stages join on them; no field carries message text, and nothing here is
printed except the fixed enums and counts.
"""

from __future__ import annotations

import enum
from typing import Literal

import msgspec

from clearing_analysis.identity import ToolIdentity
from clearing_analysis.inputs.sidecar import ConversationPolicy
from clearing_analysis.journal.records import ToolStatus
from clearing_analysis.pisession.read import SessionShape
from clearing_analysis.replay.retention import RetentionStatus
from clearing_analysis.toolclass import ToolClass, ToolNames

# A call's end status as replay reports it: a journal status, or `unknown` where an imported
# history states no outcome (`journal.records.OutcomeUnknownEnd`, R-SRC-3). No journal line
# carries `unknown`.
CallStatus = ToolStatus | Literal["unknown"]


class HistorySource(msgspec.Struct, frozen=True):
    """What a replayed journal's records come from, and so which rules replay applies.

    The native source (`NATIVE_JOURNAL`): a native v2 journal with the sidecar (`analyze`,
    R-RP). An imported source (`imported_history`): a file of a format `explore` reads (a pi
    session, a Claude Code transcript, a Codex rollout: histories), mapped onto journal records
    in memory. Its tools are named by its adapter's table (`tool_names`); it records no run
    owner, and without a sidecar there is no capture window and no retained copy, so no
    boundary is skipped as OWNER_MISSING or OUTSIDE_CAPTURE_WINDOW and no retention is looked
    up (docs/formats/pi-sessions.md and the other formats' pages).
    """

    tool_names: ToolNames
    imported: bool


NATIVE_JOURNAL = HistorySource(ToolNames.NATIVE, imported=False)


def imported_history(tool_names: ToolNames) -> HistorySource:
    """The imported source whose tools `tool_names` names (its adapter's)."""
    return HistorySource(tool_names, imported=True)


class JournalSkipReason(enum.StrEnum):
    """skippedJournals codes (R-RP-2), all seven always reported."""

    UNSUPPORTED_VERSION = "UNSUPPORTED_VERSION"
    IMPORTED = "IMPORTED"
    INHERITED = "INHERITED"
    INTERRUPTED = "INTERRUPTED"
    INVALID = "INVALID"
    OPEN = "OPEN"
    DUPLICATE = "DUPLICATE"


class BoundarySkipReason(enum.StrEnum):
    """skippedBoundaries codes (R-RP-3, R-SIM-9), all always reported.

    Precedence DUPLICATE > OWNER_MISSING > UNSUPPORTED_API > OUTSIDE_PERIOD >
    OUTSIDE_CAPTURE_WINDOW: a boundary first seen in another journal is a duplicate whatever
    else is true of it; one outside the period the user asked about is said to be so before
    the capture window is consulted.
    """

    OWNER_MISSING = "OWNER_MISSING"
    UNSUPPORTED_API = "UNSUPPORTED_API"
    DUPLICATE = "DUPLICATE"
    # Before the conversation's capture_enabled_since, or a conversation with no policy row:
    # the seed restricts the analysis to the period when continuity capture was enabled.
    OUTSIDE_CAPTURE_WINDOW = "OUTSIDE_CAPTURE_WINDOW"
    # The boundary's request lies outside the period of --since / --until (inputs.period).
    OUTSIDE_PERIOD = "OUTSIDE_PERIOD"


class BrokenReference(enum.StrEnum):
    """Why replay found an otherwise decodable journal INVALID (docs/replay.md)."""

    TURN_UNKNOWN = "TURN_UNKNOWN"
    RUN_REPEATED = "RUN_REPEATED"
    RUN_NOT_OPEN = "RUN_NOT_OPEN"
    CALL_REPEATED = "CALL_REPEATED"
    CALL_UNKNOWN = "CALL_UNKNOWN"
    CALL_END_REPEATED = "CALL_END_REPEATED"
    RESULT_REPEATED = "RESULT_REPEATED"
    REDACTION_TARGET = "REDACTION_TARGET"
    KEPT_SEQ_AFTER_CHECKPOINT = "KEPT_SEQ_AFTER_CHECKPOINT"
    # tool_call_start, the assistant toolCall and the toolResult name different tools: the
    # result's identity (which comes from the call, R-SIM-9) would be ambiguous.
    TOOL_NAME_MISMATCH = "TOOL_NAME_MISMATCH"


class ResultShape(enum.StrEnum):
    """Content shape of a tool result: only PLAIN_TEXT can ever be cleared (R-EL-1/2)."""

    PLAIN_TEXT = "PLAIN_TEXT"
    IMAGE = "IMAGE"
    OPAQUE_OR_MIXED = "OPAQUE_OR_MIXED"


class Protection(enum.StrEnum):
    """Why a result in context is protected at one boundary (R-EL-2, R-SIM-8)."""

    CURRENT_TURN = "CURRENT_TURN"
    RECENT_PROMPT_TURN = "RECENT_PROMPT_TURN"
    RECENT_TOOL_START = "RECENT_TOOL_START"


class OriginSource(enum.StrEnum):
    """Where a result's captured MCP origin came from (journal first, then sidecar row)."""

    JOURNAL = "JOURNAL"
    SIDECAR = "SIDECAR"


class CapturedOrigin(msgspec.Struct, frozen=True, gc=False):
    """Captured provenance of an app tool call; never printed."""

    server: str
    tool: str
    server_identity_digest: str
    read_only_hint: bool | None
    destructive_hint: bool | None


class ToolResult(msgspec.Struct, frozen=True, gc=False):
    """One toolResult message of a journal, with everything eligibility needs about it."""

    identity: ToolIdentity
    finalized_id: str
    turn_index: int
    start_index: int
    tool_name: str
    # The `api` of the assistant message whose toolCall requested the call (None: no message
    # of its run requested it, an orphan result): the result's API cohort (R-CM-8,
    # docs/model.md "Per-API cohorts").
    request_api: str | None
    tool_class: ToolClass  # by name, in the table of the history's source (toolclass)
    web: bool  # the web category (toolclass.is_web)
    is_error: bool
    call_status: CallStatus | None  # the call's end status; None when the call never ended
    returned_and_placed: bool
    run_completed: bool
    shape: ResultShape
    tokens: int
    text_bytes: int
    escaped_bytes: int
    escaped_units: int
    origin: CapturedOrigin | None
    origin_source: OriginSource | None
    retention: RetentionStatus
    web_envelope_redacted: bool
    # Turn indices bounding the result's stay in context: it is in the snapshot of every turn
    # with context_from <= index < context_until (None: never compacted away). A boundary's
    # context is derived from these, never stored per boundary (R-EL-8 occurrences are counted
    # where they arise).
    context_from: int
    context_until: int | None
    # Ordinal of the journal's checkpoint that compacted it away (None: never).
    compacted_by: int | None
    # A redacted JSON web envelope whose text the credential / private-evidence guard rejects
    # again (structuredScanLosses, R-SIM-9); only this flag leaves replay, never the text.
    scan_loss: bool
    # E just before the result joined the context (R-SIM-1's rule): the prefix a warm clearing
    # from this result on leaves cached, and the journal's checkpoints before it (a later one
    # rebuilt that prefix). docs/model.md, section 9.
    prefix_estimate: int
    checkpoints_before: int
    # Keyed digests of the call's arguments (replay.arguments, R-RF-1), in memory only and
    # never printed: of its canonical arguments (a fetching tool), of the file path it reads
    # (a file read) or writes (a writing tool). None: not such a call, or replayed without a
    # key.
    argument_digest: bytes | None = None
    read_path_digest: bytes | None = None
    written_path_digest: bytes | None = None


class RequestUsage(msgspec.Struct, frozen=True, gc=False):
    """One assistant message (every assistant message is a request, R-CM-1)."""

    input: int
    output: int
    cache_read: int
    cache_write: int
    total_tokens: int
    # Any of the five counts non-zero (`heuristic.usage_recorded`): else a cost fallback.
    usage_recorded: bool
    timestamp: int
    stop_reason: str
    api: str
    # Heuristic tokens of the context the request was sent with, and of the message itself:
    # the labeled uncached fallback when usage is missing (R-CM-1).
    context_tokens: int
    message_tokens: int
    # Checkpoints of the journal before this request: a cleared result rides along in the
    # request's prefix until the checkpoint that compacts it away (R-CM-7 removed.observed).
    checkpoints_before: int
    # E just before this request, by R-SIM-1's rule (the latest valid usage plus the heuristic
    # of every message after it): where a policy that clears before every request decides
    # (docs/model.md, section 9). The first request's is its boundary's E, give or take a
    # message between the prompt and the request.
    estimate: int
    # How many of the turn's tool results were placed before this request (the turn's results
    # a mid-turn clearing point sees in context).
    results_before: int
    # The message's model as the pinned pi-ai catalog names it (PROVIDER/ID), None when the
    # catalog does not list it: the usage tables by model (docs/privacy.md), never input text.
    catalog_model: str | None = None


class ReplayedBoundary(msgspec.Struct, frozen=True, gc=False):
    """A pre-turn boundary as one journal sees it (before cross-journal DUPLICATE checks).

    `request_ms` is the timestamp of the turn's first assistant message, the boundary's request
    (R-SIM-9); `gap_ms` runs to it from the latest earlier assistant message of the journal.
    `input_key` is an in-memory digest of the turn's first input, never printed: with the
    lineage and host turn id it says whether another journal holds the same boundary.
    """

    host_turn_id: str
    turn_index: int
    api: str
    local_skip: BoundarySkipReason | None
    estimate: int
    usage_based: bool
    request_ms: int
    gap_ms: int | None
    input_key: bytes
    # tool_call_start records before the boundary: the "ten latest tool starts" window.
    tool_starts_before: int
    requests: tuple[RequestUsage, ...]
    turn_results: tuple[int, ...]


class CompletedPromptRun(msgspec.Struct, frozen=True, gc=False):
    """A run started for a prompt (`run_start.reason` "prompt") that ended "completed".

    Five of them, per physical conversation in time order, separate clearing batches (R-SIM-9).
    """

    ended_ms: int
    host_turn_id: str
    run_id: str


class CheckpointObservation(msgspec.Struct, frozen=True, gc=False):
    """An observed compaction (reported beside the model, never mixed into it, R-PM-3).

    `before_turn` is the index of the first turn started after it: the first boundary whose
    context it shaped. `api` is that of the latest request before it (None: no request yet).
    """

    trigger: str
    tokens_before: int
    tokens_after: int
    summary_tokens: int
    timestamp: int
    before_turn: int
    api: str | None
    # A request came since the previous checkpoint (or the journal's start): only then can a
    # threshold have been crossed by growth (a second compaction right after the first, with
    # nothing between, measures the summary alone).
    after_request: bool = True


class ReplayedJournal(msgspec.Struct, frozen=True):
    """A journal whose entire replay succeeded: its whole contribution."""

    journal_id: str
    physical_conversation_id: str
    logical_conversation_id: str
    byte_size: int
    boundaries: tuple[ReplayedBoundary, ...]
    results: tuple[ToolResult, ...]
    toolset_fingerprints: frozenset[str]
    turns_without_request: int
    checkpoints: tuple[CheckpointObservation, ...]
    completed_prompt_runs: tuple[CompletedPromptRun, ...]
    conversation_policy: ConversationPolicy | None
    # A pi session's counts beyond its resumed path (explore only; None for a native journal).
    session: SessionShape | None = None


class SkippedJournal(msgspec.Struct, frozen=True):
    """A journal that contributes nothing; `detail` is a fixed sub-code for INVALID."""

    reason: JournalSkipReason
    detail: str | None = None


JournalOutcome = ReplayedJournal | SkippedJournal
