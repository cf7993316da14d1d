"""Snapshot change detection between the start and the end of replay (R-FS-7, R-REL-3).

Changes are injected through InputSession's `between_snapshots` hook, never with sleeps.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from clearing_analysis.codes.errors import SidecarNotOfflineError, SnapshotChangedError
from clearing_analysis.inputs import snapshot
from clearing_analysis.inputs.requests import ReplayRequest
from clearing_analysis.inputs.session import InputSession
from tests.inputs._safety_corpus import Corpus, make_corpus


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    return make_corpus(tmp_path)


def _run(corpus: Corpus, change: Callable[[], None] | None, journals: Path | None = None) -> None:
    session = InputSession.open(
        ReplayRequest(
            journals=(journals or corpus.journals,), sidecar=corpus.sidecar, routes=corpus.routes
        ),
        between_snapshots=change,
    )
    session.finish()


def _changed(corpus: Corpus, change: Callable[[], None], journals: Path | None = None) -> str:
    with pytest.raises(SnapshotChangedError) as caught:
        _run(corpus, change, journals)
    assert caught.value.exit_status == 2
    assert caught.value.detail is not None
    return caught.value.detail


def _replace_same_size(path: Path) -> None:
    """Write a same-size copy under a new inode and rename it over `path`, mtime restored."""
    status = path.stat()
    fresh = path.parent.parent / (path.name + ".new")  # outside any watched directory
    fresh.write_bytes(path.read_bytes())
    os.utime(fresh, ns=(status.st_atime_ns, status.st_mtime_ns))
    fresh.replace(path)


def test_unchanged_inputs_pass(corpus: Corpus) -> None:
    """Reading everything (and a hook that only reads) changes nothing."""

    def read_everything() -> None:
        for path in (corpus.journals / "a.jsonl", corpus.sidecar, corpus.routes):
            path.read_bytes()
        list(corpus.journals.iterdir())

    _run(corpus, read_everything)


class TestFiles:
    def test_journal_appended(self, corpus: Corpus) -> None:
        """A journal growing during replay is SNAPSHOT_CHANGED."""

        def append() -> None:
            with (corpus.journals / "sub" / "b.jsonl").open("ab") as stream:
                stream.write(b"{}\n")

        assert _changed(corpus, append) == "FILE_CHANGED"

    def test_same_size_rewrite_with_new_mtime(self, corpus: Corpus) -> None:
        """A same-size rewrite in place is seen through mtime_ns."""
        journal = corpus.journals / "a.jsonl"

        def rewrite() -> None:
            status = journal.stat()
            journal.write_bytes(journal.read_bytes().upper())
            os.utime(journal, ns=(status.st_atime_ns, status.st_mtime_ns + 1_000))

        assert _changed(corpus, rewrite) == "FILE_CHANGED"

    @pytest.mark.parametrize("which", ["journal", "sidecar", "routes"])
    def test_replaced_same_size_new_inode(self, corpus: Corpus, which: str) -> None:
        """A file replaced by a same-size copy with restored mtime is seen through st_ino."""
        path = {
            "journal": corpus.journals / "a.jsonl",
            "sidecar": corpus.sidecar,
            "routes": corpus.routes,
        }[which]
        assert _changed(corpus, lambda: _replace_same_size(path)) == "FILE_CHANGED"

    def test_journal_deleted(self, corpus: Corpus) -> None:
        """A journal removed during replay is SNAPSHOT_CHANGED."""
        assert _changed(corpus, (corpus.journals / "a.jsonl").unlink) == "FILE_CHANGED"

    def test_sidecar_swapped_for_wal_database(self, corpus: Corpus) -> None:
        """R-REL-3: the sidecar swapped for a WAL database mid-run is SNAPSHOT_CHANGED."""

        def swap() -> None:
            wal = corpus.root / "wal.sqlite"
            connection = sqlite3.connect(wal)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("CREATE TABLE t (x)")
            connection.close()
            wal.replace(corpus.sidecar)

        assert _changed(corpus, swap) == "FILE_CHANGED"

    def test_symlinked_argument_retargeted(self, corpus: Corpus) -> None:
        """An explicit symlink argument pointed elsewhere mid-run is detected (its target)."""
        other = corpus.root / "other.jsonl"
        other.write_bytes((corpus.journals / "a.jsonl").read_bytes())
        link = corpus.root / "link.jsonl"
        link.symlink_to(corpus.journals / "a.jsonl")

        def retarget() -> None:
            link.unlink()
            link.symlink_to(other)

        assert _changed(corpus, retarget, journals=link) == "FILE_CHANGED"


class TestDirectories:
    @pytest.mark.parametrize("where", [".", "sub"])
    def test_directory_gaining_a_journal(self, corpus: Corpus, where: str) -> None:
        """A walked directory gaining a journal mid-run is SNAPSHOT_CHANGED (listing compared)."""

        def add() -> None:
            (corpus.journals / where / "late.jsonl").write_bytes(b"{}\n")

        assert _changed(corpus, add) == "DIRECTORY_CHANGED"

    def test_directory_gaining_a_subdirectory(self, corpus: Corpus) -> None:
        """Any new entry in a walked directory counts, not only journals."""
        assert _changed(corpus, (corpus.journals / "new").mkdir) == "DIRECTORY_CHANGED"

    def test_selection_changed_while_first_snapshot_was_taken(
        self, corpus: Corpus, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A journal appearing between selection and the first snapshot cannot slip in unseen."""
        real_take = snapshot.take

        def add_then_take(plan: snapshot.SnapshotPlan) -> snapshot.Snapshot:
            (corpus.journals / "late.jsonl").write_bytes(b"{}\n")
            return real_take(plan)

        monkeypatch.setattr(snapshot, "take", add_then_take)
        with pytest.raises(SnapshotChangedError) as caught:
            _run(corpus, None)
        assert caught.value.detail == "SELECTION_CHANGED"


