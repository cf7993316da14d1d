"""Validation against the part of JSON Schema (draft 2020-12) the report schemas use.

Every report is checked against its published schema before it is written, and every saved
report `show` reads is checked before it is decoded (`report.encode`). The `jsonschema`
library's import alone costs a small `analyze` about 0.08 CPU-s, a fifth of its start
(docs/performance.md, "Start-up"), so the report schemas are compiled here instead, once, into
plain checks.

The keywords known here are those the report schemas use, with draft 2020-12's meaning as
`jsonschema.Draft202012Validator` gives it (its type checker and its equality, which keeps
`true` apart from 1):

- `type` (one name or a list), `enum`, `const`;
- `properties`, `required`, `additionalProperties` (true, false or a schema), `propertyNames`;
- `items` (a schema for every element; `prefixItems` is not known);
- `anyOf`, `minimum`, `minLength`, `maxLength`, `pattern` (Python's `re.search`, as
  jsonschema uses);
- `$ref` to `#/$defs/NAME` of the same document, beside any other keyword;
- annotations, which check nothing: `$schema`, `$id`, `$comment`, `title`, `description`,
  `default`, `examples`.

A schema with any other keyword, a `$ref` elsewhere, or `$defs` below the top is refused when
it is compiled (`UnsupportedSchemaError`), never half checked: a schema that starts to use a new
keyword fails in the tests, which also hold every verdict here to jsonschema's on random
schemas and instances (tests/test_schemacheck.py). The `format` keyword is refused rather
than taken as the annotation jsonschema takes it for by default.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

Check = Callable[[Any], bool]
"""A compiled schema: whether a parsed JSON value is valid."""

ANNOTATIONS: Final = frozenset(
    {"$schema", "$id", "$comment", "title", "description", "default", "examples"}
)
KEYWORDS: Final = frozenset(
    {
        "type",
        "enum",
        "const",
        "properties",
        "required",
        "additionalProperties",
        "propertyNames",
        "items",
        "anyOf",
        "minimum",
        "minLength",
        "maxLength",
        "pattern",
        "$ref",
        "$defs",
    }
)
_DEFS_PREFIX: Final = "#/$defs/"


class UnsupportedSchemaError(ValueError):
    """A schema uses what this module does not check (a programming error: the schemas are
    reviewed policy files, never user input)."""


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


_TYPES: Final[Mapping[str, Check]] = {
    "null": lambda value: value is None,
    "boolean": lambda value: isinstance(value, bool),
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
    "string": lambda value: isinstance(value, str),
    "number": _is_number,
    "integer": _is_integer,
}


def json_equal(one: Any, two: Any) -> bool:
    """JSON Schema's equality for `enum` and `const`: numbers by value (1 equals 1.0), but a
    boolean equals only itself, inside arrays and objects too."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, bool) or isinstance(two, bool):
        return False  # `one is two` held for two equal booleans
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(map(json_equal, one, two))
    if isinstance(one, dict) and isinstance(two, dict):
        return len(one) == len(two) and all(
            key in two and json_equal(value, two[key]) for key, value in one.items()
        )
    return bool(one == two)


def _valid(_: Any) -> bool:
    return True


def _invalid(_: Any) -> bool:
    return False


