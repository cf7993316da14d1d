"""One run's outputs are one whole (R-REL-6): every file of a run is named only after all of
them and stdout are written, or none is.

Faults are real: strace fails one system call (an I/O error, a full disk) or delivers SIGINT or
SIGTERM at it, at every write, sync, open, chmod and link of a run's outputs (tests/e2e/_strace.py).
The exhaustive sweep runs a small program that writes three files and stdout through the
library (so that each of its many runs starts fast); `analyze`, `keygen` and `show` are then
tried through the CLI at the points where they used to leave files behind. A closed or full
stdout is OUTPUT_REFUSED STDOUT_FAILED, exit 2, and leaves nothing either.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from clearing_analysis.attest.keys import write_key_pair
from tests.e2e._cli import fixed_line
from tests.e2e._strace import Call, Traced, injected_call, run_traced
from tests.e2e._terminal import run_on_terminal
from tests.synth.corpora import corpus_options, make_corpus

INTERRUPTED = b"clearing-analysis: INTERRUPTED\n"
# Every call by which a file of the run, or stdout, is made, written, synced or named.
SYSCALLS = ("openat", "fchmod", "write", "fsync", "linkat")

# A run of three outputs and stdout, created by `create_all` as every command creates its
# outputs: a report (mode 0600, so that fchmod is among the calls), a page and a log, each a
# few KiB. It runs inside the CLI's interrupt scope and ends as the CLI's entry point does
# (the fixed line and exit 2, or INTERRUPTED and exit 130), but imports the library only, so
# that each of the many runs starts in a fraction of the CLI's time; the commands' own entry
# point is tried below (analyze, keygen, show).
_THREE_FILES = """
import sys
from pathlib import Path
from clearing_analysis import interrupts
from clearing_analysis.codes.errors import AnalysisError
from clearing_analysis.inputs.output import NO_INPUTS, NewFile, create_all
from clearing_analysis.codes.table import failure_line

where = Path(sys.argv[1])
try:
    with interrupts.command():
        create_all(
            [
                NewFile(where / "report.json", b"{}" * 2048, 0o600),
                NewFile(where / "report.html", b"<p>" * 2048),
                NewFile(where / "run.log", b"{}" * 512),
            ],
            NO_INPUTS,
            stdout=b"view" * 256,
        )
except AnalysisError as error:
    sys.stderr.write(failure_line(error))
    sys.exit(error.exit_status)
except KeyboardInterrupt:
    sys.stderr.write("clearing-analysis: INTERRUPTED\\n")
    sys.exit(130)
