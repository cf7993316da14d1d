"""Exclusive, identity-checked output creation for --out and --log-file (R-FS-1..6)."""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from clearing_analysis.codes.errors import OutputRefusedError
from clearing_analysis.inputs import output
from clearing_analysis.inputs.requests import ReplayRequest
from clearing_analysis.inputs.session import InputSession
from tests.inputs._safety_corpus import Corpus, make_corpus

REPORT = b'{"report":1}\n'


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    return make_corpus(tmp_path)


def _open(corpus: Corpus, out: Path | None = None, log_file: Path | None = None) -> InputSession:
    return InputSession.open(
        ReplayRequest(
            journals=(corpus.journals,),
            sidecar=corpus.sidecar,
            routes=corpus.routes,
            out=out,
            log_file=log_file,
        )
    )


def _refused_up_front(corpus: Corpus, out: Path) -> str | None:
    """Open a session with `out`; return the refusal detail, asserting nothing changed."""
    before = corpus.listing()
    with pytest.raises(OutputRefusedError) as caught:
        _open(corpus, out=out)
    assert corpus.listing() == before
    assert caught.value.exit_status == 2
    return caught.value.detail


# Each case: a name and a function that prepares the tree and returns the --out path.
def _inside_journals(c: Corpus) -> Path:
    return c.journals / "report.json"


def _inside_walked_subdir(c: Corpus) -> Path:
    return c.journals / "sub" / "report.json"


def _inside_new_dir_under_journals(c: Corpus) -> Path:
    (c.journals / "sub" / "later").mkdir()
    return c.journals / "sub" / "later" / "report.json"


def _via_symlinked_parent(c: Corpus) -> Path:
    (c.root / "link").symlink_to(c.journals / "sub")
    return c.root / "link" / "report.json"


def _via_relative_dotdot(c: Corpus) -> Path:
    return c.out_dir / ".." / "journals" / "report.json"


def _hard_link_alias_of_input(c: Corpus) -> Path:
    os.link(c.routes, c.out_dir / "alias.json")
    return c.out_dir / "alias.json"


def _hard_link_alias_of_journal(c: Corpus) -> Path:
    os.link(c.journals / "a.jsonl", c.out_dir / "a.jsonl")
    return c.out_dir / "a.jsonl"


def _equal_to_routes(c: Corpus) -> Path:
    return c.routes


def _equal_to_sidecar(c: Corpus) -> Path:
    return c.sidecar


def _equal_to_journal(c: Corpus) -> Path:
    return c.journals / "a.jsonl"


def _input_name_other_case(c: Corpus) -> Path:
    return c.routes.parent / "ROUTES.Json"


def _companion_wal_other_case(c: Corpus) -> Path:
    return c.sidecar.parent / "HISTORY.sqlite-WAL"


def _companion_shm_other_case(c: Corpus) -> Path:
    return c.sidecar.parent / "history.SQLITE-shm"


def _companion_journal_other_case(c: Corpus) -> Path:
    return c.sidecar.parent / "History.Sqlite-Journal"


def _dangling_symlink(c: Corpus) -> Path:
    (c.out_dir / "r.json").symlink_to(c.out_dir / "nowhere.json")
    return c.out_dir / "r.json"


def _symlink_to_existing(c: Corpus) -> Path:
    (c.out_dir / "r.json").symlink_to(c.routes)
    return c.out_dir / "r.json"


def _existing_file(c: Corpus) -> Path:
    (c.out_dir / "r.json").write_bytes(b"old")
    return c.out_dir / "r.json"


def _existing_directory(c: Corpus) -> Path:
    (c.out_dir / "r.json").mkdir()
    return c.out_dir / "r.json"


def _parent_missing(c: Corpus) -> Path:
    return c.out_dir / "missing" / "r.json"


def _parent_is_file(c: Corpus) -> Path:
    (c.out_dir / "file").write_bytes(b"x")
    return c.out_dir / "file" / "r.json"


def _name_is_dotdot(c: Corpus) -> Path:
    return Path(str(c.out_dir) + "/..")


