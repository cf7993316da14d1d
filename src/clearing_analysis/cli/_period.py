"""`--since` and `--until` of every command that replays a history (analyze, explore, replay):
the period to analyze (inputs.period parses them; a bad value is INPUT_INVALID, never echoed)."""

from __future__ import annotations

from typing import Annotated

import typer

Since = Annotated[
    str | None,
    typer.Option(
        "--since",
        metavar="DATE",
        help="Leave out what came before this ISO date or date and time (UTC unless an offset"
        " is given): boundaries, requests and compactions are skipped and counted.",
    ),
]
Until = Annotated[
    str | None,
    typer.Option(
        "--until",
        metavar="DATE",
        help="Leave out what came from this ISO date and time on; a date alone includes that"
        " whole day (UTC unless an offset is given).",
    ),
]

__all__ = ["Since", "Until"]
