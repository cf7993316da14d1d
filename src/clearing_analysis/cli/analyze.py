"""`clearing-analysis analyze`: the verdict per API, with the modeled evidence (R-CLI-1).

A thin layer over `jobs.analyze_job`. Where the report goes:
- stdout is a terminal and no `--json`: the human view (verdicts first, then each criterion
  against its threshold, then the evidence);
- otherwise (a pipe, a file, CI, or `--json`): the JSON report;
- `--out F`: the JSON report goes to F (created exclusively); a terminal still gets the human
  view on stdout.
- `--html P`: also the report as a self-contained HTML page, created exclusively (the files
  of a run are created together or not at all).
- `--sign-key KEY` (requires `--out`): F's attestation, `F.intoto.jsonl`, is created beside it,
  signed with KEY (docs/attestation.md). The key, the attestation's output path and, inside the
  image, the mount contract are checked before any analysis work; `cryptography` loads only
  then.
The exit status is 0 for a complete analysis whatever the verdict, 2 for incomplete or invalid
inputs (R-CLI-3). `--fail-on stop|defer` (off by default) lets CI gate on the verdict: once the
report is written, an overall STOP exits 4, and with `defer` an overall DEFER exits 3
(docs/exit-codes.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from clearing_analysis.cli._app import app
from clearing_analysis.cli._command import Command
from clearing_analysis.cli._exit import FailOn, fatal, verdict_status
from clearing_analysis.cli._period import Since, Until
from clearing_analysis.cli._report_job import By, Details, Html, run_report_job
from clearing_analysis.codes.errors import UsageDetail, UsageError


@app.command(
    cls=Command.variadic("--journals"), short_help="Analyze journals: BUILD / DEFER / STOP per API."
)
def analyze(  # noqa: PLR0917  (typer maps each option to a parameter)
    journals: Annotated[
        list[Path],
        typer.Option(
            "--journals",
            readable=False,
            metavar="<path>...",
            help="Journal files or directories (recursive *.jsonl): one or more after the"
            " flag, or the flag repeated. Pass <root>/journals, not the root.",
        ),
    ],
    sidecar: Annotated[
        Path, typer.Option("--sidecar", readable=False, help="Checkpointed sidecar SQLite file.")
    ],
    routes: Annotated[
        Path, typer.Option("--routes", readable=False, help="routes.json: one entry per API.")
    ],
    qualification: Annotated[
        Path | None,
        typer.Option(
            "--qualification",
            readable=False,
            help="Record from `qualify`; absent = PAYLOAD_UNQUALIFIED.",
        ),
    ] = None,
    agent_config: Annotated[
        Path | None,
        typer.Option("--agent-config", readable=False, help="Owner attestation of built-ins."),
    ] = None,
    app_allowlist: Annotated[
        Path | None,
        typer.Option("--app-allowlist", readable=False, help="Reviewed read-only MCP app tools."),
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
        typer.Option(
            "--out",
            readable=False,
            help="Create this new file for the JSON report instead of stdout.",
        ),
    ] = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the JSON report even on a terminal.")
    ] = False,
    details: Details = False,
    by: By = None,
    html: Html = None,
    log_file: Annotated[
        Path | None,
        typer.Option(
            "--log-file",
            readable=False,
            help="Create this new file for the log (codes and counts).",
        ),
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
    fail_on: Annotated[
        FailOn | None,
        typer.Option(
            "--fail-on",
            help="After writing the report, exit 4 if the overall verdict is STOP (stop), or"
            " also 3 if it is DEFER (defer). Default: the verdict never sets the exit status.",
        ),
    ] = None,
    since: Since = None,
    until: Until = None,
) -> None:
    """Replay, simulate and model the journals; print BUILD / DEFER / STOP per API with every
    criterion against its threshold (modeled figures, not observed savings)."""
    if sign_key is not None and out is None:
        # --sign-key signs the --out file: refused before anything is read.
        fatal(UsageError(UsageDetail.MISSING_OPTION, ("--out",)))
    # The library loads only when the command runs: `--help` starts fast.
    from clearing_analysis.jobs import analyze_job  # noqa: PLC0415

    finished = run_report_job(
        lambda progress: analyze_job(
            journals,
            sidecar=sidecar,
            routes=routes,
            qualification=qualification,
            agent_config=agent_config,
            app_allowlist=app_allowlist,
            retrieval_rate=retrieval_rate,
            out=out,
            log_file=log_file,
            sign_key=sign_key,
            html=html,
            workers=workers,
            progress=progress,
            since=since,
            until=until,
            usage_by=by is not None,
        ),
        out=out,
        json_output=json_output,
        details=details,
        by=by,
    )
    status = verdict_status(finished.report.verdict, fail_on)
    if status:
        raise SystemExit(status)
