"""Run the real CLI entry (`run_guarded` over the real app) in this process, capturing output.

Usage errors stop before any command body runs, so an in-process run is as real as a
subprocess and much cheaper; the end-to-end tests (tests/e2e/) repeat the privacy-critical
cases in a fresh interpreter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from clearing_analysis.cli import app
from clearing_analysis.cli._exit import run_guarded
from clearing_analysis.codes.table import REMEDIES


@dataclass(frozen=True)
class Done:
    """Exit status and captured output of one run."""

    status: int
    stdout: str
    stderr: str


def invoke(args: Sequence[str], capsys: pytest.CaptureFixture[str]) -> Done:
    """`clearing-analysis ARGS` through the console script's own entry function."""
    capsys.readouterr()  # start from empty buffers
    try:
        run_guarded(app, list(args))
        status = 0
    except SystemExit as exited:
        assert isinstance(exited.code, int)
        status = exited.code
    captured = capsys.readouterr()
    return Done(status, captured.out, captured.err)


def usage_line(detail: str, option: str | None = None) -> str:
    """The exact USAGE_ERROR line: the table's remedy, `<option>` naming the declared option."""
    remedy = REMEDIES[("USAGE_ERROR", detail)]
    if option is not None:
        remedy = remedy.replace("<option>", option)
    return f"clearing-analysis: USAGE_ERROR {detail}: {remedy}\n"
