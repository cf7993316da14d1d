"""`schemacheck` gives jsonschema's draft 2020-12 verdict for the keywords it knows, and refuses
a schema with any other.

The reference is `jsonschema.Draft202012Validator` (a test dependency only: the analyzer
checks its reports with `schemacheck`, docs/performance.md "Start-up"). Random schemas built
from the known keywords and random JSON values must get the same verdict from both; so must
the golden reports and the same reports edited at a random place, against the published
report schemas. The property tests are marked `structure`: `make fuzz` runs them with many
more examples.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from clearing_analysis import schemacheck
from clearing_analysis.schemacheck import UnsupportedSchemaError, compile_schema, json_equal

REPO = Path(__file__).resolve().parents[1]
REPORT_SCHEMAS = ("report", "explore-report")
NAMES = ("a", "b", "c", "A1", "ZZ_9")
DEFS = ("d0", "d1")

# JSON values, with the numbers where the two meanings of "equal" and "integer" part: 0, 1,
# 1.0, -0.0, 2.5, large integers, and booleans beside them.
_scalars = (
    st.none()
    | st.booleans()
    | st.sampled_from([0, 1, -1, 1.0, 0.0, -0.0, 2.5, 2**53, 2**60, -(2**63), 1e300])
    | st.integers(min_value=-10, max_value=10)
    | st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6)
    | st.sampled_from(["", "a", "A1", "ZZ_9", "b$", "ab", "\u00e9\u00e9", "12", "x" * 6])
    | st.text(max_size=6)
)
json_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(NAMES) | st.text(max_size=3), inner, max_size=4)
    ),
    max_leaves=12,
)

_leaf_keywords = st.one_of(
    st.builds(
        lambda names: {"type": names[0] if len(names) == 1 else names},
        st.lists(
            st.sampled_from(["null", "boolean", "object", "array", "string", "number", "integer"]),
            min_size=1,
            max_size=3,
            unique=True,
        ),
    ),
    st.builds(lambda members: {"enum": members}, st.lists(json_values, min_size=1, max_size=4)),
    st.builds(lambda value: {"const": value}, json_values),
    st.builds(
        lambda bound: {"minimum": bound},
        st.integers(-3, 3) | st.floats(-3, 3, allow_nan=False) | st.sampled_from([1.0, 2**53]),
    ),
    st.builds(lambda bound: {"minLength": bound}, st.integers(0, 4)),
    st.builds(lambda bound: {"maxLength": bound}, st.integers(0, 4)),
    st.builds(
        lambda pattern: {"pattern": pattern},
        st.sampled_from(["^a", "b$", "^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$", r"\d", "^$", "é"]),
    ),
    st.builds(
        lambda names: {"required": names},
        st.lists(st.sampled_from(NAMES), max_size=3, unique=True),
    ),
    st.builds(lambda name: {"$ref": f"#/$defs/{name}"}, st.sampled_from(DEFS)),
    st.just({"title": "t", "description": "d", "default": 3}),
)


def _nested(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.builds(
            lambda props: {"properties": props},
            st.dictionaries(st.sampled_from(NAMES), inner, max_size=3),
        ),
        st.builds(
            lambda props, extra: {"properties": props, "additionalProperties": extra},
            st.dictionaries(st.sampled_from(NAMES), inner, max_size=3),
            inner,
        ),
        st.builds(lambda extra: {"additionalProperties": extra}, inner),
        st.builds(lambda names: {"propertyNames": names}, inner),
        st.builds(lambda item: {"items": item}, inner),
        st.builds(lambda options: {"anyOf": options}, st.lists(inner, min_size=1, max_size=3)),
    )


def _merged(parts: list[dict[str, Any]]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for part in parts:
        merged.update(part)
    return merged


def _schemas(leaves: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Schema nodes: booleans, or objects of one to three keywords (nested ones included)."""
    return st.recursive(
        st.booleans() | st.lists(leaves, min_size=1, max_size=3).map(_merged),
        lambda inner: st.lists(leaves | _nested(inner), min_size=1, max_size=3).map(_merged),
        max_leaves=8,
    )


# Built once: a strategy made inside a draw is validated again at every draw.
_ROOTS = _schemas(_leaf_keywords)
_DEFINITIONS = _schemas(_leaf_keywords.filter(lambda keywords: "$ref" not in keywords))


@st.composite
def documents(draw: st.DrawFn) -> Any:
    """A schema document: its `$defs` (free of references, so neither validator recurses
    forever) and a root that may refer to them."""
    defs = {name: draw(_DEFINITIONS) for name in DEFS}
    root = draw(_ROOTS)
    if isinstance(root, bool):
        return root
    return {**root, "$defs": defs}


def _reference(schema: Any, value: Any) -> bool:
    return bool(Draft202012Validator(schema).is_valid(value))


@pytest.mark.structure
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=documents(), values=st.lists(json_values, min_size=1, max_size=5))
def test_random_schemas_and_values_get_jsonschemas_verdict(schema: Any, values: list[Any]) -> None:
    """For a schema of the known keywords, every value is valid here exactly when jsonschema's
    Draft202012Validator says so."""
    check = compile_schema(schema)
    reference = Draft202012Validator(schema)
    for value in values:
        assert check(value) == reference.is_valid(value), (schema, value)


@pytest.mark.structure
@settings(deadline=None)
@given(one=json_values, two=json_values)
def test_json_equal_is_jsonschemas_equality(one: Any, two: Any) -> None:
    """`json_equal` is `const`'s equality in jsonschema: 1 equals 1.0, true equals only
    true, arrays and objects compared member by member."""
    assert json_equal(one, two) == _reference({"const": one}, two)


