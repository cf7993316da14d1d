"""Exclusive, identity-checked creation of `--out` and `--log-file` (R-FS-1..6, seed "--out").

`check_output` decides, before any work and again just before writing, whether a path may
be created; `create_all` writes the complete in-memory outputs of a run there (and to stdout)
as one whole, `create_exclusive` one file alone. Guarantees:
- The parent is canonicalized with realpath; a missing parent is refused.
- The parent must not be an input directory (a walked `--journals` directory) or inside one:
  the (st_dev, st_ino) of the canonical parent and of every ancestor up to `/` is compared
  with every input directory's identity, so symlinked parents, bind mounts and filesystem
  roots given as inputs are all caught. Paths are never compared as strings.
- When the parent is (by identity) the directory of an input file, the output name is
  compared case-insensitively (NFC + casefold, on every platform) with the input file names
  there and with the sidecar's `-wal`, `-shm`, `-journal` companion names. Distinct-case
  names are conservatively refused; unrelated sibling names are valid (seed).
- An existing final component is refused, whatever it is: a regular file (an input or a hard
  link to one included), a directory, a symlink, a dangling symlink.
- Whole or absent (R-REL-5): `create_all` is the one writer of every output file (the
  report, the log, the attestation, the qualification record, routes templates, keys, and any
  renderer's page). It writes the bytes to an unnamed file in the checked parent
  (`O_TMPFILE`, relative to a descriptor of the parent whose identity is verified again, so a
  swapped parent is refused), syncs them, and only then gives the file its name with `linkat`,
  which fails on an existing name (exclusivity holds as with `O_EXCL`). A process killed at
  any point leaves either the complete file or no entry at all: an unnamed file is freed by
  the kernel when its last descriptor closes.
- One run's outputs are one whole (R-REL-6): `create_all` writes and syncs every file of the
  run unnamed, then writes its stdout, and only then links the files, one after the other,
  and syncs their directories. A refusal, a write error or an interrupt (SIGINT, SIGTERM:
  held while the names are given, `interrupts.deferred`) at any point before the last sync
  leaves none of the run's files: the names already given are unlinked again, each only if
  it is still the file we made. stdout cannot be taken back, so it comes before the names: a
  run whose stdout fails (STDOUT_FAILED) names no file, and a consumer of stdout trusts it on
  exit 0 only.
- Where the file system (or kernel) has no `O_TMPFILE`, or `/proc/self/fd` is unavailable to
  name the unnamed file, creation falls back to `O_CREAT|O_EXCL|O_NOFOLLOW|O_WRONLY|O_CLOEXEC`
  of the name itself, as before: exclusive, but a kill mid-write can leave a partial file there.
- On refusal nothing is created. If a write fails, an unnamed file is simply dropped; a named
  one (the fallback, which writes at link time) is removed through the parent descriptor
  (only if the entry is still the file we created). Either way OUTPUT_REFUSED is raised.
- A file is created with permissions 0666 less the umask, as a shell redirect would, unless the
  caller names a mode (`keygen`'s private key: exactly 0600, set on the descriptor before any
  byte is written). `create_all` returns what it created; `remove_created` takes one such
  file back, again only if the entry is still that file.
- `guard_stdout` is the CLI's stdout: any failing write or flush, whoever makes it, is
  OUTPUT_REFUSED STDOUT_FAILED (and descriptor 1 then points at /dev/null, so that the
  interpreter's own flush at exit prints nothing).
Every refusal is `OutputRefusedError` with a fixed detail (docs/exit-codes.md).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import unicodedata
from array import array
from collections.abc import Container, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

import msgspec

from clearing_analysis import interrupts
from clearing_analysis.codes.errors import OutputRefusedDetail, OutputRefusedError
from clearing_analysis.inputs.paths import Identity

_CREATE_FLAGS = os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_WRONLY | os.O_CLOEXEC
# An unnamed regular file in the directory (O_TMPFILE implies O_DIRECTORY); without O_EXCL, so
# that linkat may give it a name. Linux only: elsewhere the named fallback is taken.
_O_TMPFILE: int | None = getattr(os, "O_TMPFILE", None)
# What open(2) answers when the file system or kernel has no O_TMPFILE.
_NO_TMPFILE = frozenset({errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL})
_PARENT_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# Permissions follow the umask, as a shell redirect would (docs/privacy.md).
_CREATE_MODE = 0o666


def fold_name(name: str) -> str:
    """The form in which file names are compared: NFC, casefolded, NFC again."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


