"""`clearing-analysis analyze`: the verdict per API, with the modeled evidence (R-CLI-1).

A thin layer over `pipeline.jobs.analyze_job`, given the command's `AnalyzeRequest`. Where the
report goes:
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
from clearing_analysis.cli._options import (
    DEFAULT_RETRIEVAL_RATE,
    AgentConfig,
    AppAllowlist,
    By,
    Details,
    Html,
    Journals,
    JsonOutput,
    LogFile,
    Qualification,
    ReportOut,
    RetrievalRate,
    Routes,
    Sidecar,
    Since,
    Until,
    Workers,
)
from clearing_analysis.cli._report_job import run_report_job
from clearing_analysis.cli._requests import request_from
from clearing_analysis.codes.errors import UsageDetail, UsageError
from clearing_analysis.inputs.requests import AnalyzeRequest


@app.command(
    cls=Command.for_request(AnalyzeRequest, "--journals"),
    short_help="Analyze journals: BUILD / DEFER / STOP per API.",
)
def analyze(  # noqa: PLR0917  (typer maps each option to a parameter)
    ctx: typer.Context,
    journals: Journals,
    sidecar: Sidecar,
    routes: Routes,
    qualification: Qualification = None,
    agent_config: AgentConfig = None,
    app_allowlist: AppAllowlist = None,
    retrieval_rate: RetrievalRate = DEFAULT_RETRIEVAL_RATE,
    out: ReportOut = None,
    json_output: JsonOutput = False,
    details: Details = False,
    by: By = None,
    html: Html = None,
    log_file: LogFile = None,
    sign_key: Annotated[
        Path | None,
        typer.Option(
            "--sign-key",
            readable=False,  # unreadable: SIGNING_KEY_REFUSED KEY_UNREADABLE, not a usage error
            help="Ed25519 private key (PEM, no group or other permission): also create"
            " OUT.intoto.jsonl, a signed in-toto attestation of the report. Requires --out.",
        ),
    ] = None,
    workers: Workers = None,
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
    request = request_from(AnalyzeRequest, ctx.params)
    # The library loads only when the command runs: `--help` starts fast.
    from clearing_analysis.pipeline.jobs import analyze_job  # noqa: PLC0415

    finished = run_report_job(
        lambda progress: analyze_job(request, progress=progress),
        out=out,
        json_output=json_output,
        details=details,
        by=by,
    )
    status = verdict_status(finished.report.verdict, fail_on)
    if status:
        raise SystemExit(status)
