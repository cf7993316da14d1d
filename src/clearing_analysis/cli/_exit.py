"""One place that turns failures into fixed lines and exit statuses (R-CLI-3, R-REL-1).

An `AnalysisError` prints one line on stderr, `clearing-analysis: <CODE> <DETAIL>: <remedy>`
(`remedies.failure_line`), and exits with its status. A usage error of any command is first
mapped to a fixed `USAGE_ERROR` detail (`cli._usage`), so click's own messages, which quote
what was typed, never reach the terminal. Anything else is an internal fault: `ANALYZER_FAULT
INTERNAL_ERROR`, exit 1, no traceback and no message text, since an exception message could
carry input text or a path. Ctrl-C is `INTERRUPTED`, exit 130.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import NoReturn

import typer
from typer._click import exceptions as click_errors

from clearing_analysis.cli._usage import usage_error
from clearing_analysis.errors import EXIT_INCOMPLETE, AnalysisError, FaultDetail
from clearing_analysis.remedies import PROGRAM, failure_line

EXIT_INTERRUPTED = 130


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
    try:
        # Not standalone: click hands usage errors to us instead of printing them.
        status = app(args=None if args is None else list(args), standalone_mode=False)
    except click_errors.NoArgsIsHelpError as shown:
        shown.show()  # the help text alone: nothing typed is in it
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