class _Compiler:
    """One document's schema nodes compiled to checks; `$ref`s resolved through its `$defs`."""

    def __init__(self, document: Mapping[str, Any] | bool) -> None:
        defs = document.get("$defs", {}) if isinstance(document, Mapping) else {}
        if not isinstance(defs, Mapping):
            raise UnsupportedSchemaError("$defs is not an object")
        self._defs = defs
        self._compiled: dict[str, Check] = {}

    def definition(self, reference: Any) -> Check:
        """The check of `#/$defs/NAME`, compiled once; it looks its definition up when it runs,
        so a definition may refer to itself."""
        if not isinstance(reference, str) or not reference.startswith(_DEFS_PREFIX):
            raise UnsupportedSchemaError("a $ref outside #/$defs/")
        name = reference.removeprefix(_DEFS_PREFIX)
        if "/" in name or "~" in name or "%" in name or name not in self._defs:
            raise UnsupportedSchemaError("a $ref to no definition")
        if name not in self._compiled:
            self._compiled[name] = _invalid  # a reference back to it while it compiles
            self._compiled[name] = self.node(self._defs[name], top=False)
        compiled = self._compiled

        def ref(value: Any) -> bool:
            return compiled[name](value)

        return ref

    def node(self, schema: Any, *, top: bool) -> Check:
        """A schema node's check: every keyword's check must hold."""
        if schema is True:
            return _valid
        if schema is False:
            return _invalid
        if not isinstance(schema, Mapping):
            raise UnsupportedSchemaError("a schema is neither an object nor a boolean")
        unknown = set(schema) - KEYWORDS - ANNOTATIONS
        if unknown or ("$defs" in schema and not top):
            raise UnsupportedSchemaError("a keyword this module does not check")
        checks = [
            check
            for keyword, value in schema.items()
            if (check := self._keyword(keyword, value, schema)) is not None
        ]
        if not checks:
            return _valid
        if len(checks) == 1:
            return checks[0]

        def every(value: Any) -> bool:
            return all(check(value) for check in checks)

        return every

    def _keyword(self, keyword: str, value: Any, schema: Mapping[str, Any]) -> Check | None:
        if keyword in ANNOTATIONS or keyword == "$defs":
            return None
        if keyword == "$ref":
            return self.definition(value)
        if keyword == "type":
            return _type_check(value)
        if keyword == "enum":
            members = _list_of(value, "enum")
            return lambda instance: any(json_equal(instance, member) for member in members)
        if keyword == "const":
            return lambda instance: json_equal(instance, value)
        if keyword == "properties":
            return self._properties(value)
        if keyword == "required":
            names = _strings(value, "required")
            return lambda instance: (
                not isinstance(instance, dict) or all(name in instance for name in names)
            )
        if keyword == "additionalProperties":
            return self._additional(value, schema.get("properties", {}))
        if keyword == "propertyNames":
            names_check = self.node(value, top=False)
            return lambda instance: (
                not isinstance(instance, dict) or all(map(names_check, instance))
            )
        if keyword == "items":
            item = self.node(value, top=False)
            return lambda instance: not isinstance(instance, list) or all(map(item, instance))
        if keyword == "anyOf":
            options = [self.node(option, top=False) for option in _list_of(value, "anyOf")]
            return lambda instance: any(option(instance) for option in options)
        if keyword == "minimum":
            return _minimum(value)
        if keyword in ("minLength", "maxLength"):
            return _length(keyword, value)
        if keyword == "pattern":
            return _pattern(value)
        raise UnsupportedSchemaError("a keyword this module does not check")

    def _properties(self, value: Any) -> Check:
        if not isinstance(value, Mapping):
            raise UnsupportedSchemaError("properties is not an object")
        checks = [(name, self.node(sub, top=False)) for name, sub in value.items()]

        def properties(instance: Any) -> bool:
            if not isinstance(instance, dict):
                return True
            return all(check(instance[name]) for name, check in checks if name in instance)

        return properties

    def _additional(self, value: Any, properties: Any) -> Check:
        if not isinstance(properties, Mapping):
            raise UnsupportedSchemaError("properties is not an object")
        declared = frozenset(properties)
        extra = self.node(value, top=False)

        def additional(instance: Any) -> bool:
            if not isinstance(instance, dict):
                return True
            return all(extra(item) for name, item in instance.items() if name not in declared)

        return additional


def _list_of(value: Any, keyword: str) -> Sequence[Any]:
    if not isinstance(value, list):
        raise UnsupportedSchemaError(f"{keyword} is not an array")
    return tuple(value)


def _strings(value: Any, keyword: str) -> Sequence[str]:
    items = _list_of(value, keyword)
    if not all(isinstance(item, str) for item in items):
        raise UnsupportedSchemaError(f"{keyword} lists a non-string")
    return items


def _type_check(value: Any) -> Check:
    names = [value] if isinstance(value, str) else _strings(value, "type")
    if not names or any(name not in _TYPES for name in names):
        raise UnsupportedSchemaError("an unknown type")
    checks = [_TYPES[name] for name in names]
    if len(checks) == 1:
        return checks[0]
    return lambda instance: any(check(instance) for check in checks)


def _minimum(bound: Any) -> Check:
    if not _is_number(bound) or not math.isfinite(bound):
        raise UnsupportedSchemaError("minimum is not a finite number")

    def minimum(instance: Any) -> bool:
        # As jsonschema compares: a NaN is not less than the bound.
        return not _is_number(instance) or not instance < bound

    return minimum


def _length(keyword: str, bound: Any) -> Check:
    if not _is_integer(bound) or bound < 0:
        raise UnsupportedSchemaError(f"{keyword} is not a non-negative integer")
    if keyword == "minLength":
        return lambda instance: not isinstance(instance, str) or len(instance) >= bound
    return lambda instance: not isinstance(instance, str) or len(instance) <= bound


def _pattern(value: Any) -> Check:
    if not isinstance(value, str):
        raise UnsupportedSchemaError("pattern is not a string")
    search = re.compile(value).search
    return lambda instance: not isinstance(instance, str) or search(instance) is not None


def compile_schema(schema: Mapping[str, Any] | bool) -> Check:
    """A schema document compiled to one check (UnsupportedSchemaError for what is not known
    here)."""
    return _Compiler(schema).node(schema, top=True)


__all__ = [
    "ANNOTATIONS",
    "KEYWORDS",
    "Check",
    "UnsupportedSchemaError",
    "compile_schema",
    "json_equal",
]
