"""`clearing-analysis synth`: write a seeded synthetic corpus into a new directory (R-CLI-6)."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated

import typer

from clearing_analysis.cli._app import app
from clearing_analysis.cli._command import Command
from clearing_analysis.cli._exit import fatal
from clearing_analysis.cli._requests import request_from
from clearing_analysis.codes.errors import AnalysisError, UsageDetail, UsageError
from clearing_analysis.inputs.requests import OutputRequest
from clearing_analysis.synth import DEFAULT_PROFILE, PROFILES

ProfileName = enum.StrEnum("ProfileName", {name: name for name in PROFILES})  # type: ignore[misc]


@app.command(
    cls=Command.for_request(OutputRequest),
    short_help="Write a synthetic corpus with its ground truth.",
)
def synth(  # noqa: PLR0917  (typer maps each option to a parameter)
    ctx: typer.Context,
    out: Annotated[Path, typer.Option("--out", help="New directory to create (must not exist).")],
    seed: Annotated[
        int, typer.Option("--seed", help="Seed: same seed, size, profile = same bytes.")
    ],
    conversations: Annotated[
        int | None, typer.Option("--conversations", min=1, help="Logical conversations to write.")
    ] = None,
    size_mb: Annotated[
        float | None,
        typer.Option("--size-mb", min=0.001, help="Write conversations until journals reach M MB."),
    ] = None,
    profile: Annotated[
        ProfileName, typer.Option("--profile", help="Corpus character (docs/synthetic-corpus.md).")
    ] = ProfileName[DEFAULT_PROFILE],
) -> None:
    """Write journals, sidecar, routes, agent-config, allowlist and a ground-truth manifest."""
    if (conversations is None) == (size_mb is None):
        raise UsageError(UsageDetail.EXCLUSIVE_OPTIONS, ("--conversations", "--size-mb"))
    directory = request_from(OutputRequest, ctx.params).out
    if directory is None:
        raise RuntimeError("--out is required")
    from clearing_analysis.synth import generate  # noqa: PLC0415  (loaded only to run)

    try:
        summary = generate(
            directory, seed, conversations=conversations, size_mb=size_mb, profile=profile.value
        )
    except AnalysisError as error:
        fatal(error)
    # Counts only (R-OUT-1): no path, id or text.
    typer.echo(
        f"synth: conversations={summary.conversations} journals={summary.journal_files}"
        f" replayed={summary.replayed_journals} journal_bytes={summary.journal_bytes}"
    )