class IdentityColumn(msgspec.Struct, frozen=True):
    """Identities of many files as one column of integers, st_dev then st_ino of each: 16
    bytes a file where a set of tuples takes some 160 (a run keeps every journal's)."""

    numbers: array[int]

    @classmethod
    def of(cls, identities: Iterable[Identity]) -> IdentityColumn:
        return cls(array("Q", (number for identity in identities for number in identity)))

    def __contains__(self, identity: object) -> bool:
        if not isinstance(identity, tuple) or len(identity) != 2:
            return False
        device, inode = identity
        start = 1
        while True:  # each inode found, at an odd position, is compared with its device
            try:
                found = self.numbers.index(inode, start)
            except (ValueError, TypeError, OverflowError):
                return False
            if found % 2 == 1 and self.numbers[found - 1] == device:
                return True
            start = found + 1


class InputIdentities(msgspec.Struct, frozen=True):
    """What an output must not touch, by identity (built by `inputs.session`)."""

    # Walked --journals directories: the output parent may be neither one nor inside one.
    input_directories: frozenset[Identity]
    # Directory of each input file -> folded names refused in it (input names, companions).
    protected_names: Mapping[Identity, frozenset[str]]
    # Every input file, to name the refusal when the output path is an input or its alias.
    input_files: Container[Identity]


# For a command that reads no user file (routes init, keygen): an output collides with none.
NO_INPUTS = InputIdentities(
    input_directories=frozenset(), protected_names={}, input_files=frozenset()
)


class OutputTarget(msgspec.Struct, frozen=True):
    """A checked destination: canonical parent, its identity, and the new entry's name."""

    parent: Path
    parent_identity: Identity
    name: str


def _identity(status: os.stat_result) -> Identity:
    return (status.st_dev, status.st_ino)


def _refuse(detail: OutputRefusedDetail) -> OutputRefusedError:
    return OutputRefusedError(detail)


def _ancestors_are_not_inputs(canonical_parent: Path, inputs: InputIdentities) -> None:
    current = canonical_parent
    while True:
        try:
            status = current.stat()
        except OSError:
            raise _refuse(OutputRefusedDetail.OUTPUT_PARENT_UNREADABLE) from None
        if _identity(status) in inputs.input_directories:
            raise _refuse(OutputRefusedDetail.OUTPUT_INSIDE_INPUT)
        if current.parent == current:  # reached the filesystem root, which is checked too
            return
        current = current.parent


def check_output(path: str | os.PathLike[str], inputs: InputIdentities) -> OutputTarget:
    """Refuse (OUTPUT_REFUSED) unless `path` may be created exclusively without touching inputs."""
    raw = os.fspath(path)
    head, name = os.path.split(raw)
    if name in {"", ".", ".."}:
        raise _refuse(OutputRefusedDetail.OUTPUT_NAME_INVALID)
    try:
        # R-FS-2: the parent is canonicalized with realpath; it must exist.
        canonical_parent = Path(os.path.realpath(head or ".", strict=True))
        parent_status = canonical_parent.stat()
    except OSError:
        raise _refuse(OutputRefusedDetail.OUTPUT_PARENT_MISSING) from None
    if not stat.S_ISDIR(parent_status.st_mode):
        raise _refuse(OutputRefusedDetail.OUTPUT_PARENT_NOT_DIRECTORY)
    # R-FS-3: containment by identity of every ancestor, the filesystem root included.
    _ancestors_are_not_inputs(canonical_parent, inputs)
    parent_identity = _identity(parent_status)
    # R-FS-5: same-directory input and companion names, case-insensitively everywhere.
    if fold_name(name) in inputs.protected_names.get(parent_identity, frozenset()):
        raise _refuse(OutputRefusedDetail.OUTPUT_NAME_COLLIDES)
    # R-FS-2 / R-FS-4: an existing final component (symlink, dangling or not, or an alias).
    try:
        existing = (canonical_parent / name).lstat()
    except FileNotFoundError:
        return OutputTarget(canonical_parent, parent_identity, name)
    except OSError:
        raise _refuse(OutputRefusedDetail.OUTPUT_PARENT_UNREADABLE) from None
    if stat.S_ISLNK(existing.st_mode):
        raise _refuse(OutputRefusedDetail.OUTPUT_IS_SYMLINK)
    if _identity(existing) in inputs.input_files:
        raise _refuse(OutputRefusedDetail.OUTPUT_IS_INPUT)
    raise _refuse(OutputRefusedDetail.OUTPUT_EXISTS)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
    os.fsync(fd)


