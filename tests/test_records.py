"""The analyzer's records are msgspec structs, not dataclasses (docs/architecture.md,
"Records"): a dataclass costs about 1 ms of every run's start at import, a struct about 30 µs."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "clearing_analysis"

# typer's RuntimeParam is a dataclass; the plain converter's subclass must be one too.
ALLOWED = {("cli/_values.py", "PlainRuntimeParam")}


def _dataclasses(root: Path) -> set[tuple[str, str]]:
    """(module path, class name) of every class under `root` with a dataclass decorator."""
    found: set[tuple[str, str]] = set()
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                "dataclass" in ast.unparse(decorator) for decorator in node.decorator_list
            ):
                found.add((path.relative_to(root).as_posix(), node.name))
    return found


def test_no_record_is_a_dataclass() -> None:
    """Only the typer subclass is a dataclass; a new record is a struct."""
    assert _dataclasses(SRC) == ALLOWED


def test_the_scan_finds_a_dataclass(tmp_path: Path) -> None:
    """The scan sees a decorated class however the decorator is written, and no struct (not
    vacuous)."""
    (tmp_path / "records.py").write_text(
        "import dataclasses, msgspec\n"
        "from dataclasses import dataclass\n"
        "@dataclass\nclass A:\n    x: int\n"
        "@dataclass(frozen=True, slots=True)\nclass B:\n    x: int\n"
        "@dataclasses.dataclass\nclass C:\n    x: int\n"
        "class D(msgspec.Struct, frozen=True):\n    x: int\n"
    )
    assert _dataclasses(tmp_path) == {("records.py", name) for name in "ABC"}