"""


def _python(code: str, *args: str | os.PathLike[str]) -> list[str]:
    """A fresh interpreter (isolated, writing no bytecode: the calls are the same every run)."""
    return [sys.executable, "-I", "-B", "-c", code, *(os.fspath(arg) for arg in args)]


def _cli(*args: str | os.PathLike[str]) -> list[str]:
    return _python("from clearing_analysis.cli import main\nmain()\n", *args)


@dataclass(frozen=True, slots=True)
class Point:
    """A call of the output phase, what it is, and the refusal an error there must give."""

    call: Call
    what: str
    detail: str
    errno: str = "EIO"

    def __str__(self) -> str:
        return f"{self.what} ({self.call.name} #{self.call.ordinal})"


def _output_points(calls: list[Call]) -> list[Point]:
    """Every call from the first unnamed open on that makes, writes, syncs or names an
    output: the unnamed opens, their chmod, writes and syncs, the write to stdout, the links
    and the directory syncs after them."""
    start = next(i for i, c in enumerate(calls) if c.name == "openat" and "O_TMPFILE" in c.args)
    unnamed: set[str] = set()
    linked = False
    points = []
    for call in calls[start:]:
        fd = call.argument(0)
        if call.name == "openat" and "O_TMPFILE" in call.args:
            unnamed.add(call.result)
            points.append(Point(call, "unnamed open", "OUTPUT_CREATE_FAILED"))
        elif call.name == "fchmod" and fd in unnamed:
            points.append(Point(call, "chmod", "OUTPUT_WRITE_FAILED"))
        elif call.name == "write" and fd in unnamed:
            points.append(Point(call, "file write", "OUTPUT_WRITE_FAILED", "ENOSPC"))
        elif call.name == "write" and fd == "1":
            points.append(Point(call, "stdout write", "STDOUT_FAILED", "ENOSPC"))
        elif call.name == "fsync":
            what = "directory sync" if linked else "file sync"
            points.append(Point(call, what, "OUTPUT_WRITE_FAILED"))
        elif call.name == "linkat":
            linked = True
            points.append(Point(call, "link", "OUTPUT_CREATE_FAILED"))
    return points


def _reference(command: Sequence[str], out: Path, *, stdout: int = subprocess.PIPE) -> Traced:
    """A run without a fault: it succeeds, and its trace gives the points to fail."""
    done = run_traced(command, syscalls=SYSCALLS, stdout=stdout)
    assert done.returncode == 0, done.stderr
    for entry in list(out.iterdir()):
        entry.unlink()
    return done


def _inject(
    command: Sequence[str], point: Point, action: str, *, stdout: int = subprocess.PIPE
) -> Traced:
    """`command` with `action` ("error": the point's errno, or "signal=SIG") at the point."""
    call = point.call
    action = f"error={point.errno}" if action == "error" else action
    done = run_traced(
        command,
        syscalls=[call.name],
        inject=f"{call.name}:{action}:when={call.ordinal}",
        stdout=stdout,
    )
    # The fault hit the call it was meant for (same arguments), not a neighbour.
    assert injected_call(done).startswith(f"{call.name}({call.args})"), (str(point), action)
    return done


def _expected(point: Point, action: str) -> tuple[int, bytes]:
    if action.startswith("signal="):
        return 130, INTERRUPTED
    return 2, fixed_line("OUTPUT_REFUSED", point.detail)


def _sweep(tmp_path: Path, actions: Sequence[str], kinds: Sequence[str] | None = None) -> int:
    """Fail every point (of `kinds`, default all) of the three-file run with each action;
    each run must end with its fixed line alone on stderr and leave its directory empty."""
    reference = tmp_path / "reference"
    reference.mkdir()
    points = _output_points(_reference(_python(_THREE_FILES, reference), reference).calls())
    assert [p.what for p in points].count("link") == 3
    assert [p.what for p in points].count("stdout write") == 1
    cases = [
        (point, action)
        for point in points
        for action in actions
        if kinds is None or point.what in kinds
    ]

    def one(numbered: tuple[int, tuple[Point, str]]) -> tuple[str, object, object]:
        number, (point, action) = numbered
        # A directory of its own, its path as long as the reference's (the calls are the same).
        out = tmp_path / f"case{number:05d}"[-len(reference.name) :]
        out.mkdir()
        done = _inject(_python(_THREE_FILES, out), point, action)
        left = sorted(entry.name for entry in out.iterdir())
        return (
            f"{point} {action}",
            (_expected(point, action), []),
            ((done.returncode, done.stderr), left),
        )

    # Two at a time: each run is a fresh interpreter with a directory of its own.
    with ThreadPoolExecutor(max_workers=2) as runs:
        for name, expected, got in runs.map(one, enumerate(cases)):
            assert got == expected, name
    return len(cases)


def test_an_error_or_interrupt_at_any_write_sync_or_link_of_a_run_leaves_nothing(
    tmp_path: Path,
) -> None:
    """At each of the run's unnamed opens, its chmod, every write, every file sync, the write
    to stdout, every link and the directory sync, an I/O error (ENOSPC for writes) or SIGINT:
    exit 2 with that step's fixed line alone, or 130 with the INTERRUPTED line alone, and none
    of the three files is left, also when the fault strikes after some already had names."""
    assert _sweep(tmp_path, ["error", "signal=SIGINT"]) == 2 * 15


def test_sigterm_is_an_interrupt_too(tmp_path: Path) -> None:
    """SIGTERM (what `podman stop` and `timeout` send) at the last link and at the directory
    sync: the same INTERRUPTED line and exit 130, nothing left."""
    reference = tmp_path / "reference"
    reference.mkdir()
    points = _output_points(_reference(_python(_THREE_FILES, reference), reference).calls())
    links = [point for point in points if point.what == "link"]
    sync = next(point for point in points if point.what == "directory sync")
    for number, point in enumerate([links[-1], sync]):
        out = tmp_path / f"term{number}"
        out.mkdir()
        done = _inject(_python(_THREE_FILES, out), point, "signal=SIGTERM")
        assert (done.returncode, done.stderr, list(out.iterdir())) == (130, INTERRUPTED, [])


@pytest.fixture(scope="module")
def signed_inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], Path]:
    """A small corpus (one journal) and a key pair: the options of `analyze` and the key."""
    corpus = make_corpus(tmp_path_factory, "build", 1)
    key = tmp_path_factory.mktemp("key") / "run.key"
    write_key_pair(key)
    return [*corpus_options(corpus), "--workers", "1"], key


