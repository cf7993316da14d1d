"""The explore report's JSON Schema (docs/explore.md, "The report"): generated, checked in,
closed, no free-form string, no verdict anywhere, every modeled section labeled upper bound."""

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
    modeled = {n for n in names if n.startswith(("upperBound",))}
    assert modeled >= {"upperBoundSimulation", "upperBoundPressure", "upperBoundCost"}
    assert not {"simulation", "pressure", "cost"} & names


def test_parts_that_mean_the_same_are_the_analysis_reports_structs() -> None:
    """Explore's per-API parts are the analysis report's structs wherever a field means the
    same thing (no copied family), the recorded usage included: only sessions and the
    upper-bound tool results are explore's own, and the report-level `bound` says the figures
    are upper bounds."""
    hints = typing.get_type_hints(em.ApiExplore)

    def module(hint: object) -> str:
        return str(getattr(hint, "__module__", ""))

    shared = {name: hint for name, hint in hints.items() if module(hint) == rm.__name__}
    assert shared == {
        "route_trigger": rm.RouteTrigger,
        "requests": rm.Requests,
        "evidence": rm.Evidence,
        "compactions": rm.Observed,
        "web": rm.WebYield,
        "eligibility": rm.Eligibility,
        "upper_bound_simulation": rm.Simulation,
        "upper_bound_pressure": rm.Pressure,
        "upper_bound_cost": rm.Cost,
        "upper_bound_escaping": rm.Escaping,
        "usage": rm.ObservedUsage,
    }
    own = {name for name, hint in hints.items() if module(hint) == em.__name__}
    assert own == set()  # tool_results is a tuple of explore's own ToolResults
    assert em.EXPLORE_VERSION == 3
