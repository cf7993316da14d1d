"""Compare the synthetic profiles' distributions with real pi session history.

Usage (from the repository root):

    .venv/bin/python bench/calibration/compare_profiles.py [--conversations 24] [--seed 1]
        [--real DIR] [--writer DIR]

Both sides are measured by the same code: the real pi session files and each profile's corpus
(generated into a temporary directory, exported as pi sessions with `synth.pi_export`) are read
through the product's own pi session reader (`clearing_analysis.pisession`), and only the
resumed path of each readable file is measured. Real inputs:

- the two public pi sessions of the `real-pi` folder of the public session files
  (docs/public-data.md; `--real DIR`, by default `$CLEARING_PUBLIC_DATA/real-pi`): the only
  source of realistic sizes, gaps and growth;
- optionally (`--writer DIR`, by default tests/data/pi-sessions/writer when it exists) session
  files written by pi's own session writer against a scripted model: they show the format pi
  writes, not realistic distributions, so they get a column of their own and the ratios are
  taken against the public sessions alone.

Output is one Markdown table for docs/synthetic-corpus.md: per distribution and statistic, the
real value, then each profile's value and its ratio to the real one. Only aggregate numbers are
printed: no text, id, name or path from any session.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from clearing_analysis.journal import DecodedJournal
from clearing_analysis.journal.messages import ToolResultMessage as MappedResult
from clearing_analysis.journal.records import MessageRecord, TurnStart
from clearing_analysis.pisession import ReadSession, map_session, read_session
from clearing_analysis.pisession.entries import (
    AssistantMessage,
    Compaction,
    Text,
    ToolResultMessage,
    UserMessage,
)
from clearing_analysis.policy import tool_classes
from clearing_analysis.replay.heuristic import message_tokens
from clearing_analysis.synth import PROFILES, generate
from clearing_analysis.synth.pi_export import export_sessions

ROOT = Path(__file__).resolve().parents[2]
WRITER = ROOT / "tests" / "data" / "pi-sessions" / "writer"  # written by pi's own writer
PUBLIC_DATA = "CLEARING_PUBLIC_DATA"  # the folder of public session files (docs/public-data.md)
# pi-ai reports a failed or aborted request with zero usage: it says nothing about the context.
NO_USAGE_STOPS = frozenset({"error", "aborted"})
STATS = ("median", "p90", "mean", "count")
# Table order: results overall, by class, by built-in tool; then turns, gaps and growth.
CLASSES = ("read-only built-in", "effectful built-in", "other (app, instruction, history)")
TOOLS = ("read", "grep", "find", "ls", "web_fetch", "bash")
LABELS = (
    "result bytes: all",
    *(f"result bytes: {name}" for name in CLASSES + TOOLS),
    "requests per prompt turn",
    "gap before a turn's first request (s)",
    "gap in a loop (s)",
    "context growth per turn (tokens)",
    "prefix at a turn's first request (tokens)",
)


@dataclass
class Distributions:
    """The measured samples of one source, by distribution label."""

    samples: dict[str, list[float]] = field(default_factory=dict)
    # Heuristic tokens of every message on the paths, and of the tool results among them.
    message_tokens: int = 0
    result_tokens: int = 0

    def add(self, label: str, value: float) -> None:
        self.samples.setdefault(label, []).append(value)

    def extend(self, other: Distributions) -> None:
        for label, values in other.samples.items():
            self.samples.setdefault(label, []).extend(values)
        self.message_tokens += other.message_tokens
        self.result_tokens += other.result_tokens

    def observation_share(self) -> float | None:
        """Tool results' share of message tokens (%), the figure the profiles were tuned to."""
        if not self.message_tokens:
            return None
        return 100 * self.result_tokens / self.message_tokens


def _tool_class(name: str) -> str:
    classes = tool_classes()
    if name in classes.read_only_builtins:
        return CLASSES[0]
    if name in classes.effectful_builtins:
        return CLASSES[1]
    return CLASSES[2]


def _result_text_bytes(message: ToolResultMessage) -> int:
    """UTF-8 bytes of a result's text blocks (image blocks are not text)."""
    return sum(len(block.text.encode()) for block in message.content if isinstance(block, Text))


def _prefix(message: AssistantMessage) -> int | None:
    """The request's prompt prefix in tokens, or None when its usage says nothing."""
    usage = message.usage
    prefix = usage.input + usage.cache_read + usage.cache_write
    if message.stop_reason in NO_USAGE_STOPS or prefix + usage.output == 0:
        return None
    return prefix


def measure_session(session: ReadSession) -> Distributions:
    """The distributions of one session's resumed path.

    - result bytes: every tool result, overall, by tool class and for the built-ins that
      dominate sizes (the read-only ones and bash);
    - requests per prompt turn: assistant messages after a user message, up to the next one
      (turns with at least one request);
    - gaps: from one request to the next (seconds), split into the first request of a prompt
      turn (the gap a cache must survive) and the later requests of a tool loop;
    - growth per turn: the prefix of a turn's first request with usage minus that of the
      previous turn's, when no compaction lies between them.
    """
    found = Distributions()
    turn_requests: int | None = None
    turn_prefix: int | None = None
    last_turn_prefix: int | None = None
    last_request_ms: int | None = None
    first_of_turn = False

    def close_turn() -> None:
        if turn_requests:
            found.add("requests per prompt turn", turn_requests)

    for parsed in session.path:
        if isinstance(parsed.entry, Compaction):
            last_turn_prefix = turn_prefix = None
            continue
        message = parsed.message
        if isinstance(message, UserMessage):
            close_turn()
            turn_requests, first_of_turn = 0, True
            last_turn_prefix = turn_prefix if turn_prefix is not None else last_turn_prefix
            turn_prefix = None
        elif isinstance(message, AssistantMessage):
            if last_request_ms is not None:
                gap = (message.timestamp - last_request_ms) / 1000
                label = "gap before a turn's first request" if first_of_turn else "gap in a loop"
                found.add(f"{label} (s)", gap)
            last_request_ms = message.timestamp
            first_of_turn = False
            if turn_requests is not None:
                turn_requests += 1
            prefix = _prefix(message)
            if prefix is not None and turn_prefix is None and turn_requests is not None:
                turn_prefix = prefix
                if last_turn_prefix is not None:
                    found.add("context growth per turn (tokens)", prefix - last_turn_prefix)
                found.add("prefix at a turn's first request (tokens)", prefix)
        elif isinstance(message, ToolResultMessage):
            size = _result_text_bytes(message)
            found.add("result bytes: all", size)
            found.add(f"result bytes: {_tool_class(message.tool_name)}", size)
            if message.tool_name in TOOLS:
                found.add(f"result bytes: {message.tool_name}", size)
    close_turn()
    return found


