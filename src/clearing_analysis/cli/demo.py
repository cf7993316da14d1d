"""`clearing-analysis demo`: the first thing a new user runs."""

from __future__ import annotations

import typer

from clearing_analysis.cli._app import app


@app.command()
def demo() -> None:
    """Build a small synthetic corpus in a temporary directory and summarize it."""
    typer.echo("demo: the synthetic corpus generator is not built yet")