def _entry_is(parent_fd: int, name: str, identity: Identity) -> bool:
    """Whether `name` in the parent is (still) the file of that identity."""
    try:
        entry = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
    except OSError:
        return False
    return _identity(entry) == identity


def _remove_created(parent_fd: int, name: str, fd: int) -> None:
    """Unlink `name` only if it is still the file behind `fd` (never someone else's entry)."""
    try:
        if _entry_is(parent_fd, name, _identity(os.fstat(fd))):
            os.unlink(name, dir_fd=parent_fd)
    except OSError:
        pass  # Nothing more can be done safely; the refusal is still reported.


class CreatedFile(msgspec.Struct, frozen=True):
    """A file `create_exclusive` created: where, and its own identity."""

    target: OutputTarget
    identity: Identity


class NewFile(msgspec.Struct, frozen=True):
    """One output of a run: its path, its complete bytes and, for `keygen`'s private key, its
    exact permission bits (otherwise 0666 less the umask)."""

    path: str | os.PathLike[str]
    data: bytes
    mode: int | None = None


class _Staged(msgspec.Struct):
    """A checked output whose bytes are written and synced to an unnamed file (`fd`), or, on a
    file system without O_TMPFILE (`fd` None), still in memory; `created` once it has a name."""

    file: NewFile
    target: OutputTarget
    parent_fd: int
    fd: int | None
    created: CreatedFile | None = None


def create_exclusive(
    path: str | os.PathLike[str],
    data: bytes,
    inputs: InputIdentities,
    *,
    mode: int | None = None,
) -> CreatedFile:
    """Check `path` again, then create it exclusively holding `data` whole, or refuse.

    The file appears under its name complete or not at all (module docstring); `mode`, when
    given, is the new file's exact permission bits (the umask does not apply).
    """
    return create_all([NewFile(path, data, mode)], inputs)[0]


def create_all(
    files: Sequence[NewFile], inputs: InputIdentities, *, stdout: bytes | None = None
) -> list[CreatedFile]:
    """Create every file of a run exclusively, and write its `stdout`, as one whole (R-REL-6).

    1. Each path is checked again and its bytes are written to an unnamed file in its checked
       parent and synced; a refusal or a failure here closes every descriptor, and the
       kernel frees the unnamed files: nothing was ever named.
    2. `stdout`, when given, is written and flushed (STDOUT_FAILED here names nothing either).
    3. Each file is linked to its name, then each parent directory is synced. SIGINT and SIGTERM
       are held meanwhile (`interrupts.deferred`); a refusal, a failure or an interrupt before
       the last directory is synced unlinks every name already given (each only if it is
       still the file we made), and the run ends with that refusal or that interrupt.
    So a run's files appear together, after its stdout, or not at all; the created files are
    returned in the order given."""
    with contextlib.ExitStack() as descriptors:
        staged = [_stage(file, inputs, descriptors) for file in files]
        if stdout is not None:
            write_stdout(stdout)
        return _link_all(staged)


