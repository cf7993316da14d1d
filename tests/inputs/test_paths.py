"""Journal selection from explicit --journals arguments (R-CLI-2)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from clearing_analysis.codes.errors import InputInvalidError, NoJournalsError
from clearing_analysis.inputs.paths import (
    JournalSelection,
    SelectedJournal,
    native_root_markers,
    select_journals,
)


def _touch(path: Path, data: bytes = b"{}\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _names(root: Path, arguments: list[Path]) -> list[str]:
    return [str(j.path.relative_to(root)) for j in select_journals(arguments).journals]


class TestWalk:
    def test_selects_only_jsonl_regular_files_recursively(self, tmp_path: Path) -> None:
        """Only regular files ending in .jsonl are selected, at any depth."""
        _touch(tmp_path / "j" / "a.jsonl")
        _touch(tmp_path / "j" / "deep" / "er" / "b.jsonl")
        _touch(tmp_path / "j" / "notes.txt")
        _touch(tmp_path / "j" / "c.jsonl.bak")
        (tmp_path / "j" / "dir.jsonl").mkdir()
        os.mkfifo(tmp_path / "j" / "pipe.jsonl")
        assert _names(tmp_path, [tmp_path / "j"]) == ["j/a.jsonl", "j/deep/er/b.jsonl"]

    def test_symlinked_file_entry_is_ignored(self, tmp_path: Path) -> None:
        """A symlink to a journal inside a walk is not followed."""
        target = _touch(tmp_path / "elsewhere" / "x.jsonl")
        _touch(tmp_path / "j" / "a.jsonl")
        (tmp_path / "j" / "link.jsonl").symlink_to(target)
        (tmp_path / "j" / "dangling.jsonl").symlink_to(tmp_path / "nowhere")
        assert _names(tmp_path, [tmp_path / "j"]) == ["j/a.jsonl"]

    def test_symlinked_directory_entry_is_ignored(self, tmp_path: Path) -> None:
        """A symlink to a directory of journals inside a walk is not entered."""
        _touch(tmp_path / "elsewhere" / "x.jsonl")
        _touch(tmp_path / "j" / "a.jsonl")
        (tmp_path / "j" / "linked").symlink_to(tmp_path / "elsewhere")
        selection = select_journals([tmp_path / "j"])
        assert [j.path.name for j in selection.journals] == ["a.jsonl"]
        assert [d.path for d in selection.walked_directories] == [tmp_path / "j"]

    def test_a_tree_600_directories_deep_is_walked(self, tmp_path: Path) -> None:
        """A journal 600 directories down (beyond the interpreter's recursion limit for a
        recursive walk, which ended in RecursionError) is selected after the shallow one, and
        every directory on the way is recorded, outermost first."""
        deep = tmp_path / "j"
        for _ in range(600):
            deep /= "d"
        _touch(deep / "x.jsonl")
        _touch(tmp_path / "j" / "a.jsonl")
        try:
            selection = select_journals([tmp_path / "j"])
        finally:
            # Removed from the bottom up: shutil.rmtree (and pytest's clean-up of old
            # temporary directories) recurses a level a frame.
            (deep / "x.jsonl").unlink()
            for level in [deep, *deep.parents][:600]:
                level.rmdir()
        assert [j.path for j in selection.journals] == [
            tmp_path / "j" / "a.jsonl",
            deep / "x.jsonl",
        ]
        walked = [d.path for d in selection.walked_directories]
        assert len(walked) == 601
        assert walked[0] == tmp_path / "j"
        assert walked[-1] == deep

    def test_a_tree_deeper_than_a_path_can_name_is_unreadable(self, tmp_path: Path) -> None:
        """Directories nested past what a path can name (PATH_MAX, made through directory
        descriptors): the walk refuses with JOURNALS_UNREADABLE, a fixed code, not a crash."""
        _touch(tmp_path / "j" / "a.jsonl")
        descriptor = os.open(tmp_path / "j", os.O_RDONLY)
        try:
            for _ in range(25):  # 25 names of 200 bytes: 5,000 bytes past the root
                os.mkdir("d" * 200, dir_fd=descriptor)
                deeper = os.open("d" * 200, os.O_RDONLY, dir_fd=descriptor)
                os.close(descriptor)
                descriptor = deeper
        finally:
            os.close(descriptor)
        with pytest.raises(InputInvalidError) as caught:
            select_journals([tmp_path / "j"])
        assert caught.value.detail.value == "JOURNALS_UNREADABLE"

    def test_walked_directories_are_all_recorded(self, tmp_path: Path) -> None:
        """Every directory of a walk (root and subdirectories) is recorded for the snapshot."""
        _touch(tmp_path / "j" / "s1" / "s2" / "a.jsonl")
        (tmp_path / "j" / "empty").mkdir()
        walked = {d.path for d in select_journals([tmp_path / "j"]).walked_directories}
        assert walked == {
            tmp_path / "j",
            tmp_path / "j" / "empty",
            tmp_path / "j" / "s1",
            tmp_path / "j" / "s1" / "s2",
        }


class TestExplicitArguments:
    def test_explicit_file_is_selected_whatever_its_suffix(self, tmp_path: Path) -> None:
        """A file the user names is selected even without the .jsonl suffix."""
        _touch(tmp_path / "session.log")
        selection = select_journals([tmp_path / "session.log"])
        assert [j.explicit for j in selection.journals] == [True]

    def test_explicit_symlink_arguments_are_followed(self, tmp_path: Path) -> None:
        """Symlinked arguments (file or directory) are followed and marked as such."""
        _touch(tmp_path / "real" / "a.jsonl")
        _touch(tmp_path / "one.jsonl")
        (tmp_path / "dirlink").symlink_to(tmp_path / "real")
        (tmp_path / "filelink.jsonl").symlink_to(tmp_path / "one.jsonl")
        selection = select_journals([tmp_path / "dirlink", tmp_path / "filelink.jsonl"])
        assert [j.path for j in selection.journals] == [
            tmp_path / "dirlink" / "a.jsonl",
            tmp_path / "filelink.jsonl",
        ]
        assert [j.followed for j in selection.journals] == [False, True]
        assert [d.followed for d in selection.walked_directories] == [True]

    def test_packed_columns_give_back_every_journal(self, tmp_path: Path) -> None:
        """The selection's columns (paths as text, identities, flag bits) give back each
        journal as selected: walked, explicit, and explicit through a symlink; two selections
        of the same arguments are equal (the session's check for a changed selection)."""
        _touch(tmp_path / "real" / "a.jsonl")
        _touch(tmp_path / "one.jsonl")
        _touch(tmp_path / "two.log")
        (tmp_path / "filelink.jsonl").symlink_to(tmp_path / "one.jsonl")
        arguments = [tmp_path / "real", tmp_path / "filelink.jsonl", tmp_path / "two.log"]
        selection = select_journals(arguments)

        def stat_identity(path: Path) -> tuple[int, int]:
            status = path.stat()
            return (status.st_dev, status.st_ino)

        assert selection.journals == (
            SelectedJournal(
                tmp_path / "real" / "a.jsonl",
                stat_identity(tmp_path / "real" / "a.jsonl"),
                followed=False,
                explicit=False,
            ),
            SelectedJournal(
                tmp_path / "filelink.jsonl",
                stat_identity(tmp_path / "one.jsonl"),
                followed=True,
                explicit=True,
            ),
            SelectedJournal(
                tmp_path / "two.log",
                stat_identity(tmp_path / "two.log"),
                followed=False,
                explicit=True,
            ),
        )
        assert all(isinstance(path, str) for path in selection.paths)  # kept as text
        assert selection.followed() == bytes((0, 1, 0))
        assert selection.explicit() == [1, 2]
        assert len(selection) == 3
        assert JournalSelection.of(selection.journals, selection.walked_directories) == selection
        assert select_journals(arguments) == selection
        (tmp_path / "real" / "b.jsonl").write_bytes(b"{}\n")
        assert select_journals(arguments) != selection

    @pytest.mark.parametrize("kind", ["missing", "dangling"])
    def test_unusable_argument_is_input_invalid(self, tmp_path: Path, kind: str) -> None:
        """A missing path or a dangling symlink argument is INPUT_INVALID."""
        argument = tmp_path / "arg"
        if kind == "dangling":
            argument.symlink_to(tmp_path / "nowhere")
        with pytest.raises(InputInvalidError) as caught:
            select_journals([argument])
        assert caught.value.detail == "JOURNALS_MISSING"

    def test_fifo_argument_is_input_invalid(self, tmp_path: Path) -> None:
        """An argument that is neither a regular file nor a directory is refused."""
        os.mkfifo(tmp_path / "pipe.jsonl")
        with pytest.raises(InputInvalidError) as caught:
            select_journals([tmp_path / "pipe.jsonl"])
        assert caught.value.detail == "JOURNALS_NOT_FILE_OR_DIRECTORY"

    @pytest.mark.parametrize("content", ["nothing", "no-jsonl"])
    def test_empty_selection_is_no_journals(self, tmp_path: Path, content: str) -> None:
        """A selection without any journal file is NO_JOURNALS."""
        (tmp_path / "j").mkdir()
        if content == "no-jsonl":
            _touch(tmp_path / "j" / "a.json")
        with pytest.raises(NoJournalsError):
            select_journals([tmp_path / "j"])
        with pytest.raises(NoJournalsError):
            select_journals([])


class TestOrder:
    def test_sorted_by_relative_byte_path_then_argument_order(self, tmp_path: Path) -> None:
        """Relative byte path is the first key across arguments, argument order the second."""
        _touch(tmp_path / "A" / "z.jsonl", b"1")
        _touch(tmp_path / "B" / "a.jsonl", b"2")
        _touch(tmp_path / "B" / "z.jsonl", b"3")
        assert _names(tmp_path, [tmp_path / "A", tmp_path / "B"]) == [
            "B/a.jsonl",
            "A/z.jsonl",
            "B/z.jsonl",
        ]
        assert _names(tmp_path, [tmp_path / "B", tmp_path / "A"]) == [
            "B/a.jsonl",
            "B/z.jsonl",
            "A/z.jsonl",
        ]

    def test_order_is_bytewise_not_componentwise_or_locale(self, tmp_path: Path) -> None:
        """'.' (0x2e) sorts before '/' (0x2f); upper case before lower; UTF-8 bytes last."""
        for name in ["sub/x.jsonl", "sub.jsonl", "b.jsonl", "B.jsonl", "\u00e9.jsonl"]:
            _touch(tmp_path / "j" / name)
        assert _names(tmp_path / "j", [tmp_path / "j"]) == [
            "B.jsonl",
            "b.jsonl",
            "sub.jsonl",
            "sub/x.jsonl",
            "\u00e9.jsonl",
        ]

    def test_explicit_file_sorts_by_its_name(self, tmp_path: Path) -> None:
        """An explicit file's relative path is its own name."""
        _touch(tmp_path / "j" / "m.jsonl")
        _touch(tmp_path / "other" / "c.jsonl")
        assert _names(tmp_path, [tmp_path / "j", tmp_path / "other" / "c.jsonl"]) == [
            "other/c.jsonl",
            "j/m.jsonl",
        ]


class TestDuplicates:
    def test_same_file_twice_is_selected_once_at_first_position(self, tmp_path: Path) -> None:
        """Repeated arguments, overlapping directories and hard links select the file once."""
        a = _touch(tmp_path / "j" / "a.jsonl", b"1")
        _touch(tmp_path / "j" / "sub" / "c.jsonl", b"2")
        (tmp_path / "other").mkdir()
        os.link(a, tmp_path / "other" / "0-alias.jsonl")
        arguments = [tmp_path / "j", tmp_path / "j" / "sub", a, tmp_path / "other"]
        assert _names(tmp_path, arguments) == ["other/0-alias.jsonl", "j/sub/c.jsonl"]

    def test_nested_argument_gives_files_its_shorter_relative_path(self, tmp_path: Path) -> None:
        """A file reachable from two arguments takes the earliest of its (path, argument) keys."""
        _touch(tmp_path / "j" / "b.jsonl", b"1")
        _touch(tmp_path / "j" / "d.jsonl", b"2")
        _touch(tmp_path / "j" / "sub" / "c.jsonl", b"3")
        # c.jsonl is "sub/c.jsonl" under j but "c.jsonl" under j/sub, which sorts before d.
        assert _names(tmp_path, [tmp_path / "j", tmp_path / "j" / "sub"]) == [
            "j/b.jsonl",
            "j/sub/c.jsonl",
            "j/d.jsonl",
        ]


class TestNativeRoot:
    @pytest.mark.parametrize("marker", sorted(native_root_markers()))
    def test_native_root_state_is_refused(self, tmp_path: Path, marker: str) -> None:
        """A walk meeting legacy imports, aliases, retired state or the sidecar refuses."""
        _touch(tmp_path / "root" / "journals" / "a.jsonl")
        (tmp_path / "root" / marker).mkdir()
        with pytest.raises(InputInvalidError) as caught:
            select_journals([tmp_path / "root"])
        assert caught.value.detail == "NATIVE_ROOT_NOT_JOURNALS"

    @pytest.mark.parametrize("entry", ["file", "symlink", "deep"])
    def test_marker_of_any_type_case_or_depth(self, tmp_path: Path, entry: str) -> None:
        """Markers are matched case-insensitively, as files, symlinks or deeper in the tree."""
        _touch(tmp_path / "root" / "journals" / "a.jsonl")
        if entry == "file":
            _touch(tmp_path / "root" / "Retired")
        elif entry == "symlink":
            (tmp_path / "root" / "ALIASES").symlink_to(tmp_path / "nowhere")
        else:
            _touch(tmp_path / "root" / "journals" / "x" / "History.SQLite")
        with pytest.raises(InputInvalidError) as caught:
            select_journals([tmp_path / "root"])
        assert caught.value.detail == "NATIVE_ROOT_NOT_JOURNALS"

    def test_root_journals_directory_is_accepted(self, tmp_path: Path) -> None:
        """Passing <root>/journals is the documented way; its siblings are never looked at."""
        _touch(tmp_path / "root" / "journals" / "a.jsonl")
        for marker in ("legacy-imports", "aliases", "retired"):
            (tmp_path / "root" / marker).mkdir()
        _touch(tmp_path / "root" / "history.sqlite")
        assert _names(tmp_path, [tmp_path / "root" / "journals"]) == ["root/journals/a.jsonl"]


@pytest.fixture
def bind_loop(tmp_path: Path) -> Iterator[Path]:
    """j/sub/loop is a bind mount of j itself (root only)."""
    _touch(tmp_path / "j" / "a.jsonl")
    (tmp_path / "j" / "sub" / "loop").mkdir(parents=True)
    mounted = subprocess.run(
        ["mount", "--bind", str(tmp_path / "j"), str(tmp_path / "j" / "sub" / "loop")],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip("bind mounts need root")
    try:
        yield tmp_path / "j"
    finally:
        subprocess.run(["umount", str(tmp_path / "j" / "sub" / "loop")], check=True)


def test_bind_mount_loop_is_walked_once(bind_loop: Path) -> None:
    """A directory reached again through a bind mount is not walked twice (no endless walk)."""
    selection = select_journals([bind_loop])
    assert [j.path.name for j in selection.journals] == ["a.jsonl"]
    assert len(selection.walked_directories) == 2
