"""One place that turns failures into fixed lines and exit statuses (R-CLI-3, R-REL-1).

An `AnalysisError` prints one line on stderr, `clearing-analysis: <CODE> <DETAIL>: <remedy>`
(`codes.table.failure_line`), and exits with its status. A usage error of any command is first
mapped to a fixed `USAGE_ERROR` detail (`cli._usage`), so click's own messages, which quote
what was typed, never reach the terminal. Anything else is an internal fault: `ANALYZER_FAULT
INTERNAL_ERROR`, exit 1, no traceback and no message text, since an exception message could
carry input text or a path. Ctrl-C (SIGINT) or SIGTERM is `INTERRUPTED`, exit 130; an
interrupt while a run's outputs are given their names takes them back first, and one after
they all have their names is too late to matter (`interrupts`, R-REL-6).

stdout is part of the result: a stdout that was closed before the command started is refused
before anything is read (`OUTPUT_REFUSED STDOUT_FAILED`: any file the command opened could
otherwise take descriptor 1 and receive what is printed), and a write or flush to it that fails
anywhere, from the command, rich or click, is that refusal too (`output.guard_stdout`); what
is still buffered is flushed before the command counts as done.

A complete analysis exits 0 whatever its verdict (R-CLI-3), unless `analyze --fail-on` asks
otherwise: then a verdict at or past the chosen one exits with that verdict's own status,
EXIT_DEFER or EXIT_STOP (`verdict_status`; docs/exit-codes.md says why 3 and 4).
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Sequence
from typing import NoReturn, TextIO, cast

import typer
from typer._click import exceptions as click_errors

from clearing_analysis import interrupts
from clearing_analysis.cli._usage import usage_error
from clearing_analysis.codes.errors import (
    EXIT_INCOMPLETE,
    AnalysisError,
    FaultDetail,
    OutputRefusedDetail,
    OutputRefusedError,
)
from clearing_analysis.codes.table import PROGRAM, failure_line
from clearing_analysis.inputs.output import StdoutGuard, guard_stdout

EXIT_INTERRUPTED = 130
# `analyze --fail-on`: a complete analysis (its report written) whose overall verdict the user
# asked to fail on. Distinct from 0, 1 (fault), 2 (refusal) and 130 (interrupt), and below
# 126, where shells begin their own meanings.
EXIT_DEFER = 3
EXIT_STOP = 4


class FailOn(enum.StrEnum):
    """The verdicts `analyze --fail-on` fails on: `stop` (STOP only) or `defer` (DEFER or
    STOP, i.e. anything but BUILD). STOP ranks past DEFER, as in the overall verdict."""

    STOP = "stop"
    DEFER = "defer"


def verdict_status(verdict: str, fail_on: FailOn | None) -> int:
    """The exit status of a complete analysis whose overall verdict is `verdict` (BUILD, DEFER
    or STOP, the gate's `Verdict` values: the CLI names them, it does not import the gate)."""
    if fail_on is None:
        return 0
    if verdict == "STOP":
        return EXIT_STOP
    if verdict == "DEFER" and fail_on is FailOn.DEFER:
        return EXIT_DEFER
    return 0


def fatal(error: AnalysisError) -> NoReturn:
    """Print the error's fixed line and exit with its status."""
    sys.stderr.write(failure_line(error))
    raise SystemExit(error.exit_status) from None


def _interrupted() -> NoReturn:
    sys.stderr.write(f"{PROGRAM}: INTERRUPTED\n")
    raise SystemExit(EXIT_INTERRUPTED) from None


def run_guarded(app: typer.Typer, args: Sequence[str] | None = None) -> None:
    """Run the CLI on `args` (default: the process's arguments) so that no exception text,
    traceback or echo of the command line can reach the terminal."""
    if sys.stdout is None:  # descriptor 1 was closed when the interpreter started
        fatal(OutputRefusedError(OutputRefusedDetail.STDOUT_FAILED))
    stdout = sys.stdout
    guard = guard_stdout(stdout)
    sys.stdout = cast(TextIO, guard)
    try:
        with interrupts.command():
            _run(app, args, guard)
    finally:
        sys.stdout = stdout


def _stdout_written(guard: StdoutGuard) -> None:
    """What is still buffered is part of the result; a failure anyone swallowed counts too."""
    guard.flush()
    if guard.failed:
        raise OutputRefusedError(OutputRefusedDetail.STDOUT_FAILED)


def _run(app: typer.Typer, args: Sequence[str] | None, guard: StdoutGuard) -> None:
    try:
        # Not standalone: click hands usage errors to us instead of printing them.
        status = app(args=None if args is None else list(args), standalone_mode=False)
        _stdout_written(guard)
    except click_errors.NoArgsIsHelpError as shown:
        shown.show()  # the help text alone (on stderr): nothing typed is in it
        raise SystemExit(EXIT_INCOMPLETE) from None
    except click_errors.UsageError as error:
        fatal(usage_error(error))
    except AnalysisError as error:
        fatal(error)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        _interrupted()
    except BaseException:  # the fault code replaces any message
        fatal(AnalysisError(FaultDetail.INTERNAL_ERROR))
    # In this mode typer returns the status of an exit instead of raising it: 0 after --help,
    # 130 for Ctrl-C inside a command (which it catches itself).
    if status == EXIT_INTERRUPTED:
        _interrupted()
    if isinstance(status, int) and status != 0:
        raise SystemExit(status)
