"""The image's mount contract, checked before any replay (R-CT-2, R-CT-3).

Guarantees, each a fixed detail of `MountContractError` (MOUNT_CONTRACT_VIOLATED, exit 2):
- `PATH_NOT_MOUNTED`: an input, or an output's directory, that does not exist in the
  container and whose nearest existing ancestor lies on the image's own root or on a tmpfs
  (podman adds them at /tmp, /run, ... for `--read-only`) is below no mount given for it:
  typically a host path passed instead of its `/in/...` or `/out/...` path. Checked first, so
  such a path is named for what it is, not as a writable input or a read-only output.
- `INPUT_NOT_READ_ONLY`: every input path (resolved inside the container) lies on a mount
  whose per-mount or superblock options say `ro`, and so does every mount below an input
  directory (the journal walk would read it).
- `OUTPUT_NOT_WRITABLE`: the directory of every output lies on a writable mount.
- `OUTPUT_NOT_WRITABLE_BY_USER`: each existing output directory lets the user the process
  runs as create files in it (access(2), W_OK and X_OK), so a root-owned host directory bound
  into the image (user 65534) is refused before any work instead of after it. A directory that
  does not exist (or is not a directory) is left to the CLI's own OUTPUT_REFUSED codes.
- `OUTPUT_NOT_SEPARATE_MOUNT`: that mount is not the namespace root (nor, being writable, the
  read-only mount of any input), so output can only land on the mount given for it (R-CT-3).
- `OUTPUT_CONTAINS_INPUT`: no input is reachable through the output mount, not even through
  another bind of the same file system (same device, the output mount's root at or above the
  input's location there), so a writable view of an input cannot exist next to the output.
- `OUTPUT_INSIDE_INPUT`: conversely, the output mount does not start inside an input directory
  or the directory of an input file (R-FS-3, by file-system location instead of path text).
- `NETWORK_NOT_ISOLATED` / `NETWORK_UNVERIFIABLE`: the network namespace has no interface but
  a loopback `lo` (/sys/class/net), or that cannot be read.
- Sidecar companions are checked with the analyzer's own rule and code (`SIDECAR_NOT_OFFLINE`,
  detail `COMPANION_PRESENT`, R-SC-1), so the contract never disagrees with the replay.
The checks read the mount table and the file system only (stat and access(2)); they create,
open for writing and print nothing, and no error carries a path.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path, PurePath, PurePosixPath

import msgspec

from clearing_analysis.codes.errors import (
    MountContractDetail,
    MountContractError,
    SidecarNotOfflineDetail,
    SidecarNotOfflineError,
)
from clearing_analysis.container.mountinfo import Mount, MountTable, parse_mountinfo
from clearing_analysis.inputs.sidecar import companion_present

MOUNTINFO = Path("/proc/self/mountinfo")
NET_CLASS = Path("/sys/class/net")
LOOPBACK = "lo"
# ARPHRD_LOOPBACK from <linux/if_arp.h>: the `type` of a real loopback device.
ARPHRD_LOOPBACK = "772"


class ContractPaths(msgspec.Struct, frozen=True):
    """What a command line reads and writes, as given (see `container.arguments`).

    `outputs` are the files or directories the command will create; their parent directories
    are what must sit on the output mount. `sidecars` are inputs that also get the companion
    check.
    """

    inputs: tuple[PurePath, ...] = ()
    outputs: tuple[PurePath, ...] = ()
    sidecars: tuple[PurePath, ...] = ()


class _Placed(msgspec.Struct, frozen=True):
    """A resolved path, the mount it lies on and its location inside that file system."""

    mount: Mount
    location: PurePosixPath


def _canonical(path: PurePath) -> PurePosixPath:
    # Inputs may not exist yet (the replay reports that with its own code); the mount they
    # would be read from is still the one their existing ancestors lie on.
    return PurePosixPath(os.path.realpath(path))


def _missing(path: PurePosixPath) -> bool:
    """`path` surely does not exist (one that cannot be looked at is not judged missing)."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError:
        return False
    return False


def _not_mounted(table: MountTable, path: PurePosixPath) -> bool:
    """`path` does not exist here and lies below no mount given for it (module docstring)."""
    if not _missing(path):
        return False
    existing = next(
        (ancestor for ancestor in path.parents if not _missing(ancestor)), PurePosixPath("/")
    )
    mount = table.mount_of(existing)
    return mount is table.root_mount() or mount.fs_type == "tmpfs"


def _place(table: MountTable, path: PurePosixPath) -> _Placed:
    mount = table.mount_of(path)
    return _Placed(mount, mount.location(path))


def _input_directory_locations(table: MountTable, inputs: Iterable[PurePath]) -> list[_Placed]:
    """Each input directory, and the directory of each input file (R-FS-3's set).

    For a file both directories count: the one it is seen in inside the container and the
    one it lies in on its file system (they differ when the file itself is bind-mounted).
    """
    placed: list[_Placed] = []
    for path in inputs:
        canonical = _canonical(path)
        if Path(canonical).is_dir():
            placed.append(_place(table, canonical))
            continue
        placed.append(_place(table, canonical.parent))
        file = _place(table, canonical)
        placed.append(_Placed(file.mount, file.location.parent))
    return placed


