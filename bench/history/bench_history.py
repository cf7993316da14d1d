"""How time grows with the length of one history (R-REL-7): the fitted exponent.

Usage (from the repository root; `make bench-history` runs it):

    .venv/bin/python bench/history/bench_history.py [--entries 10000 20000 40000 80000]
                                                    [--work DIR] [--src DIR]

Two shapes, each at every size (its number of lines), each written once into `--work` (a new
temporary directory by default, deleted at the end):

- `linear-session`: one linear pi session (version 3), prompt turns of four entries each (the
  user's prompt, a request calling `read`, its 400-character result, the answer), cold gaps,
  usage that stays small: the what-if policies that clear before every request see a
  context that grows with the whole history, and the budget runs out half-way;
  measured with `explore --workers 1`.
- `checkpoints`: one native journal whose every read turn (nine records) ends in a checkpoint
  that keeps from the first entry (so nothing is ever compacted away), every result retained
  in the sidecar and proven by the attestation; measured with `analyze --workers 1`.

Each run is timed by `/usr/bin/time -v` (wall seconds, peak RSS), beside the bare baseline of
the same file measured in the same run (`bench/analyze/decode_baseline.py`: every line decoded
by msgspec, nothing else). The exponent is the least-squares slope of log(wall seconds)
against log(entries) over the sizes, for the command and for the command less the same
command on a 100-entry history of the same shape (its start-up and fixed costs); 1 is linear,
2 quadratic. `--src DIR` measures the analyzer from another checkout's `src` (this
environment's dependencies), e.g. a commit from before a change, for a before/after figure.

Prints a Markdown table per shape and the exponents, for docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests._seed_route import SEED_ROUTE  # noqa: E402
from tests.pisession.builder import Session, usage  # noqa: E402
from tests.replay.builder import JournalBuilder, SidecarBuilder  # noqa: E402

CLI = ROOT / ".venv" / "bin" / "clearing-analysis"
PYTHON = ROOT / ".venv" / "bin" / "python"
BASELINE = ROOT / "bench" / "analyze" / "decode_baseline.py"
FIXED_COST_ENTRIES = 100
RECORDS_PER_CHECKPOINTED_TURN = 9  # turn, run, request, call start/end, result, answer, end, cp


@dataclass(frozen=True)
class Run:
    """One timed run: wall seconds and peak RSS (KiB)."""

    wall: float
    rss_kib: int


def _timed(argv: list[str], env: dict[str, str] | None = None) -> Run:
    done = subprocess.run(
        ["/usr/bin/time", "-v", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
        env=env,
    )
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(argv[:2])}\n{done.stderr[-1500:]}")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", done.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    if wall is None or rss is None:
        sys.exit("could not parse /usr/bin/time -v output")
    seconds = 0.0
    for part in wall.group(1).split(":"):
        seconds = seconds * 60 + float(part)
    return Run(seconds, int(rss.group(1)))


def linear_session(directory: Path, entries: int) -> list[str]:
    """The linear-session shape; the command's arguments."""
    (directory / "sessions").mkdir(parents=True)
    session = Session()
    for turn in range(entries // 4):
        session.tick(400_000)
        session.user(f"turn {turn}")
        (call,) = session.assistant(["read"], usage_=usage(100 + turn, 10))
        session.result(call, "read", text=f"line {turn} " * 50)
        session.assistant(usage_=usage(100 + turn, 10))
    session.write(directory / "sessions" / "session.jsonl")
    (directory / "routes.json").write_text(json.dumps([SEED_ROUTE]))
    sessions, routes = directory / "sessions", directory / "routes.json"
    return ["explore", "--sessions", str(sessions), "--routes", str(routes)]


def checkpoints(directory: Path, entries: int) -> list[str]:
    """The checkpoints shape; the command's arguments."""
    (directory / "journals").mkdir(parents=True)
    journal = JournalBuilder()
    sidecar = SidecarBuilder(directory / "history.sqlite", capture_enabled=("p1",))
    for turn in range(max(1, entries // RECORDS_PER_CHECKPOINTED_TURN)):
        run = journal.tool_turn(f"t{turn}", [(f"c{turn}", "read")], text="x" * 1500)
        sidecar.retain(("p1", f"t{turn}", run, f"c{turn}"), f"{'x' * 1500} c{turn}")
        journal.checkpoint("summary", first_kept=1, before=1000 + turn, after=900)
    journal.close()
    journal.write(directory / "journals")
    sidecar.finish()
    (directory / "routes.json").write_text(json.dumps([SEED_ROUTE]))
    attestation = {"builtins": ["read"], "mcpTools": "none"}
    (directory / "agent-config.json").write_text(json.dumps(attestation))
    return [
        "analyze",
        "--journals",
        str(directory / "journals"),
        "--sidecar",
        str(directory / "history.sqlite"),
        "--routes",
        str(directory / "routes.json"),
        "--agent-config",
        str(directory / "agent-config.json"),
    ]


SHAPES = {"linear-session": linear_session, "checkpoints": checkpoints}


def slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of log(ys) on log(xs)."""
    lx, ly = [math.log(x) for x in xs], [math.log(max(y, 1e-3)) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / sum(
        (a - mx) ** 2 for a in lx
    )


def measure(shape: str, entries: list[int], work: Path, env: dict[str, str]) -> None:
    make = SHAPES[shape]
    command = [str(CLI)]
    fixed_args = make(work / f"{shape}-fixed", FIXED_COST_ENTRIES)
    fixed = _timed([*command, *fixed_args, "--workers", "1", "--json"], env).wall
    print(f"\n### {shape} (fixed cost at {FIXED_COST_ENTRIES} entries: {fixed:.2f} s)\n")
    print("| entries | file MB | baseline s | wall s | x baseline | peak RSS MiB |")
    print("|---:|---:|---:|---:|---:|---:|")
    walls: list[float] = []
    for size in entries:
        directory = work / f"{shape}-{size}"
        args = make(directory, size)
        files = list(directory.rglob("*.jsonl"))
        mbytes = sum(p.stat().st_size for p in files) / 1e6
        baseline = _timed([str(PYTHON), str(BASELINE), str(files[0].parent)]).wall
        run = _timed([*command, *args, "--workers", "1", "--json"], env)
        walls.append(run.wall)
        ratio = run.wall / baseline if baseline > 0 else math.inf
        print(
            f"| {size:,} | {mbytes:.1f} | {baseline:.2f} | {run.wall:.2f} | {ratio:.0f} |"
            f" {run.rss_kib / 1024:.0f} |"
        )
        shutil.rmtree(directory)
    beyond = [max(wall - fixed, 1e-3) for wall in walls]
    print(
        f"\nexponent ({shape}): {slope([float(e) for e in entries], walls):.2f} on wall time,"
        f" {slope([float(e) for e in entries], beyond):.2f} on wall time less the fixed cost"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, nargs="+", default=[10_000, 20_000, 40_000, 80_000])
    parser.add_argument("--shapes", nargs="+", choices=sorted(SHAPES), default=list(SHAPES))
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--src", type=Path, default=None, help="another checkout's src")
    options = parser.parse_args()
    env = dict(os.environ)
    if options.src is not None:
        env["PYTHONPATH"] = str(options.src.resolve())
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    print(f"analyzer: {options.src or ROOT / 'src'}")
    with tempfile.TemporaryDirectory(dir=options.work) as scratch:
        for shape in options.shapes:
            measure(shape, sorted(options.entries), Path(scratch), env)


if __name__ == "__main__":
    main()
