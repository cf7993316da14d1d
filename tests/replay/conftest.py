"""Fixtures: an empty sidecar view and a helper to replay builders through real files."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from clearing_analysis.inputs.sidecar import SidecarView, open_sidecar
from tests.replay.builder import SidecarBuilder


@pytest.fixture
def sidecar_builder(tmp_path: Path) -> SidecarBuilder:
    """A fresh sidecar file under tmp_path/sidecar (its own directory)."""
    directory = tmp_path / "sidecar"
    directory.mkdir()
    return SidecarBuilder(directory / "history.sqlite")


@pytest.fixture
def open_view() -> Iterator[Callable[[SidecarBuilder], SidecarView]]:
    """Finish a builder and open it read-only; views are closed after the test."""
    views: list[SidecarView] = []

    def _open(builder: SidecarBuilder) -> SidecarView:
        view = open_sidecar(builder.finish())
        views.append(view)
        return view

    yield _open
    for view in views:
        view.close()
