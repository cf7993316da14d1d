"""Which paths a command's request reads and writes (for R-CT-2).

Guarantees:
- A request (inputs.requests) holds every path its command line named, each in a field whose
  annotation declares its role: `PathRole.INPUT` (read), `PathRole.SIDECAR` (read, and also
  checked for companions), `PathRole.OUTPUT` (created) or `CreatesIn(names)` (a directory
  the command creates those files in: the files are what is classified, so the directory
  itself is what must sit on the output mount). `contract_paths` reads those annotations
  only: the classification is declared once, beside the field, by whoever adds the field.
- A field that holds a path (or a tuple of paths) and declares no role fails closed with
  `ARGUMENT_UNCLASSIFIED`, so a new path option nobody classified can never slip past the
  contract; a test checks every request type and every command of the CLI.
- Fields that hold no path (a rate, a period, a flag) are not classified; an absent optional
  path (None) names nothing.
"""

from __future__ import annotations

import typing
from pathlib import PurePath
from typing import Any

import msgspec

from clearing_analysis.codes.errors import MountContractDetail, MountContractError
from clearing_analysis.container.contract import ContractPaths
from clearing_analysis.inputs import requests
from clearing_analysis.inputs.requests import CreatesIn, PathRole, Request

Role = PathRole | CreatesIn


def _roles(request_type: type[Any]) -> dict[str, Role | None]:
    """Each field of a request type and the role its annotation declares (None: none)."""
    hints = typing.get_type_hints(request_type, vars(requests), include_extras=True)
    roles: dict[str, Role | None] = {}
    for field in msgspec.structs.fields(request_type):
        declared = [
            marker
            for marker in getattr(hints[field.name], "__metadata__", ())
            if isinstance(marker, PathRole | CreatesIn)
        ]
        if len(declared) > 1:
            raise RuntimeError("a request field declares one role at most")
        roles[field.name] = declared[0] if declared else None
    return roles


def _path_values(value: object) -> list[PurePath] | None:
    """The paths a field's value holds, or None if it is not path-valued."""
    if isinstance(value, PurePath):
        return [value]
    if isinstance(value, tuple | list) and value and all(isinstance(v, PurePath) for v in value):
        return list(value)
    return None


def contract_paths(request: Request) -> ContractPaths:
    """The inputs, outputs and sidecars `request` names, as given (module docstring)."""
    inputs: list[PurePath] = []
    outputs: list[PurePath] = []
    sidecars: list[PurePath] = []
    for name, role in sorted(_roles(type(request)).items()):
        paths = _path_values(getattr(request, name))
        if paths is None:
            continue
        match role:
            case PathRole.INPUT:
                inputs.extend(paths)
            case PathRole.SIDECAR:
                inputs.extend(paths)
                sidecars.extend(paths)
            case PathRole.OUTPUT:
                outputs.extend(paths)
            case CreatesIn(names=names):
                outputs.extend(path / created for path in paths for created in names)
            case None:
                raise MountContractError(MountContractDetail.ARGUMENT_UNCLASSIFIED)
    return ContractPaths(tuple(inputs), tuple(outputs), tuple(sidecars))


__all__ = ["contract_paths"]
