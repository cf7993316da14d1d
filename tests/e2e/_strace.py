"""strace for the fault-injection tests: trace a command's system calls, then fail one of them
or deliver a signal at it (`strace -e inject=SYSCALL:error=E:when=N`, or `signal=SIG`).

The calls are real: the kernel's answer is replaced (or a real signal is sent) at exactly the
N-th call of that name, so the program under test runs unchanged. Each injected run's own trace
is read back, so a test can check the injection hit the call it meant (a command whose calls
shifted would otherwise be tested at the wrong point).

strace is Debian's `strace`; missing, the test is skipped, but fails in CI (CI=true), where
.ci/run installs it before `make test`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

TIMEOUT_S = 120
_CALL = re.compile(r"^(?P<name>\w+)\((?P<args>.*)\)\s+=\s+(?P<result>.*)$")
_PID = re.compile(r"^(?P<pid>\d+) +(?P<line>.*)$")


def strace() -> str:
    """Debian's strace; missing, the test is skipped, but fails in CI (CI=true), where
    .ci/run installs it before make test."""
    path = shutil.which("strace")
    if path is None:
        reason = "strace is not installed (apt-get install strace)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}: .ci/run installs it before make test")
        pytest.skip(reason)
    return path


@dataclass(frozen=True, slots=True)
class Call:
    """One traced system call: its name, arguments and result as strace prints them, and its
    place among the calls of that name (1 for the first), which `when=` counts."""

    name: str
    args: str
    result: str
    ordinal: int

    def argument(self, index: int) -> str:
        """The argument at `index`, split at top-level commas (enough for fds and names)."""
        return [part.strip() for part in self.args.split(",")][index]


@dataclass(frozen=True, slots=True)
class Traced:
    """A finished command: its exit status, stdout, stderr and its trace lines."""

    returncode: int
    stdout: bytes
    stderr: bytes
    lines: list[str]

    def calls(self) -> list[Call]:
        """Every complete call of the trace, numbered per name."""
        counts: dict[str, int] = {}
        calls = []
        for line in self.lines:
            match = _CALL.match(line)
            if match is None:
                continue
            name = match["name"]
            counts[name] = counts.get(name, 0) + 1
            calls.append(Call(name, match["args"], match["result"], counts[name]))
        return calls


def run_traced(
    command: Sequence[str | os.PathLike[str]],
    *,
    syscalls: Sequence[str],
    inject: str | None = None,
    stdout: int = subprocess.PIPE,
    cwd: Path | None = None,
) -> Traced:
    """Run `command` under strace, tracing `syscalls` (and injecting `inject`, strace's
    `SYSCALL:ACTION:when=N` form, if given)."""
    binary = strace()
    with tempfile.TemporaryDirectory(prefix="clearing-strace-") as scratch:
        log = Path(scratch) / "trace"
        # seccomp-bpf stops the command only at the traced calls, several times faster for a
        # command that makes many others (it needs -f; the lines then carry the pid). strace
        # 6.1 delivers no injected signal with it, so a signal is injected without.
        fast = inject is None or "signal=" not in inject
        options = ["-f", "--seccomp-bpf"] if fast else []
        options += ["-qq", "-o", str(log), "-e", "trace=" + ",".join(syscalls)]
        if inject is not None:
            options += ["-e", "inject=" + inject]
        done = subprocess.run(
            [binary, *options, *(os.fspath(part) for part in command)],
            stdout=stdout,
            stderr=subprocess.PIPE,
            check=False,
            cwd=cwd,
            timeout=TIMEOUT_S,
        )
        lines = log.read_text(errors="replace").splitlines()
    return Traced(done.returncode, done.stdout or b"", done.stderr, _own(lines) if fast else lines)


def _own(lines: list[str]) -> list[str]:
    """The lines of the command's own process (the trace's first pid: `when=` counts per
    process), without the pid."""
    own: list[str] = []
    first: str | None = None
    for line in lines:
        match = _PID.match(line)
        if match is None:
            continue
        first = first or match["pid"]
        if match["pid"] == first:
            own.append(match["line"])
    return own


def injected_call(traced: Traced) -> str:
    """The trace line of the call strace injected at: the one marked INJECTED (an error), or
    the one right before the first signal strace sent (SI_KERNEL)."""
    for index, line in enumerate(traced.lines):
        if line.endswith("(INJECTED)"):
            return line
        if line.startswith("--- SIG") and "si_code=SI_KERNEL" in line:
            return traced.lines[index - 1]
    raise AssertionError("strace injected nothing")
