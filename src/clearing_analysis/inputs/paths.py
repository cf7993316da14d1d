"""Journal selection from explicit `--journals` arguments (R-CLI-2); nothing is discovered.

Guarantees of `select_journals`:
- Only the given arguments are looked at: a file argument is selected as is; a directory
  argument is walked recursively and its `*.jsonl` regular files are selected (for
  `--sessions` also `*.jsonl.zst`, Codex's compressed rollouts, so they are counted).
- Inside a walk no symlink is followed: a symlinked entry is ignored, whether it points to a
  file, a directory or nowhere. An explicitly passed argument that is a symlink IS followed
  (the user named it; docs/privacy.md), and the snapshot then watches its target.
- Order is deterministic: sorted by the byte path relative to the argument's root (for a file
  argument, its own name), then by argument order. A file reachable twice (same st_dev and
  st_ino: repeated argument, overlapping directories, hard link) is selected once, at its
  first position in that order.
- A walk that meets non-journal state of a native session root (entry names listed in
  policy/native-root.json) refuses with INPUT_INVALID / NATIVE_ROOT_NOT_JOURNALS instead of
  guessing which part of the root was meant (seed: pass `<root>/journals`). `explore`
  selects pi session files by the same rules under its own codes (`SESSION_RULES`), without
  this check: a pi sessions directory is not a native root.
- A missing or unreadable argument is INPUT_INVALID; an empty selection is NO_JOURNALS. A
  selected file that cannot be opened for reading is INPUT_INVALID JOURNALS_UNREADABLE
  (SESSIONS_UNREADABLE for `--sessions`): its cause is named, never reported as an invalid
  file. A journal whose read fails part of the way is still INVALID with reason UNREADABLE.

The selection lives through the whole run (the second snapshot and the units need it), so
it keeps its journals as packed columns, not one object each: a history of 100,000 files
costs a few hundred bytes a file, not a kilobyte (docs/performance.md, "Memory against the
corpus size").
"""

from __future__ import annotations

import functools
import os
import stat
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path

import msgspec

from clearing_analysis.codes.errors import (
    InputInvalidDetail,
    InputInvalidError,
    NoJournalsDetail,
    NoJournalsError,
)
from clearing_analysis.policy import load_policy_json

JOURNAL_SUFFIX = ".jsonl"

Identity = tuple[int, int]
"""(st_dev, st_ino) of a file or directory."""


class WalkedDirectory(msgspec.Struct, frozen=True):
    """A directory the selection walked. `followed` is True only for a symlinked argument."""

    path: Path
    identity: Identity
    followed: bool


class SelectedJournal(msgspec.Struct, frozen=True):
    """One selected journal file; `explicit` when named as an argument, `followed` if symlinked."""

    path: Path
    identity: Identity
    followed: bool
    explicit: bool


_FOLLOWED = 1
_EXPLICIT = 2


class JournalSelection(msgspec.Struct, frozen=True):
    """The journals in replay order, and every directory walked to find them.

    The journals are columns, one entry per journal: `paths` (the path as text, as given or
    as walked), `identities` (st_dev then st_ino, two entries per journal) and `flags`
    (`followed` and `explicit` bits, one byte per journal). `journals` builds the
    `SelectedJournal` objects when asked; nothing keeps them."""

    paths: tuple[str, ...]
    identities: array[int]
    flags: bytes
    walked_directories: tuple[WalkedDirectory, ...]

    @classmethod
    def of(
        cls, journals: Sequence[SelectedJournal], walked_directories: Sequence[WalkedDirectory]
    ) -> JournalSelection:
        """The columns of `journals` (in replay order)."""
        return cls(
            paths=tuple(os.fspath(journal.path) for journal in journals),
            identities=array("Q", (number for j in journals for number in j.identity)),
            flags=bytes(
                (_FOLLOWED if j.followed else 0) | (_EXPLICIT if j.explicit else 0)
                for j in journals
            ),
            walked_directories=tuple(walked_directories),
        )

    def __len__(self) -> int:
        return len(self.paths)

    def identity(self, index: int) -> Identity:
        """(st_dev, st_ino) of the journal at `index`."""
        return (self.identities[2 * index], self.identities[2 * index + 1])

    def followed(self) -> bytes:
        """One byte per journal: 1 where it is an explicit argument that is a symlink."""
        return bytes(flags & _FOLLOWED for flags in self.flags)

    def explicit(self) -> list[int]:
        """The indexes of the journals named as arguments, not found by a walk."""
        return [index for index, flags in enumerate(self.flags) if flags & _EXPLICIT]

    def journal(self, index: int) -> SelectedJournal:
        """The journal at `index`, as an object."""
        flags = self.flags[index]
        return SelectedJournal(
            Path(self.paths[index]),
            self.identity(index),
            followed=bool(flags & _FOLLOWED),
            explicit=bool(flags & _EXPLICIT),
        )

    @property
    def journals(self) -> tuple[SelectedJournal, ...]:
        """Every journal as an object, in replay order (built on each call)."""
        return tuple(self.journal(index) for index in range(len(self)))


