"""Becoming `clearing-analysis` once the mount contract held (R-CT-2): the exec half of the
image's entrypoint, whose check half parses the command line (cli.image).

Guarantees:
- `exec_cli` replaces the process image (exec) by the `clearing-analysis` console script of
  the same environment with the same arguments, so exit status, stdout and stderr are exactly
  the CLI's own. Its environment is this one plus the marker of `container.sealed`
  (`CLEARING_ANALYSIS_MOUNT_CONTRACT=checked-by-entrypoint`, any given value replaced), which
  makes a signed `analyze` check the contract again and state `mountContract: HELD`.
- `fail` prints the CLI's own failure line for a refusal (`codes.table.failure_line`:
  `clearing-analysis: <CODE> <DETAIL>: <remedy>`, all fixed text, never a path) and exits with
  the code's status.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from clearing_analysis.codes.errors import AnalysisError
from clearing_analysis.codes.table import PROGRAM, failure_line
from clearing_analysis.container.sealed import entrypoint_environment

CLI_NAME = PROGRAM


def cli_executable() -> str:
    """The console script beside this interpreter (or on PATH)."""
    beside = Path(sys.executable).parent / CLI_NAME
    if beside.is_file():
        return os.fspath(beside)
    found = shutil.which(CLI_NAME)
    if found is None:
        raise RuntimeError("console script missing: broken installation")
    return found


def fail(error: AnalysisError) -> NoReturn:
    """The refusal's fixed line on stderr, and its exit status."""
    sys.stderr.write(failure_line(error))
    raise SystemExit(error.exit_status) from None


def exec_cli(executable: str, arguments: Sequence[str]) -> NoReturn:
    """Replace this process by the CLI at `executable`, with `arguments` and the marker."""
    sys.stderr.flush()
    environment = entrypoint_environment(os.environ)
    # A fixed program; the arguments are passed on as given.
    os.execve(executable, [CLI_NAME, *arguments], environment)  # noqa: S606


__all__ = ["CLI_NAME", "cli_executable", "exec_cli", "fail"]
