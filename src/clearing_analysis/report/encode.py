"""Deterministic JSON for reports, validated against the published schema (R-OUT-2, R-OUT-4).

`encode_report` writes sorted keys, compact separators and a trailing newline; every number was
rounded once when the report was built. The bytes are validated against
policy/schemas/report.schema.json before they are returned, so an invalid report is never
written. `decode_report` reads a saved report back strictly (for `show`): a file that is not a
valid report of this version is `INPUT_INVALID`.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import jsonschema
import msgspec

from clearing_analysis.errors import InputInvalidDetail, InputInvalidError
from clearing_analysis.policy import limits, read_policy_bytes
from clearing_analysis.report.model import Report

SCHEMA_FILE = "schemas/report.schema.json"

_ENCODER = msgspec.json.Encoder(order="sorted")


@functools.cache
def _validator() -> Any:
    schema = json.loads(read_policy_bytes(SCHEMA_FILE))
    return jsonschema.Draft202012Validator(schema)


class ReportSchemaError(RuntimeError):
    """A built report does not satisfy its own schema: a programming error, never user data."""


def encode_report(report: Report) -> bytes:
    """The report as deterministic JSON bytes, schema-checked."""
    data = _ENCODER.encode(report) + b"\n"
    if not _validator().is_valid(json.loads(data)):
        raise ReportSchemaError("report does not satisfy policy/schemas/report.schema.json")
    return data


def decode_report(data: bytes) -> Report:
    """A saved report, strictly: schema-valid and of this format version."""
    if len(data) > limits().max_config_file_bytes:
        raise InputInvalidError(InputInvalidDetail.REPORT_TOO_LARGE)
    try:
        value = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise InputInvalidError(InputInvalidDetail.REPORT_MALFORMED) from None
    if not _validator().is_valid(value):
        raise InputInvalidError(InputInvalidDetail.REPORT_NOT_A_REPORT)
    try:
        return msgspec.json.decode(data, type=Report)
    except msgspec.ValidationError:
        raise InputInvalidError(InputInvalidDetail.REPORT_NOT_A_REPORT) from None


__all__ = ["ReportSchemaError", "decode_report", "encode_report"]