@functools.cache
def native_root_markers() -> frozenset[str]:
    """Casefolded entry names that reveal a native session root (policy/native-root.json)."""
    names = load_policy_json("native-root.json")["markerNames"]
    return frozenset(str(name).casefold() for name in names)


class SelectionRules(msgspec.Struct, frozen=True):
    """The fixed codes of one selecting option, and whether native-root state is refused."""

    missing: InputInvalidDetail
    not_file_or_directory: InputInvalidDetail
    unreadable: InputInvalidDetail
    empty: NoJournalsDetail
    refuse_native_root: bool
    refuse_unreadable_files: bool
    # The file names a walk selects.
    suffixes: tuple[str, ...] = (JOURNAL_SUFFIX,)


JOURNAL_RULES = SelectionRules(
    InputInvalidDetail.JOURNALS_MISSING,
    InputInvalidDetail.JOURNALS_NOT_FILE_OR_DIRECTORY,
    InputInvalidDetail.JOURNALS_UNREADABLE,
    NoJournalsDetail.NO_JOURNAL_FILES,
    refuse_native_root=True,
    refuse_unreadable_files=True,
)
# explore --sessions: the same walk; a pi sessions directory is not a native root, so its
# entry names are not checked against policy/native-root.json (docs/explore.md).
SESSION_RULES = SelectionRules(
    InputInvalidDetail.SESSIONS_MISSING,
    InputInvalidDetail.SESSIONS_NOT_FILE_OR_DIRECTORY,
    InputInvalidDetail.SESSIONS_UNREADABLE,
    NoJournalsDetail.NO_SESSION_FILES,
    refuse_native_root=False,
    refuse_unreadable_files=True,
    # Codex writes compressed rollouts as `.jsonl.zst`: walked so each is counted (skipped
    # INVALID COMPRESSED, with its remedy in docs/formats/codex.md), never silently left out.
    suffixes=(JOURNAL_SUFFIX, ".jsonl.zst"),
)


def _identity(status: os.stat_result) -> Identity:
    return (status.st_dev, status.st_ino)


