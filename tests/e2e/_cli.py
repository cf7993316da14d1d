"""Run the real `clearing-analysis` command in a subprocess, and check what it left behind.

`run_cli` starts a fresh interpreter (so nothing imported by other tests can hide or cause a
leak) in isolated mode (`-I`: no current directory on sys.path and no PYTHON* variables, as
for the console script), runs `prelude` Python code, then the console-script entry point.
The prelude is how a test installs a library hook (e.g. `between_snapshots`) or an audit hook
without editing src/. Pool workers are spawned interpreters that do not run the prelude: a
`worker_prelude` is run in each of them by a launcher script that multiprocessing starts in
place of the interpreter (the same interpreter, `-I`), which then runs the worker's bootstrap
code exactly as the interpreter would have.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from clearing_analysis.codes.table import REMEDIES

Listing = list[tuple[str, int, int, int]]

_MAIN = "from clearing_analysis.cli import main\nmain()\n"

_LAUNCHER = """#!{python} -I
import sys
{prelude}
code = sys.argv[sys.argv.index("-c") + 1]
sys.argv = ["-c", *sys.argv[sys.argv.index("-c") + 2 :]]
exec(compile(code, "<spawn>", "exec"), {{"__name__": "__main__"}})
"""


def run_cli(
    args: Sequence[str | os.PathLike[str]],
    *,
    prelude: str = "",
    worker_prelude: str | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    stdout: int = subprocess.PIPE,
    address_space: int | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[bytes]:
    """`clearing-analysis ARGS` in a new interpreter; stdout and stderr captured as bytes
    (`stdout` may instead name a file descriptor the command writes to). `address_space`
    limits the command's virtual memory (RLIMIT_AS, bytes): an allocation beyond it fails."""

    def limit() -> None:
        if address_space is not None:
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    with tempfile.TemporaryDirectory() as scratch:
        if worker_prelude is not None:
            launcher = Path(scratch) / "launcher.py"
            launcher.write_text(_LAUNCHER.format(python=sys.executable, prelude=worker_prelude))
            launcher.chmod(0o700)
            prelude += (
                f"\nimport multiprocessing\nmultiprocessing.set_executable({str(launcher)!r})\n"
            )
        code = prelude + "\nimport sys\nsys.argv = ['clearing-analysis', *sys.argv[1:]]\n" + _MAIN
        return subprocess.run(
            [sys.executable, "-I", "-c", code, *(os.fspath(a) for a in args)],
            stdout=stdout,
            stderr=subprocess.PIPE,
            check=False,
            cwd=cwd,
            env=env,
            timeout=timeout,
            preexec_fn=limit if address_space is not None else None,
        )


def listing(root: Path) -> Listing:
    """Every entry under `root` with size, inode and mtime (to show nothing was created)."""
    out: Listing = []
    for path in sorted(root.rglob("*")):
        status = path.lstat()
        out.append((str(path.relative_to(root)), status.st_size, status.st_ino, status.st_mtime_ns))
    return out


def fixed_line(code: str, detail: str) -> bytes:
    """The only thing a failing command may print on stderr: code, detail and the remedy the
    one table (clearing_analysis.codes.table) holds for them."""
    return f"clearing-analysis: {code} {detail}: {REMEDIES[(code, detail)]}\n".encode()
