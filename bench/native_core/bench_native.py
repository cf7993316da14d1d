"""A measured prototype of the native replay core, against the bare decode (docs/performance.md).

Usage (from the repository root; `make bench-native` runs it on a generated ~150 MB corpus):

    .venv/bin/python bench/native_core/bench_native.py [CORPUS] [--size-mb 150] [--repeats 3]
                                                       [--check-only]

Without CORPUS it generates one in a temporary directory (`synth --seed 1 --size-mb S
--profile mixed`, as `make bench` does) and deletes it afterwards.

It needs a C++17 compiler and simdjson's headers and library (Debian: `g++` and
`libsimdjson-dev`); the package never does. It builds `replay_core.cpp` into a temporary
directory, with the policy's numbers (tokens per image, UTF-16 units per token, the nesting
and line-length limits, the largest token count) passed to the compiler, so the prototype
measures what the analyzer's policy says.

First it checks the prototype against the analyzer's own code on every journal of CORPUS,
and fails unless they agree:
- a journal the analyzer's decoder accepts: the prototype vouches for all its lines (or the
  lines it leaves to the strict path are counted and shown), and its request rows (context
  estimate before each request, usage tokens) and result rows (tokens, UTF-8 bytes, is_error,
  the call's end status) equal a walk of the decoded records with the analyzer's token
  heuristic (`replay.heuristic`);
- a journal the decoder refuses as INVALID: the prototype leaves at least one line to the
  strict path (it never vouches for a journal the analyzer refuses).

Then it times, in the same process and alternating, by the process's CPU clock (medians of
`--repeats`): the bare baseline (`bench/analyze/decode_baseline.py`'s work: every line
decoded to Python objects with msgspec) and the prototype (each file read whole and scanned
in one call). Prints a Markdown table: corpus MB, bare decode CPU-s, prototype CPU-s, and the
prototype as a multiple of the bare decode.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec

from clearing_analysis import ranges
from clearing_analysis.journal.decode import DecodedJournal, JournalOutcome, decode_bytes
from clearing_analysis.journal.messages import AssistantMessage, ToolResultMessage, UserMessage
from clearing_analysis.journal.records import (
    Checkpoint,
    MessageRecord,
    ToolCallEnd,
    TurnStart,
)
from clearing_analysis.policy import eligibility_policy, limits
from clearing_analysis.replay.heuristic import message_tokens, text_tokens, usage_recorded

SOURCE = Path(__file__).resolve().parent / "replay_core.cpp"
CLI = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "clearing-analysis"
STATUS_CODES = {"success": 1, "error": 2, "aborted": 3, "denied": 4}


class BuildError(Exception):
    """The prototype could not be built here (no compiler or no simdjson)."""


def build(directory: Path) -> ModuleType:
    """Compile the prototype into `directory` and import it."""
    compiler = shutil.which("g++")
    if compiler is None:
        raise BuildError("no g++: install g++ and libsimdjson-dev (Debian) to build the prototype")
    policy = eligibility_policy()
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    target = directory / f"replay_core{suffix}"
    command = [
        compiler,
        "-O3",
        "-std=c++17",
        "-shared",
        "-fPIC",
        f"-DUNITS_PER_TOKEN={policy.utf16_units_per_token}",
        f"-DTOKENS_PER_IMAGE={policy.tokens_per_image}",
        f"-DMAX_NESTING_DEPTH={limits().max_nesting_depth}",
        f"-DMAX_TOKENS={ranges.MAX_TOKENS}",
        f"-DMAX_LINE_BYTES={limits().max_journal_line_bytes}",
        f"-I{sysconfig.get_paths()['include']}",
        str(SOURCE),
        "-lsimdjson",
        "-o",
        str(target),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BuildError(
            "the prototype did not build (is libsimdjson-dev installed?):\n" + done.stderr[-2000:]
        )
    spec = importlib.util.spec_from_file_location("replay_core", target)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def journals(corpus: Path) -> list[Path]:
    """Every journal under the corpus, in the analyzer's (sorted) order."""
    return sorted(corpus.rglob("*.jsonl"))


def _column(data: bytes, fmt: str) -> list[int]:
    return list(memoryview(data).cast(fmt))


def expected_rows(decoded: DecodedJournal) -> tuple[list[tuple[int, int]], list[tuple[int, ...]]]:
    """The request and result rows of one journal, walked with the analyzer's heuristic."""
    ends: dict[str, int] = {}
    for record in decoded.records:
        if isinstance(record, ToolCallEnd):
            ends[record.call_id] = STATUS_CODES[record.status]
    requests: list[tuple[int, int]] = []
    results: list[tuple[int, ...]] = []
    context: list[tuple[int, int]] = []  # (seq, tokens) of the messages in the context
    for record in decoded.records:
        if isinstance(record, TurnStart | MessageRecord):
            message = record.message
            tokens = message_tokens(message)
            if isinstance(message, AssistantMessage):
                usage = message.usage
                valid = usage_recorded(usage) and message.stop_reason not in ("error", "aborted")
                total = usage.total_tokens or (
                    usage.input + usage.output + usage.cache_read + usage.cache_write
                )
                requests.append((sum(t for _, t in context), total if valid else -1))
            elif isinstance(message, ToolResultMessage):
                size = sum(len(b.text.encode()) for b in message.content if hasattr(b, "text"))
                status = ends.get(message.tool_call_id, 0)
                results.append((len(requests), size, tokens, int(message.is_error), status))
            else:
                assert isinstance(message, UserMessage)
            context.append((record.seq, tokens))
        elif isinstance(record, Checkpoint):
            first = record.first_kept_seq
            kept = [] if first is None else [(s, t) for s, t in context if s >= first]
            context = [(-1, text_tokens(record.summary)), *kept]
    return requests, results


