"""The mount table of a process, parsed from `/proc/self/mountinfo` (proc(5)), for R-CT-2.

Guarantees:
- `parse_mountinfo` accepts exactly the documented line shape: mount ID, parent ID,
  `major:minor`, root, mount point, per-mount options, zero or more optional fields ended by a
  lone `-`, file-system type, source and superblock options. Octal escapes (`\\040` for a space
  and so on) in paths are decoded. Any other shape, an empty table or a repeated mount ID is
  `MountContractError` with detail `MOUNTINFO_INVALID`; nothing of the text is kept in the error.
- `MountTable.mount_of(path)` finds the mount a canonical absolute path lies on by walking the
  mount tree from the namespace root, component by component, taking at each mount point the
  topmost of the mounts stacked there. Shadowed mounts (hidden under a later mount of the same
  or an enclosing point) are therefore never chosen; a longest-prefix match would choose them.
- `Mount.read_only` is true when either the per-mount or the superblock options say `ro`: either
  makes every write through that mount fail.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

import msgspec

from clearing_analysis.codes.errors import MountContractDetail, MountContractError

_OCTAL_ESCAPE = re.compile(r"\\([0-7]{3})")
_FIXED_FIELDS = 6  # id, parent, major:minor, root, mount point, options
_TAIL_FIELDS = 3  # fs type, source, super options
_ROOT = PurePosixPath("/")


def _unescape(field: str) -> str:
    return _OCTAL_ESCAPE.sub(lambda match: chr(int(match.group(1), 8)), field)


def _absolute(field: str) -> PurePosixPath:
    path = PurePosixPath(_unescape(field))
    if not path.is_absolute():
        raise MountContractError(MountContractDetail.MOUNTINFO_INVALID)
    return path


class Mount(msgspec.Struct, frozen=True):
    """One line of mountinfo. `root` is where the mount starts inside its file system."""

    mount_id: int
    parent_id: int
    device: tuple[int, int]
    root: PurePosixPath
    mount_point: PurePosixPath
    mount_options: frozenset[str]
    fs_type: str
    super_options: frozenset[str]

    @property
    def read_only(self) -> bool:
        """Whether writes through this mount fail (per-mount or superblock `ro`)."""
        return "ro" in self.mount_options or "ro" in self.super_options

    def location(self, path: PurePosixPath) -> PurePosixPath:
        """Where `path` (a path at or below this mount point) lies inside the file system."""
        return self.root / path.relative_to(self.mount_point)

    def exposes(self, location: PurePosixPath) -> bool:
        """Whether `location` of this mount's file system is reachable through this mount."""
        return location == self.root or self.root in location.parents


def _parse_line(line: str) -> Mount:
    fields = line.split(" ")
    try:
        separator = fields.index("-", _FIXED_FIELDS)
    except ValueError:
        raise MountContractError(MountContractDetail.MOUNTINFO_INVALID) from None
    if len(fields) != separator + 1 + _TAIL_FIELDS:
        raise MountContractError(MountContractDetail.MOUNTINFO_INVALID)
    mount_id, parent_id, device, root, mount_point, options = fields[:_FIXED_FIELDS]
    fs_type, _source, super_options = fields[separator + 1 :]
    major, colon, minor = device.partition(":")
    numbers = (mount_id, parent_id, major, minor)
    if not colon or not all(number.isdigit() and number.isascii() for number in numbers):
        raise MountContractError(MountContractDetail.MOUNTINFO_INVALID)
    return Mount(
        mount_id=int(mount_id),
        parent_id=int(parent_id),
        device=(int(major), int(minor)),
        root=_absolute(root),
        mount_point=_absolute(mount_point),
        mount_options=frozenset(options.split(",")),
        fs_type=_unescape(fs_type),
        super_options=frozenset(super_options.split(",")),
    )


class MountTable(msgspec.Struct, frozen=True):
    """The mounts of one mount namespace, in the kernel's order."""

    mounts: tuple[Mount, ...]

    def root_mount(self) -> Mount:
        """The topmost mount at `/` of this namespace."""
        known = {mount.mount_id for mount in self.mounts}
        # The namespace root's parent lies outside the namespace, so it is not in the table.
        candidates = [m for m in self.mounts if m.mount_point == _ROOT and m.parent_id not in known]
        if not candidates:
            raise MountContractError(MountContractDetail.MOUNTINFO_INVALID)
        return self._topmost(candidates[0], _ROOT)

    def _topmost(self, mount: Mount, point: PurePosixPath) -> Mount:
        # Each step moves to a mount whose parent is the current one, at the same point. The
        # chain cannot cycle: every mount has one parent and IDs are unique, so returning to
        # an earlier mount would need it to be its own descendant.
        while True:
            on_top = [
                m
                for m in self.mounts
                if m.parent_id == mount.mount_id and m.mount_point == point and m is not mount
            ]
            if not on_top:
                return mount
            mount = on_top[-1]

    def mount_of(self, path: PurePosixPath) -> Mount:
        """The mount a canonical absolute path lies on (see the module guarantees)."""
        if not path.is_absolute():
            raise RuntimeError("mount_of needs a canonical absolute path")
        current = self.root_mount()
        point = _ROOT
        for part in path.parts[1:]:
            point = point / part
            children = [
                m for m in self.mounts if m.parent_id == current.mount_id and m.mount_point == point
            ]
            if children:
                current = self._topmost(children[-1], point)
        return current


def parse_mountinfo(text: str) -> MountTable:
    """Parse the whole of a mountinfo file (see the module guarantees)."""
    mounts = tuple(_parse_line(line) for line in text.splitlines() if line)
    if not mounts or len({mount.mount_id for mount in mounts}) != len(mounts):
        raise MountContractError(MountContractDetail.MOUNTINFO_INVALID)
    return MountTable(mounts)
