"""The folder of public session files that some tests recount (docs/public-data.md).

Files copied from public repositories are never part of this repository (R-DATA-1): a test
that needs them reads the folder named by the environment variable CLEARING_PUBLIC_DATA, whose
layout docs/public-data.md describes (one subfolder per set of files, each with its SOURCES.md
and, where it has one, an expected.json recount and a routes.json). Where the variable is not
set the test is skipped with that reason, except in CI (CI=true), where it fails: CI sets it
(.ci/run). A variable that is set but names no such folder fails everywhere: a misconfiguration
must not pass for a skip.
"""

from __future__ import annotations

import json
import lzma
import os
from pathlib import Path
from typing import Any

import pytest

VARIABLE = "CLEARING_PUBLIC_DATA"


def public_folder(name: str) -> Path:
    """The subfolder `name` of the public data folder; skips (fails in CI) when unset."""
    root = os.environ.get(VARIABLE, "")
    if not root:
        reason = f"{VARIABLE} is not set: it names the folder of public session files"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}; .ci/run sets it before make test")
        pytest.skip(f"{reason} (docs/public-data.md)")
    folder = Path(root) / name
    if not (folder / "SOURCES.md").is_file():
        pytest.fail(f"{VARIABLE} names no folder holding {name}/SOURCES.md (docs/public-data.md)")
    return folder


def expected(folder: Path) -> dict[str, Any] | None:
    """The folder's independent recount (expected.json), when it has one."""
    path = folder / "expected.json"
    if not path.is_file():
        return None
    recount: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return recount


def session_copies(folder: Path, into: Path) -> Path:
    """The folder's session files (`*.jsonl`, and `*.jsonl.xz` decompressed) copied into a new
    directory `into`, which is returned: the tests read copies, never the folder itself."""
    into.mkdir()
    for path in sorted(folder.iterdir()):
        if path.name.endswith(".jsonl"):
            (into / path.name).write_bytes(path.read_bytes())
        elif path.name.endswith(".jsonl.xz"):
            (into / path.name.removesuffix(".xz")).write_bytes(lzma.decompress(path.read_bytes()))
    return into


__all__ = ["VARIABLE", "expected", "public_folder", "session_copies"]