def _names_by_fd(calls: list[Call]) -> dict[str, str]:
    """Each unnamed file's descriptor -> the name its link gives it."""
    names = {}
    for call in calls:
        if call.name == "linkat":
            fd = call.argument(1).strip('"').removeprefix("/proc/self/fd/")
            names[fd] = call.argument(3).strip('"')
    return names


def test_analyze_interrupted_at_the_attestation_s_link_leaves_nothing(
    signed_inputs: tuple[list[str], Path], tmp_path: Path
) -> None:
    """`analyze --out --html --log-file --sign-key`, SIGINT as the attestation (the second
    file) is linked, after the report: this used to leave the attestation without its report
    behind an exit 130; now the report's name is taken back too, and nothing is left."""
    options, key = signed_inputs
    out = tmp_path / "out"
    out.mkdir()
    command = _cli(
        "analyze",
        *options,
        "--out",
        out / "r.json",
        "--html",
        out / "r.html",
        "--log-file",
        out / "run.log",
        "--sign-key",
        key,
    )
    # The run's links are its only ones: the second names the attestation.
    done = run_traced(command, syscalls=["linkat"], inject="linkat:signal=SIGINT:when=2")
    assert '"r.json.intoto.jsonl"' in injected_call(done)
    assert (done.returncode, done.stderr, list(out.iterdir())) == (130, INTERRUPTED, [])


def test_stdout_comes_before_the_names_and_a_failing_log_or_stdout_leaves_nothing(
    signed_inputs: tuple[list[str], Path], tmp_path: Path
) -> None:
    """`analyze --html --log-file` printing the JSON report: both files are written and synced
    unnamed, then stdout, then both are linked (docs/security.md). A full disk on the log (the
    last file) used to leave the page behind an exit 2, and so did a full stdout (/dev/full):
    now OUTPUT_WRITE_FAILED, STDOUT_FAILED, and nothing is left. `show` of the report on a full
    stdout is STDOUT_FAILED too (it was ANALYZER_FAULT, exit 1)."""
    options, _key = signed_inputs
    out = tmp_path / "out"
    out.mkdir()
    command = _cli("analyze", *options, "--html", out / "r.html", "--log-file", out / "run.log")
    traced = _reference(command, out)
    calls = traced.calls()
    points = _output_points(calls)
    kinds = [point.what for point in points]
    last_file_step = max(i for i, k in enumerate(kinds) if k in {"file write", "file sync"})
    stdout_writes = [i for i, k in enumerate(kinds) if k == "stdout write"]
    first_link = kinds.index("link")
    assert last_file_step < min(stdout_writes) <= max(stdout_writes) < first_link, kinds
    assert kinds[first_link:] == ["link", "link", "directory sync"]
    names = _names_by_fd(calls)
    log_write = next(
        p for p in points if p.what == "file write" and names[p.call.argument(0)] == "run.log"
    )
    done = _inject(command, log_write, "error")
    assert (done.returncode, done.stderr, list(out.iterdir())) == (
        2,
        fixed_line("OUTPUT_REFUSED", "OUTPUT_WRITE_FAILED"),
        [],
    )
    report = tmp_path / "report.json"
    report.write_bytes(traced.stdout)
    stderr = fixed_line("OUTPUT_REFUSED", "STDOUT_FAILED")
    with Path("/dev/full").open("wb") as full:
        done = subprocess.run(command, stdout=full, stderr=subprocess.PIPE, check=False)
        assert (done.returncode, done.stderr, list(out.iterdir())) == (2, stderr, [])
        shown = subprocess.run(
            _cli("show", report), stdout=full, stderr=subprocess.PIPE, check=False
        )
        assert (shown.returncode, shown.stderr) == (2, stderr)


