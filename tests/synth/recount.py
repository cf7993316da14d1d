"""An independent recount of a synthetic corpus, from the written files only.

It re-derives, from DIR/journals, DIR/history.sqlite and the config files, what replay should
find, following the definitions of docs/replay.md and docs/formats/journal-v2.md §4-5 as
written, not replay's code: it never imports `clearing_analysis.replay` (except the reviewed
guard detectors, `replay.guard.trips`, the screen the docs name) nor the generator. It uses
the real strict decoder, the real config decoders and the real sidecar view, so a manifest or a
replay summary that agrees with it agrees with the files.

What it derives, per docs/replay.md:

- journal outcomes: decoder rejections, broken references (INVALID with its detail code, the
  tool-name binding included), INTERRUPTED, DUPLICATE journal ids;
- boundaries: every `turn_start` that starts a host turn whose turn has an assistant message;
  skips DUPLICATE (same lineage, host turn and first input first seen in another journal) >
  OWNER_MISSING > UNSUPPORTED_API > OUTSIDE_CAPTURE_WINDOW;
- per counted boundary: E, request time, gap and the completed prompt runs of its physical
  conversation that ended before the request (`BoundaryFacts`);
- per API: counts, retention over unique proven results, redacted JSON web envelopes and the
  ones the guard trips on (structuredScanLosses).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from clearing_analysis.identity import ToolIdentity, finalized_tool_id
from clearing_analysis.inputs.configs import (
    AgentConfig,
    AppAllowlist,
    Attestation,
    load_agent_config,
    load_app_allowlist,
    load_routes,
)
from clearing_analysis.inputs.sidecar import (
    ConversationPolicy,
    RetainedRow,
    SidecarView,
    open_sidecar,
)
from clearing_analysis.journal import DecodedJournal, RejectedJournal, decode_file
from clearing_analysis.journal.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from clearing_analysis.journal.records import (
    Checkpoint,
    McpOrigin,
    MessageRecord,
    Redaction,
    RunEnd,
    RunStart,
    ToolCallEnd,
    ToolCallStart,
    TurnStart,
)
from clearing_analysis.policy import read_policy_bytes
from clearing_analysis.replay.guard import trips

_TOOLS = json.loads(read_policy_bytes("tools.json"))
READ_ONLY = frozenset(_TOOLS["readOnlyBuiltins"])
EXCLUDED = frozenset(
    _TOOLS["effectfulBuiltins"] + _TOOLS["instructionBuiltins"] + _TOOLS["historyBuiltins"]
)
SUPPORTED_APIS = frozenset(
    ("anthropic-messages", "openai-responses", "openai-codex-responses", "openai-completions")
)
UNITS_PER_TOKEN = 4
IMAGE_UNITS = 1_200 * UNITS_PER_TOKEN
COLD_MS = 330_000  # cache lifetime 300 s + margin 30 s of the corpus' routes
RETENTION_KEYS = ("proven", "matched", "redacted", "truncated", "unmatched")

Message = UserMessage | AssistantMessage | ToolResultMessage
ProofLookup = Callable[[AgentConfig, str, str], Attestation | None]


class _Invalid(Exception):  # noqa: N818  (control flow inside one journal scan)
    def __init__(self, detail: str) -> None:
        self.detail = detail


# -- the heuristic (docs/replay.md "Heuristic"), written the simple way -----------------------
def _units(text: str) -> int:
    """JavaScript string length: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def _no_floats(value: object) -> None:
    if isinstance(value, float):
        # JavaScript lays out numbers differently from Python (1e21, 1.0); the corpus writes
        # none, and a recount that met one would miscount rather than fail, so refuse it.
        raise ValueError("float in tool-call arguments: outside what this recount handles")
    if isinstance(value, dict):
        for item in value.values():
            _no_floats(item)
    elif isinstance(value, list):
        for item in value:
            _no_floats(item)


def _arguments_units(arguments: dict[str, Any]) -> int:
    """UTF-16 length of `JSON.stringify(arguments)`: for strings, integers and booleans the
    compact `json.dumps` without ASCII escaping writes exactly the same characters."""
    _no_floats(arguments)
    return _units(json.dumps(arguments, ensure_ascii=False, separators=(",", ":")))