REFUSALS: list[tuple[Callable[[Corpus], Path], str]] = [
    (_inside_journals, "OUTPUT_INSIDE_INPUT"),
    (_inside_walked_subdir, "OUTPUT_INSIDE_INPUT"),
    (_inside_new_dir_under_journals, "OUTPUT_INSIDE_INPUT"),
    (_via_symlinked_parent, "OUTPUT_INSIDE_INPUT"),
    (_via_relative_dotdot, "OUTPUT_INSIDE_INPUT"),
    (_hard_link_alias_of_input, "OUTPUT_IS_INPUT"),
    (_hard_link_alias_of_journal, "OUTPUT_IS_INPUT"),
    (_equal_to_routes, "OUTPUT_NAME_COLLIDES"),
    (_equal_to_sidecar, "OUTPUT_NAME_COLLIDES"),
    (_equal_to_journal, "OUTPUT_INSIDE_INPUT"),
    (_input_name_other_case, "OUTPUT_NAME_COLLIDES"),
    (_companion_wal_other_case, "OUTPUT_NAME_COLLIDES"),
    (_companion_shm_other_case, "OUTPUT_NAME_COLLIDES"),
    (_companion_journal_other_case, "OUTPUT_NAME_COLLIDES"),
    (_dangling_symlink, "OUTPUT_IS_SYMLINK"),
    (_symlink_to_existing, "OUTPUT_IS_SYMLINK"),
    (_existing_file, "OUTPUT_EXISTS"),
    (_existing_directory, "OUTPUT_EXISTS"),
    (_parent_missing, "OUTPUT_PARENT_MISSING"),
    (_parent_is_file, "OUTPUT_PARENT_NOT_DIRECTORY"),
    (_name_is_dotdot, "OUTPUT_NAME_INVALID"),
]


@pytest.mark.parametrize(("prepare", "detail"), REFUSALS, ids=[f.__name__ for f, _ in REFUSALS])
def test_refused_output_creates_nothing(
    corpus: Corpus, prepare: Callable[[Corpus], Path], detail: str
) -> None:
    """Each unsafe --out is refused up front with its fixed detail; the tree is unchanged."""
    out = prepare(corpus)
    assert _refused_up_front(corpus, out) == detail


@pytest.mark.parametrize(("prepare", "detail"), REFUSALS, ids=[f.__name__ for f, _ in REFUSALS])
def test_refused_log_file_creates_nothing(
    corpus: Corpus, prepare: Callable[[Corpus], Path], detail: str
) -> None:
    """--log-file follows exactly the same rules as --out."""
    log_file = prepare(corpus)
    before = corpus.listing()
    with pytest.raises(OutputRefusedError) as caught:
        _open(corpus, log_file=log_file)
    assert caught.value.detail == detail
    assert corpus.listing() == before


def test_dangling_symlink_target_is_not_created(corpus: Corpus) -> None:
    """A dangling symlink destination is refused, not followed, even at the final write."""
    (corpus.out_dir / "r.json").symlink_to(corpus.out_dir / "nowhere.json")
    session = _open(corpus)
    session.finish()
    with pytest.raises(OutputRefusedError):
        session.write_output(REPORT, corpus.out_dir / "r.json")
    assert not (corpus.out_dir / "nowhere.json").exists()


@pytest.mark.parametrize("where", ["state", "cfg", "out"])
def test_unrelated_sibling_name_is_accepted(corpus: Corpus, where: str) -> None:
    """An unrelated name next to an input file (or in an unrelated directory) is a valid output."""
    out = corpus.root / where / "report.json"
    session = _open(corpus, out=out)
    session.finish()
    session.write_output(REPORT, out)
    assert out.read_bytes() == REPORT


def test_sibling_with_companion_prefix_but_other_suffix_is_accepted(corpus: Corpus) -> None:
    """Only the three companion names are reserved, not every name starting like them."""
    out = corpus.sidecar.parent / "history.sqlite-report.json"
    session = _open(corpus, out=out)
    session.finish()
    session.write_output(REPORT, out)
    assert out.read_bytes() == REPORT


def test_symlinked_input_protects_its_target_directory(corpus: Corpus) -> None:
    """An input given through a symlink protects its name in the target's directory too."""
    (corpus.out_dir / "r.json").symlink_to(corpus.routes)
    session_args = {"sidecar": corpus.sidecar, "routes": corpus.out_dir / "r.json"}
    with pytest.raises(OutputRefusedError) as caught:
        InputSession.open(
            ReplayRequest(
                journals=(corpus.journals,),
                **session_args,
                out=corpus.routes.parent / "ROUTES.json",
            )
        )
    assert caught.value.detail == "OUTPUT_NAME_COLLIDES"


