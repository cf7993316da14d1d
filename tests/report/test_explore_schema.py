"""The explore report's JSON Schema (docs/explore.md, "The report"): generated, checked in,
closed, no free-form string, no verdict anywhere, its figures marked upper bounds by the report's
`bound`, under the analysis report's names and structs."""

from __future__ import annotations

import typing
from typing import Any

from clearing_analysis.policy import read_policy_bytes
from clearing_analysis.report import explore_model as em
from clearing_analysis.report import model as rm
from clearing_analysis.report.encode import EXPLORE_SCHEMA_FILE
from clearing_analysis.report.schema import explore_schema, schema_bytes
from tests.report.test_schema import _walk


def test_checked_in_explore_schema_is_what_the_structs_generate() -> None:
    """policy/schemas/explore-report.schema.json equals the generated schema byte for byte
    (regenerate with `python -m clearing_analysis.report.schema explore`)."""
    assert read_policy_bytes(EXPLORE_SCHEMA_FILE) == schema_bytes(explore_schema())


def test_no_string_is_free_form() -> None:
    """Every string is an enum, a constant or a pattern-constrained code (R-OUT-1)."""
    free = [
        path
        for path, node in _walk(explore_schema())
        if node.get("type") == "string" and not {"enum", "const", "pattern"} & node.keys()
    ]
    assert free == []


def test_every_object_is_closed() -> None:
    """Each object definition refuses unknown properties."""
    open_objects = [
        name
        for name, definition in explore_schema()["$defs"].items()
        if definition.get("type") == "object"
        and "properties" in definition
        and definition.get("additionalProperties") is not False
    ]
    assert open_objects == []


def test_no_verdict_can_be_written() -> None:
    """No property is a verdict or a gate, no enum holds BUILD / DEFER / STOP, `gating` is the
    single value false and `bound` the single value UPPER."""
    schema = explore_schema()
    names: set[str] = set()
    values: set[Any] = set()
    for _path, node in _walk(schema):
        names.update(node.get("properties", {}))
        values.update(v for v in node.get("enum", []) if isinstance(v, str))
        if "const" in node and isinstance(node["const"], str | bool):
            values.add(node["const"])
    assert not {"verdict", "verdicts", "gate"} & names
    assert not {"BUILD", "DEFER", "STOP"} & values
    assert "NEVER_A_VERDICT" in values
    report = schema["$defs"][schema["$ref"].rsplit("/", 1)[1]] if "$ref" in schema else schema
    assert report["properties"]["gating"] == {"enum": [False]}
    assert report["properties"]["bound"] == {"enum": ["UPPER"]}
    # The modeled figures carry the analysis report's names; the marker says their bound.
    api = schema["$defs"]["ApiExplore"]["properties"]
    assert {"simulation", "pressure", "cost", "escaping", "toolResults"} <= api.keys()
    assert not {
        n
        for n in names
        if n.startswith("upperBound")
        and n.endswith(
            (
                "Simulation",
                "Pressure",
                "Cost",
                "Escaping",
                "Eligible",
                "Cleared",
                "ClearedTextBytes",
            )
        )
    }


def test_parts_that_mean_the_same_are_the_analysis_reports_structs() -> None:
    """Explore's per-API parts are the analysis report's structs under the analysis report's
    names wherever a field means the same thing (one family, `ApiFigures`), the recorded usage
    and the tool results by class included: only the prompt turns are explore's own per API,
    and each report's `bound` says which bound its figures are (UPPER here, LOWER there)."""
    figures = typing.get_type_hints(rm.ApiFigures)
    explore = typing.get_type_hints(em.ApiExplore)
    analysis = typing.get_type_hints(rm.ApiReport)
    assert issubclass(em.ApiExplore, rm.ApiFigures)
    assert issubclass(rm.ApiReport, rm.ApiFigures)
    assert {k: v for k, v in explore.items() if k in figures} == figures
    assert set(explore) - set(figures) == {"prompt_turns"}
    assert {k: v for k, v in analysis.items() if k in figures} == figures
    assert set(analysis) - set(figures) == {"gate", "retention", "qualification"}
    assert figures["tool_results"] == tuple[rm.ToolClassResults, ...]
    assert figures["compactions"] is rm.Compactions
    assert (
        typing.get_type_hints(em.ExploreReport)["tool_results_all_apis"] == figures["tool_results"]
    )
    assert typing.get_type_hints(rm.Overall)["tool_results"] == figures["tool_results"]
    # The counts beside the per-API cohorts: one base, each kind with its own skip reasons.
    shared = typing.get_type_hints(rm.HistoryCounts)
    for counts in (rm.Snapshot, em.Sessions):
        hints = typing.get_type_hints(counts)
        assert {k for k in hints if k in shared} == set(shared)
        assert {k: v for k, v in hints.items() if k in shared and k != "skipped_boundaries"} == {
            k: v for k, v in shared.items() if k != "skipped_boundaries"
        }
    assert typing.get_type_hints(em.ExploreReport)["bound"] == typing.Literal["UPPER"]
    assert typing.get_type_hints(rm.Report)["bound"] == typing.Literal["LOWER"]
    assert (em.EXPLORE_VERSION, rm.REPORT_VERSION) == (4, 3)