def _same_file_system(first: Mount, second: Mount) -> bool:
    return first.device == second.device


def _within(location: PurePosixPath, ancestor: PurePosixPath) -> bool:
    return location == ancestor or ancestor in location.parents


def check_mounts(table: MountTable, paths: ContractPaths) -> None:
    """Inputs read-only; each output directory on its own writable mount (module docstring)."""
    given = [_canonical(path) for path in paths.inputs]
    given += [_canonical(output).parent for output in paths.outputs]
    if any(_not_mounted(table, path) for path in given):
        raise MountContractError(MountContractDetail.PATH_NOT_MOUNTED)
    inputs = [_place(table, _canonical(path)) for path in paths.inputs]
    for placed in inputs:
        if not placed.mount.read_only:
            raise MountContractError(MountContractDetail.INPUT_NOT_READ_ONLY)
    for path in paths.inputs:
        # The journal walk descends into directories (R-CLI-2), so a mount anywhere below an
        # input directory holds inputs too; shadowed ones are refused as well (conservative).
        canonical = _canonical(path)
        if Path(canonical).is_dir() and any(
            canonical in mount.mount_point.parents and not mount.read_only for mount in table.mounts
        ):
            raise MountContractError(MountContractDetail.INPUT_NOT_READ_ONLY)
    input_directories = _input_directory_locations(table, paths.inputs)
    root = table.root_mount()
    for output in paths.outputs:
        directory = _canonical(output).parent
        out = _place(table, directory)
        if out.mount.read_only:
            raise MountContractError(MountContractDetail.OUTPUT_NOT_WRITABLE)
        # An input's own mount is read-only (checked above), so it cannot get here.
        if out.mount is root:
            raise MountContractError(MountContractDetail.OUTPUT_NOT_SEPARATE_MOUNT)
        for placed in inputs:
            if _same_file_system(out.mount, placed.mount) and out.mount.exposes(placed.location):
                raise MountContractError(MountContractDetail.OUTPUT_CONTAINS_INPUT)
        for placed in input_directories:
            if _same_file_system(out.mount, placed.mount) and _within(
                out.mount.root, placed.location
            ):
                raise MountContractError(MountContractDetail.OUTPUT_INSIDE_INPUT)
        check_output_access(directory)


def check_output_access(directory: PurePath) -> None:
    """The running user may create files in `directory` (when it is an existing directory)."""
    try:
        is_directory = stat.S_ISDIR(Path(directory).stat().st_mode)
    except FileNotFoundError:
        return  # the CLI refuses a missing parent itself (OUTPUT_PARENT_MISSING)
    except OSError:
        # Not even searchable by this user (or unreadable for another reason): nothing could
        # be created in it either.
        raise MountContractError(MountContractDetail.OUTPUT_NOT_WRITABLE_BY_USER) from None
    if not is_directory:
        return  # the CLI's OUTPUT_PARENT_NOT_DIRECTORY
    # access(2) asks the kernel with the real ids, which are the effective ones here (the
    # entrypoint is never set-id), so ownership, mode, ACLs, capabilities and id-mapped mounts
    # all count exactly as they will for the write; a probe file would create something.
    if not os.access(directory, os.W_OK | os.X_OK):
        raise MountContractError(MountContractDetail.OUTPUT_NOT_WRITABLE_BY_USER)


def check_network(net_class: Path = NET_CLASS) -> None:
    """Only a loopback interface exists in this network namespace."""
    try:
        names = [entry.name for entry in net_class.iterdir()]
    except OSError:
        raise MountContractError(MountContractDetail.NETWORK_UNVERIFIABLE) from None
    if any(name != LOOPBACK for name in names):
        raise MountContractError(MountContractDetail.NETWORK_NOT_ISOLATED)
    for name in names:
        # A device merely named `lo` is not enough: its link type must be loopback.
        try:
            kind = (net_class / name / "type").read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            raise MountContractError(MountContractDetail.NETWORK_UNVERIFIABLE) from None
        if kind != ARPHRD_LOOPBACK:
            raise MountContractError(MountContractDetail.NETWORK_NOT_ISOLATED)


def check_sidecars(sidecars: Iterable[PurePath]) -> None:
    """No -wal/-shm/-journal companion next to a sidecar (the replay's own rule, R-SC-1)."""
    for sidecar in sidecars:
        canonical = Path(_canonical(sidecar))
        # A missing sidecar is the replay's to report (INPUT_INVALID, SIDECAR_MISSING).
        if os.path.lexists(canonical) and companion_present(canonical):
            raise SidecarNotOfflineError(SidecarNotOfflineDetail.COMPANION_PRESENT)


def check_contract(paths: ContractPaths, mountinfo_text: str, net_class: Path) -> None:
    """The whole contract against a given mount table text and network class directory."""
    check_mounts(parse_mountinfo(mountinfo_text), paths)
    check_sidecars(paths.sidecars)
    check_network(net_class)


def check_this_container(paths: ContractPaths) -> None:
    """The whole contract for the running process (/proc/self/mountinfo, /sys/class/net)."""
    try:
        text = MOUNTINFO.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        raise MountContractError(MountContractDetail.MOUNTINFO_UNREADABLE) from None
    check_contract(paths, text, NET_CLASS)
