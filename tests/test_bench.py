"""`make bench` keeps working: the benchmark script runs end to end on a tiny corpus (its
figures are meaningless at this size and are not asserted; only that every row is produced
and the one- and all-worker reports agreed, which the script itself checks)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from clearing_analysis.synth import generate
from tests._bench import BENCH_DIR, run_bench

BENCH = BENCH_DIR / "analyze" / "bench_analyze.py"


@pytest.mark.slow
def test_benchmark_script_runs_on_a_tiny_corpus(tmp_path: Path) -> None:
    """Start-up rows, then baseline, one worker, all workers and the speed-up for one size;
    the corpus is deleted afterwards (no --keep)."""
    stdout = run_bench(BENCH, "--sizes", "2", "--work", str(tmp_path))
    rows = [line for line in stdout.splitlines() if line.startswith("| ")]
    labels = [row.split(" | ")[0].removeprefix("| ") for row in rows]
    assert labels.count("2") == 4
    assert any("--help" in row for row in rows)
    assert list(tmp_path.iterdir()) == []


STARTUP = BENCH_DIR / "startup" / "bench_imports.py"


@pytest.mark.slow
def test_startup_benchmark_reports_every_case(tmp_path: Path) -> None:
    """One row per case, `--help` with no heavy library and the worker with none either, a
    small analyze with none either (no polars: its units reduce their rows to figures; no
    pydantic: cli._values converts its option values); the scratch corpus is deleted
    afterwards."""
    stdout = run_bench(STARTUP, "--repeats", "1", "--work", str(tmp_path))
    rows = {row.split(" | ")[0].removeprefix("| "): row for row in stdout.splitlines()}
    assert " | none | " in rows["--help"]
    assert " | none | " in rows["pool worker's imports"]
    assert " | none | " in rows["small analyze (5 conversations, 1 worker)"]
    assert " | none | " in rows["small analyze's imports alone"]
    assert list(tmp_path.iterdir()) == []


PARTS = BENCH_DIR / "analyze" / "bench_parts.py"


@pytest.mark.slow
def test_parts_benchmark_attributes_the_cpu(tmp_path: Path) -> None:
    """Rows of the known parts with their shares (at this size only a few parts get a
    sample), the shares adding up to the whole, and the generated corpus deleted afterwards
    (no --keep)."""
    stdout = run_bench(PARTS, "--size-mb", "2", "--work", str(tmp_path))
    rows = [line for line in stdout.splitlines() if line.startswith("| ")][1:]
    shares = {row.split(" | ")[0].removeprefix("| "): row.split(" | ")[2] for row in rows}
    sys.path.insert(0, str(PARTS.parent))
    try:
        import bench_parts  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(PARTS.parent))
    known = {part for part, _rule in bench_parts.PARTS} | {bench_parts.OTHER}
    assert len(shares) >= 3 and set(shares) <= known
    assert abs(sum(float(share.rstrip("% |")) for share in shares.values()) - 100) < 1
    assert list(tmp_path.iterdir()) == []


def test_every_module_of_the_package_has_a_part() -> None:
    """The parts' rules cover every module of the package, so a new stage cannot fall into
    "other" unseen, and the re-encoding line is found in the decoder."""
    sys.path.insert(0, str(PARTS.parent))
    try:
        import bench_parts  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(PARTS.parent))
    package = PARTS.parents[2] / "src" / "clearing_analysis"
    unmapped = [
        str(path.relative_to(package))
        for path in sorted(package.rglob("*.py"))
        if bench_parts.part_of(str(path), "f", 1) == bench_parts.OTHER
    ]
    assert unmapped == []
    source = (package / "journal" / "decode.py").read_text().splitlines()
    assert "_ENCODER.encode(" in source[bench_parts._RE_ENCODE_LINE - 1]


WHAT_IFS = BENCH_DIR / "whatifs" / "share.py"


@pytest.mark.slow
def test_what_ifs_share_script_measures_a_tiny_corpus(tmp_path: Path) -> None:
    """One timed run and one profiled run: the job's and the what-ifs' CPU seconds and a share
    between 0 and 100 percent (the figures themselves are not asserted)."""
    corpus = tmp_path / "corpus"
    generate(corpus, 3, conversations=3, profile="mixed")
    stdout = run_bench(WHAT_IFS, str(corpus), "--repeats", "1", "--profile")
    timed, profiled = (json.loads(line) for line in stdout.splitlines())
    assert 0 < timed["what_ifs_cpu_s"] < timed["analyze_cpu_s"]
    assert 0 < timed["share_percent"] < 100
    assert 0 < profiled["profiled_share_percent"] < 100


PER_FILE = BENCH_DIR / "inputs" / "bench_per_file.py"


@pytest.mark.slow
def test_per_file_script_measures_what_a_run_keeps(tmp_path: Path) -> None:
    """The session's and the units' bytes a file, for as many files as the corpus has (the
    figures themselves are not asserted, only that they are positive)."""
    corpus = tmp_path / "corpus"
    summary = generate(corpus, 3, conversations=4, profile="mixed")
    stdout = run_bench(PER_FILE, str(corpus))
    lines = stdout.splitlines()
    assert lines[0].startswith(f"journal files: {summary.journal_files}, units: ")
    kept = int(lines[3].split(": ")[1].split()[0])
    assert kept > 0