def _stage(file: NewFile, inputs: InputIdentities, descriptors: contextlib.ExitStack) -> _Staged:
    """Check the path again, open its parent (verified by identity) and write the unnamed file."""
    target = check_output(file.path, inputs)
    try:
        parent_fd = os.open(target.parent, _PARENT_FLAGS)
    except OSError:
        raise _refuse(OutputRefusedDetail.OUTPUT_PARENT_MISSING) from None
    descriptors.callback(os.close, parent_fd)
    if _identity(os.fstat(parent_fd)) != target.parent_identity:
        raise _refuse(OutputRefusedDetail.OUTPUT_PARENT_CHANGED)
    fd = _open_unnamed(parent_fd, _CREATE_MODE if file.mode is None else file.mode)
    if fd is None:
        return _Staged(file, target, parent_fd, None)  # the named fallback, at link time
    descriptors.callback(os.close, fd)
    try:
        if file.mode is not None:
            os.fchmod(fd, file.mode)  # exactly `mode`, whatever the umask took away
        _write_all(fd, file.data)
    except OSError:
        raise _refuse(OutputRefusedDetail.OUTPUT_WRITE_FAILED) from None  # never named
    return _Staged(file, target, parent_fd, fd)


def _open_unnamed(parent_fd: int, mode: int) -> int | None:
    """A descriptor of a new unnamed file in the parent; None without O_TMPFILE support (or
    without /proc/self/fd, through which the file is given its name)."""
    if _O_TMPFILE is None or not Path("/proc/self/fd").is_dir():
        return None
    try:
        return os.open(".", _O_TMPFILE | os.O_WRONLY | os.O_CLOEXEC, mode, dir_fd=parent_fd)
    except OSError as error:
        if error.errno in _NO_TMPFILE:
            return None
        raise _refuse(OutputRefusedDetail.OUTPUT_CREATE_FAILED) from None


def _link_all(staged: list[_Staged]) -> list[CreatedFile]:
    """Give every staged file its name, or none of them (create_all, step 3)."""
    with interrupts.deferred() as held:
        try:
            for item in staged:
                item.created = _link(item)
            _sync_directories(staged)
        except BaseException:
            _unlink_all(staged)
            raise
        if held.interrupted:  # before the last sync: the run is taken back, then interrupted
            _unlink_all(staged)
        else:
            held.settle()
    if held.interrupted:  # the handler from before did not raise (a handler of the caller's)
        raise KeyboardInterrupt
    return [item.created for item in staged if item.created is not None]


def _link(item: _Staged) -> CreatedFile:
    """Name one staged file: link the unnamed file, or (fallback) create the name and write."""
    if item.fd is None:
        return _create_named(item.parent_fd, item.target, item.file.data, item.file.mode)
    try:
        # linkat(AT_FDCWD, "/proc/self/fd/N", parent, name, AT_SYMLINK_FOLLOW): the unnamed
        # file gets its name, or nothing happens if the name exists (EEXIST).
        os.link(f"/proc/self/fd/{item.fd}", item.target.name, dst_dir_fd=item.parent_fd)
    except OSError:
        raise _refuse(OutputRefusedDetail.OUTPUT_CREATE_FAILED) from None
    return CreatedFile(item.target, _identity(os.fstat(item.fd)))


def _sync_directories(staged: list[_Staged]) -> None:
    """Make the new names durable: each parent directory synced once. A directory that
    cannot be synced at all (EINVAL: the file system does not support it) is passed over."""
    synced: set[Identity] = set()
    for item in staged:
        if item.target.parent_identity in synced:
            continue
        try:
            os.fsync(item.parent_fd)
        except OSError as error:
            if error.errno != errno.EINVAL:
                raise _refuse(OutputRefusedDetail.OUTPUT_WRITE_FAILED) from None
        synced.add(item.target.parent_identity)


def _unlink_all(staged: list[_Staged]) -> None:
    """Take back every name given so far, each only if it is still the file we made."""
    for item in reversed(staged):
        if item.created is None:
            continue
        with contextlib.suppress(OSError):
            if _entry_is(item.parent_fd, item.target.name, item.created.identity):
                os.unlink(item.target.name, dir_fd=item.parent_fd)
                os.fsync(item.parent_fd)
        item.created = None


