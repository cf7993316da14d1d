"""Deterministic JSON for reports, validated against the published schema (R-OUT-2, R-OUT-4).

`encode_report` writes sorted keys, compact separators and a trailing newline; every number was
rounded once when the report was built. The bytes are validated against
policy/schemas/report.schema.json before they are returned, so an invalid report is never
written; `encode_explore` does the same for an explore report against
policy/schemas/explore-report.schema.json. `decode_report` reads a saved report of either
format back strictly (for `show`): a file that is not a valid report of this version is
`INPUT_INVALID`.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import jsonschema
import msgspec

from clearing_analysis.errors import InputInvalidDetail, InputInvalidError
from clearing_analysis.policy import limits, read_policy_bytes
from clearing_analysis.report.explore_model import EXPLORE_FORMAT, ExploreReport
from clearing_analysis.report.model import Report

SCHEMA_FILE = "schemas/report.schema.json"
EXPLORE_SCHEMA_FILE = "schemas/explore-report.schema.json"

_ENCODER = msgspec.json.Encoder(order="sorted")


@functools.cache
def _validator(name: str = SCHEMA_FILE) -> Any:
    schema = json.loads(read_policy_bytes(name))
    return jsonschema.Draft202012Validator(schema)


class ReportSchemaError(RuntimeError):
    """A built report does not satisfy its own schema: a programming error, never user data."""


def encode_report(report: Report) -> bytes:
    """The report as deterministic JSON bytes, schema-checked."""
    data = _ENCODER.encode(report) + b"\n"
    if not _validator().is_valid(json.loads(data)):
        raise ReportSchemaError("report does not satisfy policy/schemas/report.schema.json")
    return data


def encode_explore(report: ExploreReport) -> bytes:
    """The explore report as deterministic JSON bytes, checked against its own schema."""
    data = _ENCODER.encode(report) + b"\n"
    if not _validator(EXPLORE_SCHEMA_FILE).is_valid(json.loads(data)):
        raise ReportSchemaError("report does not satisfy policy/schemas/explore-report.schema.json")
    return data


def render(report: Report | ExploreReport) -> bytes:
    """The JSON renderer (`report.formats`): either kind as its schema-checked bytes."""
    if isinstance(report, ExploreReport):
        return encode_explore(report)
    return encode_report(report)


def decode_report(data: bytes) -> Report | ExploreReport:
    """A saved analysis or explore report, strictly: schema-valid and of this format version
    (which of the two its `format` says)."""
    if len(data) > limits().max_config_file_bytes:
        raise InputInvalidError(InputInvalidDetail.REPORT_TOO_LARGE)
    try:
        value = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise InputInvalidError(InputInvalidDetail.REPORT_MALFORMED) from None
    explore = isinstance(value, dict) and value.get("format") == EXPLORE_FORMAT
    if not _validator(EXPLORE_SCHEMA_FILE if explore else SCHEMA_FILE).is_valid(value):
        raise InputInvalidError(InputInvalidDetail.REPORT_NOT_A_REPORT)
    try:
        if explore:
            return msgspec.json.decode(data, type=ExploreReport)
        return msgspec.json.decode(data, type=Report)
    except msgspec.ValidationError:
        raise InputInvalidError(InputInvalidDetail.REPORT_NOT_A_REPORT) from None


__all__ = ["ReportSchemaError", "decode_report", "encode_explore", "encode_report", "render"]
