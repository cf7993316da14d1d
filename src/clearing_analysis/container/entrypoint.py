"""The image's entrypoint: check the mount contract, then become `clearing-analysis` (R-CT-2).

Guarantees:
- Before any command runs, the contract (`container.contract`) is checked for the paths the
  command line names. On a violation one line goes to stderr, the CLI's own failure line
  (`codes.table.failure_line`: `clearing-analysis: <CODE> <DETAIL>: <remedy>`, all fixed text,
  never a path), and the process exits with the code's status (2). Any unexpected failure is
  `ANALYZER_FAULT INTERNAL_ERROR`, exit 1, with no message text.
- Otherwise the process image is replaced (exec) by the `clearing-analysis` console script of
  the same environment with the same arguments, so exit status, stdout and stderr are exactly
  the CLI's own. Its environment is this one plus the marker of `container.sealed`
  (`CLEARING_ANALYSIS_MOUNT_CONTRACT=checked-by-entrypoint`, any given value replaced), which
  makes a signed `analyze` check the contract again and state `mountContract: HELD`.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from clearing_analysis.codes.errors import AnalysisError, FaultDetail
from clearing_analysis.codes.table import PROGRAM, failure_line
from clearing_analysis.container.arguments import contract_paths
from clearing_analysis.container.contract import check_this_container
from clearing_analysis.container.sealed import entrypoint_environment

CLI_NAME = PROGRAM


def _cli_executable() -> str:
    beside = Path(sys.executable).parent / CLI_NAME
    if beside.is_file():
        return os.fspath(beside)
    found = shutil.which(CLI_NAME)
    if found is None:
        raise RuntimeError("console script missing: broken installation")
    return found


def _fail(error: AnalysisError) -> NoReturn:
    sys.stderr.write(failure_line(error))
    raise SystemExit(error.exit_status) from None


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """Check the contract for `argv` (default: this process's arguments), then exec the CLI."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        check_this_container(contract_paths(arguments))
        executable = _cli_executable()
    except AnalysisError as error:
        _fail(error)
    except Exception:  # the fault code replaces any message
        _fail(AnalysisError(FaultDetail.INTERNAL_ERROR))
    sys.stderr.flush()
    environment = entrypoint_environment(os.environ)
    # A fixed program; the arguments are passed on as given.
    os.execve(executable, [CLI_NAME, *arguments], environment)  # noqa: S606
