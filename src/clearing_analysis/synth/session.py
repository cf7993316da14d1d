"""One simulated pi coding session, written as native v2 journal lines.

A session is a sequence of prompt turns; each turn has runs (prompt, retry, reprompt), each
run a tool loop of assistant requests and tool results. The context is tracked in heuristic
tokens (UTF-16 units / 4, 1,200 per image, R-SIM-1) on top of an unrecorded system/tool
overhead, so every assistant usage is consistent with context growth and the 5-minute cache
(`apis.CacheModel`). When the estimate crosses the conversation's compaction threshold a
checkpoint replaces the context with summary + kept turns, as pi's auto-compaction does.

Counting follows replay's semantics (docs/replay.md): a turn with at least one assistant
message is a boundary; OWNER_MISSING / UNSUPPORTED_API / OUTSIDE_CAPTURE_WINDOW boundaries are
skipped, and a copy's copied boundaries are DUPLICATE; requests, tool results, proven
retention and redacted web envelopes are counted only for counted boundaries of a journal
meant to replay. Proven results get their planted retention defect here.
"""

from __future__ import annotations

import base64
import math
import random
from collections import deque
from typing import Any

import msgspec

from clearing_analysis.identity import ToolIdentity
from clearing_analysis.inputs.configs import Attestation
from clearing_analysis.synth import retention
from clearing_analysis.synth.apis import GOOGLE, ApiSpec, CacheModel
from clearing_analysis.synth.manifest import JournalTally
from clearing_analysis.synth.profiles import JournalPlan, Profile
from clearing_analysis.synth.proofs import ProofWriter
from clearing_analysis.synth.sidecar import RetentionRow
from clearing_analysis.synth.textpool import TextPools, slice_words
from clearing_analysis.synth.toolmix import WEB_TOOLS, ToolMix, ToolRunner

IMAGE_TOKENS = 1_200
KEEP_RECENT_TOKENS = 20_000  # pi coding-agent compaction default keepRecentTokens
OVERFLOW_FRACTION = 0.97
COLD_GAP_MIN_MS = 340_000  # strictly above lifetime 300 s + margin 30 s (R-SIM-3)
_LAST_RUN_PLANS = (
    JournalPlan.INTERRUPTED,
    JournalPlan.UNENDED_RUN,
    JournalPlan.INVALID_REFERENCE,
    JournalPlan.INVALID_TOOL_NAME,
)


