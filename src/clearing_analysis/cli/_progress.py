"""Progress feedback on stderr for long runs (R-CLI-6): counts and MB/s, never names.

Shown only when stderr is a terminal, so CI logs and pipes stay clean; it prints the number of
journals done, their total and the byte throughput, nothing from any input. rich loads only
then: a run in a pipe or in CI never imports it for progress.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clearing_analysis.pipeline.jobs import ProgressCallback


@contextmanager
def replay_progress() -> Iterator[ProgressCallback | None]:
    """A progress callback drawing on stderr, or None when stderr is not a terminal."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console  # noqa: PLC0415
    from rich.progress import (  # noqa: PLC0415
        BarColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TransferSpeedColumn,
    )

    progress = Progress(
        TextColumn("replay"),
        BarColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[journals]}"),
        TransferSpeedColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    task = progress.add_task("replay", total=None, journals="")

    def update(done: int, total: int, bytes_done: int, bytes_total: int) -> None:
        progress.update(
            task, completed=bytes_done, total=bytes_total, journals=f"{done}/{total} journals"
        )

    with progress:
        yield update
