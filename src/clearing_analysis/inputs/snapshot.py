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

The files (every journal among them) are packed: their paths as text and one byte each in
`WatchedFiles`, their stamps as integer columns in `FileStamps`, about 60 bytes a file
instead of an object of some 350 (the first snapshot lives through the whole run).
"""

from __future__ import annotations

import os
import stat
from array import array
from collections.abc import Iterable, Sequence
from pathlib import Path

import msgspec

from clearing_analysis.codes.errors import SnapshotChangedDetail, SnapshotChangedError
from clearing_analysis.inputs.sidecar import COMPANION_SUFFIXES


class WatchedPath(msgspec.Struct, frozen=True):
    """A file or directory to stamp; `follow` stats through a symlink (explicit arguments)."""

    path: Path
    follow: bool


class WatchedFiles(msgspec.Struct, frozen=True):
    """Files to stamp, packed: each path as text, and one byte each, 1 where stat follows a
    symlink (an explicit argument)."""

    paths: tuple[str, ...]
    follow: bytes

    @classmethod
    def of(cls, watched: Sequence[WatchedPath]) -> WatchedFiles:
        return cls(tuple(os.fspath(w.path) for w in watched), bytes(int(w.follow) for w in watched))

    def __add__(self, other: WatchedFiles) -> WatchedFiles:
        return WatchedFiles(self.paths + other.paths, self.follow + other.follow)


class SnapshotPlan(msgspec.Struct, frozen=True):
    """Everything the two snapshots cover."""

    files: WatchedFiles
    directories: tuple[WatchedPath, ...]
    # (directory, sidecar file name): its -wal/-shm/-journal companions must stay absent.
    companion_directories: tuple[tuple[Path, str], ...]


class Stamp(msgspec.Struct, frozen=True):
    """What is compared for one path. None fields mean the path could not be stat'ed."""

    file_type: int
    size: int
    mtime_ns: int
    ctime_ns: int
    device: int
    inode: int
    # A directory's entry names, sorted, each ended by a NUL (no name holds one): one object
    # per directory, not one per name; None for a file.
    entries: bytes | None


ABSENT = None

# A file's stamp in `FileStamps`: four signed numbers, then two unsigned ones.
_SIGNED_FIELDS = 4  # file type, size, mtime_ns, ctime_ns (a time may be before 1970)
_UNSIGNED_FIELDS = 2  # st_dev, st_ino
_ABSENT_TYPE = -1  # the file type of a file that could not be stat'ed


class FileStamps(msgspec.Struct, frozen=True):
    """The stamps of the watched files, in their order, as integer columns: `signed` holds
    file type, size, mtime_ns and ctime_ns of each file, `unsigned` its st_dev and st_ino. A
    file that could not be stat'ed has file type -1 and zeros (`Stamp` None)."""

    signed: array[int]
    unsigned: array[int]

    def __len__(self) -> int:
        return len(self.signed) // _SIGNED_FIELDS

    def __getitem__(self, index: int) -> Stamp | None:
        """The stamp of file `index` (negative indexes count from the end)."""
        index = range(len(self))[index]
        file_type, size, mtime_ns, ctime_ns = self.signed[
            _SIGNED_FIELDS * index : _SIGNED_FIELDS * (index + 1)
        ]
        if file_type == _ABSENT_TYPE:
            return ABSENT
        device, inode = self.unsigned[_UNSIGNED_FIELDS * index : _UNSIGNED_FIELDS * (index + 1)]
        return Stamp(file_type, size, mtime_ns, ctime_ns, device, inode, entries=None)

    def size(self, index: int) -> int:
        """The size of file `index` (0 for a file that could not be stat'ed)."""
        return self.signed[_SIGNED_FIELDS * index + 1]

    def has_absent(self) -> bool:
        """Whether some file could not be stat'ed."""
        return _ABSENT_TYPE in self.signed[::_SIGNED_FIELDS]


class Snapshot(msgspec.Struct, frozen=True):
    """One snapshot: stamps of files and directories, and companions present per directory."""

    files: FileStamps
    directories: tuple[Stamp | None, ...]
    companions: tuple[tuple[str, ...], ...]

    def has_missing_input(self) -> bool:
        """Whether some watched file or directory did not exist (or could not be stat'ed)."""
        return self.files.has_absent() or any(stamp is ABSENT for stamp in self.directories)

    def has_companion(self) -> bool:
        """Whether any sidecar companion was present."""
        return any(self.companions)


def companion_names(sidecar_name: str) -> frozenset[str]:
    """Casefolded names of the sidecar's companions (R-SC-1)."""
    return frozenset((sidecar_name + suffix).casefold() for suffix in COMPANION_SUFFIXES)


def _directory_stamp(watched: WatchedPath) -> Stamp | None:
    try:
        status = watched.path.stat(follow_symlinks=watched.follow)
        entries = None
        if stat.S_ISDIR(status.st_mode):
            names = sorted(os.fsencode(child.name) for child in watched.path.iterdir())
            entries = b"".join(name + b"\0" for name in names)
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


def _file_stamps(files: WatchedFiles) -> FileStamps:
    signed: array[int] = array("q")
    unsigned: array[int] = array("Q")
    for path, follow in zip(files.paths, files.follow, strict=True):
        try:
            status = os.stat(path, follow_symlinks=bool(follow))  # noqa: PTH116  (text, no object)
        except OSError:
            signed.extend((_ABSENT_TYPE, 0, 0, 0))
            unsigned.extend((0, 0))
            continue
        signed.extend(
            (stat.S_IFMT(status.st_mode), status.st_size, status.st_mtime_ns, status.st_ctime_ns)
        )
        unsigned.extend((status.st_dev, status.st_ino))
    return FileStamps(signed, unsigned)


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
        files=_file_stamps(plan.files),
        directories=tuple(_directory_stamp(watched) for watched in plan.directories),
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
    if before.files != after.files:
        raise SnapshotChangedError(SnapshotChangedDetail.FILE_CHANGED)
    if _differs(before.directories, after.directories):
        raise SnapshotChangedError(SnapshotChangedDetail.DIRECTORY_CHANGED)
