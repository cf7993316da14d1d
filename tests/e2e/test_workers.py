"""Pool workers end with their parent and print nothing (R-REL-6).

`analyze --workers 2` in a session of its own, interrupted as a terminal does (SIGINT to the
whole process group) while its workers start and while they work, or its parent killed
outright (SIGKILL) while they start. Every time: exactly the fixed line on stderr (nothing at
all after SIGKILL), no process of the group left (workers, multiprocessing's resource tracker)
soon after, stderr closed by every process that held it, no output file, and no semaphore of
the pool left in /dev/shm. The moments are read from /proc, not guessed: a worker "starts"
once its interpreter handles or ignores SIGINT, and "works" once it has the sidecar open.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.synth.corpora import corpus_options, make_corpus

INTERRUPTED = b"clearing-analysis: INTERRUPTED\n"
# How long the processes of a run may outlive its parent (a worker still importing when its
# parent dies leaves as soon as it may run anything: its first step).
GONE_WITHIN_S = 15.0
_SIGINT_BIT = 1 << (signal.SIGINT - 1)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four independent journals (13 MB): four units, enough work for two workers."""
    return make_corpus(tmp_path_factory, "build", 4)


def _stat_fields(pid: int) -> list[str] | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2 :].split()


def _group(pgid: int) -> list[int]:
    """The live processes of the process group (zombies are dead: they hold nothing)."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(int(entry.name))
            if fields is not None and int(fields[2]) == pgid and fields[0] != "Z":
                members.append(int(entry.name))
    return members


def _children(parent: int) -> list[int]:
    return [pid for pid in _group(parent) if (_stat_fields(pid) or ["", "0"])[1] == str(parent)]


def _signals(pid: int, field: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1], 16)
    except OSError:
        pass
    return 0


def _workers(parent: int) -> list[int]:
    """The parent's children that run a pool worker (not the resource tracker)."""
    workers = []
    for pid in _children(parent):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"spawn_main" in command:
            workers.append(pid)
    return workers


def _wait_for(condition: Callable[[], bool], what: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        assert process.poll() is None, f"the run ended before {what}"
        assert time.monotonic() < deadline, f"no {what} within 60 s"
        time.sleep(0.002)


def _started(parent: int) -> bool:
    """Two workers whose interpreters have come so far as to handle (or ignore) SIGINT."""
    workers = _workers(parent)
    return len(workers) == 2 and all(
        (_signals(pid, "SigCgt") | _signals(pid, "SigIgn")) & _SIGINT_BIT for pid in workers
    )


def _working(parent: int, sidecar: Path) -> bool:
    """A worker has the sidecar open: it replays a unit."""
    for pid in _workers(parent):
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                if fd.readlink() == sidecar:
                    return True
            except OSError:
                continue
    return False


def _semaphores(pid: int) -> set[str]:
    """The named semaphores (/dev/shm/sem.*) the process has mapped."""
    try:
        maps = Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return set()
    return {line.split()[-1] for line in maps.splitlines() if "/dev/shm/sem." in line}


def _start(corpus: Path, out: Path) -> subprocess.Popen[bytes]:
    """`analyze --workers 2 --out --log-file` in a session (and process group) of its own."""
    return subprocess.Popen(
        [
            sys.executable,
            "-I",
            "-c",
            "from clearing_analysis.cli import main\nmain()\n",
            "analyze",
            *corpus_options(corpus),
            "--workers",
            "2",
            "--out",
            str(out / "r.json"),
            "--log-file",
            str(out / "run.log"),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def _read_until_closed(process: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """stdout and stderr, read until every process holding them has closed them."""
    assert process.stdout is not None and process.stderr is not None
    open_fds = [process.stdout.fileno(), process.stderr.fileno()]
    read: dict[int, bytes] = dict.fromkeys(open_fds, b"")
    deadline = time.monotonic() + GONE_WITHIN_S
    while open_fds:
        left = deadline - time.monotonic()
        assert left > 0, "stdout or stderr still held open by a process of the run"
        ready, _, _ = select.select(open_fds, [], [], left)
        for fd in ready:
            chunk = os.read(fd, 65536)
            if chunk:
                read[fd] += chunk
            else:
                open_fds.remove(fd)
    stdout, stderr = read[process.stdout.fileno()], read[process.stderr.fileno()]
    process.stdout.close()
    process.stderr.close()
    return stdout, stderr


def _assert_all_gone(pgid: int, semaphores: set[str]) -> None:
    deadline = time.monotonic() + GONE_WITHIN_S
    while _group(pgid):
        assert time.monotonic() < deadline, f"processes left: {_group(pgid)}"
        time.sleep(0.02)
    assert semaphores, "the pool had no semaphore to check"
    assert [name for name in semaphores if Path(name).exists()] == []


@pytest.mark.parametrize("delay", [0.0, 0.2], ids=["at-once", "200ms"])
def test_ctrl_c_while_the_workers_start(corpus: Path, tmp_path: Path, delay: float) -> None:
    """SIGINT to the process group just as both workers' interpreters are up (and a little
    later, while they import): the parent's INTERRUPTED line alone (no worker's traceback),
    exit 130, nothing left."""
    out = tmp_path / "out"
    out.mkdir()
    process = _start(corpus, out)
    _wait_for(lambda: _started(process.pid), "worker start", process)
    semaphores = _semaphores(process.pid)
    time.sleep(delay)
    os.killpg(process.pid, signal.SIGINT)
    stdout, stderr = _read_until_closed(process)
    assert (process.wait(), stderr, stdout) == (130, INTERRUPTED, b"")
    _assert_all_gone(process.pid, semaphores)
    assert list(out.iterdir()) == []


def test_ctrl_c_while_the_workers_work(corpus: Path, tmp_path: Path) -> None:
    """SIGINT to the process group once a worker replays a unit: the workers ignore it, the
    parent ends them at once; the INTERRUPTED line alone, exit 130, nothing left."""
    out = tmp_path / "out"
    out.mkdir()
    process = _start(corpus, out)
    _wait_for(lambda: _working(process.pid, corpus / "history.sqlite"), "unit work", process)
    semaphores = _semaphores(process.pid)
    os.killpg(process.pid, signal.SIGINT)
    stdout, stderr = _read_until_closed(process)
    assert (process.wait(), stderr, stdout) == (130, INTERRUPTED, b"")
    _assert_all_gone(process.pid, semaphores)
    assert list(out.iterdir()) == []


def test_the_parent_killed_while_the_workers_start(corpus: Path, tmp_path: Path) -> None:
    """SIGKILL of the parent alone while its workers start (they used to stay for minutes,
    with the resource tracker, holding the caller's stderr and the sidecar): the workers die
    with it, the tracker cleans up after them (no semaphore left) without a word, stderr is
    closed by all of them and empty, nothing is created."""
    out = tmp_path / "out"
    out.mkdir()
    process = _start(corpus, out)
    _wait_for(lambda: _started(process.pid), "worker start", process)
    semaphores = _semaphores(process.pid)
    process.kill()
    stdout, stderr = _read_until_closed(process)
    assert (process.wait(), stderr, stdout) == (-signal.SIGKILL, b"", b"")
    _assert_all_gone(process.pid, semaphores)
    assert list(out.iterdir()) == []
