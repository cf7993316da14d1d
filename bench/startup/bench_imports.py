"""Import cost per command (docs/performance.md, "Start-up"): for `--help`, `analyze --help`,
a small `analyze` and what a pool worker imports, the CPU-seconds spent importing and the
heavy libraries loaded.

Each case runs in a fresh interpreter under `python -X importtime`; the CPU time is read with
`resource.getrusage` right after the case's imports finish (for a command: when it exits), so
it counts the interpreter's start and the imports, and for `analyze` the run itself too; the
row after it imports, in a fresh interpreter and in the same order, exactly the modules that
run had loaded, so it is `analyze`'s import cost alone. The importtime log gives the wall
microseconds of the heaviest top-level imports. Figures are the minimum over --repeats runs
(the machine may be shared; the minimum is the least disturbed run).

    python bench/startup/bench_imports.py [--repeats 5] [--work DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HEAVY = ("polars", "rich", "cryptography", "pydantic", "structlog")

# Runs a command the way the console script does, then prints the CPU-seconds and the heavy
# modules loaded (on fd 3's stand-in: a file named by argv[1]).
_COMMAND = """
import resource, sys
out = sys.argv[1]
sys.argv = ["clearing-analysis", *sys.argv[2:]]
def _report():
    r = resource.getrusage(resource.RUSAGE_SELF)
    loaded = list(sys.modules)
    heavy = sorted({m.split(".")[0] for m in loaded} & set(HEAVY))
    import json
    with open(out, "w") as f:
        json.dump({"cpu": r.ru_utime + r.ru_stime, "heavy": heavy, "loaded": loaded}, f)
import atexit
atexit.register(_report)
from clearing_analysis.entry import main
main()
"""

# What a spawned pool worker imports (clearing_analysis.pipeline.pool._init_worker).
_WORKER = """
import resource, sys
import clearing_analysis.pipeline.pool, clearing_analysis.simulation.unit
r = resource.getrusage(resource.RUSAGE_SELF)
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(HEAVY))
import json
with open(sys.argv[1], "w") as f:
    json.dump({"cpu": r.ru_utime + r.ru_stime, "heavy": heavy}, f)
"""

# The modules named in a file (argv[1], one a line), imported in that order.
_IMPORTS = """
import importlib, resource, sys
for name in open(sys.argv[2]).read().split():
    try:
        importlib.import_module(name)
    except Exception:
        pass
r = resource.getrusage(resource.RUSAGE_SELF)
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(HEAVY))
import json
with open(sys.argv[1], "w") as f:
    json.dump({"cpu": r.ru_utime + r.ru_stime, "heavy": heavy}, f)
"""

_BARE = """
import resource, sys
r = resource.getrusage(resource.RUSAGE_SELF)
import json
with open(sys.argv[1], "w") as f:
    json.dump({"cpu": r.ru_utime + r.ru_stime, "heavy": []}, f)
"""


def _run(code: str, args: list[str], work: Path) -> tuple[float, list[str], list[str]]:
    """CPU-seconds, heavy libraries loaded, and the three heaviest top-level imports (the
    modules loaded are left in work/loaded.txt when the case reports them)."""
    out = work / "case.json"
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"HEAVY = {HEAVY!r}\n{code}", str(out), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    figures = json.loads(out.read_text())
    if "loaded" in figures:
        (work / "loaded.txt").write_text("\n".join(figures["loaded"]))
    top: list[tuple[int, str]] = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.removeprefix("import time:").split("|")
        if not name.startswith("  "):  # a top-level import (one leading space)
            top.append((int(cumulative), name.strip()))
    heaviest = [f"{name} {us / 1000:.0f} ms" for us, name in sorted(top, reverse=True)[:3]]
    return float(figures["cpu"]), list(figures["heavy"]), heaviest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--work", type=Path, default=None)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=options.work) as scratch:
        work = Path(scratch)
        corpus = work / "corpus"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "clearing_analysis.cli",
                "synth",
                "--out",
                str(corpus),
                "--seed",
                "1",
                "--conversations",
                "5",
            ],
            stdout=subprocess.DEVNULL,
            check=True,
        )
        small = [
            "analyze",
            "--journals",
            str(corpus / "journals"),
            "--sidecar",
            str(corpus / "history.sqlite"),
            "--routes",
            str(corpus / "routes.json"),
            "--workers",
            "1",
            "--json",
        ]
        cases = [
            ("bare interpreter", _BARE, []),
            ("--help", _COMMAND, ["--help"]),
            ("analyze --help", _COMMAND, ["analyze", "--help"]),
            ("small analyze (5 conversations, 1 worker)", _COMMAND, small),
            ("small analyze's imports alone", _IMPORTS, [str(work / "loaded.txt")]),
            ("pool worker's imports", _WORKER, []),
        ]
        print("| case | CPU-s (min) | heavy libraries loaded | heaviest top-level imports |")
        print("|---|---|---|---|")
        for label, code, args in cases:
            runs = [_run(code, args, work) for _ in range(options.repeats)]
            cpu = min(run[0] for run in runs)
            heavy = ", ".join(runs[0][1]) or "none"
            print(f"| {label} | {cpu:.3f} | {heavy} | {'; '.join(runs[0][2])} |")


if __name__ == "__main__":
    main()