def _tokens(chars: int) -> int:
    return -(-chars // 4)


class _Turn(msgspec.Struct, frozen=True):
    """What every run of one prompt turn shares."""

    host_turn: str
    spec: ApiSpec
    owner: str | None
    counted: bool
    plan: JournalPlan
    last: bool
    captured: bool
    # The phase's tool mix and loop length (Profile.phases); None: the profile's own.
    mix: ToolMix | None = None
    steps_median: float | None = None


class Shared(msgspec.Struct):
    """Corpus-wide helpers a session draws on (one per corpus)."""

    rng: random.Random
    # The stream of the shapes added for R-SIM-9 (forks, numbered ids, credential envelopes,
    # forced compaction): drawing them here leaves the main stream's draws where they were.
    shape_rng: random.Random
    pools: TextPools
    profile: Profile
    tools: ToolRunner
    proofs: ProofWriter
    defects: retention.DefectPlanter
    encoder: msgspec.json.Encoder = msgspec.field(default_factory=msgspec.json.Encoder)
    force_owner_missing: bool = False
    force_unsupported_api: bool = False
    force_late_capture: bool = False
    force_credential: bool = False
    force_manual_compaction: bool = False
    # The tool mix of each of the profile's phases (Profile.phases), in order.
    phase_mixes: tuple[ToolMix, ...] = ()

    def __post_init__(self) -> None:
        self.phase_mixes = tuple(ToolMix.of(phase.tool_weights) for phase in self.profile.phases)

    def phase_of(self, turns_since_compaction: int) -> int:
        """The phase (index into Profile.phases) of a prompt turn preceded by that many turns
        since the session started or last compacted; the last phase lasts until compaction."""
        position = turns_since_compaction
        last = len(self.profile.phases) - 1
        for index, phase in enumerate(self.profile.phases[:last]):
            if position < phase.turns:
                return index
            position -= phase.turns
        return last


class Snapshot(msgspec.Struct):
    """Where a copy forks: line count and the state needed to continue."""

    lines: int
    boundaries_before: int
    ctx: list[tuple[int, int, bool]]
    tail_has_usage: bool
    turn: int
    runs: int
    turns_since_compaction: int


class Session:
    """Writes one journal's lines (and a resumed copy's) for one logical conversation."""

    def __init__(self, shared: Shared, spec: ApiSpec, ids: tuple[str, str, str], start_ms: int):
        self.s = shared
        rng = shared.rng
        shared.tools.begin_session()  # re-reads repeat this session's own calls
        self.spec = spec
        self.journal_id, self.physical_id, self.logical_id = ids
        self.now = start_ms
        self.lines: list[bytes] = []
        self.rows: list[RetentionRow] = []
        self.tally = JournalTally()
        self.counting = True
        self.overhead = rng.randint(7_000, 14_000)  # system prompt + tool definitions
        profile = shared.profile
        fraction = rng.uniform(profile.compaction_low, profile.compaction_high)
        self.trigger = int(spec.window * fraction)
        self.cache = CacheModel(rng)
        self.ctx: list[tuple[int, int, bool]] = []  # (seq, tokens, cut point allowed)
        self.ctx_tokens = 0
        self.tail_has_usage = False  # the context ends with an assistant message with usage
        self.owner = f"owner-{rng.getrandbits(48):012x}"
        self.turn_index = 0
        self.turns_since_compaction = 0  # prompt turns since the start or the last checkpoint
        self.boundaries = 0
        self.turn_ids: list[str] = []  # host turn id of each turn of this file, in order
        self.reuse_turn_ids: deque[str] = deque()  # ids a copy's own turns take over
        # A writer that numbers turns and runs per file ("turn-1", "run-1", ...), so that other
        # conversations reuse the same ids (docs/formats/agent-config.md).
        self.numbered = False
        self.runs_in_file = 0
        self.withhold_proofs = False  # no per-run proof for any run of this conversation
        self.name_mismatch_planted = False
        # Continuity capture starts at the user input of turn `capture_from_turn` (0: before
        # the session; None: never, so the conversation has no policy row). Boundaries whose
        # request precedes `capture_since` lie outside the capture window (R-SIM-9).
        self.capture_from_turn: int | None = 0
        self.capture_since: int | None = None

    # -- low-level emission -------------------------------------------------------------
    def emit(self, record: dict[str, Any]) -> int:
        """Encode `record` as the next line, numbering it; return its seq."""
        seq = len(self.lines)
        record["seq"] = seq
        self.lines.append(self.s.encoder.encode(record) + b"\n")
        return seq

    def _id(self, prefix: str, bits: int = 64) -> str:
        return f"{prefix}{self.s.rng.getrandbits(bits):0{bits // 4}x}"

    def _add_ctx(self, seq: int, tokens: int, cut: bool, usage: bool = False) -> None:
        self.ctx.append((seq, tokens, cut))
        self.ctx_tokens += tokens
        self.tail_has_usage = usage

    def start(self, origin: str = "native", version: int = 2) -> None:
        """Write the header."""
        header = {
            "kind": "header",
            "seq": 0,
            "format": "pi-native-journal",
            "version": version,
            "journalId": self.journal_id,
            "physicalConversationId": self.physical_id,
            "logicalConversationId": self.logical_id,
            "origin": origin,
            "createdAt": self.now,
        }
        self.emit(header)

    def close(self) -> None:
        """Write the close record."""
        self.now += self.s.rng.randint(200, 5_000)
        self.emit({"kind": "close", "seq": 0, "timestamp": self.now})

    # -- turns ------------------------------------------------------------------------
    def user_gap(self, cold_share: float) -> None:
        """Advance the clock by a user's think time: heavy-tailed, a share of it cold."""
        rng = self.s.rng
        if rng.random() < cold_share:
            gap = COLD_GAP_MIN_MS + int(rng.lognormvariate(math.log(900_000), 1.6))
        else:
            gap = int(min(rng.lognormvariate(math.log(40_000), 1.0), 250_000))
        self.now += gap

    def turn(self, plan: JournalPlan, last: bool) -> None:
        """One prompt turn (and maybe its re-prompt continuation)."""
        rng, profile = self.s.rng, self.s.profile
        self.maybe_compact()
        self.user_gap(profile.cold_turn_gap_share if self.turn_index else 0.0)
        index = self.turn_index
        self.turn_index += 1
        if index == self.capture_from_turn and self.capture_since is None:
            self.capture_since = self.now
        captured = self.capture_since is not None and self.now >= self.capture_since
        # The first replayed conversation of a profile that guarantees boundary skips gets one
        # OWNER_MISSING and one UNSUPPORTED_API boundary, so small corpora have both.
        forced_owner = self.counting and self.s.force_owner_missing and index == 1
        forced_api = self.counting and self.s.force_unsupported_api and index == 3
        if forced_owner:
            self.s.force_owner_missing = False
        if forced_api:
            self.s.force_unsupported_api = False
        owner_missing = forced_owner or rng.random() < profile.owner_missing_rate
        spec = GOOGLE if forced_api or rng.random() < profile.unsupported_api_rate else self.spec
        skip = "OWNER_MISSING" if owner_missing else None
        if skip is None and spec is GOOGLE:
            skip = "UNSUPPORTED_API"
        if skip is None and not captured:
            skip = "OUTSIDE_CAPTURE_WINDOW"
        counted = self.counting and skip is None
        host_turn = self._host_turn_id()
        no_request = (
            index > 0
            and not (last or forced_owner or forced_api)
            and rng.random() < profile.no_request_turn_rate
        )
        if (
            self.s.force_manual_compaction
            and counted
            and not no_request
            and index >= 2
            and self.tail_has_usage
        ):
            # The user compacts before this prompt: the kept entries end with an assistant
            # message whose usage no longer counts, so this counted boundary's E is heuristic
            # text only (R-SIM-9); small corpora then always hold one.
            self.s.force_manual_compaction = False
            self.compact("manual", self.s.shape_rng)
        owner = None if owner_missing else self.owner
        context = _Turn(host_turn, spec, owner, counted, plan, last, captured)
        if profile.phases:
            phase = self.s.phase_of(self.turns_since_compaction)
            context = msgspec.structs.replace(
                context,
                mix=self.s.phase_mixes[phase],
                steps_median=profile.phases[phase].steps_median,
            )
        self.turns_since_compaction += 1
        requests = self._prompt(context, "prompt", no_request)
        if requests == 0:
            return
        self.boundaries += 1
        if skip is not None:
            if self.counting:
                self.tally.skipped_boundaries[skip] += 1
        elif self.counting:
            self.tally.api(spec.api)["boundaries"] += 1
        if not last and rng.random() < profile.reprompt_rate:
            # Same-journal re-prompt: continues this boundary, skipped or not (docs/replay.md).
            self.now += rng.randint(5_000, 90_000)
            self._prompt(context, "reprompt", False)

    def _host_turn_id(self) -> str:
        """The next new turn's id: a copy's reused one, a numbered one, or a random one."""
        drawn = self._id("turn-", 48)  # drawn in every case, so that no later draw moves
        if self.reuse_turn_ids:
            host_turn = self.reuse_turn_ids.popleft()
        elif self.numbered:
            host_turn = f"turn-{len(self.turn_ids) + 1}"
        else:
            host_turn = drawn
        self.turn_ids.append(host_turn)
        return host_turn

    def _prompt(self, turn: _Turn, reason: str, no_request: bool) -> int:
        rng, pools = self.s.rng, self.s.pools
        text = slice_words(pools.prose, rng, int(rng.lognormvariate(math.log(260), 0.9)))
        message: dict[str, Any] = {"role": "user", "content": text, "timestamp": self.now}
        tokens = _tokens(len(text))
        if rng.random() < 0.01:
            image = base64.b64encode(rng.randbytes(rng.randint(2_000, 6_000))).decode()
            message["content"] = [
                {"type": "text", "text": text},
                {"type": "image", "data": image, "mimeType": "image/png"},
            ]
            tokens += IMAGE_TOKENS
        seq = self.emit(
            {"kind": "turn_start", "seq": 0, "hostTurnId": turn.host_turn, "message": message}
        )
        self._add_ctx(seq, tokens, True)
        self.now += rng.randint(50, 400)
        if no_request:
            run_id, _ = self._run_start(turn.host_turn, turn.owner, reason)
            self.now += rng.randint(300, 3_000)
            self._run_end(run_id, "aborted", [])
            return 0
        requests = 0
        profile = self.s.profile
        while True:
            fate = rng.random()
            status = "completed"
            if fate < profile.failed_run_rate:
                status = "failed"
            elif fate < profile.failed_run_rate + profile.aborted_run_rate:
                status = "aborted"
            if turn.last and turn.plan in _LAST_RUN_PLANS:
                # The planted defect needs the final run to reach its end (or not end).
                interrupted = turn.plan is JournalPlan.INTERRUPTED
                status = "interrupted" if interrupted else "completed"
            run_requests, status = self._run(turn, reason, status)
            requests += run_requests
            if status != "failed":
                return requests
            reason = "retry"
            self.now += rng.randint(1_000, 20_000)

    # -- runs -------------------------------------------------------------------------
    def _run_start(
        self, host_turn: str, owner: str | None, reason: str, *, attest: bool = False
    ) -> tuple[str, Attestation | None]:
        drawn = self._id("run-")  # drawn in every case, so that no later draw moves
        self.runs_in_file += 1
        run_id = f"run-{self.runs_in_file}" if self.numbered else drawn
        # One fingerprint per distinct tool inventory: it changes only where the configuration
        # really differs between runs (a colliding MCP server in per-run proofs), so a period
        # attestation stays valid (R-EL-3).
        attestation = (
            self.s.proofs.for_run(self.physical_id, run_id, withhold=self.withhold_proofs)
            if attest
            else None
        )
        self.emit(
            {
                "kind": "run_start",
                "seq": 0,
                "hostTurnId": host_turn,
                "runId": run_id,
                "owner": owner,
                "reason": reason,
                "timestamp": self.now,
                "toolsetFingerprint": self.s.proofs.fingerprint(attestation),
            }
        )
        return run_id, attestation

    def _run_end(self, run_id: str, status: str, pending: list[retention.PendingResult]) -> None:
        self.emit(
            {"kind": "run_end", "seq": 0, "runId": run_id, "status": status, "timestamp": self.now}
        )
        shared = self.s
        redactions = retention.finish_run(
            pending,
            status == "completed",
            rng=shared.rng,
            shape_rng=shared.shape_rng,
            redaction_rate=shared.profile.credential_redaction_rate,
            defects=shared.defects,
            tally=self.tally,
            rows=self.rows,
        )
        for target_seq, scope in redactions:
            fmt = "json" if scope == "web_envelope" else "text"
            self.emit(
                {
                    "kind": "redaction",
                    "seq": 0,
                    "targetSeq": target_seq,
                    "scope": scope,
                    "format": fmt,
                }
            )

    def _run(self, turn: _Turn, reason: str, status: str) -> tuple[int, str]:
        rng = self.s.rng
        run_id, attestation = self._run_start(turn.host_turn, turn.owner, reason, attest=True)
        median = turn.steps_median or self.s.profile.steps_median
        steps = (
            0
            if rng.random() < 0.12
            else max(1, min(60, int(rng.lognormvariate(math.log(median), 0.9))))
        )
        if turn.last and turn.plan is JournalPlan.INVALID_TOOL_NAME:
            steps = max(steps, 1)  # the planted mismatch needs a tool call
        # Where a failed / aborted / interrupted run stops (a step index, inclusive).
        stop_at = rng.randint(0, steps) if status != "completed" else steps + 1
        pending: list[retention.PendingResult] = []
        requests = 0
        for step in range(steps + 1):
            self.now += rng.randint(100, 900)
            if self.overhead + self.ctx_tokens > int(turn.spec.window * OVERFLOW_FRACTION):
                self._assistant(turn, run_id, "error", [], "prompt is too long")
                requests += 1
                self._run_end(run_id, "failed", pending)
                self.compact("overflow")
                return requests, "failed"
            final = step == steps
            if step == stop_at and status in ("failed", "aborted"):
                stop = "error" if status == "failed" else "aborted"
                error = "overloaded_error" if stop == "error" else None
                self._assistant(turn, run_id, stop, [], error)
                requests += 1
                self._run_end(run_id, status, pending)
                return requests, status
            calls = (
                [] if final else [self.s.tools.choose(turn.mix) for _ in range(self._parallel())]
            )
            placed = self._assistant(turn, run_id, "stop" if final else "toolUse", calls, None)
            requests += 1
            if status == "interrupted" and step == stop_at:
                self._run_end(run_id, "interrupted", pending)
                return requests, status
            pending.extend(self._execute(turn, run_id, call, attestation) for call in placed)
        if turn.last and turn.plan is JournalPlan.UNENDED_RUN:
            return requests, "completed"  # the run never ends before close: INTERRUPTED
        self._run_end(run_id, status, pending)
        if turn.last and turn.plan is JournalPlan.INVALID_REFERENCE:
            # A message for a run that already ended: a broken reference (INVALID).
            self._assistant(msgspec.structs.replace(turn, counted=False), run_id, "stop", [], None)
        return requests, status

    def _parallel(self) -> int:
        rng = self.s.rng
        return 1 if rng.random() < 0.75 else rng.randint(2, 4)

    def _assistant(
        self, turn: _Turn, run_id: str, stop: str, calls: list[str], error: str | None
    ) -> list[tuple[str, str, dict[str, Any]]]:
        rng, pools, spec = self.s.rng, self.s.pools, turn.spec
        content: list[dict[str, Any]] = []
        chars = 0
        hidden = 0
        if stop in ("toolUse", "stop") and rng.random() < 0.6:
            thinking = slice_words(pools.prose, rng, int(rng.lognormvariate(math.log(500), 0.8)))
            block: dict[str, Any] = {"type": "thinking", "thinking": thinking}
            if spec.api == "anthropic-messages":
                if rng.random() < 0.02:
                    block = {
                        "type": "thinking",
                        "thinking": "[Reasoning redacted]",
                        "redacted": True,
                    }
                block["thinkingSignature"] = base64.b64encode(
                    rng.randbytes(rng.randint(120, 480))
                ).decode()
            elif spec.api in ("openai-responses", "openai-codex-responses"):
                item = {
                    "type": "reasoning",
                    "id": self._id("rs_"),
                    "summary": [],
                    "encrypted_content": base64.b64encode(
                        rng.randbytes(rng.randint(200, 900))
                    ).decode(),
                }
                block["thinkingSignature"] = self.s.encoder.encode(item).decode()
            else:
                hidden += rng.randint(100, 1_500)
            content.append(block)
            chars += len(block["thinking"])
        if stop == "stop" or (calls and rng.random() < 0.35):
            median = 900 if stop == "stop" else 160
            text = slice_words(pools.prose, rng, int(rng.lognormvariate(math.log(median), 0.8)))
            text_block: dict[str, Any] = {"type": "text", "text": text}
            if spec.api in ("openai-responses", "openai-codex-responses"):
                text_block["textSignature"] = self._id("msg_")
            content.append(text_block)
            chars += len(text)
        elif stop == "aborted":
            content.append({"type": "text", "text": slice_words(pools.prose, rng, 60)})
        placed: list[tuple[str, str, dict[str, Any]]] = []
        for name in calls:
            call_id = self._call_id(spec)
            arguments = self.s.tools.arguments(name)
            placed.append((call_id, name, arguments))
            content.append(
                {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}
            )
            chars += len(name) + len(self.s.encoder.encode(arguments))
        visible = _tokens(chars)
        at = self.now
        if stop in ("error", "aborted"):
            usage = self.cache.failed(at)
        else:
            prefix = self.overhead + self.ctx_tokens
            usage = self.cache.usage(spec, prefix, visible + hidden + rng.randint(5, 40), at)
        message: dict[str, Any] = {
            "role": "assistant",
            "content": content,
            "api": spec.api,
            "provider": spec.provider,
            "model": spec.model,
            "usage": usage,
            "stopReason": stop,
            "timestamp": at,
        }
        if error is not None:
            message["errorMessage"] = error
        else:
            message["responseId"] = self._id("resp_")
        seq = self.emit({"kind": "message", "seq": 0, "runId": run_id, "message": message})
        if stop not in ("error",):
            self._add_ctx(seq, visible, True, usage=stop != "aborted")
        if turn.counted:
            self.tally.api(spec.api)["requests"] += 1
        # Response time: latency plus ~60-120 output tokens per second.
        self.now += rng.randint(600, 2_500) + (usage["output"] * 1_000) // rng.randint(60, 120)
        return placed

    def _call_id(self, spec: ApiSpec) -> str:
        if spec.api == "anthropic-messages":
            return self._id("toolu_01", 96)
        if spec.api in ("openai-responses", "openai-codex-responses"):
            return f"{self._id('call_')}|{self._id('fc_')}"
        return self._id("call_")

    def _execute(
        self,
        turn: _Turn,
        run_id: str,
        call: tuple[str, str, dict[str, Any]],
        attestation: Attestation | None,
    ) -> retention.PendingResult:
        rng, profile = self.s.rng, self.s.profile
        call_id, name, arguments = call
        credential = forced = False
        if name in WEB_TOOLS and profile.credential_envelope_rate:
            forced = self.s.force_credential and turn.counted
            rate = profile.credential_envelope_rate
            credential = forced or self.s.shape_rng.random() < rate
        outcome = self.s.tools.run(name, arguments, credential=credential)
        forced = forced and outcome.credential  # an error result holds no envelope
        if forced:
            self.s.force_credential = False
        start: dict[str, Any] = {
            "kind": "tool_call_start",
            "seq": 0,
            "runId": run_id,
            "callId": call_id,
            "toolName": name,
            "arguments": arguments,
            "timestamp": self.now,
        }
        if outcome.origin is not None:
            start["payload"] = {"origin": outcome.origin}
        self.emit(start)
        if name == "bash":
            profile = self.s.profile
            self.now += int(
                rng.lognormvariate(math.log(profile.bash_ms_median), profile.bash_ms_sigma)
            )
        else:
            self.now += rng.randint(15, 600)
        status = "error" if outcome.is_error else "success"
        self.emit(
            {
                "kind": "tool_call_end",
                "seq": 0,
                "runId": run_id,
                "callId": call_id,
                "status": status,
                "returned": True,
                "placed": True,
                "timestamp": self.now,
            }
        )
        result_name = name
        if (
            turn.last
            and turn.plan is JournalPlan.INVALID_TOOL_NAME
            and not self.name_mismatch_planted
        ):
            # A writer that logs the result under another spelling of the tool: the call's
            # start names the tool, so the journal is INVALID (TOOL_NAME_MISMATCH, R-SIM-9).
            result_name = name[:1].upper() + name[1:]
            self.name_mismatch_planted = True
        result = {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": result_name,
            "content": outcome.content,
            "isError": outcome.is_error,
            "timestamp": self.now,
        }
        seq = self.emit({"kind": "message", "seq": 0, "runId": run_id, "message": result})
        chars = 0
        images = 0
        for block in outcome.content:
            if block["type"] == "text":
                chars += len(block["text"])
            else:
                images += 1
        self._add_ctx(seq, _tokens(chars) + images * IMAGE_TOKENS, False)
        api = turn.spec.api
        if turn.counted:
            self.tally.api(api)["toolResults"] += 1
        identity = ToolIdentity(self.physical_id, turn.host_turn, run_id, call_id)
        return retention.PendingResult(
            identity, outcome, seq, self.now, turn.counted, api, attestation, turn.captured, forced
        )

    # -- compaction ---------------------------------------------------------------------
    def maybe_compact(self) -> None:
        """Auto-compaction once the estimated context crosses the threshold."""
        if self.overhead + self.ctx_tokens > self.trigger:
            rng = self.s.rng
            self.compact("threshold" if rng.random() < 0.97 else "manual")

    def compact(self, trigger: str, rng: random.Random | None = None) -> None:
        """Write a checkpoint: context becomes summary + the most recent kept entries."""
        rng, pools = rng or self.s.rng, self.s.pools
        before = self.overhead + self.ctx_tokens
        kept_from = len(self.ctx)
        kept_tokens = 0
        for position in range(len(self.ctx) - 1, -1, -1):
            kept_tokens += self.ctx[position][1]
            if kept_tokens > KEEP_RECENT_TOKENS:
                break
            if self.ctx[position][2]:
                kept_from = position
        kept = self.ctx[kept_from:]
        summary = slice_words(pools.prose, rng, int(rng.uniform(3_000, 9_000)))
        summary_tokens = _tokens(len(summary))
        kept_sum = sum(entry[1] for entry in kept)
        self.now += rng.randint(8_000, 45_000)  # the summarization request
        seq = self.emit(
            {
                "kind": "checkpoint",
                "seq": 0,
                "trigger": trigger,
                "tokensBefore": before,
                "tokensAfter": summary_tokens + kept_sum,
                "summary": summary,
                "firstKeptSeq": kept[0][0] if kept else None,
                "timestamp": self.now,
            }
        )
        self.ctx = [(seq, summary_tokens, False), *kept]
        self.turns_since_compaction = 0
        self.tail_has_usage = self.tail_has_usage and bool(kept)
        self.ctx_tokens = summary_tokens + kept_sum
        self.cache.reset_prefix(self.overhead)

    # -- resumed copies and forks -------------------------------------------------------
    def snapshot(self) -> Snapshot:
        """State after the current turn, for a copy that forks here."""
        return Snapshot(
            len(self.lines),
            self.boundaries,
            list(self.ctx),
            self.tail_has_usage,
            self.turn_index,
            self.runs_in_file,
            self.turns_since_compaction,
        )

    def fork(
        self, snap: Snapshot, journal_id: str, rng: random.Random, physical_id: str | None
    ) -> None:
        """Become a copy: a new header plus the copied lines up to `snap` (docs/replay.md,
        "Forks and resumed copies").

        With `physical_id` None it is a resumed copy of the same physical conversation;
        otherwise a fork, a new physical conversation of the same lineage whose continuity
        capture starts with it (results copied from the parent have no rows under its id).
        """
        copied = self.lines[1 : snap.lines]
        later_turn_ids = self.turn_ids[snap.turn :]
        self.journal_id = journal_id
        self.lines = []
        self.now += rng.randint(3_600_000, 86_400_000)  # resumed hours later
        if physical_id is not None:
            self.physical_id = physical_id
            self.capture_since = self.now
        self.start()
        self.lines.extend(copied)
        self.ctx = list(snap.ctx)
        self.ctx_tokens = sum(entry[1] for entry in self.ctx)
        self.tail_has_usage = snap.tail_has_usage
        self.cache.reset_prefix(self.overhead)
        self.turn_index = snap.turn
        self.turns_since_compaction = snap.turns_since_compaction
        # The copy's writer numbers turns per file: its own turns take over the host turn ids
        # the parent used after the fork point, with other inputs, so they are new boundaries
        # (R-SIM-9). Run and call ids stay fresh, so tool identities stay unique.
        self.turn_ids = self.turn_ids[: snap.turn]
        self.reuse_turn_ids = deque(later_turn_ids)
        self.runs_in_file = snap.runs
        self.tally = JournalTally()
        # Every copied boundary was first seen in the original journal (R-RP-3).
        self.tally.skipped_boundaries["DUPLICATE"] += snap.boundaries_before
        self.rows = []