class TestCompanions:
    @pytest.mark.parametrize(
        "name", ["history.sqlite-wal", "HISTORY.SQLITE-SHM", "History.sqlite-Journal"]
    )
    def test_companion_created_mid_run(self, corpus: Corpus, name: str) -> None:
        """A -wal/-shm/-journal companion appearing (any case) is SNAPSHOT_CHANGED."""

        def create() -> None:
            (corpus.sidecar.parent / name).write_bytes(b"")

        assert _changed(corpus, create) == "COMPANION_CHANGED"

    def test_companion_in_real_directory_of_symlinked_sidecar(self, corpus: Corpus) -> None:
        """For a symlinked sidecar, the target's directory is watched for companions too."""
        link_dir = corpus.root / "links"
        link_dir.mkdir()
        (link_dir / "db").symlink_to(corpus.sidecar)
        session = InputSession.open(
            ReplayRequest(
                journals=(corpus.journals,), sidecar=link_dir / "db", routes=corpus.routes
            ),
            between_snapshots=(corpus.sidecar.parent / "history.sqlite-wal").touch,
        )
        with pytest.raises(SnapshotChangedError) as caught:
            session.finish()
        assert caught.value.detail == "COMPANION_CHANGED"

    def test_companion_present_at_open(self, corpus: Corpus) -> None:
        """A companion already present before replay is SIDECAR_NOT_OFFLINE, not a change."""
        (corpus.sidecar.parent / "history.sqlite-WAL").write_bytes(b"")
        with pytest.raises(SidecarNotOfflineError):
            _run(corpus, None)

    def test_unrelated_file_next_to_sidecar_is_not_a_change(self, corpus: Corpus) -> None:
        """Only companion names are watched in the sidecar's directory (it is not walked)."""
        _run(corpus, (corpus.sidecar.parent / "notes.txt").touch)


