"""The `clearing-analysis` console script: the CLI, with a Ctrl-C during its own start turned
into the fixed line too.

The CLI's imports (typer, the commands) take a few tenths of a second, before
`cli._exit.run_guarded` can turn an interrupt into `clearing-analysis: INTERRUPTED` and exit
130. This module imports nothing of its own, so that an interrupt while the CLI is imported
ends the same way instead of in the interpreter's traceback (R-REL-1). Only the interpreter's
own start, before this module runs, is left: there SIGINT still has its default action, and
the process ends without a word.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Import the CLI and run it; an interrupt while importing it is INTERRUPTED, exit 130."""
    try:
        from clearing_analysis.cli import main as run  # noqa: PLC0415
    except KeyboardInterrupt:
        sys.stderr.write("clearing-analysis: INTERRUPTED\n")
        raise SystemExit(130) from None
    run()
