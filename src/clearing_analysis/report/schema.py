"""The reports' JSON Schemas, generated from the report structs (R-OUT-2).

policy/schemas/report.schema.json (`analyze`) and policy/schemas/explore-report.schema.json
(`explore`) are checked in; a test fails when either drifts from what `report_schema()` /
`explore_schema()` generate. Regenerate with `python -m clearing_analysis.report.schema`
(the analysis report) or `python -m clearing_analysis.report.schema explore`: each writes the
file's exact bytes to stdout.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import msgspec

from clearing_analysis.report.explore_model import EXPLORE_VERSION, ExploreReport
from clearing_analysis.report.model import REPORT_VERSION, Report


def _closed_schema(struct: type[msgspec.Struct], title: str) -> dict[str, Any]:
    """JSON Schema 2020-12 of `struct`, with every definition closed to unknown fields."""
    schema: dict[str, Any] = msgspec.json.schema(struct)
    for definition in schema.get("$defs", {}).values():
        if definition.get("type") == "object" and "properties" in definition:
            definition["additionalProperties"] = False
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": title, **schema}


def report_schema() -> dict[str, Any]:
    """The analysis report's schema."""
    return _closed_schema(Report, f"clearing-analysis report, format version {REPORT_VERSION}")


def explore_schema() -> dict[str, Any]:
    """The explore report's schema."""
    title = f"clearing-analysis explore report, format version {EXPLORE_VERSION}"
    return _closed_schema(ExploreReport, title)


def schema_bytes(schema: dict[str, Any] | None = None) -> bytes:
    """A schema file's exact bytes (the analysis report's by default): sorted keys, two-space
    indent, trailing newline."""
    chosen = report_schema() if schema is None else schema
    return (json.dumps(chosen, indent=2, sort_keys=True) + "\n").encode("ascii")


if __name__ == "__main__":
    which = sys.argv[1:] == ["explore"]
    sys.stdout.buffer.write(schema_bytes(explore_schema() if which else None))
