"""`clearing-analysis analyze`: the verdict per API, with the modeled evidence (R-CLI-1).

A thin layer over `jobs.analyze_job`. Where the report goes:
- stdout is a terminal and no `--json`: the human view (verdicts first, then each criterion
  against its threshold, then the evidence);
- otherwise (a pipe, a file, CI, or `--json`): the JSON report;
- `--out F`: the JSON report goes to F (created exclusively); a terminal still gets the human
  view on stdout.
- `--sign-key KEY` (requires `--out`): F's attestation, `F.intoto.jsonl`, is created beside it,
  signed with KEY (docs/attestation.md). The key, the attestation's output path and, inside the
  image, the mount contract are checked before any analysis work; `cryptography` loads only
  then.
The exit status is 0 for a complete analysis whatever the verdict, 2 for incomplete or invalid
inputs (R-CLI-3).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from clearing_analysis.cli._app import app
from clearing_analysis.cli._command import Command
from clearing_analysis.cli._exit import fatal
from clearing_analysis.errors import AnalysisError, UsageDetail, UsageError

if TYPE_CHECKING:
    from clearing_analysis.attest.keys import SigningKey
    from clearing_analysis.container.sealed import ContractStatus


@dataclass(frozen=True, slots=True)
class _Signing:
    """What a signed run checked before any work: the key, the names, the contract."""

    key: SigningKey
    subject: str
    attestation: Path
    contract: ContractStatus


def _prepare_signing(
    sign_key: Path, out: Path, inputs: list[Path], log_file: Path | None, sidecar: Path
) -> _Signing:
    """The signing run's up-front checks: subject name, mount contract, then the key."""
    from clearing_analysis.attest.keys import load_signing_key  # noqa: PLC0415
    from clearing_analysis.attest.sign import attestation_path, subject_name  # noqa: PLC0415
    from clearing_analysis.container.contract import ContractPaths  # noqa: PLC0415
    from clearing_analysis.container.sealed import contract_status  # noqa: PLC0415

    subject = subject_name(out)
    attestation = attestation_path(out)
    outputs = [out, attestation] if log_file is None else [out, attestation, log_file]
    # The key is an input: inside the image it must come from a read-only mount.
    contract = contract_status(
        ContractPaths(inputs=(*inputs, sign_key), outputs=tuple(outputs), sidecars=(sidecar,))
    )
    return _Signing(load_signing_key(sign_key), subject, attestation, contract)


@app.command(cls=Command.variadic("--journals"))
def analyze(  # noqa: PLR0917  (typer maps each option to a parameter)
    journals: Annotated[
        list[Path],
        typer.Option(
            "--journals",
            metavar="<path>...",
            help="Journal files or directories (recursive *.jsonl): one or more after the"
            " flag, or the flag repeated. Pass <root>/journals, not the root.",
        ),
    ],
    sidecar: Annotated[Path, typer.Option("--sidecar", help="Checkpointed sidecar SQLite file.")],
    routes: Annotated[Path, typer.Option("--routes", help="routes.json: one entry per API.")],
    qualification: Annotated[
        Path | None,
        typer.Option(
            "--qualification", help="Record from `qualify`; absent = PAYLOAD_UNQUALIFIED."
        ),
    ] = None,
    agent_config: Annotated[
        Path | None, typer.Option("--agent-config", help="Owner attestation of built-ins.")
    ] = None,
    app_allowlist: Annotated[
        Path | None, typer.Option("--app-allowlist", help="Reviewed read-only MCP app tools.")
    ] = None,
    retrieval_rate: Annotated[
        float,
        typer.Option(
            "--retrieval-rate",
            help="Expected share of cleared results retrieved again, in [0, 1] (default 0.05,"
            " pending lookup-pilot evidence); 0, 5% and 20% are always reported too.",
        ),
    ] = 0.05,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Create this new file for the JSON report instead of stdout."),
    ] = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the JSON report even on a terminal.")
    ] = False,
    log_file: Annotated[
        Path | None,
        typer.Option("--log-file", help="Create this new file for the log (codes and counts)."),
    ] = None,
    sign_key: Annotated[
        Path | None,
        typer.Option(
            "--sign-key",
            readable=False,  # unreadable: SIGNING_KEY_REFUSED KEY_UNREADABLE, not a usage error
            help="Ed25519 private key (PEM, no group or other permission): also create"
            " OUT.intoto.jsonl, a signed in-toto attestation of the report. Requires --out.",
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            help="Processes analyzing independent journals in parallel (default: one per core).",
        ),
    ] = None,
) -> None:
    """Replay, simulate and model the journals; print BUILD / DEFER / STOP per API with every
    criterion against its threshold (modeled figures, not observed savings)."""
    # The library and rich load only when the command runs: `--help` starts fast.
    from rich.console import Console  # noqa: PLC0415

    from clearing_analysis.cli._progress import replay_progress  # noqa: PLC0415
    from clearing_analysis.jobs import analyze_job  # noqa: PLC0415

    try:
        signing = None
        if sign_key is not None:
            if out is None:
                raise UsageError(UsageDetail.MISSING_OPTION, ("--out",))
            named = [p for p in (qualification, agent_config, app_allowlist) if p is not None]
            signing = _prepare_signing(
                sign_key, out, [*journals, sidecar, routes, *named], log_file, sidecar
            )
        with replay_progress() as progress:
            job = analyze_job(
                journals,
                sidecar=sidecar,
                routes=routes,
                qualification=qualification,
                agent_config=agent_config,
                app_allowlist=app_allowlist,
                retrieval_rate=retrieval_rate,
                out=out,
                log_file=log_file,
                signature=None if signing is None else signing.attestation,
                workers=workers,
                progress=progress,
            )
        human = sys.stdout.isatty() and not json_output
        if signing is not None and out is not None:
            from clearing_analysis.attest.sign import envelope_for, run_predicate  # noqa: PLC0415

            predicate = run_predicate(job.report, job.image_digest, signing.contract)
            envelope = envelope_for(signing.subject, job.data, predicate, signing.key)
            job.write_signed(out, signing.attestation, envelope)
        elif out is not None or not human:
            job.write(out)
        else:
            job.write_log()
        if human:
            from clearing_analysis.report.human import print_report  # noqa: PLC0415

            print_report(job.report, Console())
    except AnalysisError as error:
        fatal(error)
