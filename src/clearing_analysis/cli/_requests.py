"""From a parsed command line to the command's request (inputs.requests), in one place.

Each command declares which request it builds (`Command.for_request`, cli._command); its
parameters are named as the request's fields, so one function, `request_from`, maps every
command's parsed values: a list of paths becomes a tuple, a choice its value, `--since` and
`--until` the request's `period`, `--retrieval-rate` its checked `retrieval_rate` (the
policy's default when absent), `--by` its `usage_by` flag. A parameter that holds a path and
names no field of the request is refused: a path option cannot be parsed and then dropped
on its way to the mount contract.

The CLI's commands call it on their own parsed values (`ctx.params`); the image's
entrypoint (cli.image) calls it on a command line parsed the same way, without running
anything, to learn which paths the command will read and write (R-CT-2).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any, TypeVar

import msgspec

from clearing_analysis.inputs.period import parse_period
from clearing_analysis.inputs.requests import Request, parse_retrieval_rate

R = TypeVar("R", bound=Request)


class UnmappedPathError(RuntimeError):
    """A parsed parameter holds a path that no field of the command's request takes."""


def _plain(value: Any) -> Any:
    """A parsed value as the request holds it: tuples for lists, an enum's value."""
    if isinstance(value, list):
        return tuple(_plain(item) for item in value)
    if isinstance(value, enum.Enum):
        return value.value
    return value


def _holds_path(value: object) -> bool:
    if isinstance(value, list | tuple):
        return any(isinstance(item, PurePath) for item in value)
    return isinstance(value, PurePath)


def request_from(kind: type[R], params: Mapping[str, Any]) -> R:
    """The request of type `kind` for a command's parsed `params` (module docstring). Raises
    the request's own fixed errors (INPUT_INVALID ...) for a value it refuses."""
    names = {field.name for field in msgspec.structs.fields(kind)}
    unmapped = [n for n, v in params.items() if n not in names and _holds_path(v)]
    if unmapped:
        raise UnmappedPathError("a path parameter maps to no request field")
    values: dict[str, Any] = {}
    for name in names:
        if name == "period":
            values[name] = parse_period(params.get("since"), params.get("until"))
        elif name == "retrieval_rate":
            values[name] = parse_retrieval_rate(params.get("retrieval_rate"))
        elif name == "usage_by":
            values[name] = params.get("by") is not None
        elif name in params:
            values[name] = _plain(params[name])
    return kind(**values)


__all__ = ["UnmappedPathError", "request_from"]
