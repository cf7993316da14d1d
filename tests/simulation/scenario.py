"""Hand-built conversations with exact boundary estimates, gaps and result sizes.

Each prompt turn is one run: a request with `read` calls, their results (plain text of the
given sizes, retained byte for byte in the sidecar), and a final answer whose usage fixes the
next boundary's estimate: E = that usage + the next input's heuristic (1 token for "hi"). The
gap of a turn runs from the previous final answer to the turn's first request, so it is set
exactly. With the seed's route (T = 200,000, lifetime 300,000 + margin 30,000 ms), E in
[150,000, 200,000) is pressured and a gap above 330,000 ms is cold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from clearing_analysis.eligibility import Assessment, assess
from clearing_analysis.inputs.configs import Routes, parse_agent_config, parse_routes
from clearing_analysis.inputs.sidecar import open_sidecar
from clearing_analysis.replay import replay_journals
from clearing_analysis.replay.arguments import ArgumentKey
from clearing_analysis.simulation.run import Simulation, simulate
from tests._seed_route import SEED_ROUTE
from tests.replay.builder import ANTHROPIC, JournalBuilder, SidecarBuilder, usage

COLD = 400_000
WARM = 10_000
PLACEHOLDER_TOKENS = 28  # policy/placeholder.txt: 112 characters
PERIOD = {"builtins": ["read"], "mcpTools": "none"}


def routes(trigger: int = SEED_ROUTE["triggerTokens"]) -> Routes:
    """The seed's anthropic-messages route alone, optionally with another trigger T."""
    return parse_routes([{**SEED_ROUTE, "triggerTokens": trigger}])


@dataclass
class Conversation:
    """One journal of one conversation; `turn` appends a whole prompt turn."""

    physical: str = "p1"
    logical: str = "l1"
    journal_id: str | None = None
    builder: JournalBuilder = field(init=False)
    retained: list[tuple[tuple[str, str, str, str], str]] = field(default_factory=list)
    last_final: int | None = None

    def __post_init__(self) -> None:
        self.builder = JournalBuilder(
            journal_id=self.journal_id or f"j-{self.physical}",
            physical=self.physical,
            logical=self.logical,
        )

    def turn(
        self,
        turn_id: str,
        *,
        e_next: int,
        reads: Sequence[int] = (),
        gap: int = WARM,
        retain: bool = True,
        api: str = ANTHROPIC,
        failed: int = 0,
        failed_usage: dict[str, int] | None = None,
        busy: int = 0,
        busy_prefix: int = 150_000,
        first_usage: int = 1_000,
        calls: Sequence[tuple[str, dict[str, object], int]] | None = None,
    ) -> None:
        """A prompt turn whose request comes `gap` ms after the previous answer, with a read
        result of each size in `reads` (characters), ending so that the next boundary's E is
        `e_next`. `failed` adds that many failed requests (stopReason error, with
        `failed_usage`, none by default) to the turn, each in its own failed run before the
        successful one; `busy` adds that many requests (each with an uncached prefix of
        `busy_prefix` tokens) before the final answer, so more requests carry what was
        cleared. The first request's usage (all input, no cache) is `first_usage` tokens.
        `calls` replaces `reads` with calls of any tool: (name, arguments, characters)."""
        b = self.builder
        start = (b.clock + 5_000) if self.last_final is None else self.last_final + gap
        b.turn(turn_id, at=start - 2_000)
        for attempt in range(failed):
            failed_run = f"{turn_id}-failed{attempt}"
            b.run(failed_run, turn_id, reason="prompt" if attempt == 0 else "retry")
            b.assistant(
                failed_run, "", api=api, stop="error", at=start + attempt * 10, use=failed_usage
            )
            b.run_end(failed_run, "failed")
        run = f"{turn_id}-r"
        b.run(run, turn_id, reason="retry" if failed else "prompt")
        named = calls or [("read", {"i": i}, chars) for i, chars in enumerate(reads)]
        reads = [chars for _, _, chars in named]
        calls_ = [(f"{turn_id}-c{i}", name, args) for i, (name, args, _) in enumerate(named)]
        b.assistant(
            run,
            "",
            api=api,
            calls=[(call_id, name, dict(args)) for call_id, name, args in calls_],
            at=b.clock + 1_000 if failed else start,
            use=usage(total=first_usage, input_=first_usage),
        )
        for (call_id, name, args), chars in zip(calls_, reads, strict=True):
            text = f"{call_id}:" + "x" * (chars - len(call_id) - 1)
            b.call_start(run, call_id, name, dict(args))
            b.call_end(run, call_id)
            b.result(run, call_id, name, text=text)
            if retain:
                self.retained.append(((self.physical, turn_id, run, call_id), text))
        for step in range(busy):
            b.assistant(
                run,
                f"step {step}",
                api=api,
                stop="stop",
                use=usage(total=busy_prefix, input_=busy_prefix),
            )
        final = b.clock + 1_000
        b.assistant(run, "done", api=api, use=usage(total=e_next - 1, input_=e_next - 1), at=final)
        b.run_end(run)
        self.last_final = final

    def checkpoint(self, keep_from_turn: str | None = None, trigger: str = "threshold") -> None:
        """Compact everything before the turn_start of `keep_from_turn` (None: keep nothing),
        a compaction of `trigger` (threshold, overflow or manual)."""
        kept = None
        if keep_from_turn is not None:
            kept = next(
                r["seq"]
                for r in self.builder.records
                if r["kind"] == "turn_start" and r["hostTurnId"] == keep_from_turn
            )
        self.builder.checkpoint(
            "summary", first_kept=kept, before=190_000, after=30_000, trigger=trigger
        )

    def quiet(self, *names: str, e_next: int = 100_000) -> None:
        """Turns without tool calls."""
        for name in names:
            self.turn(name, e_next=e_next)


