"""`clearing-analysis verify REPORT --pubkey KEY.pub`: is the report the one that was signed?

Reads the report, `REPORT.intoto.jsonl` beside it and the public key; checks the envelope, the
signature and the report's SHA-256 (`attest.verify`). Success is exit 0 and one fixed line on
stdout; any refusal is one fixed `VERIFY_FAILED` line on stderr, exit 2. Nothing of the report,
the key or the envelope is ever printed, and nothing is written (docs/attestation.md).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Final

import typer

from clearing_analysis.cli._app import app
from clearing_analysis.cli._command import Command
from clearing_analysis.cli._exit import fatal
from clearing_analysis.cli._requests import request_from
from clearing_analysis.codes.errors import AnalysisError
from clearing_analysis.codes.table import PROGRAM
from clearing_analysis.inputs.requests import VerifyRequest

VERIFIED: Final = f"{PROGRAM}: VERIFIED: the report is unchanged since this key signed it\n"
VERIFIED_SEALED: Final = (
    f"{PROGRAM}: VERIFIED: the report is unchanged since this key signed it in a sealed run\n"
)


@app.command(
    cls=Command.for_request(VerifyRequest),
    short_help="Check a signed report's attestation offline.",
)
def verify(
    ctx: typer.Context,
    report: Annotated[
        Path,
        typer.Argument(
            metavar="<report.json>",
            readable=False,  # unreadable: REPORT_MISSING, a fixed code of verify's own
            help="A report written by `analyze --sign-key`, with its .intoto.jsonl beside it.",
        ),
    ],
    pubkey: Annotated[
        Path,
        typer.Option(
            "--pubkey",
            readable=False,  # unreadable: PUBKEY_MISSING
            help="The signer's public key (the .pub keygen wrote).",
        ),
    ],
    require_sealed: Annotated[
        bool,
        typer.Option(
            "--require-sealed",
            help="Also require that the signing run checked the mount contract and it held.",
        ),
    ] = False,
) -> None:
    """Check a signed report offline: its attestation's signature with the public key, and the
    report's SHA-256 against the signed statement. One fixed line; nothing else printed."""
    from clearing_analysis.attest.verify import verify_report  # noqa: PLC0415

    request = request_from(VerifyRequest, ctx.params)
    try:
        verify_report(request.report, request.pubkey, require_sealed=request.require_sealed)
    except AnalysisError as error:
        fatal(error)
    sys.stdout.write(VERIFIED_SEALED if require_sealed else VERIFIED)
