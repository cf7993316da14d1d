"""The image entrypoint (cli.image over container.entrypoint): contract first, then exec of
the CLI; fixed codes on failure."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from clearing_analysis.cli import image
from clearing_analysis.container import contract, entrypoint
from clearing_analysis.container.sealed import MARKER_VALUE, MARKER_VARIABLE
from tests.container._host import fake_host


class Exec(Exception):  # noqa: N818  (a recorded exec, not an error)
    """Raised instead of replacing the test process."""

    def __init__(self, program: str, argv: list[str], env: dict[str, str]) -> None:
        super().__init__(program)
        self.program = program
        self.argv = argv
        self.env = env


def _fake_exec(program: str, argv: list[str], env: dict[str, str]) -> None:
    raise Exec(program, argv, env)


@pytest.fixture
def sealed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake /proc/self/mountinfo (read-only root, writable /out) and loopback-only net."""
    out = tmp_path / "out"
    out.mkdir()
    fake_host(tmp_path, monkeypatch, f"2 1 8:1 /srv/out {out} rw - ext4 /dev/vda1 rw\n")
    monkeypatch.setattr(entrypoint.os, "execve", _fake_exec)
    return out


def test_contract_met_execs_the_cli_with_the_same_arguments(sealed: Path) -> None:
    """On success the console script replaces the process with the arguments unchanged."""
    argv = ["qualify", "--out", str(sealed / "q.json")]
    with pytest.raises(Exec) as caught:
        image.main(argv)
    assert caught.value.argv == ["clearing-analysis", *argv]
    assert Path(caught.value.program).name == "clearing-analysis"


def test_the_cli_gets_the_marker_and_the_rest_of_the_environment(
    sealed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The exec'd CLI's environment is this one plus the contract marker (container.sealed),
    and a value given to the container (`-e`) is replaced, never passed on."""
    monkeypatch.setenv("SOME_SETTING", "kept")
    monkeypatch.setenv(MARKER_VARIABLE, "forged")
    with pytest.raises(Exec) as caught:
        image.main(["qualify", "--out", str(sealed / "q.json")])
    assert caught.value.env[MARKER_VARIABLE] == MARKER_VALUE == "checked-by-entrypoint"
    assert caught.value.env["SOME_SETTING"] == "kept"
    assert {k: v for k, v in caught.value.env.items() if k != MARKER_VARIABLE} == {
        k: v for k, v in os.environ.items() if k != MARKER_VARIABLE
    }


def test_a_violation_execs_nothing_so_passes_no_marker(
    sealed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refused run never reaches the exec: no process ever gets the marker for it."""
    monkeypatch.delenv(MARKER_VARIABLE, raising=False)
    with pytest.raises(SystemExit):
        image.main(["qualify", "--out", str(tmp_path / "q.json")])
    assert MARKER_VARIABLE not in os.environ


def test_violation_prints_code_and_detail_and_exits_2(
    sealed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An output on the read-only root: one fixed line on stderr, exit 2, no exec."""
    with pytest.raises(SystemExit) as caught:
        image.main(["qualify", "--out", str(tmp_path / "q.json")])
    assert caught.value.code == 2
    captured = capsys.readouterr()
    assert captured.err == (
        "clearing-analysis: MOUNT_CONTRACT_VIOLATED OUTPUT_NOT_WRITABLE:"
        " mount an output directory with :rw and write there\n"
    )
    assert captured.out == ""
    assert str(tmp_path) not in captured.err


def test_unreadable_mountinfo(
    sealed: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """No /proc/self/mountinfo: MOUNTINFO_UNREADABLE, exit 2."""
    monkeypatch.setattr(contract, "MOUNTINFO", tmp_path / "absent")
    with pytest.raises(SystemExit) as caught:
        image.main(["demo"])
    assert caught.value.code == 2
    assert capsys.readouterr().err == (
        "clearing-analysis: MOUNT_CONTRACT_VIOLATED MOUNTINFO_UNREADABLE:"
        " run under a standard Linux runtime\n"
    )


def test_unexpected_failure_is_a_fault_without_text(
    sealed: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Anything else is ANALYZER_FAULT, exit 1, no message or traceback."""

    def explode(_: object) -> None:
        raise ValueError("secret-canary")

    monkeypatch.setattr(image, "check_this_container", explode)
    with pytest.raises(SystemExit) as caught:
        image.main(["demo"])
    assert caught.value.code == 1
    assert capsys.readouterr().err == (
        "clearing-analysis: ANALYZER_FAULT INTERNAL_ERROR:"
        " an internal error: please report the command shape, not your data\n"
    )