def test_output_and_log_file_must_differ(corpus: Corpus) -> None:
    """The same new path for --out and --log-file (any case) is refused before anything."""
    before = corpus.listing()
    with pytest.raises(OutputRefusedError) as caught:
        _open(corpus, out=corpus.out_dir / "r.json", log_file=corpus.out_dir / "R.JSON")
    assert caught.value.detail == "OUTPUT_SAME_AS_LOG"
    assert corpus.listing() == before


def test_filesystem_root_as_input_directory_refuses_everything(tmp_path: Path) -> None:
    """If an input directory is `/`, every output is inside it (R-FS-3, filesystem roots)."""
    root = Path("/").stat()
    inputs = output.InputIdentities(
        input_directories=frozenset({(root.st_dev, root.st_ino)}),
        protected_names={},
        input_files=frozenset(),
    )
    with pytest.raises(OutputRefusedError) as caught:
        output.check_output(tmp_path / "r.json", inputs)
    assert caught.value.detail == "OUTPUT_INSIDE_INPUT"
    assert list(tmp_path.iterdir()) == []


def test_ancestor_far_above_is_checked(tmp_path: Path) -> None:
    """Every ancestor counts, not only the parent: an input directory high up refuses."""
    deep = tmp_path / "a" / "b" / "c" / "d"
    deep.mkdir(parents=True)
    top = (tmp_path / "a").stat()
    inputs = output.InputIdentities(frozenset({(top.st_dev, top.st_ino)}), {}, frozenset())
    with pytest.raises(OutputRefusedError):
        output.check_output(deep / "r.json", inputs)
    output.check_output(tmp_path / "r.json", inputs)  # a sibling of the input dir is fine


