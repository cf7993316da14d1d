"""An independent recount of a synthetic corpus, from the written files only.

It follows docs/replay.md (journal outcomes, boundaries, skips, proven retention)
by scanning DIR/journals with the real decoder and looking rows up in DIR/history.sqlite
through the real sidecar view. It never imports the generator, so a manifest that agrees with
it agrees with the files, not with the generator's bookkeeping.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clearing_analysis.identity import ToolIdentity, finalized_tool_id
from clearing_analysis.inputs.configs import (
    AgentConfig,
    AppAllowlist,
    load_agent_config,
    load_app_allowlist,
    load_routes,
)
from clearing_analysis.inputs.sidecar import SidecarView, open_sidecar
from clearing_analysis.journal import DecodedJournal, RejectedJournal, decode_file
from clearing_analysis.journal.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ToolResultMessage,
    UserMessage,
)
from clearing_analysis.journal.records import (
    Checkpoint,
    MessageRecord,
    RunEnd,
    RunStart,
    ToolCallEnd,
    ToolCallStart,
    TurnStart,
)

READ_ONLY = {"read", "grep", "find", "ls", "web_fetch"}
EXCLUDED = {"bash", "edit", "write", "skill", "read_instructions", "session_history"}
EXCLUDED |= {"retrieve_tool_result"}
COLD_MS = 330_000


@dataclass
class Turn:
    """One boundary candidate inside one journal."""

    host_turn_id: str
    first_owner: str | None = None
    owner_seen: bool = False
    api: str | None = None
    requests: int = 0
    results: list[tuple[str, ToolResultMessage]] = field(default_factory=list)
    first_request_ms: int | None = None
    gap_ms: int | None = None
    estimate: int | None = None


@dataclass
class Recount:
    """Counts in the manifest's shape, plus boundary facts for profile checks."""

    journal_files: int = 0
    replayed: int = 0
    skipped_journals: dict[str, int] = field(default_factory=dict)
    skipped_boundaries: dict[str, int] = field(default_factory=dict)
    per_api: dict[str, dict[str, Any]] = field(default_factory=dict)
    defects: dict[str, int] = field(default_factory=dict)
    # (api, logical id, cold?, estimate) per counted boundary
    boundaries: list[tuple[str, str, bool, int]] = field(default_factory=list)
    result_tokens: int = 0
    message_tokens: int = 0

    def bump(self, table: dict[str, int], key: str) -> None:
        table[key] = table.get(key, 0) + 1

    def api(self, api: str) -> dict[str, Any]:
        return self.per_api.setdefault(
            api,
            {
                "boundaries": 0,
                "requests": 0,
                "toolResults": 0,
                "retention": dict.fromkeys(
                    ("proven", "matched", "redacted", "truncated", "unmatched"), 0
                ),
            },
        )


def _heuristic(message: UserMessage | AssistantMessage | ToolResultMessage) -> int:
    chars = 0
    images = 0
    content = message.content
    if isinstance(content, str):
        chars = len(content.encode("utf-16-le")) // 2
    else:
        for block in content:
            if isinstance(block, ImageContent):
                images += 1
            elif isinstance(block, TextContent):
                chars += len(block.text.encode("utf-16-le")) // 2
            elif hasattr(block, "thinking"):
                chars += len(block.thinking)
            else:
                import json

                chars += len(block.name) + len(json.dumps(block.arguments, separators=(",", ":")))
    return math.ceil(chars / 4) + 1_200 * images


