"""The `clearing-analysis` command: a thin typer layer over the library.

Each command lives in its own module, parses arguments, calls one library function and maps
`AnalysisError` to a fixed line and exit status through `cli._exit.fatal`. Commands register
themselves on `app` (with `cls=Command`, cli._command) when their module is imported below;
only working commands are exposed. `main` runs the app through `cli._exit.run_guarded`, which
turns every usage error of any command into a fixed USAGE_ERROR line (cli._usage).
"""

from __future__ import annotations

from clearing_analysis.cli._app import app
from clearing_analysis.cli._exit import run_guarded

# Command modules (each registers on `app`).
from clearing_analysis.cli import demo as _demo  # noqa: F401  isort: skip
from clearing_analysis.cli import synth as _synth  # noqa: F401  isort: skip
from clearing_analysis.cli import qualify as _qualify  # noqa: F401  isort: skip
from clearing_analysis.cli import replay as _replay  # noqa: F401  isort: skip
from clearing_analysis.cli import analyze as _analyze  # noqa: F401  isort: skip
from clearing_analysis.cli import explore as _explore  # noqa: F401  isort: skip
from clearing_analysis.cli import show as _show  # noqa: F401  isort: skip
from clearing_analysis.cli import routes as _routes  # noqa: F401  isort: skip
from clearing_analysis.cli import keygen as _keygen  # noqa: F401  isort: skip
from clearing_analysis.cli import verify as _verify  # noqa: F401  isort: skip
from clearing_analysis.cli import explain as _explain  # noqa: F401  isort: skip


def main() -> None:
    """Console-script entry point."""
    run_guarded(app)


__all__ = ["app", "main"]
