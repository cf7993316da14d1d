"""One place that turns failures into fixed lines and exit statuses (R-CLI-3, R-REL-1).

An `AnalysisError` prints one line on stderr, `clearing-analysis: <CODE> <DETAIL>: <remedy>`
(`remedies.failure_line`), and exits with its status. Anything else is an internal fault:
`ANALYZER_FAULT INTERNAL_ERROR`, exit 1, no traceback and no message text, since an exception
message could carry input text or a path. Ctrl-C is `INTERRUPTED`, exit 130.
"""

from __future__ import annotations

import sys
from typing import NoReturn

import typer

from clearing_analysis.errors import AnalysisError, FaultDetail
from clearing_analysis.remedies import PROGRAM, failure_line

EXIT_INTERRUPTED = 130


def fatal(error: AnalysisError) -> NoReturn:
    """Print the error's fixed line and exit with its status."""
    sys.stderr.write(failure_line(error))
    raise SystemExit(error.exit_status)


def run_guarded(app: typer.Typer) -> None:
    """Run the CLI so that no exception text or traceback can reach the terminal."""
    try:
        app(standalone_mode=True)
    except AnalysisError as error:
        fatal(error)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROGRAM}: INTERRUPTED\n")
        raise SystemExit(EXIT_INTERRUPTED) from None
    except BaseException:  # the fault code replaces any message
        fatal(AnalysisError(FaultDetail.INTERNAL_ERROR))
