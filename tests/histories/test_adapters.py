"""The history adapters (R-SRC-1, src/clearing_analysis/histories): each format recognized
from its first lines, the pi-session fallback, pi sessions replayed through the interface
exactly as before, and explore treating Claude Code as a format it reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clearing_analysis.histories import adapter_of, first_lines
from clearing_analysis.histories.claude_code import CLAUDE_CODE
from clearing_analysis.histories.pi import PI_SESSIONS
from clearing_analysis.histories.recognize import format_of_lines
from clearing_analysis.inputs.configs import load_routes
from clearing_analysis.inputs.recognize import HistoryFormat
from clearing_analysis.pisession import map_session, read_session
from clearing_analysis.pisession.read import RejectedSession, SessionInvalid
from clearing_analysis.replay.journal_replay import replay_decoded
from clearing_analysis.replay.model import ReplayedJournal, imported_history
from clearing_analysis.replay.pi_replay import replay_history, replay_pi_session
from clearing_analysis.toolclass import ToolNames
from tests._seed_route import SEED_ROUTE
from tests.e2e._cli import fixed_line, run_cli
from tests.histories.builder import Transcript, text
from tests.pisession.builder import Session


def _routes(tmp_path: Path) -> Path:
    path = tmp_path / "routes.json"
    path.write_text(json.dumps([SEED_ROUTE]))
    return path


def _transcript() -> Transcript:
    t = Transcript()
    t.prompt()
    t.response([text("ok")])
    return t


@pytest.mark.parametrize(
    "opening",
    [
        {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}},
        {"type": "queue-operation", "operation": "enqueue", "sessionId": "s"},
        {"type": "summary", "summary": "a title", "leafUuid": "u"},
        None,
    ],
)
def test_claude_code_is_recognized_by_its_first_line(opening: dict[str, str] | None) -> None:
    """A transcript is recognized whether it opens with a conversation line or with one of the
    bookkeeping lines Claude Code writes first; a pi session is not."""
    t = _transcript()
    if opening is not None:
        t.lines.insert(0, opening)
    lines = [line.encode() for line in t.text().splitlines()]
    assert format_of_lines(lines[:1]) is HistoryFormat.CLAUDE_CODE
    assert CLAUDE_CODE.recognizes(lines)
    assert not PI_SESSIONS.recognizes(lines)


def test_each_file_goes_to_its_adapter_and_the_rest_to_pi(tmp_path: Path) -> None:
    """A pi session and a transcript each reach their own adapter; a file no adapter
    recognizes reaches the pi reader, which refuses it as NOT_A_SESSION (as explore always
    has); an unreadable or empty file has no first lines."""
    pi = Session()
    pi.turn(["read"])
    pi_path = pi.write(tmp_path / "pi.jsonl")
    cc_path = _transcript().write(tmp_path / "cc.jsonl")
    other = tmp_path / "other.jsonl"
    other.write_text('{"hello": "world"}\n')
    assert adapter_of(pi_path) is PI_SESSIONS
    assert adapter_of(cc_path) is CLAUDE_CODE
    assert adapter_of(other) is PI_SESSIONS
    assert PI_SESSIONS.read(other) == RejectedSession(
        read_session(other).outcome,  # type: ignore[union-attr]
        SessionInvalid.NOT_A_SESSION,
    )
    assert first_lines(tmp_path / "missing.jsonl") == ()


def test_a_pi_session_replays_through_the_interface_as_it_did_directly(tmp_path: Path) -> None:
    """The adapter's read, map and replay of a pi session equal the pi reader's own (the
    interface adds nothing to a pi result)."""
    routes = load_routes(_routes(tmp_path))
    session = Session()
    session.turn(["read", "bash"])
    session.turn(["write"])
    path = session.write(tmp_path / "pi.jsonl")
    read = read_session(path)
    assert not isinstance(read, RejectedSession)
    mapped = map_session(read)
    assert not isinstance(mapped, RejectedSession)
    direct = replay_decoded(mapped, routes, None, imported_history(ToolNames.PI_FAMILY))
    assert isinstance(direct, ReplayedJournal)
    through = replay_history(path, routes)
    assert through == replay_pi_session(path, routes)
    assert isinstance(through, ReplayedJournal)
    assert through.boundaries == direct.boundaries
    assert through.results == direct.results
    assert through.session == read.shape


def test_explore_of_refused_transcripts_names_the_skip_not_the_format(tmp_path: Path) -> None:
    """When every transcript is refused, explore says why they were refused (NONE_READ_INVALID),
    not that they are Claude Code transcripts: it reads that format."""
    sessions = tmp_path / "projects"
    sessions.mkdir()
    for index in range(2):
        path = _transcript().write(sessions / f"s{index}.jsonl")
        with path.open("a") as stream:
            stream.write("not json\n")
    done = run_cli(["explore", "--sessions", sessions, "--routes", _routes(tmp_path)])
    assert done.stdout == b""
    assert done.stderr == fixed_line("NO_JOURNALS", "NONE_READ_INVALID")