@pytest.mark.parametrize(
    ("one", "two", "equal"),
    [
        (1, 1.0, True),
        (True, 1, False),
        (False, 0, False),
        ([True], [1], False),
        ({"a": [0]}, {"a": [0.0]}, True),
        ({"a": 1}, {"a": 1, "b": 1}, False),
        ("1", 1, False),
        (None, False, False),
    ],
)
def test_json_equal_named_pairs(one: Any, two: Any, equal: bool) -> None:
    """The pairs where Python's == and JSON Schema's equality part, and some where they agree."""
    assert json_equal(one, two) is equal
    assert json_equal(two, one) is equal


def _report_schema(name: str) -> Any:
    return json.loads((REPO / "policy" / "schemas" / f"{name}.schema.json").read_text())


@functools.cache
def _golden_texts() -> tuple[str, ...]:
    found = tuple(
        path.read_text() for path in sorted((REPO / "tests" / "golden").glob("report-*.json"))
    )
    assert len(found) >= 2  # not vacuous
    return found


def _golden_reports() -> list[Any]:
    return [json.loads(text) for text in _golden_texts()]


def test_the_report_schemas_compile_and_accept_the_golden_reports() -> None:
    """Both report schemas use only known keywords; the golden reports are valid by both
    validators."""
    check = compile_schema(_report_schema("report"))
    for report in _golden_reports():
        assert check(report)
        assert _reference(_report_schema("report"), report)
    compile_schema(_report_schema("explore-report"))


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a member of `value` (object keys and array indexes)."""
    found = [path]
    if isinstance(value, dict):
        for key, member in value.items():
            found.extend(_places(member, (*path, key)))
    elif isinstance(value, list):
        for index, member in enumerate(value):
            found.extend(_places(member, (*path, index)))
    return found


@functools.cache
def _places_in(text: str) -> tuple[tuple[Any, ...], ...]:
    """Every place in a golden report but the report itself."""
    return tuple(_places(json.loads(text))[1:])


_EDITS = ("replace", "delete", "add")


@pytest.mark.structure
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_edited_golden_reports_get_jsonschemas_verdict(data: st.DataObject) -> None:
    """A golden report with one member replaced by another JSON value (or by a neighbour's
    value), deleted, or joined by an extra member gets the same verdict here as from
    jsonschema, against the report schema."""
    schema = _report_schema("report")
    check = compile_schema(schema)
    text = data.draw(st.sampled_from(_golden_texts()))
    report = json.loads(text)
    place = data.draw(st.sampled_from(_places_in(text)))
    parent = report
    for step in place[:-1]:
        parent = parent[step]
    edit = data.draw(st.sampled_from(_EDITS))
    if edit == "replace":
        parent[place[-1]] = data.draw(
            json_values | st.sampled_from([-1, 0.5, "X", [], {}, None, True, 2**53 + 1])
        )
    elif edit == "delete":
        del parent[place[-1]]
    elif isinstance(parent, dict):
        parent[data.draw(st.text(min_size=1, max_size=4))] = data.draw(json_values)
    else:
        parent.append(data.draw(json_values))
    assert check(report) == _reference(schema, report)


@pytest.mark.parametrize(
    ("name", "schema"),
    [
        ("oneOf", {"oneOf": [True]}),
        ("allOf", {"allOf": [True]}),
        ("format", {"type": "string", "format": "date"}),
        ("prefixItems", {"prefixItems": [True]}),
        ("patternProperties", {"patternProperties": {"^a": True}}),
        ("maximum", {"maximum": 3}),
        ("exclusiveMinimum", {"exclusiveMinimum": 3}),
        ("minItems", {"minItems": 1}),
        ("a misspelt keyword", {"requried": ["a"]}),
        ("$ref outside $defs", {"properties": {"a": True}, "$ref": "#/properties/a"}),
        ("$ref to another document", {"$ref": "other.json#/$defs/x", "$defs": {"x": True}}),
        ("$ref to no definition", {"$ref": "#/$defs/missing", "$defs": {"x": True}}),
        ("$ref with a pointer escape", {"$ref": "#/$defs/a~1b", "$defs": {"a/b": True}}),
        ("$defs below the top", {"properties": {"a": {"$defs": {"x": True}}}}),
        ("an unknown type", {"type": "any"}),
        ("an empty list of types", {"type": []}),
        ("enum not an array", {"enum": "a"}),
        ("a negative maxLength", {"maxLength": -1}),
        ("a minimum of true", {"minimum": True}),
        ("a schema that is a number", {"items": 3}),
    ],
)
def test_unknown_keywords_are_refused_when_compiled(name: str, schema: Any) -> None:
    """A schema with a keyword not known here is refused as a whole, never checked in part."""
    with pytest.raises(UnsupportedSchemaError):
        compile_schema(schema)


def test_a_definition_may_refer_to_itself() -> None:
    """A recursive definition (a list of lists of strings) compiles, and checks as jsonschema
    does."""
    schema = {
        "$ref": "#/$defs/tree",
        "$defs": {
            "tree": {
                "anyOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#/$defs/tree"}}]
            }
        },
    }
    check = compile_schema(schema)
    for value in ["a", [["a", ["b"]]], [[1]], [], [[[]]], 3]:
        assert check(value) == _reference(schema, value)
    assert check([["a"]]) and not check([[1]])


def test_every_known_keyword_is_drawn_by_the_random_schemas() -> None:
    """The random schemas above exercise every keyword the module knows (a keyword added to
    `KEYWORDS` must be added to them too)."""
    drawn = {"type", "enum", "const", "minimum", "minLength", "maxLength", "pattern"}
    drawn |= {"required", "$ref", "$defs", "properties", "additionalProperties"}
    drawn |= {"propertyNames", "items", "anyOf"}
    assert drawn == schemacheck.KEYWORDS