def _create_named(
    parent_fd: int, target: OutputTarget, data: bytes, mode: int | None
) -> CreatedFile:
    """The fallback without O_TMPFILE: exclusive creation of the name itself, then the write;
    a failed write removes the partial file again."""
    initial = _CREATE_MODE if mode is None else mode
    try:
        fd = os.open(target.name, _CREATE_FLAGS, initial, dir_fd=parent_fd)
    except OSError:
        raise _refuse(OutputRefusedDetail.OUTPUT_CREATE_FAILED) from None
    try:
        if mode is not None:
            os.fchmod(fd, mode)  # exactly `mode`, whatever the umask took away
        _write_all(fd, data)
        return CreatedFile(target, _identity(os.fstat(fd)))
    except BaseException as error:
        _remove_created(parent_fd, target.name, fd)
        if isinstance(error, OSError):
            raise _refuse(OutputRefusedDetail.OUTPUT_WRITE_FAILED) from None
        raise
    finally:
        os.close(fd)


def remove_created(created: CreatedFile) -> None:
    """Take back a file `create_exclusive` made: unlink its entry if it is still that file.

    Never raises: when the entry is gone, replaced or the directory moved, nothing is removed.
    """
    try:
        parent_fd = os.open(created.target.parent, _PARENT_FLAGS)
    except OSError:
        return
    try:
        if _identity(os.fstat(parent_fd)) != created.target.parent_identity:
            return
        entry = os.stat(created.target.name, dir_fd=parent_fd, follow_symlinks=False)
        if _identity(entry) == created.identity:
            os.unlink(created.target.name, dir_fd=parent_fd)
    except OSError:
        pass
    finally:
        os.close(parent_fd)


def _silence_stdout() -> None:
    """Point file descriptor 1 at /dev/null, so that the interpreter's own flush of the bytes
    still buffered, at exit, cannot fail again and print a message of its own on stderr."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.dup2(devnull, sys.stdout.fileno())
        finally:
            os.close(devnull)
    except (OSError, ValueError):
        pass  # no descriptor to repair: the refusal is reported all the same


def _stdout_failed() -> OutputRefusedError:
    _silence_stdout()
    return _refuse(OutputRefusedDetail.STDOUT_FAILED)


def write_stdout(data: bytes) -> None:
    """The default destination (R-FS-1): the whole result to stdout at once."""
    try:
        sys.stdout.flush()  # anything printed as text before goes first
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except (OSError, ValueError):
        raise _stdout_failed() from None


def stdout_bytes(text: str) -> bytes:
    """`text` encoded as stdout's text layer would encode it (for `create_all`'s stdout)."""
    return text.encode(sys.stdout.encoding or "utf-8", sys.stdout.errors or "strict")


class _Guarded:
    """A stream whose failing writes and flushes are OUTPUT_REFUSED STDOUT_FAILED, and are
    remembered (`failed`) even when a caller catches the refusal and goes on."""

    def __init__(self, stream: Any, failures: list[bool]) -> None:
        self._stream = stream
        self._failures = failures

    @property
    def failed(self) -> bool:
        """Whether a write or flush through this stream (or its buffer) has failed."""
        return bool(self._failures)

    def write(self, data: Any) -> Any:
        try:
            return self._stream.write(data)
        except (OSError, ValueError):
            raise self._failure() from None

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except (OSError, ValueError):
            raise self._failure() from None

    def _failure(self) -> OutputRefusedError:
        self._failures.append(True)
        return _stdout_failed()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class StdoutGuard(_Guarded):
    """sys.stdout for one CLI command (`guard_stdout`)."""

    @property
    def buffer(self) -> _Guarded:
        """The binary layer, guarded alike."""
        return _Guarded(self._stream.buffer, self._failures)


def guard_stdout(stream: TextIO) -> StdoutGuard:
    """`stream` (sys.stdout) such that a write or flush that fails anywhere (a full disk, a
    reader gone, a closed descriptor) is OUTPUT_REFUSED STDOUT_FAILED, whoever writes it, and
    is remembered (`failed`) even where a library catches it (click probes a stream by
    writing nothing to it). The CLI runs every command with it, so no library's own handling
    of a broken stdout (an exit 1 of its own, a message on stderr) is ever reached."""
    return StdoutGuard(stream, [])
