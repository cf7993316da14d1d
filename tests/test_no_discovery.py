"""No discovery, no network: only explicit inputs are touched (seed, "Run locally"; issue 3).

HOME and every XDG_* variable point at a decoy tree full of journals and a sidecar. An audit
hook (sys.addaudithook) records every open, directory listing, SQLite connect and socket
event while a session opens, finishes, reads the sidecar and writes its output.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from clearing_analysis.inputs.requests import ExploreRequest, ReplayRequest
from clearing_analysis.inputs.session import InputSession
from clearing_analysis.pipeline.jobs import explore_job
from tests._seed_route import SEED_ROUTE
from tests.inputs._safety_corpus import Corpus, make_corpus, make_sidecar
from tests.pisession.builder import Session

_WATCHED_EVENTS = {"open", "os.scandir", "os.listdir", "sqlite3.connect", "os.chdir"}
_recording: list[tuple[str, tuple[Any, ...]]] | None = None


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _recording is not None and (event in _WATCHED_EVENTS or event.startswith("socket.")):
        _recording.append((event, args))


sys.addaudithook(_audit)  # hooks cannot be removed; it records only inside `_recorded`


@pytest.fixture
def recorded() -> Iterator[list[tuple[str, tuple[Any, ...]]]]:
    global _recording  # noqa: PLW0603 - the audit hook is process-wide by design
    events: list[tuple[str, tuple[Any, ...]]] = []
    _recording = events
    try:
        yield events
    finally:
        _recording = None


@pytest.fixture
def decoy_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME that looks like a real agent's state: journals, a native root, a sidecar."""
    home = tmp_path / "home"
    for relative in (
        ".pi/agent/sessions/journals/decoy-1.jsonl",
        ".pi/agent/journals/decoy-2.jsonl",
        ".local/state/pi/journals/decoy-3.jsonl",
        "journals/decoy-4.jsonl",
        "decoy-5.jsonl",
    ):
        path = home / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b'{"kind":"header"}\n')
    make_sidecar(home / ".pi" / "agent" / "history.sqlite")
    make_sidecar(home / "history.sqlite")
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(name, str(home))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(home))
    monkeypatch.chdir(home)  # even the working directory is full of decoys
    return home


def _touches(events: list[tuple[str, tuple[Any, ...]]], root: Path) -> list[tuple[str, str]]:
    hits = []
    for event, args in events:
        if not args or not isinstance(args[0], str | bytes | os.PathLike):
            continue
        path = os.fsdecode(args[0])
        if event == "open" and path == "." and args[2] & os.O_TMPFILE == os.O_TMPFILE:
            continue  # the unnamed output, relative to the checked output directory (R-REL-5)
        if event == "sqlite3.connect" and path.startswith("file:"):
            path = urllib.parse.unquote(path.removeprefix("file:").split("?", 1)[0])
        if not Path(path).is_absolute():
            # Only the output is opened relative to a directory descriptor (dir_fd); any other
            # relative path would resolve against the decoy working directory: report it.
            if (event, path) != ("open", "report.json"):
                hits.append((event, path))
            continue
        resolved = os.path.realpath(path)
        if resolved == str(root) or resolved.startswith(str(root) + os.sep):
            hits.append((event, path))
    return hits


def _events(hits: list[tuple[str, str]]) -> set[str]:
    return {event for event, _path in hits}


def _run_session(corpus: Corpus) -> InputSession:
    session = InputSession.open(
        ReplayRequest(journals=(corpus.journals,), sidecar=corpus.sidecar, routes=corpus.routes)
    )
    with session.open_sidecar() as view:
        view.conversation_policy("any")
    session.finish()
    session.write_output(b"{}\n", corpus.out_dir / "report.json")
    return session


def test_only_explicit_inputs_are_selected_and_opened(
    tmp_path: Path, decoy_home: Path, recorded: list[tuple[str, tuple[Any, ...]]]
) -> None:
    """With HOME/XDG_* full of decoys, the session selects and opens only explicit inputs."""
    corpus = make_corpus(tmp_path / "explicit")
    recorded.clear()
    session = _run_session(corpus)
    assert all(not path.is_relative_to(decoy_home) for path in session.journals)
    assert len(session.journals) == 2
    assert _touches(recorded, decoy_home) == []
    # The audit hook really sees this session's file activity (the test is not vacuous).
    assert {"open", "sqlite3.connect", "os.scandir"} <= _events(_touches(recorded, corpus.root))


def test_no_socket_is_created(
    tmp_path: Path, recorded: list[tuple[str, tuple[Any, ...]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening, finishing and writing never creates or connects a socket."""
    import socket

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("network use")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    corpus = make_corpus(tmp_path)
    _run_session(corpus)
    assert [event for event, _args in recorded if event.startswith("socket.")] == []


def test_explore_reads_only_the_sessions_it_is_given(
    tmp_path: Path, decoy_home: Path, recorded: list[tuple[str, tuple[Any, ...]]]
) -> None:
    """`explore` with HOME full of real-looking pi sessions (~/.pi/agent/sessions) reads only
    the session directory named on its command line: nothing under HOME is opened or listed,
    and no socket is used."""
    decoy = decoy_home / ".pi" / "agent" / "sessions" / "--home-project--"
    decoy.mkdir(parents=True)
    Session(session_id="decoy").write(decoy / "decoy.jsonl")
    explicit = tmp_path / "explicit" / "sessions"
    explicit.mkdir(parents=True)
    session = Session()
    session.turn(["read"])
    session.write(explicit / "one.jsonl")
    routes = tmp_path / "explicit" / "routes.json"
    routes.write_text(json.dumps([SEED_ROUTE]))
    recorded.clear()
    done = explore_job(ExploreRequest(sessions=(explicit,), routes=routes, workers=1))
    assert json.loads(done.data)["sessions"]["sessionsRead"] == 1
    assert _touches(recorded, decoy_home) == []
    assert {"open", "os.scandir"} <= _events(_touches(recorded, explicit))
    assert [event for event, _args in recorded if event.startswith("socket.")] == []
