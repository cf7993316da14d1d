"""The report's JSON Schema, generated from the report structs (R-OUT-2).

policy/schemas/report.schema.json is checked in; a test fails when it drifts from what
`report_schema()` generates. Regenerate with `python -m clearing_analysis.report.schema`
(it writes the file's exact bytes to stdout).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import msgspec

from clearing_analysis.report.model import Report


def report_schema() -> dict[str, Any]:
    """JSON Schema 2020-12 of a report, with every definition closed to unknown fields."""
    schema: dict[str, Any] = msgspec.json.schema(Report)
    for definition in schema.get("$defs", {}).values():
        if definition.get("type") == "object" and "properties" in definition:
            definition["additionalProperties"] = False
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "clearing-analysis report, format version 1",
        **schema,
    }


def schema_bytes() -> bytes:
    """The schema file's exact bytes: sorted keys, two-space indent, trailing newline."""
    return (json.dumps(report_schema(), indent=2, sort_keys=True) + "\n").encode("ascii")


if __name__ == "__main__":
    sys.stdout.buffer.write(schema_bytes())