class _Walk(msgspec.Struct):
    """Mutable state of one selection: candidates and walked directories."""

    candidates: list[tuple[bytes, int, SelectedJournal]]
    directories: dict[Path, WalkedDirectory]
    rules: SelectionRules

    def _listing(self, directory: Path) -> list[os.DirEntry[str]]:
        """A directory's entries in byte order of their names; native-root state refused."""
        try:
            with os.scandir(directory) as entries:
                listed = sorted(entries, key=lambda entry: os.fsencode(entry.name))
        except OSError:
            raise InputInvalidError(self.rules.unreadable) from None
        markers = native_root_markers() if self.rules.refuse_native_root else frozenset()
        for entry in listed:
            if entry.name.casefold() in markers:
                # A native root's legacy imports, aliases or retired state: refuse, not guess.
                raise InputInvalidError(InputInvalidDetail.NATIVE_ROOT_NOT_JOURNALS)
        return listed

    def enter(
        self,
        directory: Path,
        status: os.stat_result,
        argument_index: int,
        *,
        followed: bool = False,
    ) -> None:
        """Walk the tree under `directory` (an argument), depth first in name order.

        The walk keeps its own stack instead of recursing, so that no depth of directories
        can end it (a tree 600 levels deep once did, in RecursionError): memory holds the
        listing of each directory on the current path, and the path's identities. A
        directory whose identity is already on the path (a bind mount of an ancestor) is not
        entered again: the walk would never end."""
        ancestors: set[Identity] = set()
        # Each frame: a directory on the current path, its relative path (with a trailing
        # slash, b"" for the argument) and its entries not yet visited.
        frames: list[tuple[Identity, bytes, Iterator[os.DirEntry[str]]]] = []

        def open_directory(path: Path, identity: Identity, relative: bytes, followed: bool) -> None:
            self.directories.setdefault(path, WalkedDirectory(path, identity, followed))
            # A directory reached through several arguments is walked under each of them, so
            # every file gets every relative path it has and its first position is exact.
            listed = self._listing(path)
            ancestors.add(identity)
            frames.append((identity, relative, iter(listed)))

        open_directory(directory, _identity(status), b"", followed)
        while frames:
            identity, relative, entries = frames[-1]
            entry = next(entries, None)
            if entry is None:
                frames.pop()
                ancestors.discard(identity)
                continue
            child_relative = relative + os.fsencode(entry.name)
            try:
                child_status = entry.stat(follow_symlinks=False)
            except OSError:
                raise InputInvalidError(self.rules.unreadable) from None
            if stat.S_ISLNK(child_status.st_mode):
                continue  # R-CLI-2: symlinked entries inside a walk are not followed.
            child = Path(entry.path)
            if stat.S_ISDIR(child_status.st_mode):
                child_identity = _identity(child_status)
                if child_identity not in ancestors:
                    open_directory(child, child_identity, child_relative + b"/", False)
            elif stat.S_ISREG(child_status.st_mode) and entry.name.endswith(self.rules.suffixes):
                journal = SelectedJournal(
                    child, _identity(child_status), followed=False, explicit=False
                )
                self.candidates.append((child_relative, argument_index, journal))

    def add_argument(self, argument: Path, argument_index: int) -> None:
        try:
            link_status = argument.lstat()
            status = argument.stat()
        except OSError:
            # Missing, dangling symlink or unreadable: the user named something unusable.
            raise InputInvalidError(self.rules.missing) from None
        followed = stat.S_ISLNK(link_status.st_mode)
        if stat.S_ISDIR(status.st_mode):
            self.enter(argument, status, argument_index, followed=followed)
        elif stat.S_ISREG(status.st_mode):
            # An explicit file is selected whatever its suffix; its relative path is its name.
            journal = SelectedJournal(argument, _identity(status), followed=followed, explicit=True)
            self.candidates.append((os.fsencode(argument.name), argument_index, journal))
        else:
            raise InputInvalidError(self.rules.not_file_or_directory)


def _check_readable(path: Path, rules: SelectionRules) -> None:
    """Refuse with the option's UNREADABLE code a selected file that cannot be opened."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        raise InputInvalidError(rules.unreadable) from None
    os.close(descriptor)


def select_journals(
    arguments: Sequence[Path], rules: SelectionRules = JOURNAL_RULES
) -> JournalSelection:
    """Select the journals named by `arguments` (see the module docstring for the rules);
    `rules` names the option's fixed codes (explore's `--sessions`: SESSION_RULES)."""
    walk = _Walk(candidates=[], directories={}, rules=rules)
    for index, argument in enumerate(arguments):
        walk.add_argument(argument, index)
    ordered = sorted(walk.candidates, key=lambda candidate: (candidate[0], candidate[1]))
    journals: list[SelectedJournal] = []
    seen: set[Identity] = set()
    for _relative, _index, journal in ordered:
        if journal.identity in seen:
            continue
        seen.add(journal.identity)
        journals.append(journal)
    if not journals:
        raise NoJournalsError(rules.empty)
    for journal in journals:
        _check_readable(journal.path, rules)
    return JournalSelection.of(journals, tuple(walk.directories.values()))
