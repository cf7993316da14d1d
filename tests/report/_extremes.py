"""Saved reports of both kinds edited at the edges of what their schemas accept.

A renderer must render every report the schema and `report/validate.py` accept (R-REL-1):
empty lists, zeros, the largest and the smallest finite values, negative zero. `sites` walks a
valid report beside its schema (policy/schemas, the generated `$defs`) and lists every member
that can take such a value without leaving the schema: each number with the edge values its
own bounds admit, each array that may be empty, each member that may be null. `edited`
applies a choice of them. Values of the wrong type or outside a bound are never produced (the
schema refuses those, and `show` with it); whether the invariants the schema cannot state
still hold is for the reader to say.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "policy" / "schemas"
MAX_EXACT_INTEGER = 2**53 - 1
LARGEST = 1.7976931348623157e308
SMALLEST_NORMAL = 2.2250738585072014e-308
SUBNORMAL = 5e-324

# Finite doubles at the edges: zero of both signs, subnormal, the smallest normal, around one,
# where a double stops holding every integer, and the largest finite values of both signs.
FLOAT_EDGES: tuple[float, ...] = (
    0.0,
    -0.0,
    SUBNORMAL,
    -SUBNORMAL,
    SMALLEST_NORMAL,
    1e-300,
    1.0,
    -1.0,
    1e15,
    float(2**53),
    1e300,
    1e308,
    LARGEST,
    -LARGEST,
)
# Integers the reader accepts (|n| <= 2^53 - 1): zero, one, 2^31 and the exact-integer edge.
INT_EDGES: tuple[int, ...] = (0, 1, -1, 2**31, 2**31 - 1, MAX_EXACT_INTEGER, -MAX_EXACT_INTEGER)


@functools.cache
def schema(kind: str) -> dict[str, Any]:
    """The schema of a report kind ("analysis" or "explore")."""
    name = "explore-report" if kind == "explore" else "report"
    loaded: dict[str, Any] = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    return loaded


def _resolve(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = defs[node["$ref"].rsplit("/", 1)[-1]]
    return node


def _admits(bounds: dict[str, Any], value: float) -> bool:
    if "minimum" in bounds and value < bounds["minimum"]:
        return False
    if "exclusiveMinimum" in bounds and value <= bounds["exclusiveMinimum"]:
        return False
    if "maximum" in bounds and value > bounds["maximum"]:
        return False
    return not ("exclusiveMaximum" in bounds and value >= bounds["exclusiveMaximum"])


@dataclass(frozen=True, slots=True)
class Site:
    """A member of a report and the edge values its schema admits there."""

    path: tuple[Any, ...]
    values: tuple[Any, ...]


def _number_values(node: dict[str, Any]) -> tuple[Any, ...]:
    if node.get("type") == "integer":
        return tuple(v for v in INT_EDGES if _admits(node, v))
    return tuple(v for v in FLOAT_EDGES if _admits(node, v))


def _walk(
    instance: Any, node: dict[str, Any], defs: dict[str, Any], path: tuple[Any, ...]
) -> Iterator[Site]:
    node = _resolve(node, defs)
    if "anyOf" in node:
        branches = [_resolve(b, defs) for b in node["anyOf"]]
        if instance is not None and any(b.get("type") == "null" for b in branches):
            yield Site(path, (None,))
        for branch in branches:
            if instance is not None and branch.get("type") != "null":
                yield from _walk(instance, branch, defs, path)
                return
        return
    if isinstance(instance, bool) or instance is None:
        return
    if isinstance(instance, dict):
        properties = node.get("properties", {})
        extra = node.get("additionalProperties")
        for key, child in instance.items():
            sub = properties.get(key, extra if isinstance(extra, dict) else None)
            if sub is not None:
                yield from _walk(child, sub, defs, (*path, key))
    elif isinstance(instance, list):
        if instance and node.get("minItems", 0) == 0:
            yield Site(path, ([],))
        items = node.get("items")
        if isinstance(items, dict):
            for index, child in enumerate(instance):
                yield from _walk(child, items, defs, (*path, index))
    elif isinstance(instance, int | float) and node.get("type") in ("integer", "number"):
        values = _number_values(node)
        if values:
            yield Site(path, values)


def sites(report: Any, kind: str) -> list[Site]:
    """Every member of a parsed report that can take an edge value within its schema."""
    root = schema(kind)
    return list(_walk(report, {"$ref": root["$ref"]}, root["$defs"], ()))


def _holds(node: Any, key: Any) -> bool:
    if isinstance(node, dict):
        return key in node
    return isinstance(node, list) and isinstance(key, int) and key < len(node)


def edited(report: Any, changes: list[tuple[tuple[Any, ...], Any]]) -> Any:
    """A copy of `report` with each (path, value) set in turn (a path under an emptied or
    nulled member is skipped)."""
    copied = copy.deepcopy(report)
    for path, value in changes:
        node = copied
        for key in path[:-1]:
            if not _holds(node, key):
                break
            node = node[key]
        else:
            if path and _holds(node, path[-1]):
                node[path[-1]] = value
    return copied


def everywhere(report: Any, kind: str, value: float | int) -> Any:
    """Every number of the report that admits `value` (of its own kind: integers for integer
    members, floats for the others) set to it, but the rates (whose strictly increasing order
    the reader checks) and the histograms' edges (likewise)."""
    changes = []
    for site in sites(report, kind):
        if not site.path or site.path[-1] in ("rate", "edges") or "edges" in site.path:
            continue
        if value in site.values and type(value) in {type(v) for v in site.values}:
            changes.append((site.path, value))
    return edited(report, changes)


__all__ = [
    "FLOAT_EDGES",
    "INT_EDGES",
    "LARGEST",
    "Site",
    "edited",
    "everywhere",
    "schema",
    "sites",
]