def prototype_rows(scanned: dict[str, Any]) -> tuple[list[tuple[int, int]], list[tuple[int, ...]]]:
    """The prototype's columns as the same rows."""
    requests = list(
        zip(
            _column(scanned["request_estimate"], "q"),
            _column(scanned["request_usage"], "q"),
            strict=True,
        )
    )
    results = list(
        zip(
            _column(scanned["result_request"], "I"),
            _column(scanned["result_bytes"], "Q"),
            _column(scanned["result_tokens"], "I"),
            _column(scanned["result_error"], "B"),
            _column(scanned["result_status"], "B"),
            strict=True,
        )
    )
    return requests, results


def unvouched_lines(scanned: dict[str, Any]) -> list[int]:
    """The lines (0-based) the prototype leaves to the strict path."""
    return _column(scanned["unvouched"], "q")


def check(core: ModuleType, corpus: Path) -> tuple[int, int, int]:
    """Agreement with the analyzer on every journal: (journals accepted, refused, lines the
    prototype left to the strict path in accepted journals). Raises SystemExit on a mismatch."""
    accepted = refused = left = 0
    # A journal is named by its place in the sorted order, never by its file name.
    for index, path in enumerate(journals(corpus)):
        data = path.read_bytes()
        scanned = core.scan(data)
        unvouched = unvouched_lines(scanned)
        decoded = decode_bytes(data)
        if isinstance(decoded, DecodedJournal):
            accepted += 1
            left += len(unvouched)
            if not unvouched and prototype_rows(scanned) != expected_rows(decoded):
                raise SystemExit(f"the prototype disagrees with the analyzer on journal {index}")
        else:
            refused += 1
            if decoded.outcome is JournalOutcome.INVALID and not unvouched:
                raise SystemExit(f"the prototype vouches for invalid journal {index}")
    return accepted, refused, left


def bare_decode(paths: list[Path]) -> None:
    """decode_baseline.py's work, in this process."""
    decode = msgspec.json.Decoder().decode
    undecodable = 0
    for path in paths:
        for line in path.read_bytes().splitlines():
            try:
                decode(line)
            except msgspec.DecodeError:
                undecodable += 1  # the corpus plants invalid journals on purpose


def prototype(core: ModuleType) -> Callable[[list[Path]], None]:
    def run(paths: list[Path]) -> None:
        for path in paths:
            core.scan(path.read_bytes())

    return run


def cpu_seconds(work: Callable[[list[Path]], None], paths: list[Path]) -> float:
    start = time.process_time()
    work(paths)
    return time.process_time() - start


def measure(corpus: Path, repeats: int, check_only: bool) -> None:
    """Build, check agreement on `corpus`, then time it against the bare decode."""
    paths = journals(corpus)
    megabytes = sum(p.stat().st_size for p in paths) / 1e6
    with tempfile.TemporaryDirectory() as directory:
        try:
            core = build(Path(directory))
        except BuildError as error:
            print(error, file=sys.stderr)
            raise SystemExit(2) from None
        accepted, refused, left = check(core, corpus)
        print(
            f"agreement: {accepted} journals accepted and {refused} refused by the analyzer;"
            f" the prototype left {left} lines of accepted journals to the strict path"
        )
        if check_only:
            return
        bare: list[float] = []
        native: list[float] = []
        for _ in range(repeats):
            bare.append(cpu_seconds(bare_decode, paths))
            native.append(cpu_seconds(prototype(core), paths))
    bare_s, native_s = statistics.median(bare), statistics.median(native)
    print("| journal MB | bare decode CPU s | prototype CPU s | prototype x bare decode |")
    print("|---:|---:|---:|---:|")
    print(f"| {megabytes:.0f} | {bare_s:.2f} | {native_s:.2f} | {native_s / bare_s:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, nargs="?")
    parser.add_argument("--size-mb", type=float, default=150.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--check-only", action="store_true")
    args = parser.parse_args()
    if args.corpus is not None:
        measure(args.corpus, args.repeats, args.check_only)
        return
    with tempfile.TemporaryDirectory() as work:
        corpus = Path(work) / "corpus"
        command = [str(CLI), "synth", "--out", str(corpus), "--seed", "1"]
        subprocess.run([*command, "--size-mb", str(args.size_mb)], check=True, capture_output=True)
        measure(corpus, args.repeats, args.check_only)


if __name__ == "__main__":
    main()