def test_snapshot_records_the_documented_fields(tmp_path: Path) -> None:
    """Each stamp carries size, mtime_ns, st_dev and st_ino (R-FS-7)."""
    target = tmp_path / "f"
    target.write_bytes(b"abc")
    plan = snapshot.SnapshotPlan(
        snapshot.WatchedFiles.of([snapshot.WatchedPath(target, follow=False)]), (), ()
    )
    stamp = snapshot.take(plan).files[0]
    status = target.stat()
    assert stamp is not None
    assert (stamp.size, stamp.mtime_ns, stamp.device, stamp.inode) == (
        3,
        status.st_mtime_ns,
        status.st_dev,
        status.st_ino,
    )


def test_packed_stamps_keep_every_field_of_each_file(tmp_path: Path) -> None:
    """The packed columns give back, for each file in plan order, the stamp a stat gives:
    a time before 1970 (negative nanoseconds) survives, a file that cannot be stat'ed is
    None with size 0, and negative indexes count from the end."""
    old, new, gone = tmp_path / "old", tmp_path / "new", tmp_path / "gone"
    old.write_bytes(b"a")
    new.write_bytes(b"bcdef")
    os.utime(old, ns=(-1_500_000_000, -1_500_000_000))
    watched = [snapshot.WatchedPath(p, follow=False) for p in (old, gone, new)]
    taken = snapshot.take(snapshot.SnapshotPlan(snapshot.WatchedFiles.of(watched), (), ()))
    assert len(taken.files) == 3
    for index, path in ((0, old), (2, new)):
        status = path.stat()
        assert taken.files[index] == snapshot.Stamp(
            stat.S_IFMT(status.st_mode),
            status.st_size,
            status.st_mtime_ns,
            status.st_ctime_ns,
            status.st_dev,
            status.st_ino,
            entries=None,
        )
    assert taken.files[0] is not None and taken.files[0].mtime_ns == -1_500_000_000
    assert taken.files[1] is None and taken.files.size(1) == 0
    assert taken.files[-1] == taken.files[2]
    assert [taken.files.size(i) for i in range(3)] == [1, 0, 5]
    assert taken.has_missing_input()
    with pytest.raises(IndexError):
        taken.files[3]


def test_a_follow_byte_decides_whether_a_symlink_is_followed(tmp_path: Path) -> None:
    """A file watched with follow=1 is stamped as its target, with 0 as the link itself."""
    target, link = tmp_path / "target", tmp_path / "link"
    target.write_bytes(b"xyz")
    link.symlink_to(target)
    files = snapshot.WatchedFiles((str(link), str(link)), bytes((1, 0)))
    taken = snapshot.take(snapshot.SnapshotPlan(files, (), ())).files
    assert taken[0] is not None and taken[0].inode == target.stat().st_ino
    assert taken[1] is not None and taken[1].inode == link.lstat().st_ino
    assert taken[1].file_type == stat.S_IFLNK


def test_a_directory_stamp_holds_its_sorted_names_each_ended_by_nul(tmp_path: Path) -> None:
    """A directory's names are one bytes object, sorted, each name ended by a NUL, so that
    names joined differently ("ab" against "a" and "b") never compare equal, and a rename
    that keeps the count is a change."""
    directory = tmp_path / "d"
    directory.mkdir()
    (directory / "b").write_bytes(b"")
    (directory / "a.jsonl").write_bytes(b"")
    plan = snapshot.SnapshotPlan(
        snapshot.WatchedFiles((), b""), (snapshot.WatchedPath(directory, follow=False),), ()
    )
    before = snapshot.take(plan)
    assert before.directories[0] is not None
    assert before.directories[0].entries == b"a.jsonl\0b\0"
    (directory / "b").rename(directory / "c")
    after = snapshot.take(plan)
    assert after.directories[0] is not None and after.directories[0].entries == b"a.jsonl\0c\0"
    with pytest.raises(SnapshotChangedError):
        snapshot.compare(before, after)