def _stdout_closed(command: list[str]) -> subprocess.CompletedProcess[bytes]:
    """`command` with descriptor 1 closed (as `>&-` in a shell)."""
    return subprocess.run(
        ["sh", "-c", 'exec "$@" >&-', "sh", *command],
        stderr=subprocess.PIPE,
        check=False,
        timeout=120,
    )


def test_a_closed_stdout_is_refused_before_anything_is_read(
    signed_inputs: tuple[list[str], Path], tmp_path: Path
) -> None:
    """stdout closed before the command starts: `analyze --out` and `show` used to end in
    ANALYZER_FAULT (exit 1); now OUTPUT_REFUSED STDOUT_FAILED, exit 2, before any work (a
    file the run opened could otherwise take descriptor 1), and nothing is created."""
    options, _key = signed_inputs
    out = tmp_path / "out"
    out.mkdir()
    stderr = fixed_line("OUTPUT_REFUSED", "STDOUT_FAILED")
    done = _stdout_closed(_cli("analyze", *options, "--out", out / "r.json"))
    assert (done.returncode, done.stderr, list(out.iterdir())) == (2, stderr, [])
    report = tmp_path / "report.json"
    report.write_bytes(b"{}")  # never read: the refusal comes first
    shown = _stdout_closed(_cli("show", report, "--html", out / "r.html"))
    assert (shown.returncode, shown.stderr, list(out.iterdir())) == (2, stderr, [])


def test_keygen_leaves_both_keys_or_neither(tmp_path: Path) -> None:
    """`keygen --out KEY`: an I/O error or SIGINT at the second link (KEY.pub), after KEY was
    named, leaves neither file."""
    out = tmp_path / "keys"
    out.mkdir()
    command = _cli("keygen", "--out", out / "k")
    points = _output_points(_reference(command, out).calls())
    second_link = [point for point in points if point.what == "link"][1]
    for action in ("error", "signal=SIGINT"):
        done = _inject(command, second_link, action)
        assert ((done.returncode, done.stderr), list(out.iterdir())) == (
            _expected(second_link, action),
            [],
        ), action


def test_on_a_terminal_the_view_and_every_file_are_written(
    signed_inputs: tuple[list[str], Path], tmp_path: Path
) -> None:
    """`analyze --html --log-file` with stdout on a terminal: the human view is printed and
    both files are created (the page was silently left out when the view went to a terminal
    without --out); the page is the one `show --html` makes of the report."""
    options, _key = signed_inputs
    out = tmp_path / "out"
    out.mkdir()
    args = ["analyze", *options, "--html", out / "r.html", "--log-file", out / "run.log"]
    status, view = run_on_terminal(args, columns=100, stderr_on_terminal=False)
    assert status == 0
    assert view.startswith("clearing-analysis ") and "Overall: " in view
    assert sorted(entry.name for entry in out.iterdir()) == ["r.html", "run.log"]
    assert (out / "r.html").read_bytes().startswith(b"<!DOCTYPE html>")