def tokens(message: Message) -> int:
    """ceil(units / 4): text, thinking, tool-call name + arguments; 4,800 units per image."""
    content = message.content
    if isinstance(content, str):
        units = _units(content)
    else:
        units = 0
        for block in content:
            if isinstance(block, TextContent):
                units += _units(block.text)
            elif isinstance(block, ImageContent):
                units += IMAGE_UNITS
            elif isinstance(block, ThinkingContent):
                units += _units(block.thinking)
            elif isinstance(block, ToolCall):
                units += _units(block.name) + _arguments_units(block.arguments)
    return -(-units // UNITS_PER_TOKEN)


# -- per journal ------------------------------------------------------------------------------
@dataclass
class _Entry:
    """A message in the current context. `seq` is None for a checkpoint summary."""

    seq: int | None
    tokens: int
    usage: int | None = None  # valid assistant usage recorded after the latest checkpoint
    dropped_usage: bool = False  # a kept assistant whose usage predates the checkpoint


@dataclass
class _Result:
    host_turn_id: str  # the turn of the run that holds the call
    run_id: str
    call_id: str
    seq: int
    message: ToolResultMessage
    start: ToolCallStart
    envelope_redacted: bool = False


@dataclass
class _Turn:
    host_turn_id: str
    input_key: str
    estimate: int
    usage_dropped: bool
    first_owner: str | None = None
    owner_seen: bool = False
    api: str | None = None
    request_ms: int = 0
    gap_ms: int | None = None
    requests: int = 0
    results: list[_Result] = field(default_factory=list)


@dataclass
class _Journal:
    """What one decodable journal holds, or why it is skipped."""

    name: str
    journal_id: str
    physical: str
    logical: str
    outcome: str | None = None  # INVALID / INTERRUPTED
    detail: str | None = None
    turns: list[_Turn] = field(default_factory=list)
    completed_prompt_runs: set[tuple[int, str, str]] = field(default_factory=set)
    run_status: dict[str, str] = field(default_factory=dict)
    ends: dict[tuple[str, str], ToolCallEnd] = field(default_factory=dict)
    fingerprints: set[str] = field(default_factory=set)
    message_tokens: int = 0
    result_tokens: int = 0


def _usage(message: AssistantMessage) -> int | None:
    """Valid usage: stop reason neither error nor aborted; totalTokens, else the four parts."""
    if message.stop_reason in ("error", "aborted"):
        return None
    u = message.usage
    return u.total_tokens or u.input + u.output + u.cache_read + u.cache_write


class _Scan:
    """One pass over a decoded journal: references checked, context and turns tracked."""

    def __init__(self, journal: DecodedJournal, name: str) -> None:
        header = journal.header
        self.out = _Journal(
            name,
            header.journal_id,
            header.physical_conversation_id,
            header.logical_conversation_id,
        )
        self.context: list[_Entry] = []
        self.turns: dict[str, _Turn] = {}
        self.run_turn: dict[str, _Turn] = {}
        self.run_reason: dict[str, str] = {}
        self.open_runs: set[str] = set()
        self.starts: dict[tuple[str, str], ToolCallStart] = {}
        self.requested: dict[tuple[str, str], str] = {}
        self.with_result: set[tuple[str, str]] = set()
        self.results_by_seq: dict[int, _Result] = {}
        self.last_assistant_ms: int | None = None
        self.interrupted = False
        self.journal = journal

    def run(self) -> _Journal:
        try:
            for record in self.journal.records:
                self._record(record)
        except _Invalid as invalid:
            self.out.outcome, self.out.detail = "INVALID", invalid.detail
            return self.out
        if self.interrupted or self.open_runs:
            self.out.outcome = "INTERRUPTED"
        return self.out

    def _open(self, run_id: str) -> _Turn:
        if run_id not in self.open_runs:
            raise _Invalid("RUN_NOT_OPEN")
        return self.run_turn[run_id]

    def _record(self, record: object) -> None:
        out = self.out
        if isinstance(record, TurnStart):
            size = tokens(record.message)
            out.message_tokens += size
            if record.host_turn_id not in self.turns:
                turn = self._new_turn(record, size)
                self.turns[record.host_turn_id] = turn
                out.turns.append(turn)
            self.context.append(_Entry(record.seq, size))
        elif isinstance(record, RunStart):
            turn = self.turns.get(record.host_turn_id)
            if turn is None:
                raise _Invalid("TURN_UNKNOWN")
            if record.run_id in self.run_turn:
                raise _Invalid("RUN_REPEATED")
            self.run_turn[record.run_id] = turn
            self.run_reason[record.run_id] = record.reason
            self.open_runs.add(record.run_id)
            if not turn.owner_seen:
                turn.owner_seen, turn.first_owner = True, record.owner
            if record.toolset_fingerprint is not None:
                out.fingerprints.add(record.toolset_fingerprint)
        elif isinstance(record, MessageRecord):
            self._message(record)
        elif isinstance(record, ToolCallStart):
            self._open(record.run_id)
            key = (record.run_id, record.call_id)
            if key in self.starts:
                raise _Invalid("CALL_REPEATED")
            if self.requested.get(key, record.tool_name) != record.tool_name:
                raise _Invalid("TOOL_NAME_MISMATCH")
            self.starts[key] = record
        elif isinstance(record, ToolCallEnd):
            self._open(record.run_id)
            key = (record.run_id, record.call_id)
            if key not in self.starts:
                raise _Invalid("CALL_UNKNOWN")
            if key in out.ends:
                raise _Invalid("CALL_END_REPEATED")
            out.ends[key] = record
        elif isinstance(record, RunEnd):
            turn = self._open(record.run_id)
            self.open_runs.discard(record.run_id)
            out.run_status[record.run_id] = record.status
            self.interrupted = self.interrupted or record.status == "interrupted"
            if record.status == "completed" and self.run_reason[record.run_id] == "prompt":
                out.completed_prompt_runs.add((record.timestamp, turn.host_turn_id, record.run_id))
        elif isinstance(record, Checkpoint):
            self._checkpoint(record)
        elif isinstance(record, Redaction):
            target = self.results_by_seq.get(record.target_seq)
            if target is None:
                raise _Invalid("REDACTION_TARGET")
            if record.scope == "web_envelope" and record.format == "json":
                target.envelope_redacted = True

    def _new_turn(self, record: TurnStart, input_tokens: int) -> _Turn:
        """The boundary's E, before its input joins the context (E includes the input)."""
        latest = max(
            (i for i, entry in enumerate(self.context) if entry.usage is not None), default=None
        )
        if latest is None:
            estimate = sum(entry.tokens for entry in self.context) + input_tokens
        else:
            later = sum(entry.tokens for entry in self.context[latest + 1 :])
            estimate = (self.context[latest].usage or 0) + later + input_tokens
        dropped = latest is None and any(entry.dropped_usage for entry in self.context)
        # The first input as written (content and timestamp), canonical JSON: a copied turn
        # repeats it exactly, a new turn reusing the host turn id does not.
        key = json.dumps(msgspec.to_builtins(record.message), sort_keys=True)
        return _Turn(record.host_turn_id, key, estimate, dropped)

    def _message(self, record: MessageRecord) -> None:
        turn = self._open(record.run_id)
        message = record.message
        size = tokens(message)
        self.out.message_tokens += size
        usage = None
        if isinstance(message, AssistantMessage):
            for block in message.content:
                if isinstance(block, ToolCall):
                    key = (record.run_id, block.id)
                    start = self.starts.get(key)
                    if start is not None and start.tool_name != block.name:
                        raise _Invalid("TOOL_NAME_MISMATCH")
                    self.requested[key] = block.name
            if turn.api is None:
                # The turn's first assistant message is the boundary's request.
                turn.api, turn.request_ms = message.api, message.timestamp
                if self.last_assistant_ms is not None:
                    turn.gap_ms = message.timestamp - self.last_assistant_ms
            self.last_assistant_ms = message.timestamp
            turn.requests += 1
            usage = _usage(message)
        elif isinstance(message, ToolResultMessage):
            key = (record.run_id, message.tool_call_id)
            start = self.starts.get(key)
            if start is None:
                raise _Invalid("CALL_UNKNOWN")
            if key in self.with_result:
                raise _Invalid("RESULT_REPEATED")
            if message.tool_name != start.tool_name:
                raise _Invalid("TOOL_NAME_MISMATCH")
            self.with_result.add(key)
            result = _Result(
                turn.host_turn_id, record.run_id, message.tool_call_id, record.seq, message, start
            )
            turn.results.append(result)
            self.results_by_seq[record.seq] = result
            self.out.result_tokens += size
        self.context.append(_Entry(record.seq, size, usage))

    def _checkpoint(self, record: Checkpoint) -> None:
        first = record.first_kept_seq
        if first is not None and first >= record.seq:
            raise _Invalid("KEPT_SEQ_AFTER_CHECKPOINT")
        kept = [
            # Kept messages re-enter as heuristic text: usage before a checkpoint never counts.
            _Entry(e.seq, e.tokens, None, e.dropped_usage or e.usage is not None)
            for e in self.context
            if first is not None and e.seq is not None and first <= e.seq < record.seq
        ]
        self.context = [_Entry(None, -(-_units(record.summary) // UNITS_PER_TOKEN)), *kept]


# -- the corpus ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class BoundaryFacts:
    """One counted boundary, keyed by (journal file name, host turn id)."""

    journal: str
    host_turn_id: str
    api: str
    logical: str
    physical: str
    estimate: int
    gap_ms: int | None
    request_ms: int
    completed_prompt_runs_before: int
    # No valid usage since the latest checkpoint, and a kept assistant message had one:
    # E is heuristic only although the context holds an assistant message with usage.
    usage_dropped: bool

    @property
    def cold(self) -> bool:
        """A gap longer than the routes' cache lifetime plus margin."""
        return self.gap_ms is not None and self.gap_ms > COLD_MS


def _api_counts() -> dict[str, Any]:
    return {
        "boundaries": 0,
        "requests": 0,
        "toolResults": 0,
        "retention": dict.fromkeys(RETENTION_KEYS, 0),
        "redactedWebEnvelopes": 0,
        "structuredScanLosses": 0,
    }


@dataclass
class Recount:
    """Counts in the manifest's shape, plus every counted boundary's facts."""

    journal_files: int = 0
    replayed: int = 0
    skipped_journals: dict[str, int] = field(default_factory=dict)
    invalid_details: dict[str, int] = field(default_factory=dict)
    skipped_boundaries: dict[str, int] = field(default_factory=dict)
    boundaries_without_route: dict[str, int] = field(default_factory=dict)
    per_api: dict[str, dict[str, Any]] = field(default_factory=dict)
    defects: dict[str, int] = field(default_factory=dict)
    boundaries: list[BoundaryFacts] = field(default_factory=list)
    result_tokens: int = 0
    message_tokens: int = 0

    def bump(self, table: dict[str, int], key: str) -> None:
        """Add one to `table[key]`."""
        table[key] = table.get(key, 0) + 1

    def api(self, api: str) -> dict[str, Any]:
        """The counters of one API."""
        return self.per_api.setdefault(api, _api_counts())


def per_run_proof(agent: AgentConfig, physical: str, run_id: str) -> Attestation | None:
    """docs/formats/agent-config.md: a per-run proof covers the (conversation, run) it names."""
    assert agent.per_run is not None
    return agent.per_run.get(physical, {}).get(run_id)


@dataclass(frozen=True)
class _Proofs:
    agent: AgentConfig | None
    allowlist: AppAllowlist | None
    period_valid: bool
    lookup: ProofLookup

    def attestation(self, physical: str, run_id: str) -> Attestation | None:
        agent = self.agent
        if agent is None:
            return None
        if agent.per_run is not None:
            return self.lookup(agent, physical, run_id)
        return agent.period if self.period_valid else None


def _origin(start: ToolCallStart, row: RetainedRow | None) -> McpOrigin | None:
    """The journal's captured origin, else an identity-linked row's (all three ids set)."""
    if start.payload is not None and start.payload.origin is not None:
        return start.payload.origin
    if (
        row is None
        or row.origin_server is None
        or row.origin_tool is None
        or row.origin_server_identity_digest is None
    ):
        return None
    hints = {"readOnlyHint": row.origin_read_only_hint}
    if row.origin_destructive_hint is not None:
        hints["destructiveHint"] = row.origin_destructive_hint
    return msgspec.convert(
        {
            "server": row.origin_server,
            "tool": row.origin_tool,
            "serverIdentityDigest": row.origin_server_identity_digest,
            "annotations": hints,
        },
        McpOrigin,
    )


def _candidate(result: _Result, journal: _Journal, origin: McpOrigin | None) -> bool:
    """Rules 1-8 of docs/replay.md: nothing permanent excludes the result."""
    name = result.start.tool_name
    end = journal.ends.get((result.run_id, result.call_id))
    content = result.message.content
    return not (
        name in EXCLUDED
        or (origin is not None and origin.annotations.destructive_hint is True)
        or result.message.is_error
        or end is None
        or end.status != "success"
        or journal.run_status.get(result.run_id) != "completed"
        or not (end.returned and end.placed)
        or any(isinstance(block, ImageContent) for block in content)
        or len(content) != 1
        or not isinstance(content[0], TextContent)
        or content[0].text_signature is not None
    )


def _proven(result: _Result, physical: str, origin: McpOrigin | None, proofs: _Proofs) -> bool:
    name = result.start.tool_name
    if name in READ_ONLY:
        if result.start.payload is not None and result.start.payload.origin is not None:
            return False  # a built-in name whose start carries an MCP origin is ambiguous
        attestation = proofs.attestation(physical, result.run_id)
        return attestation is not None and attestation.proves_builtin(name)
    return (
        origin is not None
        and proofs.allowlist is not None
        and origin.tool == name
        and origin.annotations.read_only_hint is True
        and origin.annotations.destructive_hint is not True
        and proofs.allowlist.allows(origin.server, origin.tool, origin.server_identity_digest)
    )


def _retention_defect(row: RetainedRow | None, identity: ToolIdentity, text: str) -> str | None:
    if row is None:
        return "missing"
    if row.identity != identity:
        return "notIdentityLinked"
    if row.state != "finalized":
        return "notFinalized"
    if row.tombstone:
        return "tombstone"
    if row.integrity != "ok":
        return "integrityMismatch"
    if row.redacted:
        return "redacted"
    if row.truncated:
        return "truncated"
    raw = text.encode()
    if row.byte_length != len(raw):
        return "bytesMismatch"
    if row.sha256 != hashlib.sha256(raw).digest():
        return "digestMismatch"
    if row.text != text:
        return "textMismatch"
    return None


def _scan_file(path: Path, out: Recount) -> _Journal | None:
    """The journal's facts if it replays (decodes, no broken reference, not interrupted)."""
    decoded = decode_file(path)
    if isinstance(decoded, RejectedJournal):
        out.bump(out.skipped_journals, decoded.outcome.value)
        if decoded.outcome.value == "INVALID" and decoded.reason is not None:
            out.bump(out.invalid_details, decoded.reason.value)
        return None
    journal = _Scan(decoded, path.name).run()
    if journal.outcome is not None:
        out.bump(out.skipped_journals, journal.outcome)
        if journal.detail is not None:
            out.bump(out.invalid_details, journal.detail)
        return None
    return journal


def _contributing(corpus: Path, out: Recount) -> list[_Journal]:
    """The journals that replay, in the session's order (byte path under the root)."""
    root = corpus / "journals"
    files = sorted(root.rglob("*.jsonl"), key=lambda p: bytes(p.relative_to(root)))
    contributing: list[_Journal] = []
    journal_ids: set[str] = set()
    for path in files:
        out.journal_files += 1
        journal = _scan_file(path, out)
        if journal is None:
            continue
        if journal.journal_id in journal_ids:
            out.bump(out.skipped_journals, "DUPLICATE")
            continue
        journal_ids.add(journal.journal_id)
        contributing.append(journal)
        out.message_tokens += journal.message_tokens
        out.result_tokens += journal.result_tokens
    out.replayed = len(contributing)
    return contributing


@dataclass(frozen=True)
class _Unique:
    """A unique result (by finalized id) of a counted boundary."""

    api: str
    journal: _Journal
    result: _Result
    identity: ToolIdentity
    finalized_id: str


def _skip(
    turn: _Turn, routed: set[str], policy: ConversationPolicy | None, out: Recount
) -> str | None:
    """OWNER_MISSING > UNSUPPORTED_API > OUTSIDE_CAPTURE_WINDOW (DUPLICATE is decided first)."""
    if turn.first_owner is None:
        return "OWNER_MISSING"
    if turn.api not in routed:
        if turn.api in SUPPORTED_APIS:
            out.bump(out.boundaries_without_route, str(turn.api))
        return "UNSUPPORTED_API"
    if policy is None or turn.request_ms < policy.capture_enabled_since:
        return "OUTSIDE_CAPTURE_WINDOW"
    return None


def recount(corpus: Path, lookup: ProofLookup = per_run_proof) -> Recount:
    """Recount the corpus per docs/replay.md (`lookup`: how a per-run proof is found)."""
    routed = {api.value for api in load_routes(corpus / "routes.json").by_api}
    agent_path = corpus / "agent-config.json"
    agent = load_agent_config(agent_path) if agent_path.exists() else None
    allow_path = corpus / "app-allowlist.json"
    allowlist = load_app_allowlist(allow_path) if allow_path.exists() else None
    out = Recount()
    for api in sorted(routed):
        out.api(api)  # every routed API is reported, zeros included
    contributing = _contributing(corpus, out)
    # Completed prompt runs per physical conversation over every contributing journal, each
    # run once (a copied run is the same run in both files).
    ended: dict[str, set[tuple[int, str, str]]] = {}
    for journal in contributing:
        ended.setdefault(journal.physical, set()).update(journal.completed_prompt_runs)
    fingerprints = {fp for journal in contributing for fp in journal.fingerprints}
    proofs = _Proofs(agent, allowlist, len(fingerprints) <= 1, lookup)
    claimed: dict[tuple[str, str, str], int] = {}
    unique: dict[str, _Unique] = {}
    with open_sidecar(corpus / "history.sqlite") as view:
        for index, journal in enumerate(contributing):
            policy = view.conversation_policy(journal.physical)
            for turn in journal.turns:
                if turn.api is None:
                    continue  # no request: not a boundary
                # The first journal holding (lineage, host turn, first input) claims it, even
                # when it skips the boundary itself; any other journal's copy is DUPLICATE.
                key = (journal.logical, turn.host_turn_id, turn.input_key)
                first = claimed.setdefault(key, index)
                skip = "DUPLICATE" if first != index else _skip(turn, routed, policy, out)
                if skip is not None:
                    out.bump(out.skipped_boundaries, skip)
                    continue
                counts = out.api(turn.api)
                counts["boundaries"] += 1
                counts["requests"] += turn.requests
                counts["toolResults"] += len(turn.results)
                before = sum(1 for run in ended[journal.physical] if run[0] < turn.request_ms)
                out.boundaries.append(
                    BoundaryFacts(
                        journal.name,
                        turn.host_turn_id,
                        turn.api,
                        journal.logical,
                        journal.physical,
                        turn.estimate,
                        turn.gap_ms,
                        turn.request_ms,
                        before,
                        turn.usage_dropped,
                    )
                )
                for result in turn.results:
                    identity = ToolIdentity(
                        journal.physical, turn.host_turn_id, result.run_id, result.call_id
                    )
                    finalized_id = finalized_tool_id(identity)
                    unique.setdefault(
                        finalized_id, _Unique(turn.api, journal, result, identity, finalized_id)
                    )
        for item in unique.values():
            _count_result(out, view, proofs, item)
    return out


def _count_result(out: Recount, view: SidecarView, proofs: _Proofs, item: _Unique) -> None:
    """Retention and scan-loss counts of one unique result of a counted boundary."""
    counts = out.api(item.api)
    result = item.result
    content = result.message.content
    single_text = (
        content[0].text if len(content) == 1 and isinstance(content[0], TextContent) else None
    )
    if result.envelope_redacted:
        counts["redactedWebEnvelopes"] += 1
        if single_text is not None and trips(single_text):
            counts["structuredScanLosses"] += 1
    row = view.retained(item.finalized_id)
    # A row whose identity columns differ from the result's proves nothing, origin included.
    linked = row if row is not None and row.identity == item.identity else None
    origin = _origin(result.start, linked)
    if single_text is None or not _candidate(result, item.journal, origin):
        return
    if not _proven(result, item.journal.physical, origin, proofs):
        return
    retention = counts["retention"]
    retention["proven"] += 1
    defect = _retention_defect(row, item.identity, single_text)
    if defect is not None:
        out.bump(out.defects, defect)
    if defect in (None, "redacted", "truncated"):
        retention["matched"] += 1
        if defect is not None:
            retention[defect] += 1
    else:
        retention["unmatched"] += 1
