"""Where `analyze`'s CPU goes, part by part (docs/performance.md, "Where the time goes").

Usage (from the repository root; `make bench-parts` runs it on a 150 MB corpus):

    .venv/bin/python bench/analyze/bench_parts.py [--size-mb 150] [--work DIR] [--keep]
                                                  [--corpus DIR]

It generates a `mixed` corpus (`synth --seed 1 --size-mb S`, reused when `--work` already
holds `corpus-<S>`; `--corpus DIR` names any corpus written by `synth`), warms the page cache,
then runs `clearing-analysis analyze --workers 1` in a fresh interpreter under a sampling
profiler of the standard library's parts: a CPU-time interval timer (`signal.setitimer`,
ITIMER_PROF) sends SIGPROF every millisecond of the process's CPU, and the handler, which the
interpreter runs in the main thread between two bytecodes, counts the innermost frame of the
package (or of the import machinery) on the interrupted stack. Samples are spread evenly over
CPU time, not over wall time, so waiting on a read costs nothing; a built-in (a msgspec
decode, an SQLite call, a SHA-256) holds the interpreter until it returns, so its samples land
on the line that called it: its caller's function and line. Each frame is then given its part
of the pipeline by its module, function and line (`PARTS` below; the canonical re-encoding
that proves a decoded line repeats no key is told apart by its line). Imports, the CLI's start
included, are counted as they happen; one worker, so that every part runs in the sampled
process.

Nothing is instrumented and no profiler's per-call cost distorts the shares. The kernel's timer
ticks coarser than asked (every few milliseconds), so each sample stands for an equal slice
of the sampled process's CPU-seconds; the table gives each part's share and those seconds,
beside a plain run's CPU-seconds measured in the same invocation. With about 1,500 samples (a
150 MB corpus) a 10% share is good to about 1 point.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv" / "bin" / "python"
CLI = ROOT / ".venv" / "bin" / "clearing-analysis"

# (part, rule): the first rule that matches a frame's (file, function, line) decides its part.
# Files are matched by their path below src/clearing_analysis/.
Rule = Callable[[str, str, int], bool]
_PACKAGE = re.compile(r".*/src/clearing_analysis/")
_DECODE = "journal/decode.py"


def _module(*prefixes: str) -> Rule:
    return lambda file, _name, _line: file.startswith(prefixes)


def _imports(file: str, name: str, _line: int) -> bool:
    return file.startswith("<frozen importlib") or name == "<module>"


def _re_encoding_line() -> int:
    """The line of `journal.decode._fast` that re-encodes a decoded record."""
    source = (ROOT / "src" / "clearing_analysis" / _DECODE).read_text().splitlines()
    start = next(i for i, line in enumerate(source) if line.startswith("def _fast("))
    return 1 + next(i for i in range(start, len(source)) if "_ENCODER.encode(" in source[i])


_RE_ENCODE_LINE = _re_encoding_line()


def _re_encode(file: str, name: str, line: int) -> bool:
    return (file == _DECODE and name == "_fast" and line == _RE_ENCODE_LINE) or (
        (file, name) in {(_DECODE, "_without_repeated_keys"), ("strictjson.py", "repeats_no_key")}
    )


def _finishing(file: str, name: str, _line: int) -> bool:
    if file in ("replay/retention.py", "replay/guard.py", "replay/arguments.py"):
        return True
    return file == "replay/journal_replay.py" and name in (
        "_finish_result",
        "_finish",
        "_identity",
        "_origin",
        "_shape",
    )


PARTS: list[tuple[str, Rule]] = [
    ("start-up and imports", _imports),
    ("what-ifs", _module("simulation/what_if.py", "models/what_if.py", "assemble/what_ifs.py")),
    ("duplicate-key re-encode", _re_encode),
    ("decode", _module("journal/", "strictjson.py", "codex/", "pisession/", "jsonlines.py")),
    ("token heuristic", _module("replay/heuristic.py")),
    ("sidecar SQLite", _module("inputs/sidecar.py")),
    ("finishing results (ids, retention, guard, argument digests)", _finishing),
    ("replay state machine and merge", _module("replay/", "identity.py")),
    ("eligibility", _module("eligibility/", "toolclass.py")),
    ("simulation", _module("simulation/")),
    ("models, gate, assembling, report", _module("models/", "gate/", "assemble/", "report/")),
    ("qualification record, signing, container", _module("qualify/", "attest/", "container/")),
    ("synthetic corpus", _module("synth/")),
    (
        "inputs, snapshot, CLI, units, shared leaves",
        lambda file, _name, _line: (
            "/" not in file
            or file.startswith(("inputs/", "pipeline/", "histories/", "codes/", "cli/"))
        ),
    ),
]
OTHER = "other (no frame of the package: the interpreter's own start and end)"


def part_of(file: str, name: str, line: int) -> str:
    """The part a frame of `file`, function `name`, at `line` belongs to."""
    relative = _PACKAGE.sub("", file)
    for part, rule in PARTS:
        if rule(relative, name, line):
            return part
    return OTHER


# Runs the CLI with a CPU-time profiling timer: every millisecond of the process's CPU, a
# SIGPROF whose handler (run in the main thread, between two bytecodes) counts the frame it
# interrupted; writes {frame: samples} as JSON.
_SAMPLED = """
import collections, json, signal, sys
out, argv = sys.argv[1], sys.argv[2:]
samples = collections.Counter()

