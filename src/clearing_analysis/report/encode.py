"""Deterministic JSON for reports, validated against the published schema (R-OUT-2, R-OUT-4).

`encode_report` writes sorted keys, compact separators and a trailing newline; every number was
rounded once when the report was built. The bytes are validated against
policy/schemas/report.schema.json and by the rules `decode_report` applies after the schema
before they are returned, so a report `show` would refuse is never written;
`encode_explore` does the same for an explore report against
policy/schemas/explore-report.schema.json. `decode_report` reads a saved report of either
format back strictly (for `show`) and validates it whole before anything renders it: a file
that is not a valid report of this version is `INPUT_INVALID`, never a crash.
"""

from __future__ import annotations

import functools
import json
from typing import Any, assert_never

import msgspec

from clearing_analysis import schemacheck, strictjson
from clearing_analysis.codes.errors import InputInvalidDetail, InputInvalidError
from clearing_analysis.policy import limits, read_policy_bytes
from clearing_analysis.report import validate
from clearing_analysis.report.explore_model import EXPLORE_FORMAT, ExploreReport
from clearing_analysis.report.kinds import AnyReport
from clearing_analysis.report.model import Report

SCHEMA_FILE = "schemas/report.schema.json"
EXPLORE_SCHEMA_FILE = "schemas/explore-report.schema.json"

_ENCODER = msgspec.json.Encoder(order="sorted")


@functools.cache
def _schema_check(name: str) -> schemacheck.Check:
    """The report schema `name` compiled once (`schemacheck`: the keywords it uses, with
    draft 2020-12's meaning)."""
    return schemacheck.compile_schema(json.loads(read_policy_bytes(name)))


class ReportSchemaError(RuntimeError):
    """A built report does not satisfy its own schema: a programming error, never user data."""


def _readable(report: AnyReport, data: bytes, schema_file: str) -> bytes:
    """`data` when `decode_report` will accept it back (what `analyze` or `explore` writes,
    `show` and `verify` read): its schema and its invariants are the writer's to keep (else
    ReportSchemaError, a programming error); an integer beyond ±(2^53 - 1), a sum of values
    each within its stated range over more history than a report states exactly, is refused
    as TOTALS_OUT_OF_RANGE (clearing_analysis.ranges), never written."""
    value = json.loads(data)
    if not _schema_check(schema_file)(value):
        raise ReportSchemaError(f"report does not satisfy policy/{schema_file}")
    if not validate.numbers_in_range(value):
        raise InputInvalidError(InputInvalidDetail.TOTALS_OUT_OF_RANGE)
    if not validate.invariants_hold(report):
        raise ReportSchemaError("report breaks an invariant report/validate.py checks")
    return data


def encode_report(report: Report) -> bytes:
    """The report as deterministic JSON bytes, checked as `show` reads it back."""
    return _readable(report, _ENCODER.encode(report) + b"\n", SCHEMA_FILE)


def encode_explore(report: ExploreReport) -> bytes:
    """The explore report as deterministic JSON bytes, checked against its own schema and as
    `show` reads it back."""
    return _readable(report, _ENCODER.encode(report) + b"\n", EXPLORE_SCHEMA_FILE)


def render(report: AnyReport) -> bytes:
    """The JSON renderer (`report.formats`): either kind as its schema-checked bytes."""
    match report:
        case Report():
            return encode_report(report)
        case ExploreReport():
            return encode_explore(report)
        case _:
            assert_never(report)


def _parse_saved(data: bytes) -> Any:
    """A saved report's bytes as strict JSON (`strictjson`: UTF-8, no NaN / Infinity, no
    repeated key, bounded nesting), else REPORT_MALFORMED (REPORT_TOO_LARGE without memory)."""
    try:
        return strictjson.loads(data, max_depth=limits().max_nesting_depth)
    except strictjson.JsonRejected as rejected:
        if rejected.reason == strictjson.TOO_LARGE:
            raise InputInvalidError(InputInvalidDetail.REPORT_TOO_LARGE) from None
        raise InputInvalidError(InputInvalidDetail.REPORT_MALFORMED) from None


def decode_report(data: bytes) -> AnyReport:
    """A saved analysis or explore report, fully validated before anything renders it (which of
    the two its `format` says): strict JSON, then its schema, exact numbers, the typed decoding
    and the invariants the schema cannot state (`report.validate`). Anything else is
    REPORT_NOT_A_REPORT (R-REL-1)."""
    if len(data) > limits().max_config_file_bytes:
        raise InputInvalidError(InputInvalidDetail.REPORT_TOO_LARGE)
    value = _parse_saved(data)
    explore = isinstance(value, dict) and value.get("format") == EXPLORE_FORMAT
    if not _schema_check(EXPLORE_SCHEMA_FILE if explore else SCHEMA_FILE)(value):
        raise InputInvalidError(InputInvalidDetail.REPORT_NOT_A_REPORT)
    if not validate.numbers_in_range(value):
        raise InputInvalidError(InputInvalidDetail.REPORT_NOT_A_REPORT)
    report: AnyReport
    try:
        if explore:
            report = msgspec.json.decode(data, type=ExploreReport)
        else:
            report = msgspec.json.decode(data, type=Report)
    except (msgspec.DecodeError, msgspec.ValidationError):
        raise InputInvalidError(InputInvalidDetail.REPORT_NOT_A_REPORT) from None
    if not validate.invariants_hold(report):
        raise InputInvalidError(InputInvalidDetail.REPORT_NOT_A_REPORT)
    return report


__all__ = ["ReportSchemaError", "decode_report", "encode_explore", "encode_report", "render"]
