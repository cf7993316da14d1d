"""Unreadable inputs name their cause, run without the privilege to read any file.

Each case makes one input unreadable (mode 000) and runs the real console script without the
capabilities that let root read it anyway (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, dropped
through `setpriv` when the suite runs as root; an unprivileged user has neither): the failure
line is the input's own UNREADABLE code, never USAGE_ERROR BAD_VALUE or "these files are
invalid", exit 2, and nothing is written. The user stays the same, so the checkout may live
anywhere (a private temporary directory included).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from clearing_analysis.synth import generate

# Root without these reads only what the mode bits allow its owner: nothing of mode 000.
DROPPED = "-dac_override,-dac_read_search"
SETPRIV = shutil.which("setpriv") or "setpriv"
SCRIPT = Path(sys.executable).with_name("clearing-analysis")
SESSION = (
    '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}\n'
)

pytestmark = pytest.mark.skipif(
    os.geteuid() == 0 and shutil.which("setpriv") is None,
    reason="running as root needs setpriv to drop the capabilities that read any file",
)


@pytest.fixture
def world() -> Iterator[Path]:
    """A directory every user can traverse (pytest's tmp_path is private to its owner)."""
    root = Path(tempfile.mkdtemp(prefix="clearing-unreadable-"))
    root.chmod(0o755)
    try:
        yield root
    finally:
        shutil.rmtree(root)


def _corpus(world: Path) -> Path:
    corpus = world / "corpus"
    generate(corpus, 7, conversations=2)
    for path in [corpus, *corpus.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return corpus


def _run_unprivileged(world: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    prefix = [SETPRIV, f"--bounding-set={DROPPED}", f"--inh-caps={DROPPED}"]
    command = [*(prefix if os.geteuid() == 0 else []), str(SCRIPT), *args]
    return subprocess.run(command, cwd=world, capture_output=True, check=False, timeout=120)


def _refused(done: subprocess.CompletedProcess[bytes], code: str, detail: str) -> None:
    assert done.returncode == 2
    assert done.stdout == b""
    line = done.stderr.decode()
    assert line.startswith(f"clearing-analysis: {code} {detail}: "), line
    assert line.count("\n") == 1


def _refused_writing_nothing(world: Path, detail: str, *args: str) -> None:
    """The command, asked to write report.json, refuses with INPUT_INVALID `detail` and
    writes nothing."""
    done = _run_unprivileged(world, *args, "--out", "report.json")
    _refused(done, "INPUT_INVALID", detail)
    assert not (world / "report.json").exists()


def _unreadable(path: Path) -> Path:
    path.chmod(0o000)
    return path


@pytest.mark.parametrize("where", ["named", "inside-directory"])
def test_an_unreadable_session_file_is_sessions_unreadable(world: Path, where: str) -> None:
    """A session file that cannot be read, named or met in the walk: SESSIONS_UNREADABLE."""
    corpus = _corpus(world)
    sessions = world / "sessions"
    sessions.mkdir(mode=0o755)
    session = sessions / "one.jsonl"
    session.write_text(SESSION, encoding="utf-8")
    _unreadable(session)
    named = session if where == "named" else sessions
    routes = str(corpus / "routes.json")
    explore = ("explore", "--sessions", str(named), "--routes", routes)
    _refused_writing_nothing(world, "SESSIONS_UNREADABLE", *explore)


@pytest.mark.parametrize("where", ["named", "inside-directory"])
def test_an_unreadable_journal_file_is_journals_unreadable(world: Path, where: str) -> None:
    """A journal that cannot be read, named or met in the walk: JOURNALS_UNREADABLE."""
    corpus = _corpus(world)
    journal = _unreadable(sorted((corpus / "journals").glob("*.jsonl"))[0])
    named = journal if where == "named" else corpus / "journals"
    sidecar, routes = str(corpus / "history.sqlite"), str(corpus / "routes.json")
    analyze = ("analyze", "--journals", str(named), "--sidecar", sidecar, "--routes", routes)
    _refused_writing_nothing(world, "JOURNALS_UNREADABLE", *analyze)


@pytest.mark.parametrize(
    ("option", "name", "detail"),
    [
        ("--routes", "routes.json", "ROUTES_UNREADABLE"),
        ("--sidecar", "history.sqlite", "SIDECAR_UNREADABLE"),
        ("--agent-config", "agent-config.json", "AGENT_CONFIG_UNREADABLE"),
        ("--app-allowlist", "app-allowlist.json", "APP_ALLOWLIST_UNREADABLE"),
    ],
)
def test_an_unreadable_input_file_names_its_option(
    world: Path, option: str, name: str, detail: str
) -> None:
    """Each other input file that cannot be read is its option's UNREADABLE detail (typer's own
    readability check, a USAGE_ERROR BAD_VALUE, is off for every input option)."""
    corpus = _corpus(world)
    inputs = {
        "--journals": corpus / "journals",
        "--sidecar": corpus / "history.sqlite",
        "--routes": corpus / "routes.json",
        option: _unreadable(corpus / name),
    }
    args = [part for pair in inputs.items() for part in (pair[0], str(pair[1]))]
    _refused_writing_nothing(world, detail, "analyze", *args)


def test_unreadable_routes_for_explore_is_routes_unreadable(world: Path) -> None:
    """explore with a routes file that cannot be read: ROUTES_UNREADABLE, not BAD_VALUE."""
    corpus = _corpus(world)
    sessions = world / "sessions"
    sessions.mkdir(mode=0o755)
    (sessions / "one.jsonl").write_text(SESSION, encoding="utf-8")
    (sessions / "one.jsonl").chmod(0o644)
    routes = _unreadable(corpus / "routes.json")
    done = _run_unprivileged(world, "explore", "--sessions", str(sessions), "--routes", str(routes))
    _refused(done, "INPUT_INVALID", "ROUTES_UNREADABLE")


def test_an_unreadable_saved_report_is_report_unreadable(world: Path) -> None:
    """`show` of a report that exists but cannot be read: REPORT_UNREADABLE, not
    REPORT_MISSING, and with --html no page is written."""
    report = world / "report.json"
    report.write_text("{}", encoding="utf-8")
    _unreadable(report)
    _refused(_run_unprivileged(world, "show", str(report)), "INPUT_INVALID", "REPORT_UNREADABLE")
    done = _run_unprivileged(world, "show", str(report), "--html", "page.html")
    _refused(done, "INPUT_INVALID", "REPORT_UNREADABLE")
    assert not (world / "page.html").exists()
