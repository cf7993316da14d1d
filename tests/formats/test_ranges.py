"""Every number of every input format has a stated range, and the schemas state the same ones
(clearing_analysis.ranges; docs/formats/README.md, "Numeric ranges").

The typed structs are where a range is checked (msgspec bounds); the JSON Schemas in
policy/schemas/ are where a reader finds it. The walk below visits every numeric field of every
input format's structs: each has a lower and an upper bound, but for the two numbers nothing
derives a figure from (listed, with the reason). The schema's bounds are then compared with
the structs', field by field.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Annotated, Any

import msgspec
import msgspec.inspect as mi
import pytest

from clearing_analysis import ranges, strictjson
from clearing_analysis.inputs.configs import Route, TokenWeights
from clearing_analysis.journal.records import Record
from clearing_analysis.pisession.entries import Entry, Message, SessionHeader
from clearing_analysis.qualify.record import QualificationRecord

SCHEMAS = Path(__file__).resolve().parents[2] / "policy" / "schemas"

# Numbers without an upper bound, and why that is safe: nothing is derived from them.
UNBOUNDED = {
    # usage.cost: the writer's own cost, recorded and never read (prices come from routes).
    ("journal", "UsageCost", "input"),
    ("journal", "UsageCost", "output"),
    ("journal", "UsageCost", "cacheRead"),
    ("journal", "UsageCost", "cacheWrite"),
    ("journal", "UsageCost", "total"),
    # A pi session header's version is only compared with the versions the reader knows.
    ("pisession", "SessionHeader", "version"),
}
# Each format's root types (a pi session line is an entry, a message or the header).
FORMATS: dict[str, tuple[Any, ...]] = {
    "routes": (list[Route],),
    "journal": (Record,),
    "pisession": (Entry, Message, SessionHeader),
    "qualification": (QualificationRecord,),
}


def _numeric_fields(format_name: str) -> list[tuple[str, str, Any]]:
    """(struct, field, numeric type info) of every number reachable from a format's root."""
    found: list[tuple[str, str, Any]] = []
    seen: set[type] = set()

    def visit(info: Any, owner: str, field: str) -> None:
        if isinstance(info, mi.IntType | mi.FloatType):
            found.append((owner, field, info))
        elif isinstance(info, mi.StructType):
            if info.cls in seen:
                return
            seen.add(info.cls)
            for child in info.fields:
                visit(child.type, info.cls.__name__, child.encode_name)
        elif isinstance(info, mi.UnionType):
            for member in info.types:
                visit(member, owner, field)
        elif isinstance(info, mi.ListType | mi.TupleType | mi.VarTupleType | mi.FrozenSetType):
            visit(info.item_type, owner, field)
        elif isinstance(info, mi.DictType):
            visit(info.value_type, owner, field)

    for info in mi.multi_type_info(FORMATS[format_name]):
        visit(info, format_name, "")
    return found


@pytest.mark.parametrize("format_name", sorted(FORMATS))
def test_every_number_has_a_stated_range(format_name: str) -> None:
    """Every numeric field has both bounds (or is listed in UNBOUNDED with its reason)."""
    fields = _numeric_fields(format_name)
    assert fields
    for owner, field, info in fields:
        if (format_name, owner, field) in UNBOUNDED:
            continue
        lower = info.ge if info.ge is not None else info.gt
        upper = info.le if info.le is not None else info.lt
        assert lower is not None and upper is not None, (owner, field)
        assert abs(upper) <= ranges.MAX_EXACT_INTEGER or isinstance(info, mi.FloatType)


def test_the_unbounded_numbers_exist() -> None:
    """Each UNBOUNDED entry names a numeric field that exists and has no upper bound."""
    for format_name, owner, field in UNBOUNDED:
        infos = [i for o, f, i in _numeric_fields(format_name) if (o, f) == (owner, field)]
        assert infos, (format_name, owner, field)
        assert all(i.le is None and i.lt is None for i in infos)


