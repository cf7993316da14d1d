"""Snapshot change detection over every input (R-FS-7; seed, "snapshot limits").

A `SnapshotPlan` names what to watch: input files (journals, sidecar, configs), walked
directories, and the directories where the sidecar's companions must stay absent. `take`
records, for each, (size, mtime_ns, ctime_ns, st_dev, st_ino, file type); for a directory also
its sorted entry names (so a directory gaining a journal is seen even when the filesystem's
timestamp tick is too coarse to move mtime); for a companion directory the casefolded
companion names present. `compare` raises SNAPSHOT_CHANGED on any difference.

This is change detection, not an atomic cross-file backup, and it cannot catch an adversarial
writer that restores every recorded field (docs/privacy.md). Names and stamps stay in memory
and are never printed.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from clearing_analysis.codes.errors import SnapshotChangedDetail, SnapshotChangedError
from clearing_analysis.inputs.sidecar import COMPANION_SUFFIXES


@dataclass(frozen=True, slots=True)
class WatchedPath:
    """A file or directory to stamp; `follow` stats through a symlink (explicit arguments)."""

    path: Path
    follow: bool


@dataclass(frozen=True, slots=True)
class SnapshotPlan:
    """Everything the two snapshots cover."""

    files: tuple[WatchedPath, ...]
    directories: tuple[WatchedPath, ...]
    # (directory, sidecar file name): its -wal/-shm/-journal companions must stay absent.
    companion_directories: tuple[tuple[Path, str], ...]


@dataclass(frozen=True, slots=True)
class Stamp:
    """What is compared for one path. None fields mean the path could not be stat'ed."""

    file_type: int
    size: int
    mtime_ns: int
    ctime_ns: int
    device: int
    inode: int
    entries: tuple[bytes, ...] | None


ABSENT = None


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One snapshot: stamps of files and directories, and companions present per directory."""

    files: tuple[Stamp | None, ...]
    directories: tuple[Stamp | None, ...]
    companions: tuple[tuple[str, ...], ...]

    def has_missing_input(self) -> bool:
        """Whether some watched file or directory did not exist (or could not be stat'ed)."""
        return any(stamp is ABSENT for stamp in (*self.files, *self.directories))

    def has_companion(self) -> bool:
        """Whether any sidecar companion was present."""
        return any(self.companions)


def companion_names(sidecar_name: str) -> frozenset[str]:
    """Casefolded names of the sidecar's companions (R-SC-1)."""
    return frozenset((sidecar_name + suffix).casefold() for suffix in COMPANION_SUFFIXES)


def _stamp(watched: WatchedPath, *, with_entries: bool) -> Stamp | None:
    try:
        status = watched.path.stat(follow_symlinks=watched.follow)
        entries = None
        if with_entries and stat.S_ISDIR(status.st_mode):
            entries = tuple(sorted(os.fsencode(child.name) for child in watched.path.iterdir()))
    except OSError:
        return ABSENT
    return Stamp(
        file_type=stat.S_IFMT(status.st_mode),
        size=status.st_size,
        mtime_ns=status.st_mtime_ns,
        ctime_ns=status.st_ctime_ns,
        device=status.st_dev,
        inode=status.st_ino,
        entries=entries,
    )


def _companions_present(directory: Path, sidecar_name: str) -> tuple[str, ...]:
    wanted = companion_names(sidecar_name)
    try:
        names = [child.name for child in directory.iterdir()]
    except OSError:
        # The sidecar's directory vanished or became unreadable: that is a change too.
        return ("<unlistable>",)
    return tuple(sorted(name.casefold() for name in names if name.casefold() in wanted))


def take(plan: SnapshotPlan) -> Snapshot:
    """Record the current state of everything in `plan`."""
    return Snapshot(
        files=tuple(_stamp(watched, with_entries=False) for watched in plan.files),
        directories=tuple(_stamp(watched, with_entries=True) for watched in plan.directories),
        companions=tuple(
            _companions_present(directory, name) for directory, name in plan.companion_directories
        ),
    )


def _differs(before: Iterable[object], after: Iterable[object]) -> bool:
    return tuple(before) != tuple(after)


def compare(before: Snapshot, after: Snapshot) -> None:
    """Raise SNAPSHOT_CHANGED (with a fixed detail) if `after` differs from `before`."""
    if _differs(before.companions, after.companions):
        raise SnapshotChangedError(SnapshotChangedDetail.COMPANION_CHANGED)
    if _differs(before.files, after.files):
        raise SnapshotChangedError(SnapshotChangedDetail.FILE_CHANGED)
    if _differs(before.directories, after.directories):
        raise SnapshotChangedError(SnapshotChangedDetail.DIRECTORY_CHANGED)
