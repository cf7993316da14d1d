"""The typer application object every command module registers on (with `cls=Command`)."""

from __future__ import annotations

import typer

from clearing_analysis.cli._command import Group

app = typer.Typer(
    name="clearing-analysis",
    help=(
        "Offline evidence gate: is tool-result clearing worth building for your pi-ai agent? "
        "Reads explicit copies of native journals and the tool-history sidecar; prints only "
        "fixed codes, counts, byte totals, histograms and modeled numbers."
    ),
    cls=Group,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@app.callback()
def _root() -> None:
    """Offline evidence gate for tool-result clearing (see README)."""