def frame_key(frame):
    while frame is not None:
        code = frame.f_code
        name = code.co_filename
        if "/src/clearing_analysis/" in name or name.startswith("<frozen importlib") or (
            code.co_name == "<module>"
        ):
            return (name, code.co_name, frame.f_lineno)
        frame = frame.f_back
    return ("", "", 0)

def sample(_signum, frame):
    samples[frame_key(frame)] += 1

signal.signal(signal.SIGPROF, sample)
signal.setitimer(signal.ITIMER_PROF, INTERVAL, INTERVAL)
sys.argv = ["clearing-analysis", *argv]
try:
    from clearing_analysis.entry import main as cli
    cli()
except SystemExit:
    pass
finally:
    signal.setitimer(signal.ITIMER_PROF, 0, 0)
    with open(out, "w") as stream:
        json.dump([[*key, count] for key, count in samples.items()], stream)
""".replace("INTERVAL", "0.001")


def _corpus(args: argparse.Namespace, work: Path) -> Path:
    if args.corpus is not None:
        return Path(args.corpus)
    corpus = work / f"corpus-{args.size_mb}"
    if not corpus.is_dir():
        subprocess.run(
            [CLI, "synth", "--seed", "1", "--size-mb", str(args.size_mb), "--profile", "mixed",
             "--out", corpus],
            check=True,
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
    return corpus


def _analyze_args(corpus: Path) -> list[str]:
    return [
        "analyze",
        "--journals", str(corpus / "journals"),
        "--sidecar", str(corpus / "history.sqlite"),
        "--routes", str(corpus / "routes.json"),
        "--agent-config", str(corpus / "agent-config.json"),
        "--app-allowlist", str(corpus / "app-allowlist.json"),
        "--workers", "1",
        "--json",
    ]  # fmt: skip


def _child_cpu(command: list[str | Path]) -> float:
    """Run `command`; the CPU-seconds (user + system) it used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def sampled_parts(corpus: Path, work: Path) -> tuple[dict[str, float], float, int]:
    """CPU-seconds per part (samples of the process's CPU time), and the whole sampled
    process's CPU-s."""
    out = work / "samples.json"
    cpu = _child_cpu([PYTHON, "-c", _SAMPLED, str(out), *_analyze_args(corpus)])
    counts: dict[str, int] = defaultdict(int)
    for file, name, line, count in json.loads(out.read_text()):
        counts[part_of(file, name, line)] += count
    # The kernel's timer ticks coarser than asked (every few ms): each sample stands for an
    # equal slice of the process's CPU.
    samples = sum(counts.values())
    return {part: cpu * count / samples for part, count in counts.items()}, cpu, samples


def _warm(corpus: Path) -> None:
    for path in sorted(corpus.rglob("*")):
        if path.is_file():
            with path.open("rb") as stream:
                while stream.read(1 << 20):
                    pass


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=150)
    parser.add_argument("--corpus", default=None, help="an existing corpus written by synth")
    parser.add_argument("--work", default=None, help="directory for corpora (default: temp)")
    parser.add_argument("--keep", action="store_true", help="keep a generated corpus")
    args = parser.parse_args()
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="bench-parts-"))
    work.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="bench-parts-samples-"))
    generated = args.corpus is None and not (work / f"corpus-{args.size_mb}").exists()
    try:
        corpus = _corpus(args, work)
        _warm(corpus)
        load = os.getloadavg()[0]
        plain = _child_cpu([CLI, *_analyze_args(corpus)])
        parts, sampled_cpu, samples = sampled_parts(corpus, scratch)
        end_load = os.getloadavg()[0]
        size = sum(p.stat().st_size for p in (corpus / "journals").rglob("*.jsonl"))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if generated and not args.keep:
            shutil.rmtree(work / f"corpus-{args.size_mb}", ignore_errors=True)
        if args.work is None and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    total = sum(parts.values())
    print(f"corpus: {size / 1e6:,.0f} MB of journals; python {sys.version.split()[0]}")
    print(
        f"`analyze --workers 1`: {plain:.2f} CPU-s plain, {sampled_cpu:.2f} CPU-s sampled"
        f" ({samples:,} samples)"
    )
    print(f"load average (1 min) at start / end: {load:.2f} / {end_load:.2f}")
    print()
    print("| part | CPU-s | share |")
    print("|---|---|---|")
    for part, seconds in sorted(parts.items(), key=lambda item: -item[1]):
        print(f"| {part} | {seconds:.2f} | {100 * seconds / total:.1f}% |")


if __name__ == "__main__":
    main()
