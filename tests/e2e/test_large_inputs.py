"""Large inputs finish or refuse with a fixed code within the memory bounds docs/security.md
states ("Memory a hostile input can cost"), through the real CLI at full size (R-REL-7).

Marked `scale`: `make fuzz` runs them (`pytest -m scale --scale`); `make test` runs the same
cases at reduced sizes elsewhere (tests/journal/test_bounded_lines.py: 8 MiB of 3-byte lines;
tests/inputs/test_paths.py: a tree 600 directories deep). Each run's peak RSS is the child's
own (`wait4`), compared with the same command on the small corpus alone, measured here too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests._seed_route import SEED_ROUTE
from tests.journal._build import HEADER, line
from tests.replay.builder import JournalBuilder, SidecarBuilder

pytestmark = pytest.mark.scale

MIB = 1 << 20
# What a large input may add to the peak RSS of the same run without it (docs/security.md).
BLOCK_BOUND = 32 * MIB  # a journal read a block at a time; a walk of any depth
PER_FILE_BOUND = 3 * 1024  # each selected file (its path, identity, two snapshot stamps)

_MAIN = (
    "import sys\nsys.argv = ['clearing-analysis', *sys.argv[1:]]\n"
    "from clearing_analysis.cli import main\nmain()\n"
)


# A small interpreter starts the command and waits for it: a child's peak RSS counts the pages
# it shared with its parent when it replaced itself, and this test's own process is large.
_LAUNCH = (
    "import os, sys\n"
    "pid = os.fork()\n"
    "if pid == 0:\n"
    "    devnull = os.open(os.devnull, os.O_WRONLY)\n"
    "    os.dup2(devnull, 1)\n"
    "    os.execv(sys.argv[1], sys.argv[1:])\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "print(os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024)\n"
)


def _peak(args: list[str]) -> tuple[int, bytes, int]:
    """(exit status, stderr, peak RSS in bytes) of `clearing-analysis ARGS`."""
    done = subprocess.run(
        [sys.executable, "-I", "-c", _LAUNCH, sys.executable, "-I", "-c", _MAIN, *args],
        capture_output=True,
        check=True,
        timeout=600,
    )
    status, peak = (int(field) for field in done.stdout.split())
    return status, done.stderr, peak


def _corpus(root: Path) -> list[str]:
    """A one-journal corpus that replays, and the analyze arguments for `root/journals`."""
    journals = root / "journals"
    journals.mkdir(parents=True)
    journal = JournalBuilder()
    run = journal.tool_turn("t0", [("c0", "read")])
    journal.close()
    journal.write(journals, "a.jsonl")
    sidecar = SidecarBuilder(root / "history.sqlite", capture_enabled=("p1",))
    sidecar.retain(("p1", "t0", run, "c0"), "result text c0")
    (root / "routes.json").write_text(json.dumps([SEED_ROUTE]))
    return [
        "analyze",
        "--journals",
        str(journals),
        "--sidecar",
        str(sidecar.finish()),
        "--routes",
        str(root / "routes.json"),
        "--workers",
        "1",
        "--json",
    ]


@pytest.fixture
def corpus(tmp_path: Path) -> tuple[list[str], int]:
    """The small corpus's arguments and the peak RSS of analyzing it alone."""
    args = _corpus(tmp_path / "corpus")
    status, stderr, peak = _peak(args)
    assert status == 0, stderr
    return args, peak


def test_100_mib_of_3_byte_lines(tmp_path: Path, corpus: tuple[list[str], int]) -> None:
    """A header and 100 MiB of 3-byte lines beside the corpus: exit 0 (the journal skipped
    INVALID), within a block's bound of the corpus alone (2.07 GB once)."""
    args, alone = corpus
    journals = Path(args[args.index("--journals") + 1])
    (journals / "tiny.jsonl").write_bytes(line(HEADER) + b"{}\n" * (100 * MIB // 3))
    status, stderr, peak = _peak(args)
    assert status == 0, stderr
    assert peak - alone <= BLOCK_BOUND, (alone, peak)


def test_a_tree_1500_directories_deep(tmp_path: Path, corpus: tuple[list[str], int]) -> None:
    """The corpus's journal copied 1,500 directories down (600 once ended in RecursionError,
    exit 1): exit 0, within a block's bound of the corpus alone."""
    args, alone = corpus
    journals = Path(args[args.index("--journals") + 1])
    deep = journals
    for _ in range(1500):  # one level at a time: makedirs recurses, a level a frame
        deep /= "d"
        deep.mkdir()
    (deep / "b.jsonl").write_bytes((journals / "a.jsonl").read_bytes())
    try:
        status, stderr, peak = _peak(args)
    finally:
        # Removed from the bottom up: shutil.rmtree (and pytest's clean-up) recurse a level
        # a frame, and 1,500 levels is beyond the interpreter's limit.
        (deep / "b.jsonl").unlink()
        while deep != journals:
            deep.rmdir()
            deep = deep.parent
    assert status == 0, stderr
    assert peak - alone <= BLOCK_BOUND, (alone, peak)


def test_100000_empty_files(tmp_path: Path, corpus: tuple[list[str], int]) -> None:
    """100,000 empty journal files beside the corpus: exit 0 (each skipped INVALID), within
    the per-file bound of the corpus alone."""
    args, alone = corpus
    journals = Path(args[args.index("--journals") + 1])
    files = 100_000
    for index in range(files):
        (journals / f"e{index:06d}.jsonl").touch()
    status, stderr, peak = _peak(args)
    assert status == 0, stderr
    assert peak - alone <= files * PER_FILE_BOUND, (alone, peak)
