"""The console script's entry (`clearing_analysis.entry`): a Ctrl-C while the CLI itself is
still being imported is the INTERRUPTED line and exit 130, not the interpreter's traceback."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

# A real SIGINT, raised at this process as the CLI's first heavy import (typer) starts.
_INTERRUPT_DURING_IMPORT = """
import signal, sys
def _hook(event, args):
    if event == "import" and args[0] == "typer":
        signal.raise_signal(signal.SIGINT)
sys.addaudithook(_hook)
from clearing_analysis.entry import main
main()
"""


def test_the_console_script_is_the_entry() -> None:
    """`clearing-analysis` runs `clearing_analysis.entry:main`, which imports the CLI itself."""
    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    assert project["project"]["scripts"] == {"clearing-analysis": "clearing_analysis.entry:main"}


def test_ctrl_c_while_the_cli_is_imported_is_interrupted() -> None:
    """SIGINT during the CLI's imports: exit 130 and the one INTERRUPTED line, nothing else."""
    done = subprocess.run(
        [sys.executable, "-I", "-c", _INTERRUPT_DURING_IMPORT, "--help"],
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert (done.returncode, done.stderr, done.stdout) == (
        130,
        b"clearing-analysis: INTERRUPTED\n",
        b"",
    )