class TestFinalWrite:
    def test_written_whole_only_at_the_end(self, corpus: Corpus) -> None:
        """Checking up front creates nothing; the file appears with exactly the bytes at the end."""
        out = corpus.out_dir / "r.json"
        session = _open(corpus, out=out)
        assert not out.exists()
        session.finish()
        session.write_output(REPORT, out)
        assert out.read_bytes() == REPORT

    def test_write_before_finish_is_caller_misuse(self, corpus: Corpus) -> None:
        """Outputs cannot be written before the second snapshot validated the inputs."""
        session = _open(corpus)
        with pytest.raises(RuntimeError):
            session.write_output(REPORT, corpus.out_dir / "r.json")
        assert list(corpus.out_dir.iterdir()) == []

    def test_stdout_is_the_default(
        self, corpus: Corpus, capsysbinary: pytest.CaptureFixture[bytes]
    ) -> None:
        """Without --out the whole result goes to stdout and no file is created."""
        session = _open(corpus)
        session.finish()
        before = corpus.listing()
        session.write_output(REPORT, None)
        assert capsysbinary.readouterr().out == REPORT
        assert corpus.listing() == before

    def test_rechecked_at_the_end_existing_file_untouched(self, corpus: Corpus) -> None:
        """A file that appeared at the --out path during the run is refused and kept as is."""
        out = corpus.out_dir / "r.json"
        session = _open(corpus, out=out)
        session.finish()
        out.write_bytes(b"someone else's")
        with pytest.raises(OutputRefusedError) as caught:
            session.write_output(REPORT, out)
        assert caught.value.detail == "OUTPUT_EXISTS"
        assert out.read_bytes() == b"someone else's"

    def test_output_directory_vanishing_is_refused(self, corpus: Corpus) -> None:
        """R-REL-3: the output directory removed during the run gives OUTPUT_REFUSED."""
        out = corpus.out_dir / "r.json"
        session = _open(corpus, out=out)
        session.finish()
        corpus.out_dir.rmdir()
        with pytest.raises(OutputRefusedError) as caught:
            session.write_output(REPORT, out)
        assert caught.value.detail == "OUTPUT_PARENT_MISSING"
        assert not corpus.out_dir.exists()

    def test_failed_write_removes_the_partial_file(
        self, corpus: Corpus, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A write that fails midway (disk full) leaves no partial file and is OUTPUT_REFUSED."""
        real_write = os.write
        calls = {"n": 0}

        def write_then_fail(fd: int, data: bytes | memoryview) -> int:
            calls["n"] += 1
            if calls["n"] == 1:
                return real_write(fd, bytes(data[:3]))
            raise OSError(errno.ENOSPC, "full")

        out = corpus.out_dir / "r.json"
        session = _open(corpus, out=out)
        session.finish()
        monkeypatch.setattr(os, "write", write_then_fail)
        with pytest.raises(OutputRefusedError) as caught:
            session.write_output(REPORT, out)
        monkeypatch.undo()
        assert caught.value.detail == "OUTPUT_WRITE_FAILED"
        assert calls["n"] == 2
        assert list(corpus.out_dir.iterdir()) == []

    def test_parent_swapped_after_check_is_refused(
        self, corpus: Corpus, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A parent directory replaced between the check and creation is detected by identity."""
        real_check = output.check_output
        moved = corpus.root / "moved"

        def check_then_swap(
            path: str | os.PathLike[str], inputs: output.InputIdentities
        ) -> output.OutputTarget:
            target = real_check(path, inputs)
            corpus.out_dir.rename(moved)
            corpus.out_dir.mkdir()
            return target

        out = corpus.out_dir / "r.json"
        session = _open(corpus, out=out)
        session.finish()
        monkeypatch.setattr(output, "check_output", check_then_swap)
        with pytest.raises(OutputRefusedError) as caught:
            session.write_output(REPORT, out)
        assert caught.value.detail == "OUTPUT_PARENT_CHANGED"
        assert list(corpus.out_dir.iterdir()) == []
        assert list(moved.iterdir()) == []


@pytest.fixture
def bind_mounts(corpus: Corpus) -> Iterator[tuple[Path, Path]]:
    """mnt_j is a bind mount of the journals dir, mnt_sub of its walked subdirectory (root)."""
    mounts = [
        (corpus.journals, corpus.root / "mnt_j"),
        (corpus.journals / "sub", corpus.root / "mnt_sub"),
    ]
    done: list[Path] = []
    try:
        for source, target in mounts:
            target.mkdir()
            result = subprocess.run(
                ["mount", "--bind", str(source), str(target)], capture_output=True, check=False
            )
            if result.returncode != 0:
                pytest.skip("bind mounts need root")
            done.append(target)
        yield corpus.root / "mnt_j", corpus.root / "mnt_sub"
    finally:
        for target in reversed(done):
            subprocess.run(["umount", str(target)], check=True)


def test_output_inside_input_via_bind_mount(corpus: Corpus, bind_mounts: tuple[Path, Path]) -> None:
    """A bind-mount alias of an input directory (or of its subdirectory) is refused by identity."""
    for mount in bind_mounts:
        before = corpus.listing()
        with pytest.raises(OutputRefusedError) as caught:
            _open(corpus, out=mount / "report.json")
        assert caught.value.detail == "OUTPUT_INSIDE_INPUT"
        assert corpus.listing() == before


def test_explicit_journal_file_protects_its_name(corpus: Corpus) -> None:
    """An explicitly passed journal's directory accepts unrelated names but not its own name."""
    loose = corpus.root / "loose"
    loose.mkdir()
    (loose / "one.jsonl").write_bytes(b"{}\n")
    arguments = [loose / "one.jsonl"]
    with pytest.raises(OutputRefusedError) as caught:
        InputSession.open(
            ReplayRequest(
                journals=tuple(arguments),
                sidecar=corpus.sidecar,
                routes=corpus.routes,
                out=loose / "ONE.jsonl",
            )
        )
    assert caught.value.detail == "OUTPUT_NAME_COLLIDES"
    session = InputSession.open(
        ReplayRequest(
            journals=tuple(arguments),
            sidecar=corpus.sidecar,
            routes=corpus.routes,
            out=loose / "two.jsonl",
        )
    )
    session.finish()
    session.write_output(REPORT, loose / "two.jsonl")
    assert (loose / "two.jsonl").read_bytes() == REPORT


def test_symlink_planted_after_check_is_not_followed(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A symlink planted at the name after the last check makes creation fail, not follow."""
    real_check = output.check_output
    out = corpus.out_dir / "r.json"
    victim = corpus.out_dir / "victim.json"

    def check_then_plant(
        path: str | os.PathLike[str], inputs: output.InputIdentities
    ) -> output.OutputTarget:
        target = real_check(path, inputs)
        out.symlink_to(victim)
        return target

    session = _open(corpus, out=out)
    session.finish()
    monkeypatch.setattr(output, "check_output", check_then_plant)
    with pytest.raises(OutputRefusedError) as caught:
        session.write_output(REPORT, out)
    assert caught.value.detail == "OUTPUT_CREATE_FAILED"
    assert not victim.exists()
    assert out.is_symlink()
