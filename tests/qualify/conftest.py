"""Shared fixtures for the qualification tests.

Tests marked `node` run the real harness (qualify/capture.mjs) against the pi-ai installed by
`make setup` in qualify/node_modules; they are part of `make test` and fail, not skip, when
the harness is not installed.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from clearing_analysis.qualify.harness import HARNESS_SOURCES, harness_dir

PI_AI = "@mariozechner/pi-ai"


@pytest.fixture
def harness_copy(tmp_path: Path) -> Iterator[Path]:
    """A copy of the harness sources and manifests, with a stand-in installed pi-ai manifest."""
    target = tmp_path / "qualify"
    target.mkdir()
    for name in (*HARNESS_SOURCES, "package.json", "package-lock.json"):
        shutil.copy2(harness_dir() / name, target / name)
    installed = target / "node_modules" / "@mariozechner" / "pi-ai"
    installed.mkdir(parents=True)
    manifest = harness_dir() / "node_modules" / PI_AI / "package.json"
    shutil.copy2(manifest, installed / "package.json")
    yield target
