"""The top-level `--help` at 80 columns: every command listed with its description whole."""

from __future__ import annotations

import os
import subprocess
import sys

import typer

from clearing_analysis.cli import app


def _top_level_help(columns: int) -> str:
    env = {**os.environ, "COLUMNS": str(columns), "TERM": "dumb"}
    done = subprocess.run(
        [sys.executable, "-m", "clearing_analysis.cli", "--help"],
        capture_output=True,
        env=env,
        check=True,
        timeout=60,
    )
    return done.stdout.decode()


def test_every_command_description_is_whole_at_80_columns() -> None:
    """Each command's line in the top-level help is its name and its whole short description
    (click cuts a long one to '...': none is), and no help line is wider than 80 columns."""
    text = _top_level_help(80)
    commands = typer.main.get_group(app).commands
    assert len(commands) >= 11
    listed = text.split("\nCommands:\n", 1)[1].splitlines()
    for name, command in commands.items():
        description = command.get_short_help_str(limit=1000)
        assert description and not description.endswith("..."), name
        (line,) = [entry for entry in listed if entry.split()[:1] == [name]]
        assert line.split(None, 1)[1] == description, name
    assert not any(line.endswith("...") for line in listed)
    assert max(len(line) for line in text.splitlines()) <= 80
