"""The report's JSON Schema (R-OUT-2): generated, checked in, closed, no free-form string."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from clearing_analysis.policy import read_policy_bytes
from clearing_analysis.report.encode import (
    SCHEMA_FILE,
    ReportSchemaError,
    decode_report,
    encode_report,
)
from clearing_analysis.report.schema import report_schema, schema_bytes

ROOT = Path(__file__).resolve().parents[2]


def test_checked_in_schema_is_what_the_structs_generate() -> None:
    """policy/schemas/report.schema.json equals the generated schema byte for byte
    (regenerate with `python -m clearing_analysis.report.schema`)."""
    assert read_policy_bytes(SCHEMA_FILE) == schema_bytes()


def _walk(node: Any, path: str = "#") -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(node, dict):
        found.append((path, node))
        for key, value in node.items():
            found.extend(_walk(value, f"{path}/{key}"))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found.extend(_walk(value, f"{path}/{index}"))
    return found


def test_no_string_is_free_form() -> None:
    """Every string in a report is an enum, a constant or a pattern-constrained code or
    version: text, paths, ids or digests have nowhere to go (R-OUT-1)."""
    free = [
        path
        for path, node in _walk(report_schema())
        if node.get("type") == "string" and not {"enum", "const", "pattern"} & node.keys()
    ]
    assert free == []


def test_every_object_is_closed() -> None:
    """Each object definition refuses unknown properties."""
    open_objects = [
        name
        for name, definition in report_schema()["$defs"].items()
        if definition.get("type") == "object"
        and "properties" in definition
        and definition.get("additionalProperties") is not False
    ]
    assert open_objects == []


def _golden_report() -> Any:
    return decode_report((ROOT / "tests" / "golden" / "report-mixed.json").read_bytes())


def test_a_report_that_breaks_its_schema_is_never_written() -> None:
    """R-OUT-2: every report is checked against the schema before it is written. Structs
    made in code are not checked on construction, so a negative count or a detail code that
    is not a fixed code would encode; `encode_report` refuses both (`schemacheck`), and the
    unedited report passes (not vacuous)."""
    report = _golden_report()
    assert encode_report(report) == (ROOT / "tests" / "golden" / "report-mixed.json").read_bytes()
    negative = msgspec.structs.replace(
        report, snapshot=msgspec.structs.replace(report.snapshot, journals_replayed=-1)
    )
    free_text = msgspec.structs.replace(
        report,
        snapshot=msgspec.structs.replace(report.snapshot, invalid_journal_details={"a b": 1}),
    )
    for broken in (negative, free_text):
        with pytest.raises(ReportSchemaError):
            encode_report(broken)