def _check_references(journal: DecodedJournal) -> str | None:
    """INVALID for broken references, INTERRUPTED for interrupted or unended runs."""
    turns: set[str] = set()
    open_runs: set[str] = set()
    ended: set[str] = set()
    starts: set[tuple[str, str]] = set()
    interrupted = False
    for record in journal.records:
        if isinstance(record, TurnStart):
            turns.add(record.host_turn_id)
        elif isinstance(record, RunStart):
            if record.host_turn_id not in turns or record.run_id in open_runs | ended:
                return "INVALID"
            open_runs.add(record.run_id)
        elif isinstance(record, MessageRecord | ToolCallStart | ToolCallEnd):
            if record.run_id not in open_runs:
                return "INVALID"
            if isinstance(record, ToolCallStart):
                starts.add((record.run_id, record.call_id))
            elif isinstance(record, ToolCallEnd):
                if (record.run_id, record.call_id) not in starts:
                    return "INVALID"
            elif (
                isinstance(record.message, ToolResultMessage)
                and (record.run_id, record.message.tool_call_id) not in starts
            ):
                return "INVALID"
        elif isinstance(record, RunEnd):
            if record.run_id not in open_runs:
                return "INVALID"
            open_runs.discard(record.run_id)
            ended.add(record.run_id)
            interrupted = interrupted or record.status == "interrupted"
    return "INTERRUPTED" if interrupted or open_runs else None


def _proven(
    name: str,
    identity: ToolIdentity,
    start: ToolCallStart,
    agent: AgentConfig | None,
    allowlist: AppAllowlist | None,
) -> bool:
    if name in READ_ONLY:
        attestation = (
            None
            if agent is None
            else agent.attestation_for(identity.physical_conversation_id, identity.run_id)
        )
        return attestation is not None and attestation.proves_builtin(name)
    if name in EXCLUDED:
        return False
    origin = None if start.payload is None else start.payload.origin
    return (
        origin is not None
        and allowlist is not None
        and origin.tool == name
        and origin.annotations.read_only_hint is True
        and origin.annotations.destructive_hint is not True
        and allowlist.allows(origin.server, origin.tool, origin.server_identity_digest)
    )


def _classify(view: SidecarView, identity: ToolIdentity, text: str) -> str | None:
    row = view.retained(finalized_tool_id(identity))
    if row is None:
        return "missing"
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


def recount(corpus: Path) -> Recount:
    """Replay the corpus' journals per docs/replay.md and count what they hold."""
    routes = load_routes(corpus / "routes.json").by_api
    agent_path = corpus / "agent-config.json"
    agent = load_agent_config(agent_path) if agent_path.exists() else None
    allow_path = corpus / "app-allowlist.json"
    allowlist = load_app_allowlist(allow_path) if allow_path.exists() else None
    root = corpus / "journals"
    files = sorted(root.rglob("*.jsonl"), key=lambda p: bytes(p.relative_to(root)))
    out = Recount()
    replayed_ids: set[str] = set()
    seen: set[tuple[str, str]] = set()
    unique: set[ToolIdentity] = set()
    with open_sidecar(corpus / "history.sqlite") as view:
        for path in files:
            out.journal_files += 1
            result = decode_file(path)
            if isinstance(result, RejectedJournal):
                out.bump(out.skipped_journals, result.outcome.value)
                continue
            outcome = _check_references(result)
            if outcome is None and result.header.journal_id in replayed_ids:
                outcome = "DUPLICATE"
            if outcome is not None:
                out.bump(out.skipped_journals, outcome)
                continue
            replayed_ids.add(result.header.journal_id)
            out.replayed += 1
            _replay(
                result,
                routes=routes,
                agent=agent,
                allowlist=allowlist,
                view=view,
                seen=seen,
                unique=unique,
                out=out,
            )
    return out


