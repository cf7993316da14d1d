"""Only the period you ask about (`--since`, `--until`; docs/model.md, "The period"):
boundaries, requests and compactions outside it are skipped with a fixed reason and counted,
as the capture window's are, and the report states the period; on explore (pi sessions), on
analyze's pipeline (native journals) and in the replay summary, through the real commands.

The pi session, by hand (UTC):

| turn | when                                  | requests                  | compaction after it |
|------|---------------------------------------|---------------------------|---------------------|
| t0   | 2025-12-01 00:00                      | read call, answer         | 2025-12-01          |
| t1   | 2025-12-02 10:00                      | read call, answer         | -                   |
| t2   | 2025-12-02 23:59:59, answer past 0:00 | read call (in), answer (out) | -                |
| t3   | 2025-12-03 10:00                      | read call, answer         | 2025-12-03 (trailing) |

`--since 2025-12-02 --until 2025-12-02` (the whole of 2 December): t0 and t3 are skipped as
OUTSIDE_PERIOD; their 4 requests and t2's answer are outside (5); both compactions are
outside; 2 prompt turns and 3 requests are counted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from clearing_analysis.report.encode import decode_report
from clearing_analysis.report.text.view import render_text
from tests._seed_route import SEED_ROUTE
from tests.e2e._cli import run_cli
from tests.pisession.builder import BASE_MS, Session
from tests.replay.builder import JournalBuilder, SidecarBuilder, usage

DAY, HOUR = 86_400_000, 3_600_000
DEC_2 = BASE_MS + DAY  # 2025-12-02T00:00:00Z


def _turn(session: Session, at: int, text: str) -> None:
    session.clock = at
    session.turn(["read"], text=text)


def _session(tmp_path: Path) -> Path:
    session = Session()
    _turn(session, BASE_MS, "t0")
    session.entry("compaction", summary="s", tokensBefore=190_000, firstKeptEntryId=None)
    _turn(session, DEC_2 + 10 * HOUR, "t1")
    _turn(session, DEC_2 + DAY - 3_000, "t2")
    _turn(session, DEC_2 + DAY + 10 * HOUR, "t3")
    session.entry("compaction", summary="s", tokensBefore=190_000, firstKeptEntryId=None)
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    session.write(sessions / "days.jsonl")
    return sessions


def _routes(tmp_path: Path) -> Path:
    routes = tmp_path / "routes.json"
    routes.write_text(json.dumps([SEED_ROUTE]))
    return routes


PERIOD = ["--since", "2025-12-02", "--until", "2025-12-02"]


def test_explore_skips_and_counts_what_lies_outside(tmp_path: Path) -> None:
    """The hand counts of the module docstring, and the period in the report and the view."""
    args = ["explore", "--sessions", _session(tmp_path), "--routes", _routes(tmp_path)]
    done = run_cli([*args, *PERIOD, "--json"])
    assert (done.returncode, done.stderr) == (0, b"")
    report: dict[str, Any] = json.loads(done.stdout)
    sessions = report["sessions"]
    assert sessions["skippedBoundaries"]["OUTSIDE_PERIOD"] == 2
    assert (sessions["requestsOutsidePeriod"], sessions["compactionsOutsidePeriod"]) == (5, 2)
    assert report["period"] == {"sinceMs": DEC_2, "untilMs": DEC_2 + DAY}
    part = report["perApi"][SEED_ROUTE["api"]]
    assert (part["promptTurns"], part["requests"]["requests"]) == (2, 3)
    assert part["compactions"]["checkpoints"] == 0
    whole = json.loads(run_cli([*args, "--json"]).stdout)
    assert whole["period"] == {"sinceMs": None, "untilMs": None}
    assert whole["perApi"][SEED_ROUTE["api"]]["requests"]["requests"] == 8
    assert whole["sessions"]["requestsOutsidePeriod"] == 0
    text = " ".join(render_text(decode_report(done.stdout), details=True).split())
    assert "period 2025-12-02T00:00:00Z to before 2025-12-03T00:00:00Z (UTC)" in text
    assert "requests outside the period 5" in text


def test_a_value_that_is_no_date_is_refused(tmp_path: Path) -> None:
    """A bad --since is INPUT_INVALID PERIOD_NOT_A_DATE (exit 2, nothing on stdout), the value
    never echoed; before, explore answered USAGE_ERROR MISTYPED_OPTION ("did you mean
    --json?")."""
    args = ["explore", "--sessions", _session(tmp_path), "--routes", _routes(tmp_path)]
    done = run_cli([*args, "--since", "lastweek-canary-91d2"])
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.startswith(b"clearing-analysis: INPUT_INVALID PERIOD_NOT_A_DATE: ")
    assert b"canary" not in done.stderr


def _journal(tmp_path: Path) -> dict[str, Path]:
    """Two native prompt turns a day apart, a checkpoint after the first, a sidecar whose
    capture window covers both."""
    b = JournalBuilder()
    for index, at in enumerate((BASE_MS, DEC_2 + 10 * HOUR)):
        turn, run = f"t{index}", f"r{index}"
        b.turn(turn, at=at)
        b.run(run, turn)
        b.assistant(run, "done", use=usage(1_000, 1_000), at=at + 1_000)
        b.run_end(run)
        if index == 0:
            b.checkpoint("summary", first_kept=None, before=190_000, after=30_000)
    b.close()
    journals = tmp_path / "journals"
    journals.mkdir()
    b.write(journals)
    sidecar = SidecarBuilder(tmp_path / "history.sqlite", capture_enabled=("p1",))
    return {"journals": journals, "sidecar": sidecar.finish(), "routes": _routes(tmp_path)}


def test_analyze_and_replay_state_the_period(tmp_path: Path) -> None:
    """On native journals the first turn is OUTSIDE_PERIOD (it comes before the capture
    window's check), its request and the checkpoint after it are counted outside; analyze's
    report and replay's summary both state the period."""
    paths = _journal(tmp_path)
    common = ["--journals", paths["journals"], "--sidecar", paths["sidecar"]]
    common += ["--routes", paths["routes"], "--since", "2025-12-02"]
    analyzed = run_cli(["analyze", *common, "--json"])
    assert analyzed.returncode == 0, analyzed.stderr
    report = json.loads(analyzed.stdout)
    snapshot = report["snapshot"]
    assert snapshot["skippedBoundaries"]["OUTSIDE_PERIOD"] == 1
    assert snapshot["skippedBoundaries"]["OUTSIDE_CAPTURE_WINDOW"] == 0
    assert (snapshot["requestsOutsidePeriod"], snapshot["compactionsOutsidePeriod"]) == (1, 1)
    assert report["period"] == {"sinceMs": DEC_2, "untilMs": None}
    assert report["perApi"][SEED_ROUTE["api"]]["requests"]["requests"] == 1
    replayed = run_cli(["replay", *common])
    assert replayed.returncode == 0, replayed.stderr
    summary = json.loads(replayed.stdout)
    assert summary["period"] == {"sinceMs": DEC_2, "untilMs": None}
    assert summary["skippedBoundaries"]["OUTSIDE_PERIOD"] == 1
    assert summary["perApi"][SEED_ROUTE["api"]]["requests"] == 1
