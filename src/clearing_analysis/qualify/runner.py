"""Run the Node qualification harness and build the record (R-Q-1, R-CLI-5).

This is the only module that launches Node; the analyzer never imports it (R-SC-4).

Guarantees:
- One `node capture.mjs` process runs every fixture for every API against the pi-ai installed
  in qualify/node_modules. Its environment is built from nothing but PATH (to find `node`),
  a UTF-8 locale and proxy variables pointing at 127.0.0.1:9, so no credential or proxy of
  the user's environment reaches it and even a builder bug cannot reach the internet.
- The harness output is decoded strictly; it must name the same pi-ai package and version as
  the installed manifest, and the harness sources must hash the same before and after the
  run. Any failure is `QualificationError` with a fixed detail; no Node output is echoed.
- `fault` selects a deliberately wrong clearing (negative tests only); `qualify()` always runs
  the faithful clearing, so a record can only describe the real comparison.
"""

from __future__ import annotations

import enum
import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import msgspec

from clearing_analysis import strictjson
from clearing_analysis.codes.errors import QualificationDetail, QualificationError
from clearing_analysis.inputs.configs import Api
from clearing_analysis.policy import limits
from clearing_analysis.qualify.harness import (
    ANALYZER_ROLE,
    IMAGE_ROLE_ENV,
    HarnessUnavailable,
    harness_dir,
    installed_pi_ai,
    placeholder_path,
    source_digest,
)
from clearing_analysis.qualify.record import (
    FORMAT_NAME,
    FORMAT_VERSION,
    ApiSummary,
    PiAi,
    QualificationRecord,
    RecordRejected,
    SourceDigest,
)

# The discard port on loopback: closed, so any connection attempt fails at once, locally.
DEAD_END = "http://127.0.0.1:9"
# Generous: the whole run takes well under a second on the reference machine.
TIMEOUT_SECONDS = 120.0
# Fixed failure codes capture.mjs may print on stderr, by their text; anything else is
# HARNESS_FAILED (so nothing Node prints is ever passed on unless it is one of these).
HARNESS_CODES: Mapping[str, QualificationDetail] = {
    detail.value: detail
    for detail in (
        QualificationDetail.USAGE,
        QualificationDetail.NODE_TOO_OLD,
        QualificationDetail.PLACEHOLDER_EMPTY,
        QualificationDetail.PI_AI_MANIFEST,
        QualificationDetail.MODEL_MISSING,
        QualificationDetail.CAPTURE_FAILED,
        QualificationDetail.NETWORK_ATTEMPTED,
        QualificationDetail.HARNESS_FAULT,
    )
}
_PROXY_VARIABLES = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)


class FaultMode(enum.StrEnum):
    """Deliberately wrong clearings the harness can apply (see qualify/fixtures.mjs)."""

    ARGUMENT = "argument"
    SIGNATURE = "signature"
    ORDERING = "ordering"
    UNTARGETED = "untargeted"
    SKIP = "skip"


class HarnessOutput(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    """What capture.mjs prints: the pi-ai it imported and per-API counts."""

    harness: Literal[1]
    pi_ai: PiAi
    fault: FaultMode | None
    apis: dict[Api, ApiSummary]


def _environment() -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", os.defpath), "LANG": "C.UTF-8", "NO_PROXY": ""}
    env.update(dict.fromkeys(_PROXY_VARIABLES, DEAD_END))
    return env


def _decode_output(raw: bytes) -> HarnessOutput:
    try:
        value = strictjson.loads(raw, max_depth=limits().max_nesting_depth)
        output = strictjson.to_struct(value, HarnessOutput)
        if set(output.apis) != set(Api):
            raise RecordRejected("APIS_INCOMPLETE")
        for summary in output.apis.values():
            summary.check()
    except (strictjson.JsonRejected, RecordRejected):
        raise QualificationError(QualificationDetail.HARNESS_OUTPUT_INVALID) from None
    return output


def run_harness(fault: FaultMode | None = None, harness: Path | None = None) -> HarnessOutput:
    """Run capture.mjs once (optionally with a fault mode) and return its decoded output."""
    directory = harness_dir() if harness is None else harness
    env = _environment()
    node = shutil.which("node", path=env["PATH"])
    if node is None:
        # The analyzer image has no Node by design: point at the qualifier image, not at Node.
        in_analyzer = os.environ.get(IMAGE_ROLE_ENV) == ANALYZER_ROLE
        raise QualificationError(
            QualificationDetail.NODE_NOT_IN_IMAGE
            if in_analyzer
            else QualificationDetail.NODE_NOT_FOUND
        )
    argv = [node, "capture.mjs", "--placeholder", os.fspath(placeholder_path())]
    if fault is not None:
        argv += ["--fault", fault.value]
    try:
        completed = subprocess.run(
            argv, cwd=directory, env=env, capture_output=True, timeout=TIMEOUT_SECONDS, check=False
        )
    except (OSError, subprocess.SubprocessError):
        raise QualificationError(QualificationDetail.HARNESS_NOT_RUN) from None
    if completed.returncode != 0:
        code = completed.stderr.decode("ascii", errors="replace").strip()
        raise QualificationError(HARNESS_CODES.get(code, QualificationDetail.HARNESS_FAILED))
    output = _decode_output(completed.stdout)
    if output.fault != fault:
        raise QualificationError(QualificationDetail.HARNESS_OUTPUT_INVALID)
    return output


def qualify(harness: Path | None = None) -> QualificationRecord:
    """Run the faithful clearing through the installed builders and build the record."""
    directory = harness_dir() if harness is None else harness
    try:
        installed = installed_pi_ai(directory)
        digest_before = source_digest(directory)
    except HarnessUnavailable:
        raise QualificationError(QualificationDetail.HARNESS_NOT_INSTALLED) from None
    output = run_harness(None, directory)
    try:
        digest_after = source_digest(directory)
    except HarnessUnavailable:
        raise QualificationError(QualificationDetail.HARNESS_CHANGED) from None
    if digest_after != digest_before:
        raise QualificationError(QualificationDetail.HARNESS_CHANGED)
    if (output.pi_ai.package, output.pi_ai.version) != (installed.package, installed.version):
        raise QualificationError(QualificationDetail.PI_AI_INCONSISTENT)
    return QualificationRecord(
        format=FORMAT_NAME,
        format_version=FORMAT_VERSION,
        pi_ai=output.pi_ai,
        source_digest=SourceDigest(algorithm="sha256", value=digest_before),
        apis=output.apis,
    )