def _replay(
    journal: DecodedJournal,
    *,
    routes: Any,
    agent: AgentConfig | None,
    allowlist: AppAllowlist | None,
    view: SidecarView,
    seen: set[tuple[str, str]],
    unique: set[ToolIdentity],
    out: Recount,
) -> None:
    header = journal.header
    turns: dict[str, Turn] = {}
    order: list[Turn] = []
    run_turn: dict[str, Turn] = {}
    run_status: dict[str, str] = {}
    starts: dict[tuple[str, str], ToolCallStart] = {}
    ends: dict[tuple[str, str], ToolCallEnd] = {}
    current: Turn | None = None
    last_assistant_ms: int | None = None
    usage_base: int | None = None  # latest valid usage, or checkpoint tokensAfter
    trailing = 0
    for record in journal.records:
        if isinstance(record, TurnStart):
            current = turns.get(record.host_turn_id)
            if current is None:
                current = turns[record.host_turn_id] = Turn(record.host_turn_id)
                order.append(current)
                current.estimate = None if usage_base is None else usage_base + trailing
            trailing += _heuristic(record.message)
            out.message_tokens += _heuristic(record.message)
            if current.estimate is not None:
                current.estimate += _heuristic(record.message)
        elif isinstance(record, RunStart):
            assert current is not None and current.host_turn_id == record.host_turn_id
            run_turn[record.run_id] = current
            if not current.owner_seen:
                current.owner_seen = True
                current.first_owner = record.owner
        elif isinstance(record, ToolCallStart):
            starts[(record.run_id, record.call_id)] = record
        elif isinstance(record, ToolCallEnd):
            ends[(record.run_id, record.call_id)] = record
        elif isinstance(record, RunEnd):
            run_status[record.run_id] = record.status
        elif isinstance(record, Checkpoint):
            usage_base, trailing = record.tokens_after, 0
        elif isinstance(record, MessageRecord):
            turn = run_turn[record.run_id]
            message = record.message
            tokens = _heuristic(message)
            out.message_tokens += tokens
            if isinstance(message, AssistantMessage):
                if turn.api is None:
                    turn.api = message.api
                    turn.first_request_ms = message.timestamp
                    if last_assistant_ms is not None:
                        turn.gap_ms = message.timestamp - last_assistant_ms
                turn.requests += 1
                last_assistant_ms = message.timestamp
                if message.stop_reason not in ("error", "aborted"):
                    usage_base, trailing = message.usage.total_tokens, 0
                else:
                    trailing += tokens
            elif isinstance(message, ToolResultMessage):
                turn.results.append((record.run_id, message))
                out.result_tokens += tokens
                trailing += tokens
            else:
                trailing += tokens
    for turn in order:
        if turn.requests == 0:
            continue
        key = (header.physical_conversation_id, turn.host_turn_id)
        if key in seen:
            out.bump(out.skipped_boundaries, "DUPLICATE")
            continue
        seen.add(key)
        if turn.first_owner is None:
            out.bump(out.skipped_boundaries, "OWNER_MISSING")
            continue
        if turn.api not in routes:
            out.bump(out.skipped_boundaries, "UNSUPPORTED_API")
            continue
        policy = view.conversation_policy(header.physical_conversation_id)
        assert turn.first_request_ms is not None  # a boundary has a request
        if policy is None or turn.first_request_ms < policy.capture_enabled_since:
            out.bump(out.skipped_boundaries, "OUTSIDE_CAPTURE_WINDOW")
            continue
        api = str(turn.api)
        counts = out.api(api)
        counts["boundaries"] += 1
        counts["requests"] += turn.requests
        counts["toolResults"] += len(turn.results)
        cold = turn.gap_ms is not None and turn.gap_ms > COLD_MS
        out.boundaries.append((api, header.logical_conversation_id, cold, turn.estimate or 0))
        for run_id, message in turn.results:
            identity = ToolIdentity(
                header.physical_conversation_id, turn.host_turn_id, run_id, message.tool_call_id
            )
            start = starts[(run_id, message.tool_call_id)]
            end = ends.get((run_id, message.tool_call_id))
            content = message.content
            if (
                identity in unique
                or end is None
                or end.status != "success"
                or not (end.returned and end.placed)
                or run_status.get(run_id) != "completed"
                or message.is_error
                or len(content) != 1
                or not isinstance(content[0], TextContent)
                or not _proven(message.tool_name, identity, start, agent, allowlist)
            ):
                continue
            unique.add(identity)
            retention = counts["retention"]
            retention["proven"] += 1
            defect = _classify(view, identity, content[0].text)
            if defect is not None:
                out.bump(out.defects, defect)
            if defect in (None, "redacted", "truncated"):
                retention["matched"] += 1
                if defect is not None:
                    retention[defect] += 1
            else:
                retention["unmatched"] += 1
