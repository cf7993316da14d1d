"""`clearing-analysis keygen --out KEY`: an Ed25519 key pair for signed run attestations.

Creates KEY (the private key: unencrypted PKCS#8 PEM, mode exactly 0600) and KEY.pub (its
public key, PEM), both new files created exclusively under the rules of every `--out`, and
named together or not at all (R-REL-6). Prints nothing on success, so no secret
can reach a terminal or a CI log (docs/attestation.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from clearing_analysis.cli._app import app
from clearing_analysis.cli._command import Command
from clearing_analysis.cli._exit import fatal
from clearing_analysis.cli._requests import request_from
from clearing_analysis.codes.errors import AnalysisError
from clearing_analysis.inputs.requests import OutputRequest


@app.command(
    cls=Command.for_request(OutputRequest),
    short_help="Create an Ed25519 key pair for signing reports.",
)
def keygen(
    ctx: typer.Context,
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            readable=False,  # an existing name is OUTPUT_REFUSED, whatever its mode
            help="Create this new file for the private key (mode 0600); the public key goes"
            " to a new file beside it, the same name plus .pub.",
        ),
    ],
) -> None:
    """Create an Ed25519 key pair for `analyze --sign-key` and `verify --pubkey`: the private
    key (PEM, mode 0600) and its public key beside it (.pub). Prints nothing."""
    from clearing_analysis.attest.keys import write_key_pair  # noqa: PLC0415

    request = request_from(OutputRequest, ctx.params)
    if request.out is None:
        raise RuntimeError("--out is required")
    try:
        write_key_pair(request.out)
    except AnalysisError as error:
        fatal(error)
