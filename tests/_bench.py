"""Running a script of `bench/` as `make` runs it, for the tests that keep each working."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parents[1] / "bench"


def run_bench(script: Path, *args: str) -> str:
    """The standard output of `python SCRIPT ARGS`, which must exit 0 within five minutes."""
    done = subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout
