"""The published schemas are valid 2020-12 schemas and the examples validate against them."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from tests.formats._schema import EXAMPLES, schema, schema_accepts

NAMES = ["journal-v2.record", "routes", "agent-config", "app-allowlist"]


@pytest.mark.parametrize("name", NAMES)
def test_schema_is_valid_2020_12(name: str) -> None:
    """Each published schema is itself a valid JSON Schema 2020-12 document."""
    doc = schema(name)
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(doc)


@pytest.mark.parametrize(
    ("example", "name"),
    [
        ("routes.example.json", "routes"),
        ("agent-config.example.json", "agent-config"),
        ("agent-config.per-run.example.json", "agent-config"),
        ("app-allowlist.example.json", "app-allowlist"),
    ],
)
def test_config_examples_validate(example: str, name: str) -> None:
    """Every configuration example in docs/formats/examples validates against its schema."""
    value = json.loads((EXAMPLES / example).read_text(encoding="utf-8"))
    assert schema_accepts(name, value)


def test_schema_objects_forbid_unknown_fields() -> None:
    """Every object schema with properties in the journal schema closes additionalProperties."""
    open_objects = []

    def walk(node: object, where: str) -> None:
        if isinstance(node, dict):
            if "properties" in node and node.get("additionalProperties") is not False:
                open_objects.append(where)
            for key, child in node.items():
                walk(child, f"{where}/{key}")
        elif isinstance(node, list):
            for index, child in enumerate(node):
                walk(child, f"{where}/{index}")

    for name in NAMES:
        walk(schema(name), name)
    assert open_objects == []
