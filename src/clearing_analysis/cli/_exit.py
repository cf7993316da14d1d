"""One place that turns failures into fixed codes and exit statuses (R-CLI-3, R-REL-1).

An `AnalysisError` prints its code alone on stderr and exits with its status. Anything else
is an internal fault: `ANALYZER_FAULT`, exit 1, no traceback and no message text, since an
exception message could carry input text or a path.
"""

from __future__ import annotations

import sys
from typing import NoReturn

import typer

from clearing_analysis.errors import EXIT_FAULT, AnalysisError


def fatal(error: AnalysisError) -> NoReturn:
    """Print the error's fixed code and exit with its status."""
    sys.stderr.write(f"clearing-analysis: {error.code}\n")
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
        sys.stderr.write("clearing-analysis: INTERRUPTED\n")
        raise SystemExit(130) from None
    except BaseException:  # the fault code replaces any message
        sys.stderr.write("clearing-analysis: ANALYZER_FAULT\n")
        raise SystemExit(EXIT_FAULT) from None
