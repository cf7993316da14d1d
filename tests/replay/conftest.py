"""Fixtures: an empty sidecar view and a helper to replay builders through real files."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from clearing_analysis.inputs.sidecar import SidecarView, open_sidecar
from tests.replay.builder import SidecarBuilder

# The physical conversation ids the replay tests use; capture is enabled for them from the
# epoch, so only tests about the capture window meet OUTSIDE_CAPTURE_WINDOW.
CAPTURED = ("p", "p1", "p2", "p3")


@pytest.fixture
def sidecar_builder(tmp_path: Path) -> SidecarBuilder:
    """A fresh sidecar file under tmp_path/sidecar (its own directory), capture enabled for
    CAPTURED."""
    directory = tmp_path / "sidecar"
    directory.mkdir()
    return SidecarBuilder(directory / "history.sqlite", capture_enabled=CAPTURED)


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
