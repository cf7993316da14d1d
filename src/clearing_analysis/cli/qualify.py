"""`clearing-analysis qualify [--out F]`: write the qualification record (R-CLI-5).

Runs the installed pi-ai builders through the Node harness (clearing_analysis.qualify.runner)
and writes the record to stdout, or creates `--out` exclusively under the same rules as the
report (R-FS): the harness directory and policy directory count as inputs, so the record can
never be written into, or over, the sources it certifies.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from clearing_analysis.cli._app import app
from clearing_analysis.cli._command import Command
from clearing_analysis.cli._requests import request_from
from clearing_analysis.inputs.output import (
    InputIdentities,
    check_output,
    create_exclusive,
    write_stdout,
)
from clearing_analysis.inputs.requests import OutputRequest
from clearing_analysis.policy import policy_dir
from clearing_analysis.qualify.harness import HARNESS_SOURCES, harness_dir, placeholder_path


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        status = path.stat()
    except OSError:
        return None
    return (status.st_dev, status.st_ino)


def _harness_inputs() -> InputIdentities:
    """The harness and policy directories and the files the digest covers, by identity."""
    directories = {_identity(harness_dir()), _identity(policy_dir())}
    files = {_identity(harness_dir() / name) for name in HARNESS_SOURCES}
    files.add(_identity(placeholder_path()))
    return InputIdentities(
        input_directories=frozenset(d for d in directories if d is not None),
        protected_names={},
        input_files=frozenset(f for f in files if f is not None),
    )


@app.command(
    cls=Command.for_request(OutputRequest),
    short_help="Qualify the pinned pi-ai builders on fixture histories.",
)
def qualify(
    ctx: typer.Context,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", readable=False, help="Create this new file (exclusively) instead of stdout."
        ),
    ] = None,
) -> None:
    """Run the pinned pi-ai builders on fixture histories and write the qualification record."""
    from clearing_analysis.qualify.record import encode_record  # noqa: PLC0415
    from clearing_analysis.qualify.runner import qualify as run_qualification  # noqa: PLC0415

    out = request_from(OutputRequest, ctx.params).out
    inputs = _harness_inputs()
    if out is not None:
        check_output(out, inputs)  # refuse before doing any work (R-FS-6)
    data = encode_record(run_qualification())
    if out is None:
        write_stdout(data)
    else:
        create_exclusive(out, data, inputs)
