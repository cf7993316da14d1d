"""`clearing-analysis explain [CODE [DETAIL]]`: what a code means and what to do about it.

A thin layer over `clearing_analysis.explain`: one code (a verdict, a reason, a limitation, a
refusal's code or detail), or a refusal's code and detail as its failure line prints them.
Alone, it lists every code. A word that is no code is USAGE_ERROR UNKNOWN_CODE (exit 2), and
the word is never printed: only the tables' own text is.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from clearing_analysis.cli._app import app
from clearing_analysis.cli._command import Command
from clearing_analysis.cli._exit import fatal
from clearing_analysis.codes.errors import UsageDetail, UsageError

MAX_WORDS = 2  # CODE, or CODE DETAIL as a failure line prints them


@app.command(cls=Command, short_help="Print what a code means and what to do about it.")
def explain(
    code: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[CODE [DETAIL]]",
            help="A code as the view or a failure line prints it (case does not matter);"
            " none: list every code.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Print what a code means and what to do about it: verdicts, DEFER and STOP reasons,
    limitations, skips and every refusal (docs/exit-codes.md, docs/model.md)."""
    from rich.console import Console  # noqa: PLC0415

    from clearing_analysis.explain import listing, lookup, render  # noqa: PLC0415

    width = Console().width if sys.stdout.isatty() else 80
    words = code or []
    if len(words) > MAX_WORDS:
        fatal(UsageError(UsageDetail.EXTRA_ARGUMENT))
    if not words:
        sys.stdout.write(listing(width))
        return
    found = lookup(words)
    if not found:
        fatal(UsageError(UsageDetail.UNKNOWN_CODE))
    sys.stdout.write(render(found, width))
