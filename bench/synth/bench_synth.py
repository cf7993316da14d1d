"""Benchmark `clearing-analysis synth`: throughput (MB/s of output) and peak RSS.

Usage (from the repository root):

    .venv/bin/python bench/synth/bench_synth.py [--sizes 10 500] [--profile mixed] [--work DIR]

For each size it runs the generator once under `/usr/bin/time -v` (wall time, maximum resident
set size), measures every byte it wrote (journals, sidecar, configs, manifest), and runs a bare
baseline in the same session under the same `/usr/bin/time -v`: a plain Python process writing
the same number of bytes of pre-built JSONL lines to one file. With hyperfine installed, the
smallest size is also timed with several hyperfine runs. Generated corpora are deleted after
each measurement. Output is a Markdown table for docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / ".venv" / "bin" / "clearing-analysis"
PYTHON = ROOT / ".venv" / "bin" / "python"

# The baseline: write `n` bytes of a pre-encoded journal-like line, 1 MiB at a time.
BASELINE = r"""
import sys
n, path = int(sys.argv[1]), sys.argv[2]
line = (b'{"kind":"message","seq":1,"runId":"run-0","message":{"role":"toolResult",'
        b'"content":[{"type":"text","text":"' + b"x" * 3900 + b'"}]}}\n')
chunk = line * (1048576 // len(line) + 1)
with open(path, "wb") as out:
    left = n
    while left > 0:
        piece = chunk[: min(left, len(chunk))]
        out.write(piece)
        left -= len(piece)
"""


def _timed(argv: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of `argv` from /usr/bin/time -v."""
    done = subprocess.run(
        ["/usr/bin/time", "-v", *argv], capture_output=True, text=True, check=True
    )
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", done.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    if wall is None or rss is None:
        raise SystemExit("could not parse /usr/bin/time -v output")
    hours = int(wall.group(1) or 0)
    seconds = hours * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    return seconds, int(rss.group(1))


def _tree_bytes(path: Path) -> tuple[int, int]:
    total = sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    journals = sum(p.stat().st_size for p in (path / "journals").iterdir())
    return total, journals


def _hyperfine(size: int, profile: str, work: Path) -> float | None:
    if shutil.which("hyperfine") is None:
        return None
    out = work / "hf"
    export = work / "hf.json"
    command = f"{CLI} synth --out {out} --seed 1 --size-mb {size} --profile {profile}"
    subprocess.run(
        [
            "hyperfine",
            "--runs",
            "5",
            "--warmup",
            "1",
            "--prepare",
            f"rm -rf {out}",
            "--export-json",
            str(export),
            command,
        ],
        check=True,
        capture_output=True,
    )
    shutil.rmtree(out, ignore_errors=True)
    mean: float = json.loads(export.read_text())["results"][0]["mean"]
    export.unlink()
    return mean


def main() -> None:
    """Run the measurements and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 500])
    parser.add_argument("--profile", default="mixed")
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="synth-bench-", dir=args.work))
    rows = []
    try:
        for size in args.sizes:
            corpus = work / f"corpus-{size}"
            argv = [str(CLI), "synth", "--out", str(corpus), "--seed", "1"]
            argv += ["--size-mb", str(size), "--profile", args.profile]
            wall, rss = _timed(argv)
            total, journals = _tree_bytes(corpus)
            shutil.rmtree(corpus)
            baseline_file = work / "baseline.jsonl"
            base_wall, base_rss = _timed(
                [str(PYTHON), "-c", BASELINE, str(total), str(baseline_file)]
            )
            baseline_file.unlink()
            rows.append((size, total, journals, wall, rss, base_wall, base_rss))
        hyper = _hyperfine(args.sizes[0], args.profile, work)
        startup, startup_rss = _timed([str(CLI), "--help"])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(f"profile: {args.profile}, seed 1, single process\n")
    print(
        "| --size-mb | output MB (journals MB) | wall s | output MB/s | peak RSS MiB |"
        " baseline wall s | baseline MB/s | baseline RSS MiB | synth / baseline |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for size, total, journals, wall, rss, base_wall, base_rss in rows:
        rate, base_rate = total / 1e6 / wall, total / 1e6 / base_wall
        print(
            f"| {size} | {total / 1e6:.1f} ({journals / 1e6:.1f}) | {wall:.2f} | {rate:.0f} |"
            f" {rss / 1024:.0f} | {base_wall:.2f} | {base_rate:.0f} | {base_rss / 1024:.0f} |"
            f" {rate / base_rate:.2f} |"
        )
    print(
        f"\nCLI start-up alone (`clearing-analysis --help`): {startup:.2f} s,"
        f" {startup_rss / 1024:.0f} MiB"
    )
    if len(rows) > 1:
        (_, small, _, small_wall, *_), (_, large, _, large_wall, *_) = rows[0], rows[-1]
        marginal = (large - small) / 1e6 / (large_wall - small_wall)
        print(f"marginal throughput between the smallest and largest size: {marginal:.0f} MB/s")
    if hyper is not None:
        size, total = rows[0][0], rows[0][1]
        print(
            f"\nhyperfine (5 runs, 1 warmup) --size-mb {size}: mean {hyper:.2f} s"
            f" = {total / 1e6 / hyper:.0f} MB/s of output"
        )


if __name__ == "__main__":
    main()
