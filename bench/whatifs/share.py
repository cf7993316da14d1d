"""The what-ifs' share of `analyze`'s CPU, measured in one process (docs/performance.md, "The
what-ifs at a fraction of their cost").

Usage, from the repository root:

    .venv/bin/python bench/whatifs/share.py CORPUS [--repeats N] [--profile]

CORPUS is a directory `clearing-analysis synth` wrote (journals/, history.sqlite, routes.json,
agent-config.json, app-allowlist.json). Each repeat runs `pipeline.jobs.analyze_job` with one
worker (every unit replayed in this process) and reads the process CPU clock around the whole
job and around each call of `simulation.unit.run_what_ifs` in it (the informational what-ifs,
docs/model.md section 9); it prints one JSON line per repeat: the job's CPU seconds, the
what-ifs' CPU seconds and their share in percent, with the 1-minute load average before and
after (a figure measured beside other work says so). With `--profile`, one more run under
cProfile prints the cumulative time of `run_what_ifs` against `analyze_job`: the profiler
slows call-heavy code most, the what-ifs among it, so that share is above the clock's.

To compare two checkouts, run it alternately with each one's `src` first on PYTHONPATH (this
environment's dependencies serve both), several times each: the machine's speed varies from
run to run, the share much less.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import time
from pathlib import Path
from typing import Any

from clearing_analysis.inputs.requests import AnalyzeRequest
from clearing_analysis.pipeline.jobs import analyze_job
from clearing_analysis.simulation import unit


def _request(corpus: Path) -> AnalyzeRequest:
    return AnalyzeRequest(
        journals=(corpus / "journals",),
        sidecar=corpus / "history.sqlite",
        routes=corpus / "routes.json",
        agent_config=corpus / "agent-config.json",
        app_allowlist=corpus / "app-allowlist.json",
        workers=1,
    )


def _timed(corpus: Path) -> dict[str, float]:
    """One job: its CPU seconds, the what-ifs' and their share."""
    spent = [0.0]
    walk = unit.run_what_ifs

    def what_ifs(*args: Any) -> Any:
        started = time.process_time()
        try:
            return walk(*args)
        finally:
            spent[0] += time.process_time() - started

    unit.run_what_ifs = what_ifs  # type: ignore[assignment]
    load = round(os.getloadavg()[0], 2)
    try:
        started = time.process_time()
        analyze_job(_request(corpus))
        whole = time.process_time() - started
    finally:
        unit.run_what_ifs = walk  # type: ignore[assignment]
    return {
        "analyze_cpu_s": round(whole, 3),
        "what_ifs_cpu_s": round(spent[0], 3),
        "share_percent": round(100 * spent[0] / whole, 2),
        "load_before": load,
        "load_after": round(os.getloadavg()[0], 2),
    }


def _profiled(corpus: Path) -> dict[str, float]:
    """One job under cProfile: the cumulative seconds of `analyze_job` and `run_what_ifs`."""
    profile = cProfile.Profile()
    profile.enable()
    analyze_job(_request(corpus))
    profile.disable()
    cumulative = {"analyze_job": 0.0, "run_what_ifs": 0.0}
    stats: dict[Any, Any] = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    for (_file, _line, name), (_calls, _primitive, _own, total, _callers) in stats.items():
        if name in cumulative:
            cumulative[name] += total
    return {
        "profiled_analyze_s": round(cumulative["analyze_job"], 3),
        "profiled_what_ifs_s": round(cumulative["run_what_ifs"], 3),
        "profiled_share_percent": round(
            100 * cumulative["run_what_ifs"] / cumulative["analyze_job"], 2
        ),
    }


def main() -> None:
    """Measure and print one JSON line per run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    options = parser.parse_args()
    for _ in range(options.repeats):
        print(json.dumps(_timed(options.corpus)), flush=True)
    if options.profile:
        print(json.dumps(_profiled(options.corpus)), flush=True)


if __name__ == "__main__":
    main()
