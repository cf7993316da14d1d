"""Fail the image build if a run would compile any Python source (docs/container.md).

The image runs from a read-only root with PYTHONDONTWRITEBYTECODE set, so a module without
current bytecode is compiled again in every process and every pool worker, about a CPU-second
each time for the analyzer. Two checks, run with the image's interpreter after the venv is
byte-compiled:

1. every `.py` file under the given directories has its `.pyc` in `__pycache__`;
2. importing every module of `clearing_analysis` (which loads msgspec, polars, rich, typer,
   structlog and the standard library modules they use) compiles no source: the source
   loader's compile step is watched, and it runs only when no valid `.pyc` exists.

Usage: python check_bytecode.py DIR [DIR ...]   (exit status 1 and the counts when not)
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import pkgutil
import sys
from pathlib import Path


def _without_bytecode(roots: list[Path]) -> list[Path]:
    return [
        source
        for root in roots
        for source in sorted(root.rglob("*.py"))
        if not Path(importlib.util.cache_from_source(str(source))).is_file()
    ]


def _compiled_on_import() -> list[str]:
    compiled: list[str] = []
    loader = importlib.machinery.SourceFileLoader
    original = loader.source_to_code

    def watched(self: object, data: bytes, path: str, *, _optimize: int = -1) -> object:
        compiled.append(path)
        return original(self, data, path, _optimize=_optimize)  # type: ignore[arg-type]

    loader.source_to_code = watched  # type: ignore[assignment,method-assign]
    try:
        package = importlib.import_module("clearing_analysis")
        for module in pkgutil.walk_packages(package.__path__, "clearing_analysis."):
            if not module.name.endswith(".__main__"):  # importing one would run it
                importlib.import_module(module.name)
        importlib.import_module("polars")
    finally:
        loader.source_to_code = original  # type: ignore[method-assign]
    return compiled


def main() -> int:
    missing = _without_bytecode([Path(arg) for arg in sys.argv[1:]])
    compiled = _compiled_on_import()
    for path in [*map(str, missing[:10]), *compiled[:10]]:
        print(f"no bytecode: {path}", file=sys.stderr)
    if missing or compiled:
        print(
            f"{len(missing)} source files without bytecode, {len(compiled)} compiled on import",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
