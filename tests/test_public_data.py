"""Public session files stay outside the repository (R-DATA-1, docs/public-data.md): tests/data
holds only what this repository generated, and the tests that need public files find them
through CLEARING_PUBLIC_DATA alone, skipping without it, failing without it in CI."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._public_data import VARIABLE, public_folder

DATA = Path(__file__).resolve().parent / "data"
# Everything under tests/data was written by this repository's own tools: pi's writer, driven
# by `make pi-sessions` (docs/pi-session-writer.md), and the sample Claude Code project that
# tests/histories/sample.py writes (checked byte for byte by tests/histories/test_sample.py).
_SAMPLE = "claude-code/-home-dev-shop/5a3e0c1d-7f2b-4c8e-9d10-3b6a2f4e8c71"
GENERATED = {
    "pi-sessions/writer/main.jsonl",
    "pi-sessions/writer/fork.jsonl",
    f"{_SAMPLE}.jsonl",
    f"{_SAMPLE}/subagents/agent-a71c2e4.jsonl",
}


def test_test_data_holds_only_generated_files() -> None:
    """No file copied from a public repository is part of the tree: only the writer's."""
    files = {path.relative_to(DATA).as_posix() for path in DATA.rglob("*") if path.is_file()}
    assert files == GENERATED


def test_unset_variable_skips_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside CI an unset variable skips the test, naming the variable."""
    monkeypatch.delenv(VARIABLE, raising=False)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=VARIABLE):
        public_folder("real-pi")


def test_unset_variable_fails_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """In CI (CI=true) an unset variable fails the test: CI always runs them."""
    monkeypatch.delenv(VARIABLE, raising=False)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=VARIABLE):
        public_folder("real-pi")


def test_a_folder_without_the_subfolder_fails(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A variable naming a folder without the subfolder's SOURCES.md fails even outside CI: a
    misconfiguration is not a skip. With it, the subfolder is returned."""
    monkeypatch.setenv(VARIABLE, str(tmp_path))
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.fail.Exception, match=r"SOURCES\.md"):
        public_folder("real-pi")
    (tmp_path / "real-pi").mkdir()
    (tmp_path / "real-pi" / "SOURCES.md").write_text("sources\n")
    assert public_folder("real-pi") == tmp_path / "real-pi"
