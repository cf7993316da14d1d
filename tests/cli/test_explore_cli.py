"""`clearing-analysis explore` at the command line (docs/explore.md, "Input safety"): explicit
paths only, walks that follow no symlink, the snapshot compared before and after, exclusive
output never inside an input, one fixed line per refusal with no argument echoed, and the
human view (`show` of an explore report)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from clearing_analysis.codes.errors import SnapshotChangedError
from clearing_analysis.inputs.requests import ExploreRequest
from clearing_analysis.pipeline.jobs import explore_job
from tests._seed_route import SEED_ROUTE
from tests.e2e._cli import fixed_line, listing, run_cli
from tests.pisession.builder import Session

CANARY = "zz-canary-7d1f"


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[Path, Path]:
    """(a sessions directory with one session, a routes file), names carrying a canary."""
    sessions = tmp_path / f"sessions-{CANARY}"
    sessions.mkdir()
    session = Session(session_id=f"id-{CANARY}")
    for index in range(3):
        session.turn(["read", "ls"], text=f"prompt {CANARY} {index}")
    session.write(sessions / f"{CANARY}.jsonl")
    routes = tmp_path / f"routes-{CANARY}.json"
    routes.write_text(json.dumps([SEED_ROUTE]))
    return sessions, routes


def _report(stdout: bytes) -> dict[str, object]:
    report: dict[str, object] = json.loads(stdout)
    return report


def test_explore_writes_the_report_to_a_new_file_only(
    inputs: tuple[Path, Path], tmp_path: Path
) -> None:
    """With --out the report goes to a new file (stdout empty); a second run onto the same
    file is refused (OUTPUT_EXISTS) and leaves it as it was."""
    sessions, routes = inputs
    out = tmp_path / f"out-{CANARY}.json"
    args = ["explore", "--sessions", str(sessions), "--routes", str(routes), "--out", str(out)]
    done = run_cli(args)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    written = out.read_bytes()
    assert json.loads(written)["format"] == "clearing-analysis-explore"
    assert CANARY.encode() not in written
    again = run_cli(args)
    assert (again.returncode, again.stdout) == (2, b"")
    assert again.stderr == fixed_line("OUTPUT_REFUSED", "OUTPUT_EXISTS")
    assert out.read_bytes() == written


def test_output_inside_a_sessions_directory_is_refused(inputs: tuple[Path, Path]) -> None:
    """The output may not be created inside a walked --sessions directory."""
    sessions, routes = inputs
    before = listing(sessions)
    out = sessions / f"{CANARY}.json"
    done = run_cli(
        ["explore", "--sessions", str(sessions), "--routes", str(routes), "--out", str(out)]
    )
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr == fixed_line("OUTPUT_REFUSED", "OUTPUT_INSIDE_INPUT")
    assert listing(sessions) == before


def test_symlinks_are_not_followed_in_walks(inputs: tuple[Path, Path], tmp_path: Path) -> None:
    """A symlink inside a walked directory (to a session file or to a directory of them) is
    not followed; the same file named explicitly is read."""
    sessions, routes = inputs
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    other = Session(session_id="other-session")
    other.turn(["grep"], text="another history")
    target = other.write(elsewhere / "other.jsonl")
    (sessions / "link.jsonl").symlink_to(target)
    (sessions / "linked-dir").symlink_to(elsewhere, target_is_directory=True)
    walked = run_cli(["explore", "--sessions", str(sessions), "--routes", str(routes), "--json"])
    assert walked.returncode == 0, walked.stderr
    assert _report(walked.stdout)["sessions"]["sessionsRead"] == 1  # type: ignore[index]
    named = run_cli(
        [
            "explore",
            "--sessions",
            str(sessions),
            str(sessions / "link.jsonl"),
            "--routes",
            str(routes),
            "--json",
        ]
    )
    assert named.returncode == 0, named.stderr
    assert _report(named.stdout)["sessions"]["sessionsRead"] == 2  # type: ignore[index]
    only_links = tmp_path / "only-links"
    only_links.mkdir()
    (only_links / "link.jsonl").symlink_to(target)
    empty = run_cli(["explore", "--sessions", str(only_links), "--routes", str(routes)])
    assert (empty.returncode, empty.stdout) == (2, b"")
    assert empty.stderr == fixed_line("NO_JOURNALS", "NO_SESSION_FILES")


def test_a_session_changing_during_the_run_is_refused(inputs: tuple[Path, Path]) -> None:
    """A session file appended to (pi writing) between the two snapshots: SNAPSHOT_CHANGED,
    and nothing is reported."""
    sessions, routes = inputs
    path = next(sessions.glob("*.jsonl"))

    def append() -> None:
        with path.open("a", encoding="utf-8") as stream:
            stream.write(
                json.dumps({"type": "label", "timestamp": "t", "id": "zz", "parentId": None}) + "\n"
            )

    with pytest.raises(SnapshotChangedError) as caught:
        explore_job(
            ExploreRequest(sessions=(sessions,), routes=routes, workers=1), between_snapshots=append
        )
    assert caught.value.exit_status == 2
    assert CANARY not in str(caught.value)


def test_a_session_appearing_during_the_run_is_refused(inputs: tuple[Path, Path]) -> None:
    """A new session file in a walked directory between the snapshots: SNAPSHOT_CHANGED."""
    sessions, routes = inputs

    def appear() -> None:
        Session(session_id="late").write(sessions / "late.jsonl")

    with pytest.raises(SnapshotChangedError):
        explore_job(
            ExploreRequest(sessions=(sessions,), routes=routes, workers=1), between_snapshots=appear
        )


def test_no_argument_is_echoed_in_usage_errors(inputs: tuple[Path, Path]) -> None:
    """A missing --routes, an unknown option and a bad --retrieval-rate are fixed lines that
    echo nothing of the command line."""
    sessions, routes = inputs
    for args in (
        ["explore", "--sessions", str(sessions)],
        ["explore", "--sessions", str(sessions), "--routes", str(routes), f"--{CANARY}"],
        [
            "explore",
            "--sessions",
            str(sessions),
            "--routes",
            str(routes),
            "--retrieval-rate",
            CANARY,
        ],
        ["explore", "--routes", str(routes)],
    ):
        done = run_cli(args)
        assert (done.returncode, done.stdout) == (2, b""), args
        assert done.stderr.startswith(b"clearing-analysis: USAGE_ERROR "), args
        assert CANARY.encode() not in done.stderr, args


def test_show_renders_the_human_view_of_an_explore_report(
    inputs: tuple[Path, Path], tmp_path: Path
) -> None:
    """`show` of an explore report prints the human view: the never-a-verdict statement
    right after the heading, the summary's figures called upper bounds, with --details every
    figure section titled UPPER BOUND; no BUILD / DEFER / STOP, nothing of the inputs."""
    sessions, routes = inputs
    out = tmp_path / "explore.json"
    made = run_cli(
        ["explore", "--sessions", str(sessions), "--routes", str(routes), "--out", str(out)]
    )
    assert made.returncode == 0, made.stderr
    shown = run_cli(["show", str(out)], env={**os.environ, "COLUMNS": "120"})
    assert (shown.returncode, shown.stderr) == (0, b"")
    summary = shown.stdout.decode()
    header, statement = summary.split("\n", 2)[:2]
    assert header.startswith("clearing-analysis explore ")
    assert statement.startswith("Exploration only: never a verdict.")
    assert "upper bound:" in summary
    assert "UPPER BOUND" not in summary  # the sections' tables follow only with --details
    detailed = run_cli(["show", str(out), "--details"], env={**os.environ, "COLUMNS": "120"})
    assert (detailed.returncode, detailed.stderr) == (0, b"")
    text = detailed.stdout.decode()
    assert text.startswith(summary)
    assert "UPPER BOUND" in text
    for word in ("BUILD", "DEFER", "STOP"):
        assert word not in text
    assert CANARY not in text


def test_a_copied_session_and_a_fork_count_their_history_once(tmp_path: Path) -> None:
    """A second file with the same session id is a DUPLICATE session; a fork (another id,
    the same first message) repeats the parent's turns as DUPLICATE boundaries; the requests
    counted are the distinct ones (docs/formats/pi-sessions.md, "The tree")."""
    root = tmp_path / "sessions"
    root.mkdir()
    parent = Session(session_id="parent")
    for index in range(3):
        parent.turn(["read"], text=f"turn {index}")
    parent.write(root / "a-parent.jsonl")
    parent.write(root / "b-copy.jsonl")
    fork = Session(session_id="fork")
    fork.lines, fork.last_id = [fork.lines[0], *parent.lines[1:]], parent.last_id
    fork.turn(["grep"], text="only in the fork")
    fork.write(root / "c-fork.jsonl")
    routes = tmp_path / "routes.json"
    routes.write_text(json.dumps([SEED_ROUTE]))
    report = json.loads(
        explore_job(ExploreRequest(sessions=(root,), routes=routes, workers=1)).data
    )
    sessions = report["sessions"]
    assert (sessions["branchedSessions"], sessions["offPathEntries"]) == (0, 0)
    assert sessions["skippedSessions"]["DUPLICATE"] == 1
    assert sessions["skippedBoundaries"]["DUPLICATE"] == 3
    part = report["perApi"][SEED_ROUTE["api"]]
    assert (part["promptTurns"], part["requests"]["requests"]) == (4, 8)