def count_tokens(session: ReadSession, found: Distributions) -> None:
    """Add the session's message tokens as the analyzer counts them: the path mapped onto
    journal records (`map_session`) and measured with replay's heuristic."""
    mapped = map_session(session)
    if not isinstance(mapped, DecodedJournal):
        return
    for record in mapped.records:
        if isinstance(record, MessageRecord | TurnStart):
            size = message_tokens(record.message)
            found.message_tokens += size
            if isinstance(record.message, MappedResult):
                found.result_tokens += size


def measure_files(paths: Iterable[Path]) -> tuple[Distributions, int]:
    """(distributions over every readable session, how many sessions were readable)."""
    total = Distributions()
    readable = 0
    for path in sorted(paths):
        session = read_session(path)
        if isinstance(session, ReadSession):
            readable += 1
            found = measure_session(session)
            count_tokens(session, found)
            total.extend(found)
    return total, readable


def _percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def stat(values: Sequence[float] | None, name: str) -> float | None:
    if not values:
        return None
    if name == "median":
        return statistics.median(values)
    if name == "p90":
        return _percentile(values, 0.9)
    if name == "mean":
        return statistics.fmean(values)
    return float(len(values))


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    if abs(value) >= 100 or value == int(value):
        return f"{value:,.0f}"
    return f"{value:,.1f}"


def _ratio(value: float | None, real: float | None) -> str:
    if value is None or real is None or real <= 0 or value < 0:
        return "-"
    ratio = value / real
    flag = " **" if ratio > 2 or ratio < 0.5 else ""
    return f"{ratio:.2f}{flag}"


def table(
    real: Distributions, writer: Distributions | None, synth: dict[str, Distributions]
) -> list[str]:
    sources = [real, *synth.values()] + ([] if writer is None else [writer])
    labels = [label for label in LABELS if any(label in found.samples for found in sources)]
    head = ["distribution", "stat", "real"]
    if writer is not None:
        head.append("writer")
    for name in synth:
        head += [name, "ratio"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for label in labels:
        for name in STATS:
            real_value = stat(real.samples.get(label), name)
            cells = [label if name == STATS[0] else "", name, _fmt(real_value)]
            if writer is not None:
                cells.append(_fmt(stat(writer.samples.get(label), name)))
            for found in synth.values():
                value = stat(found.samples.get(label), name)
                cells += [_fmt(value), "" if name == "count" else _ratio(value, real_value)]
            rows.append("| " + " | ".join(cells) + " |")
    share = real.observation_share()
    cells = ["tool results' share of message tokens (%)", "all", _fmt(share)]
    if writer is not None:
        cells.append(_fmt(writer.observation_share()))
    for found in synth.values():
        cells += [_fmt(found.observation_share()), _ratio(found.observation_share(), share)]
    rows.append("| " + " | ".join(cells) + " |")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--conversations", type=int, default=24)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profiles", nargs="+", default=list(PROFILES))
    public = os.environ.get(PUBLIC_DATA)
    parser.add_argument(
        "--real",
        type=Path,
        default=Path(public) / "real-pi" if public else None,
        help=f"the real pi sessions (default: ${PUBLIC_DATA}/real-pi)",
    )
    parser.add_argument(
        "--writer",
        type=Path,
        default=WRITER if WRITER.is_dir() else None,
        help="session files from pi's own writer (format truth only)",
    )
    args = parser.parse_args(argv)
    if args.real is None or not args.real.is_dir():
        parser.error(f"--real DIR is required when {PUBLIC_DATA} is not set")
    with tempfile.TemporaryDirectory(prefix="calibration-") as work_dir:
        work = Path(work_dir)
        real, real_count = measure_files(args.real.glob("*.jsonl"))
        writer: Distributions | None = None
        notes = [f"real: {real_count} public pi sessions"]
        if args.writer is not None:
            writer, writer_count = measure_files(args.writer.glob("*.jsonl"))
            notes.append(f"writer: {writer_count} sessions from pi's writer (format only)")
        synth: dict[str, Distributions] = {}
        for name in args.profiles:
            corpus = work / f"synth-{name}"
            generate(corpus, args.seed, conversations=args.conversations, profile=name)
            exported = work / f"pi-{name}"
            written = export_sessions(sorted((corpus / "journals").iterdir()), exported)
            synth[name], _ = measure_files(exported.iterdir())
            notes.append(
                f"{name}: {written} exported sessions "
                f"(seed {args.seed}, {args.conversations} conversations)"
            )
    print("; ".join(notes))
    print()
    print("\n".join(table(real, writer, synth)))
    print()
    print("ratio is the profile's value over the real one; ** marks a ratio outside 0.5-2.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
