"""Run the real `clearing-analysis` command on a pseudo-terminal of a given size.

The command sees a terminal on stdin, stdout and stderr (so it prints the human view, in
colour, laid out for the terminal's width, exactly as for a person at a shell); the window
size is set on the terminal itself (TIOCSWINSZ), not through COLUMNS, which is removed from
the environment. What it wrote is returned as text with the colour codes and the terminal's
carriage returns taken out.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from collections.abc import Sequence
from pathlib import Path

_MAIN = "from clearing_analysis.cli import main\nmain()\n"
# CSI sequences (colours, cursor) and OSC sequences (hyperlinks, titles).
_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


def run_on_terminal(
    args: Sequence[str | os.PathLike[str]],
    *,
    columns: int,
    rows: int = 24,
    cwd: Path | None = None,
    stderr_on_terminal: bool = True,
) -> tuple[int, str]:
    """`clearing-analysis ARGS` on a `columns` x `rows` pseudo-terminal: exit status and text.

    With `stderr_on_terminal=False` stderr is a pipe (no progress display), which must stay
    empty."""
    main, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in {"COLUMNS", "LINES", "NO_COLOR"}}
    env["TERM"] = "xterm-256color"
    process = subprocess.Popen(
        [sys.executable, "-I", "-c", _MAIN, *(os.fspath(a) for a in args)],
        stdin=terminal,
        stdout=terminal,
        stderr=terminal if stderr_on_terminal else subprocess.PIPE,
        cwd=cwd,
        env=env,
        start_new_session=True,
    )
    os.close(terminal)
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: every writer closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    status = process.wait(timeout=120)
    if process.stderr is not None:
        errors = process.stderr.read()
        process.stderr.close()
        if errors:
            raise AssertionError("the command wrote to stderr")
    text = b"".join(chunks).decode("utf-8")
    return status, _ESCAPES.sub("", text).replace("\r\n", "\n").replace("\r", "")


__all__ = ["run_on_terminal"]