@functools.cache
def _schema(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    return loaded


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = schema["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def _bounds(info: Any) -> tuple[Any, Any]:
    return (info.ge if info.ge is not None else info.gt, info.le)


class TestRoutesSchema:
    """routes.schema.json states the bounds `Route` checks."""

    def test_token_and_duration_fields(self) -> None:
        """Each integer field's minimum and maximum are the struct's."""
        schema = _schema("routes")
        properties = schema["$defs"]["route"]["properties"]
        for field in mi.type_info(Route).fields:
            node = properties[field.encode_name]
            info = field.type
            if isinstance(info, mi.UnionType):  # cacheLifetimeMs: an integer or "unknown"
                info = next(t for t in info.types if isinstance(t, mi.IntType))
                node = next(
                    _resolve(schema, b) for b in node["oneOf"] if "const" not in _resolve(schema, b)
                )
            if not isinstance(info, mi.IntType | mi.FloatType):
                continue
            node = _resolve(schema, node)
            assert (node["minimum"], node["maximum"]) == _bounds(info), field.encode_name

    def test_weights(self) -> None:
        """A weight is 0 or within [MIN_POSITIVE_WEIGHT, MAX_WEIGHT], in the schema and in
        the struct (whose floor is checked after decoding, as a range)."""
        schema = _schema("routes")
        weight = schema["$defs"]["weight"]
        assert {"const": 0} in weight["anyOf"]
        positive = next(b for b in weight["anyOf"] if "const" not in b)
        assert positive == {"minimum": ranges.MIN_POSITIVE_WEIGHT, "maximum": ranges.MAX_WEIGHT}
        for field in mi.type_info(TokenWeights).fields:
            assert _bounds(field.type) == (0, ranges.MAX_WEIGHT)
        below = {"input": 5e-13, "cacheRead": 0, "cacheWrite": 0, "output": 0}
        with pytest.raises(msgspec.ValidationError) as refused:
            msgspec.convert(below, TokenWeights)
        assert strictjson.shape_reason(refused.value) == strictjson.VALUE_OUT_OF_RANGE


def test_journal_schema_token_bounds() -> None:
    """journal-v2.record.schema.json bounds usage and checkpoint tokens as the structs do."""
    schema = _schema("journal-v2.record")
    tokens = schema["$defs"]["tokens"]
    assert (tokens["minimum"], tokens["maximum"]) == (0, ranges.MAX_TOKENS)
    usage = schema["$defs"]["usage"]["properties"]
    for name in ("input", "output", "cacheRead", "cacheWrite", "totalTokens"):
        assert usage[name] == {"$ref": "#/$defs/tokens"}
    checkpoint = json.dumps(schema["$defs"]["record_checkpoint"])
    assert checkpoint.count('"$ref": "#/$defs/tokens"') == 2
    bounded = {
        (owner, field): _bounds(info)
        for owner, field, info in _numeric_fields("journal")
        if (owner, field) in {("Usage", "input"), ("Checkpoint", "tokensBefore")}
    }
    assert set(bounded.values()) == {(0, ranges.MAX_TOKENS)}


class _Bounded(msgspec.Struct, forbid_unknown_fields=True):
    """An integer and a number with stated ranges, as the input formats declare them."""

    a: Annotated[int, msgspec.Meta(ge=0, le=ranges.MAX_TOKENS)]
    b: Annotated[float, msgspec.Meta(ge=0, le=ranges.MAX_WEIGHT)] = 0.0


class TestMessagesOfTheValidationErrors:
    """`strictjson.shape_reason` reads msgspec's messages for a broken bound: pinned here on
    the locked msgspec, so an upgrade that changes them fails this test, not a user's run."""

    @pytest.mark.parametrize(
        ("value", "reason"),
        [
            ({"a": -1}, strictjson.VALUE_OUT_OF_RANGE),
            ({"a": 10**9 + 1}, strictjson.VALUE_OUT_OF_RANGE),
            ({"a": 1, "b": 1e13}, strictjson.VALUE_OUT_OF_RANGE),
            ({"a": 1, "b": 10**400}, strictjson.VALUE_OUT_OF_RANGE),
            ({"a": "1"}, strictjson.WRONG_SHAPE),
            ({"a": 1.0}, strictjson.WRONG_SHAPE),
            ({"a": True}, strictjson.WRONG_SHAPE),
            ({}, strictjson.WRONG_SHAPE),
            ({"a": 1, "c": 1}, strictjson.WRONG_SHAPE),
        ],
    )
    def test_reason(self, value: dict[str, Any], reason: str) -> None:
        """A bound broken by a number of the right type is VALUE_OUT_OF_RANGE; anything
        else, WRONG_SHAPE."""
        with pytest.raises(strictjson.JsonRejected) as refused:
            strictjson.to_struct(value, _Bounded)
        assert refused.value.reason == reason
