"""`clearing-analysis demo`: the first thing a new user runs (R-CLI-6).

Generates two embedded synthetic corpora (fixed seeds and profiles) in a temporary directory,
qualifies and analyzes them, and prints what the analyzer concludes (pipeline.demo): a
realistic mix that rightly DEFERs, then a history shape that clearing helps, reaching BUILD.
Nothing is written outside the temporary directory, which is removed afterwards, but the two
pages `--html DIR` asks for (created exclusively in DIR, checked before any work, and named
only after the text is printed: both or neither, R-REL-6).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from clearing_analysis.cli._app import app
from clearing_analysis.cli._command import Command
from clearing_analysis.cli._exit import fatal
from clearing_analysis.cli._options import By, Details
from clearing_analysis.cli._requests import request_from
from clearing_analysis.cli.synth import ProfileName
from clearing_analysis.codes.errors import AnalysisError
from clearing_analysis.inputs.requests import DEMO_PAGES, DemoRequest
from clearing_analysis.pipeline.demo import DEMO_CONVERSATIONS, DEMO_PROFILE, DEMO_SEED


@app.command(
    cls=Command.for_request(DemoRequest),
    short_help="Generate and analyze two small synthetic corpora.",
)
def demo(  # noqa: PLR0917  (typer maps each option to a parameter)
    ctx: typer.Context,
    seed: Annotated[
        int, typer.Option("--seed", help="Seed of the first (realistic) corpus.")
    ] = DEMO_SEED,
    conversations: Annotated[
        int,
        typer.Option("--conversations", min=1, help="Logical conversations of the first corpus."),
    ] = DEMO_CONVERSATIONS,
    profile: Annotated[
        ProfileName,
        typer.Option("--profile", help="Profile of the first corpus (docs/synthetic-corpus.md)."),
    ] = ProfileName[DEMO_PROFILE],
    details: Details = False,
    by: By = None,
    html_dir: Annotated[
        Path | None,
        typer.Option(
            "--html",
            help="An existing directory: also create the two parts' HTML pages in it"
            f" ({', '.join(DEMO_PAGES)}).",
        ),
    ] = None,
) -> None:
    """Generate two small synthetic corpora in a temporary directory and analyze them: a
    realistic mix (DEFER), then a history shape clearing helps (BUILD)."""
    from rich.console import Console  # noqa: PLC0415

    from clearing_analysis.inputs.output import NO_INPUTS, create_all, stdout_bytes  # noqa: PLC0415
    from clearing_analysis.pipeline.demo import prepare_demo  # noqa: PLC0415

    request = request_from(DemoRequest, ctx.params)
    width = Console().width if sys.stdout.isatty() else 80
    try:
        with tempfile.TemporaryDirectory(prefix="clearing-demo-") as scratch:
            prepared = prepare_demo(Path(scratch), request, width=width)
        # The pages and the text are one whole (R-REL-6): the pages are named after the text.
        create_all(prepared.pages, NO_INPUTS, stdout=stdout_bytes(prepared.text))
    except AnalysisError as error:  # an --html page that may not be created
        fatal(error)
