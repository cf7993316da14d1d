"""Schema helpers shared by the format tests.

The published schemas follow JSON Schema 2020-12, where `2.0` is an "integer". The formats
additionally require integers in integer form (docs/formats/journal-v2.md, "Numbers"), which the
decoder enforces; `strict_validator` adds that lexical rule so schema and decoder can be compared
value for value.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, validators

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "policy" / "schemas"
EXAMPLES = REPO / "docs" / "formats" / "examples"


def _is_integer(_checker: Any, instance: Any) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


_StrictIntegers = validators.extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer),
)


@cache
def schema(name: str) -> Any:
    """A published schema by short name (e.g. 'routes')."""
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))


@cache
def strict_validator(name: str) -> Any:
    """A validator for schema `name` whose integers must be JSON integers, not 2.0."""
    return _StrictIntegers(schema(name))


def schema_accepts(name: str, value: Any) -> bool:
    """Whether `value` validates against schema `name` (integer form required)."""
    return bool(strict_validator(name).is_valid(value))
