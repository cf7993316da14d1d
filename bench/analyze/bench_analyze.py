"""Benchmark `clearing-analysis analyze` against a bare decode of the same bytes (R-PERF-2).

Usage (from the repository root; `make bench` and `make bench-small` run it):

    .venv/bin/python bench/analyze/bench_analyze.py [--sizes 150 1000 4000] [--repeats 1]
                                                    [--work DIR] [--keep] [--workers 2]

A corpus already present under `--work` (as `corpus-<size>`) is reused; corpora are deleted
after their measurement unless `--keep` is given.

For each size it generates a synthetic corpus (`synth --seed 1 --size-mb S --profile mixed`),
reads it once so the page cache is warm, and then measures, in the same run and the same way:

- `baseline`: a bare single-core decode of every journal line with msgspec
  (`bench/analyze/decode_baseline.py`: each file read in one piece, every line decoded to
  Python objects, nothing else);
- `analyze --workers 1`;
- `analyze --workers 2` (`--workers N` to change it).

Each run is timed by `/usr/bin/time -v` (wall clock, CPU seconds). While it runs, this script
samples /proc every 50 ms and sums over the whole process tree (the command and every
descendant: pool workers and multiprocessing's resource tracker) the resident set size (RSS,
which counts a shared page once per process) and the proportional set size (PSS, which
divides it among the processes sharing it: what the tree really holds); `/usr/bin/time` alone
reports only the largest single process. Medians over `--repeats`, memory peaks over all.
The machine's load average (1 minute, from /proc/loadavg) is read at the start and at the end
of every measured run: each row shows the first run's start and the last run's end, so a
figure taken on a busy machine says so.
The two `analyze` reports must be byte-identical (R-PERF-3); the script fails otherwise.

Prints the machine, then a Markdown table for docs/performance.md: journal MB, wall seconds,
journal MB/s, time as a multiple of the baseline (x baseline), CPU seconds, peak tree RSS and
PSS, load average at the start and end.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / ".venv" / "bin" / "clearing-analysis"
PYTHON = ROOT / ".venv" / "bin" / "python"
BASELINE = Path(__file__).resolve().parent / "decode_baseline.py"
SAMPLE_SECONDS = 0.05


@dataclass(frozen=True)
class Measured:
    """One run: wall and CPU seconds, peak RSS and peak PSS of the process tree (bytes), the
    load average around it."""

    wall: float
    cpu: float
    tree_rss: int
    tree_pss: int
    load_start: float  # 1-minute load average when the run started, and when it ended
    load_end: float


def _children() -> dict[int, list[int]]:
    """Parent pid -> child pids, from /proc/*/stat."""
    tree: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry.name}/stat").read_bytes().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        tree.setdefault(int(fields[1]), []).append(int(entry.name))
    return tree


def _memory(pid: int) -> tuple[int, int]:
    """Resident and proportional set size of one process (bytes; 0 once it has exited)."""
    try:
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_bytes()
    except OSError:
        return 0, 0
    fields = dict(line.split(b":", 1) for line in rollup.splitlines()[1:] if b":" in line)
    kib = {name: int(fields.get(name, b"0 kB").split()[0]) for name in (b"Rss", b"Pss")}
    return kib[b"Rss"] * 1024, kib[b"Pss"] * 1024


def _tree_memory(root: int) -> tuple[int, int]:
    """Sums of the RSS and of the PSS of `root` and all its descendants. RSS counts a page
    shared by several processes (the interpreter, polars' library) in each of them; PSS
    divides it among them, so its sum is what the tree really holds."""
    tree = _children()
    rss = pss = 0
    stack = [root]
    while stack:
        pid = stack.pop()
        one_rss, one_pss = _memory(pid)
        rss, pss = rss + one_rss, pss + one_pss
        stack.extend(tree.get(pid, ()))
    return rss, pss


def _load() -> float:
    """The 1-minute load average (/proc/loadavg): other work on the machine skews a timing."""
    return float(Path("/proc/loadavg").read_text().split()[0])


def _run(argv: list[str]) -> Measured:
    """Run `argv` under /usr/bin/time -v, sampling the process tree's RSS meanwhile."""
    load_start = _load()
    process = subprocess.Popen(
        ["/usr/bin/time", "-v", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    peak = [0, 0]

    def sample() -> None:
        while process.poll() is None:
            rss, pss = _tree_memory(process.pid)
            peak[0], peak[1] = max(peak[0], rss), max(peak[1], pss)
            time.sleep(SAMPLE_SECONDS)

    sampler = threading.Thread(target=sample)
    started = time.perf_counter()
    sampler.start()
    _, stderr = process.communicate()
    elapsed = time.perf_counter() - started
    sampler.join()
    if process.returncode != 0:
        sys.exit(f"benchmark command failed ({process.returncode}): {argv[0]}\n{stderr[-2000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", stderr)
    user = re.search(r"User time \(seconds\): ([\d.]+)", stderr)
    system = re.search(r"System time \(seconds\): ([\d.]+)", stderr)
    if wall is None or user is None or system is None:
        sys.exit("could not parse /usr/bin/time -v output")
    seconds = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    # /usr/bin/time prints wall time to 10 ms, which rounds a bare interpreter's start to 0:
    # below a second, the parent's own clock around the process is the finer measure.
    seconds = seconds if seconds >= 1 else elapsed
    cpu = float(user.group(1)) + float(system.group(1))
    return Measured(seconds, cpu, peak[0], peak[1], load_start, _load())


def _median(runs: list[Measured]) -> Measured:
    return Measured(
        statistics.median(r.wall for r in runs),
        statistics.median(r.cpu for r in runs),
        max(r.tree_rss for r in runs),
        max(r.tree_pss for r in runs),
        runs[0].load_start,
        runs[-1].load_end,
    )


def _journal_bytes(corpus: Path) -> int:
    return sum(p.stat().st_size for p in (corpus / "journals").rglob("*.jsonl"))


def _warm(corpus: Path) -> None:
    """Read every file once so that each measured run finds the corpus in the page cache."""
    for path in sorted(corpus.rglob("*")):
        if path.is_file():
            with path.open("rb") as stream:
                while stream.read(1 << 24):
                    pass


def _analyze(corpus: Path, out: Path, workers: int | None) -> list[str]:
    argv = [
        str(CLI),
        "analyze",
        "--journals",
        str(corpus / "journals"),
        "--sidecar",
        str(corpus / "history.sqlite"),
        "--routes",
        str(corpus / "routes.json"),
        "--agent-config",
        str(corpus / "agent-config.json"),
        "--app-allowlist",
        str(corpus / "app-allowlist.json"),
        "--out",
        str(out),
    ]
    return argv if workers is None else [*argv, "--workers", str(workers)]


def _bench_size(size_mb: int, repeats: int, work: Path, keep: bool, workers: int) -> list[str]:
    corpus = work / f"corpus-{size_mb}"
    if not corpus.exists():
        subprocess.run(
            [str(CLI), "synth", "--out", str(corpus), "--seed", "1", "--size-mb", str(size_mb)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    journal_mb = _journal_bytes(corpus) / 1e6
    _warm(corpus)
    reports = {name: work / f"report-{size_mb}-{name}.json" for name in ("one", "all")}
    results: dict[str, list[Measured]] = {"baseline": [], "one": [], "all": []}
    for _ in range(repeats):
        results["baseline"].append(_run([str(PYTHON), str(BASELINE), str(corpus / "journals")]))
        for name, count in (("one", 1), ("all", workers)):
            reports[name].unlink(missing_ok=True)
            results[name].append(_run(_analyze(corpus, reports[name], count)))
    if reports["one"].read_bytes() != reports["all"].read_bytes():
        sys.exit(f"the reports of one and all workers differ at {size_mb} MB")
    for report in reports.values():
        report.unlink()
    if not keep:
        shutil.rmtree(corpus)
    base = _median(results["baseline"])
    rows = []
    for name, label in (
        ("baseline", "bare msgspec decode, 1 core"),
        ("one", "`analyze --workers 1`"),
        ("all", f"`analyze --workers {workers}`"),
    ):
        m = _median(results[name])
        rows.append(
            f"| {journal_mb:,.0f} | {label} | {m.wall:.2f} | {journal_mb / m.wall:.1f}"
            f" | {m.wall / base.wall:.2f} | {m.cpu:.2f} | {m.tree_rss / 2**20:.0f}"
            f" | {m.tree_pss / 2**20:.0f} | {m.load_start:.2f} / {m.load_end:.2f} |"
        )
    one, every = _median(results["one"]), _median(results["all"])
    rows.append(
        f"| {journal_mb:,.0f} | speed-up of {workers} workers over one"
        f" | {one.wall / every.wall:.2f} x | | | | | | |"
    )
    return rows


STARTUP_RUNS = 10


def _startup() -> list[str]:
    """Start-up: `--help` and `replay --help` against a bare interpreter, medians of
    STARTUP_RUNS runs (the CLI loads the library only when a command runs)."""
    rows = []
    bare = _median([_run([str(PYTHON), "-c", "pass"]) for _ in range(STARTUP_RUNS)])
    for label, argv in (
        ("bare interpreter (`python -c pass`)", [str(PYTHON), "-c", "pass"]),
        ("`clearing-analysis --help`", [str(CLI), "--help"]),
        ("`clearing-analysis analyze --help`", [str(CLI), "analyze", "--help"]),
    ):
        m = _median([_run(argv) for _ in range(STARTUP_RUNS)])
        rows.append(
            f"| {label} | {m.wall:.2f} | {m.wall / bare.wall:.1f} | {m.tree_rss / 2**20:.0f}"
            f" | {m.load_start:.2f} / {m.load_end:.2f} |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[150, 1000, 4000])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument(
        "--work", type=Path, default=None, help="directory for corpora (reused when present)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the generated corpora")
    parser.add_argument(
        "--workers", type=int, default=2, help="workers of the second analyze run (default 2)"
    )
    args = parser.parse_args()
    if not CLI.exists():
        sys.exit("no checkout environment: run `make setup` first")
    cores = len(os.sched_getaffinity(0))
    print(
        f"machine: {platform.machine()} {platform.system()}, {cores} cores,"
        f" Python {platform.python_version()}, load average {_load():.2f}"
    )
    print()
    print("| start-up | wall s | x bare interpreter | peak RSS MiB | load avg start / end |")
    print("|---|---|---|---|---|")
    for row in _startup():
        print(row, flush=True)
    print()
    print(
        "| journal MB | run | wall s | journal MB/s | x baseline | CPU s"
        " | peak tree RSS MiB | peak tree PSS MiB | load avg start / end |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="clearing-bench-") as scratch:
        work = args.work or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        for size in args.sizes:
            for row in _bench_size(size, args.repeats, work, args.keep, args.workers):
                print(row, flush=True)


if __name__ == "__main__":
    main()
