"""The import graph among a folder's modules of clearing_analysis, read from their syntax
trees (imports at any depth of a file, deferred and type-checking ones included), and the
cycles in it: the report's and the synthetic corpora's modules are checked to have none."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "clearing_analysis"


def module_name(path: Path) -> str:
    """The dotted name of the module at `path` (a package's `__init__` is the package)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_edges(path: Path, known: Iterable[str]) -> set[str]:
    """The known modules `path` imports at any depth: `from P import m` is an import of the
    submodule P.m when there is one, else of P."""
    modules = set(known)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                if sub in modules:
                    found.add(sub)
                elif node.module in modules:
                    found.add(node.module)
    return found


def cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """Each cycle a depth-first walk of `graph` meets, as the modules along it."""
    found: list[list[str]] = []
    state: dict[str, int] = {}

    def visit(name: str, trail: list[str]) -> None:
        state[name] = 1
        for target in graph[name]:
            if state.get(target) == 1:
                found.append([*trail[trail.index(target) :], target])
            elif target not in state:
                visit(target, [*trail, target])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    return found


def folder_graph(folder: str) -> dict[str, list[str]]:
    """Each module of `folder` (under src/clearing_analysis) and the folder's other modules
    it imports."""
    modules = {module_name(path): path for path in sorted((PACKAGE / folder).rglob("*.py"))}
    return {
        name: sorted(n for n in module_edges(path, modules.keys()) if n != name)
        for name, path in modules.items()
    }


def folder_cycles(folder: str) -> list[list[str]]:
    """Each cycle among `folder`'s modules, through imports at any depth of a file."""
    return cycles(folder_graph(folder))
