"""Is the supplied qualification record valid for what is installed? (R-Q-3, seed gate.)

`check_qualification` is what `analyze` calls. It reads the record strictly (size limit from
policy/limits.json maxQualificationFileBytes, strict JSON, typed decode), recomputes the
installed pi-ai version and the harness source digest from the files on disk, and returns a
per-API status. It never raises for a bad, missing or stale record: those are verdicts.

Per API the status is either *qualified* (the record is valid and current; its
`unintended_differences` count then feeds the gate's "zero unintended payload differences"
criterion, where a positive count is a failed criterion, i.e. STOP) or PAYLOAD_UNQUALIFIED
with one fixed detail (route DEFER, seed "missing/stale qualification yields
PAYLOAD_UNQUALIFIED"). Only the installed pi-ai *version* is exposed for the report; the
digest never leaves this module (seed: "the analyzer prints only the version, not the
digest").

This module never imports or runs Node, pi-ai, provider SDKs or auth code (R-SC-4).
"""

from __future__ import annotations

import enum
import hmac
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

import msgspec

from clearing_analysis.inputs.configs import Api
from clearing_analysis.policy import limits
from clearing_analysis.qualify.harness import (
    HarnessUnavailable,
    PiAiIdentity,
    installed_pi_ai,
    source_digest,
)
from clearing_analysis.qualify.record import QualificationRecord, RecordRejected, decode_record

PAYLOAD_UNQUALIFIED = "PAYLOAD_UNQUALIFIED"


class QualificationDetail(enum.StrEnum):
    """Why an API is PAYLOAD_UNQUALIFIED (fixed codes, docs/qualification.md)."""

    MISSING = "MISSING"  # no --qualification given, or the file does not exist
    MALFORMED = "MALFORMED"  # not a regular file, too large, or not a valid record
    HARNESS_UNAVAILABLE = "HARNESS_UNAVAILABLE"  # installed pi-ai / harness cannot be read
    VERSION_MISMATCH = "VERSION_MISMATCH"  # record's pi-ai is not the installed one
    DIGEST_MISMATCH = "DIGEST_MISMATCH"  # harness sources differ from the recorded digest


class ApiQualification(msgspec.Struct, frozen=True):
    """One API's qualification: qualified with its counts, or unqualified with a detail."""

    qualified: bool
    detail: QualificationDetail | None
    cases: int | None
    unintended_differences: int | None

    @property
    def code(self) -> str | None:
        """PAYLOAD_UNQUALIFIED when unqualified, else None."""
        return None if self.qualified else PAYLOAD_UNQUALIFIED


class QualificationStatus(msgspec.Struct, frozen=True):
    """Per-API qualification plus the installed pi-ai version (the only reportable identity)."""

    pi_ai_version: str | None
    apis: Mapping[Api, ApiQualification]


def _unqualified(detail: QualificationDetail, version: str | None) -> QualificationStatus:
    verdict = ApiQualification(False, detail, None, None)
    return QualificationStatus(version, MappingProxyType(dict.fromkeys(Api, verdict)))


def _read_record(path: Path) -> bytes | QualificationDetail:
    cap = limits().max_qualification_file_bytes
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return QualificationDetail.MISSING
    except OSError:
        return QualificationDetail.MALFORMED
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode) or status.st_size > cap:
            return QualificationDetail.MALFORMED
        with os.fdopen(os.dup(fd), "rb") as stream:
            data = stream.read(cap + 1)
    except OSError:
        return QualificationDetail.MALFORMED
    finally:
        os.close(fd)
    return QualificationDetail.MALFORMED if len(data) > cap else data


def check_qualification(
    record_path: str | os.PathLike[str] | None,
    *,
    harness: Path | None = None,
    placeholder: Path | None = None,
) -> QualificationStatus:
    """Verify the record against the installed pi-ai and harness; never raises for bad data."""
    try:
        installed: PiAiIdentity | None = installed_pi_ai(harness)
    except HarnessUnavailable:
        installed = None
    version = None if installed is None else installed.version
    if record_path is None:
        return _unqualified(QualificationDetail.MISSING, version)
    raw = _read_record(Path(record_path))
    if isinstance(raw, QualificationDetail):
        return _unqualified(raw, version)
    try:
        record: QualificationRecord = decode_record(raw)
    except RecordRejected:
        return _unqualified(QualificationDetail.MALFORMED, version)
    if installed is None:
        return _unqualified(QualificationDetail.HARNESS_UNAVAILABLE, version)
    if (record.pi_ai.package, record.pi_ai.version) != (installed.package, installed.version):
        return _unqualified(QualificationDetail.VERSION_MISMATCH, version)
    try:
        current = source_digest(harness, placeholder)
    except HarnessUnavailable:
        return _unqualified(QualificationDetail.HARNESS_UNAVAILABLE, version)
    if not hmac.compare_digest(current, record.source_digest.value):
        return _unqualified(QualificationDetail.DIGEST_MISMATCH, version)
    apis = {
        api: ApiQualification(True, None, summary.cases, summary.unintended_differences)
        for api, summary in record.apis.items()
    }
    return QualificationStatus(version, MappingProxyType(apis))
