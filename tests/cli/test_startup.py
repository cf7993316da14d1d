"""Start-up stays light (issue: `--help` and small runs start fast): the CLI loads the library,
polars, rich and structlog only when a command runs, not to parse arguments or print help."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e._cli import run_cli

HEAVY = (
    "polars",
    "rich",
    "structlog",
    "clearing_analysis.jobs",
    "clearing_analysis.units",
    "clearing_analysis.eligibility",
    "clearing_analysis.synth.corpus",
    "clearing_analysis.qualify.runner",
    "clearing_analysis.report",
    "clearing_analysis.pisession",
    "clearing_analysis.replay",
)


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["analyze", "--help"],
        ["explore", "--help"],
        ["explore"],
        ["replay", "--help"],
        ["demo", "--help"],
        ["synth"],
    ],
)
def test_help_and_usage_errors_load_nothing_heavy(args: list[str], tmp_path: Path) -> None:
    """The modules loaded by the time the process exits include none of the heavy ones."""
    modules = tmp_path / "modules.json"
    prelude = (
        "import atexit, json, sys\n"
        f"_to = {str(modules)!r}\n"
        "atexit.register(lambda: open(_to, 'w').write(json.dumps(sorted(sys.modules))))\n"
    )
    done = run_cli(args, prelude=prelude)
    assert done.returncode in (0, 2)
    loaded = json.loads(modules.read_text())
    assert "typer" in loaded  # not vacuous: the CLI did load
    assert [m for m in loaded if m.split(".")[0] in HEAVY or m.startswith(HEAVY)] == []
