"""`clearing-analysis demo`: the first thing a new user runs (R-CLI-6).

Generates the embedded synthetic corpus (a fixed seed and profile) in a temporary directory,
then prints the human summary of what the analyzer sees in it. Nothing is written outside the
temporary directory, which is removed afterwards.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated

import typer

from clearing_analysis.cli._app import app
from clearing_analysis.cli._command import Command
from clearing_analysis.cli.synth import ProfileName
from clearing_analysis.demo import DEMO_CONVERSATIONS, DEMO_PROFILE, DEMO_SEED, run_demo


@app.command(cls=Command)
def demo(
    seed: Annotated[int, typer.Option("--seed", help="Seed of the embedded corpus.")] = DEMO_SEED,
    conversations: Annotated[
        int, typer.Option("--conversations", min=1, help="Logical conversations to generate.")
    ] = DEMO_CONVERSATIONS,
    profile: Annotated[
        ProfileName, typer.Option("--profile", help="Synthetic profile (docs/synthetic-corpus.md).")
    ] = ProfileName[DEMO_PROFILE],
) -> None:
    """Generate a small synthetic corpus in a temporary directory and summarize it."""
    with tempfile.TemporaryDirectory(prefix="clearing-demo-") as scratch:
        typer.echo(
            run_demo(Path(scratch), seed=seed, conversations=conversations, profile=profile.value)
        )