def run(
    tmp_path: Path,
    conversations: Sequence[Conversation],
    agent_config: object = PERIOD,
    trigger: int = SEED_ROUTE["triggerTokens"],
    argument_key: ArgumentKey | None = None,
) -> tuple[Assessment, Simulation]:
    """Replay, assess and simulate the conversations (capture enabled from the epoch); with
    `argument_key`, results keep their calls' argument digests."""
    journals = tmp_path / "journals"
    journals.mkdir(parents=True)
    sidecar = SidecarBuilder(
        tmp_path / "history.sqlite",
        capture_enabled=tuple(sorted({c.physical for c in conversations})),
    )
    paths = []
    for index, conversation in enumerate(conversations):
        conversation.builder.close()
        paths.append(conversation.builder.write(journals, f"{index:03d}.jsonl"))
        for identity, text in conversation.retained:
            sidecar.retain(identity, text)
    with open_sidecar(sidecar.finish()) as view:
        result = replay_journals(paths, routes(trigger), view, argument_key=argument_key)
    assessment = assess(result, routes(trigger), parse_agent_config(agent_config))
    return assessment, simulate(assessment, routes(trigger))


# E at each boundary of the what-ifs' hand-built history.
WHAT_IF_ESTIMATES = (1, 60_000, 110_000, 120_000, 140_000, 160_000, 120_000)


def what_if_history(tmp_path: Path) -> Assessment:
    """The what-ifs' hand-built history (docs/model.md, section 9): four 20,000-net results
    r0..r3 (80,112 characters each; two in t0, two in t1), ten 25-token pads in t2 (net -3:
    never cleared), E per boundary 1, 60,000, 110,000, 120,000, 140,000, 160,000, 120,000; t5
    alone is cold. Each turn's first request has the boundary's E as its usage, so E before
    the turn's second request (the final answer) is E plus the turn's results."""
    c = Conversation()
    e = WHAT_IF_ESTIMATES
    c.turn("t0", reads=[80_112, 80_112], e_next=e[1], first_usage=e[0])
    c.turn("t1", reads=[80_112, 80_112], e_next=e[2], first_usage=e[1])
    c.turn("t2", reads=[100] * 10, e_next=e[3], first_usage=e[2])
    c.turn("t3", e_next=e[4], first_usage=e[3])
    c.turn("t4", e_next=e[5], first_usage=e[4])
    c.turn("t5", gap=COLD, e_next=e[6], first_usage=e[5])
    c.turn("t6", e_next=100_000, first_usage=e[6])
    assessment, _ = run(tmp_path, [c])
    return assessment
