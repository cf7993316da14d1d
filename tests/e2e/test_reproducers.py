"""The crash classes structure-aware fuzzing found, through the CLI (R-REL-1, R-REL-4).

Each reproducer (kept in fuzz/regressions/ as a regression input of the fuzz targets) now ends
in a fixed code or a counted skip, and the rest of the run's output is unchanged: a journal or
session that cannot be decoded is skipped with its fixed reason while every other file is
analyzed as before, and `show` refuses a damaged report with one fixed line and prints nothing.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from clearing_analysis.journal import RejectedJournal, decode_bytes
from clearing_analysis.pisession import RejectedSession, read_session
from tests._seed_route import SEED_ROUTE
from tests.e2e._cli import fixed_line, run_cli
from tests.journal._build import CLOSE, HEADER, line
from tests.report._saved import (
    GOLDEN_REPORT,
    RENDERED,
    REPRODUCERS,
    WRITER_API,
    WRITER_SESSIONS,
    explore_report_bytes,
    rendered,
    reproducer,
)
from tests.synth.corpora import corpus_options, make_corpus

REGRESSIONS = Path(__file__).resolve().parents[2] / "fuzz" / "regressions"
JOURNAL_REPRODUCERS = sorted((REGRESSIONS / "journal").glob("*.jsonl"))
SESSION_REPRODUCERS = sorted((REGRESSIONS / "pisession").glob("*.jsonl"))


def _json(done: Any) -> Any:
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    return json.loads(done.stdout)


def _without(report: Any, *paths: tuple[str, ...]) -> Any:
    """A copy of a report without the members at `paths` (compared separately)."""
    copy = json.loads(json.dumps(report))
    for path in paths:
        node = copy
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    return copy


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small synthetic corpus whose journals all replay."""
    return make_corpus(tmp_path_factory, "build", 4)


class TestJournalReproducers:
    """Deeply nested journal lines: the journal is INVALID NESTING_TOO_DEEP, the run goes on."""

    def test_each_reproducer_is_one_counted_skip(self, corpus: Path, tmp_path: Path) -> None:
        """analyze with the reproducers beside the corpus's journals: exit 0, every reproducer
        counted as INVALID / NESTING_TOO_DEEP and in the byte total, every other figure of the
        report unchanged."""
        assert JOURNAL_REPRODUCERS, "fuzz/regressions/journal holds the reproducers"
        baseline = _json(run_cli(["analyze", *corpus_options(corpus), "--json"]))
        journals = tmp_path / "journals"
        shutil.copytree(corpus / "journals", journals)
        for path in JOURNAL_REPRODUCERS:
            shutil.copy(path, journals / f"zz-{path.name}")
        options = corpus_options(corpus)
        options[options.index("--journals") + 1] = str(journals)
        with_reproducers = _json(run_cli(["analyze", *options, "--json"]))
        added = len(JOURNAL_REPRODUCERS)
        before, after = baseline["snapshot"], with_reproducers["snapshot"]
        skipped = before["skippedJournals"].get("INVALID", 0) + added
        assert after["skippedJournals"]["INVALID"] == skipped
        details = before["invalidJournalDetails"].get("NESTING_TOO_DEEP", 0) + added
        assert after["invalidJournalDetails"]["NESTING_TOO_DEEP"] == details
        # The snapshot's byte total counts every selected journal, the skipped ones too.
        added_bytes = sum(path.stat().st_size for path in JOURNAL_REPRODUCERS)
        assert after["journalBytes"] == before["journalBytes"] + added_bytes
        counted = [
            ("snapshot", "skippedJournals"),
            ("snapshot", "invalidJournalDetails"),
            ("snapshot", "journalBytes"),
        ]
        assert _without(with_reproducers, *counted) == _without(baseline, *counted)


# Named bad first lines, each in a journal of its own followed by a valid close record.
_DEEP_OBJECTS = b'{"a":' * 1000 + b"1" + b"}" * 1000
_HEADER_LINE = line(HEADER)[:-1]
BAD_FIRST_LINES: dict[str, bytes] = {
    "objects-nested-1000-deep": _DEEP_OBJECTS,
    "header-with-a-field-nested-1000-deep": _HEADER_LINE[:-1] + b',"x":' + _DEEP_OBJECTS + b"}",
    "repeated-key": _HEADER_LINE[:-1] + b',"seq":0}',
    "not-an-object": b"[1, 2]",
}


class TestBadFirstLines:
    """A journal whose first line the decoder refuses is skipped INVALID with the decoder's
    reason, however deep it nests (R-REL-4); the other journals are analyzed as before."""

    def test_each_is_skipped_with_the_decoders_reason(self, corpus: Path, tmp_path: Path) -> None:
        """analyze with the bad journals (and an empty file) beside the corpus's: exit 0, no
        stderr, each counted INVALID under the detail decoding it gives, every other figure of
        the report unchanged."""
        baseline = _json(run_cli(["analyze", *corpus_options(corpus), "--json"]))
        journals = tmp_path / "journals"
        shutil.copytree(corpus / "journals", journals)
        bad = {
            name: first + b"\n" + line({**CLOSE, "seq": 1})
            for name, first in BAD_FIRST_LINES.items()
        }
        bad["empty-file"] = b""
        reasons: Counter[str] = Counter()
        for name, data in bad.items():
            (journals / f"zz-{name}.jsonl").write_bytes(data)
            decoded = decode_bytes(data)
            assert isinstance(decoded, RejectedJournal)
            assert decoded.reason is not None
            reasons[decoded.reason.value] += 1
        assert reasons["NESTING_TOO_DEEP"] == 2
        options = corpus_options(corpus)
        options[options.index("--journals") + 1] = str(journals)
        with_bad = _json(run_cli(["analyze", *options, "--json"]))
        before, after = baseline["snapshot"], with_bad["snapshot"]
        assert after["skippedJournals"]["INVALID"] == (
            before["skippedJournals"].get("INVALID", 0) + len(bad)
        )
        for reason, count in reasons.items():
            expected = before["invalidJournalDetails"].get(reason, 0) + count
            assert after["invalidJournalDetails"][reason] == expected
        added_bytes = sum(len(data) for data in bad.values())
        assert after["journalBytes"] == before["journalBytes"] + added_bytes
        counted = [
            ("snapshot", "skippedJournals"),
            ("snapshot", "invalidJournalDetails"),
            ("snapshot", "journalBytes"),
        ]
        assert _without(with_bad, *counted) == _without(baseline, *counted)


class TestSessionReproducers:
    """A message whose role is a list or an object: an unknown role, counted, never a crash."""

    def test_explore_counts_them_and_reports_the_rest_unchanged(self, tmp_path: Path) -> None:
        """explore over the writer's sessions plus the reproducers: exit 0, each reproducer read
        with its message counted as an unknown role, every other figure unchanged."""
        routes = tmp_path / "routes.json"
        routes.write_text(json.dumps([{**SEED_ROUTE, "api": WRITER_API}]))
        sessions = tmp_path / "sessions"
        shutil.copytree(WRITER_SESSIONS, sessions)
        baseline = _json(run_cli(["explore", "--sessions", sessions, "--routes", routes]))
        for path in SESSION_REPRODUCERS:
            shutil.copy(path, sessions / f"zz-{path.name}")
        explored = _json(run_cli(["explore", "--sessions", sessions, "--routes", routes]))
        before, after = baseline["sessions"], explored["sessions"]
        added = len(SESSION_REPRODUCERS)
        assert after["sessionsRead"] == before["sessionsRead"] + added
        assert after["byVersion"]["3"] == before["byVersion"]["3"] + added
        assert after["byFormat"]["PI_SESSION"] == before["byFormat"]["PI_SESSION"] + added
        assert after["entries"] == before["entries"] + added  # one message entry each
        assert after["unrecognized"]["MESSAGE_ROLE"] == before["unrecognized"]["MESSAGE_ROLE"] + 2
        added_bytes = sum(path.stat().st_size for path in SESSION_REPRODUCERS)
        assert after["sessionBytes"] == before["sessionBytes"] + added_bytes
        changed = (
            "sessionsRead",
            "byVersion",
            "byFormat",
            "entries",
            "unrecognized",
            "sessionBytes",
        )
        assert {k: v for k, v in after.items() if k not in changed} == {
            k: v for k, v in before.items() if k not in changed
        }
        assert _without(explored, ("sessions",)) == _without(baseline, ("sessions",))


class TestExploreBadFirstLines:
    """explore: a session whose first line nests 1,000 objects is skipped with its reader's
    fixed reason (R-REL-4); the other sessions are explored as before."""

    def test_each_is_skipped_with_the_readers_reason(self, tmp_path: Path) -> None:
        """explore over the writer's sessions plus two sessions whose first line (a bare object,
        a session header with a field) nests 1,000 deep: exit 0, no stderr, each counted
        INVALID with the detail the session reader gives it, every other figure unchanged."""
        routes = tmp_path / "routes.json"
        routes.write_text(json.dumps([{**SEED_ROUTE, "api": WRITER_API}]))
        sessions = tmp_path / "sessions"
        shutil.copytree(WRITER_SESSIONS, sessions)
        baseline = _json(run_cli(["explore", "--sessions", sessions, "--routes", routes]))
        session_header = b'{"type":"session","version":3,"id":"s","x":'
        firsts = {"objects": _DEEP_OBJECTS, "session-header": session_header + _DEEP_OBJECTS + b"}"}
        reasons: Counter[str] = Counter()
        for name, first in firsts.items():
            path = sessions / f"zz-deep-{name}.jsonl"
            path.write_bytes(first + b"\n")
            read = read_session(path)
            assert isinstance(read, RejectedSession)
            assert read.detail is not None
            reasons[read.detail.value] += 1
        explored = _json(run_cli(["explore", "--sessions", sessions, "--routes", routes]))
        before, after = baseline["sessions"], explored["sessions"]
        assert after["skippedSessions"]["INVALID"] == (
            before["skippedSessions"]["INVALID"] + len(firsts)
        )
        for reason, count in reasons.items():
            expected = before["invalidSessionDetails"].get(reason, 0) + count
            assert after["invalidSessionDetails"][reason] == expected
        changed = ("skippedSessions", "invalidSessionDetails", "sessionBytes")
        assert {k: v for k, v in after.items() if k not in changed} == {
            k: v for k, v in before.items() if k not in changed
        }
        assert _without(explored, ("sessions",)) == _without(baseline, ("sessions",))


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """Today's valid saved report of each kind."""
    scratch = tmp_path_factory.mktemp("explore")
    return {"analysis": GOLDEN_REPORT.read_bytes(), "explore": explore_report_bytes(scratch)}


class TestShowReproducers:
    """show refuses each damaged report with its fixed line, exit 2, nothing on stdout."""

    @pytest.mark.parametrize("kind", ["analysis", "explore"])
    @pytest.mark.parametrize("name", sorted(REPRODUCERS))
    def test_show_refuses(
        self, saved: dict[str, bytes], tmp_path: Path, kind: str, name: str
    ) -> None:
        """The fixed INPUT_INVALID line and exit 2; the unedited report still shows (exit 0)."""
        good, bad = tmp_path / "good.json", tmp_path / "bad.json"
        good.write_bytes(saved[kind])
        bad.write_bytes(reproducer(saved[kind], name))
        shown = run_cli(["show", good])
        assert shown.returncode == 0, shown.stderr
        refused = run_cli(["show", bad])
        assert refused.returncode == 2
        assert refused.stdout == b""
        assert refused.stderr == fixed_line("INPUT_INVALID", REPRODUCERS[name][1])


class TestShowHtmlReproducers:
    """Schema-valid reports whose page ended `show --html` in ANALYZER_FAULT (an infinity in a
    chart, a rate of 1e308 in an element id, charts of no category): each page is created now,
    exit 0, nothing printed."""

    @pytest.mark.parametrize(
        ("kind", "name"),
        [
            ("analysis", "what-if-ratio-1e308"),
            ("explore", "cost-rate-1e308"),
            ("explore", "no-tool-results"),
        ],
    )
    def test_show_html_creates_the_page(
        self, saved: dict[str, bytes], tmp_path: Path, kind: str, name: str
    ) -> None:
        """`show REPORT --html PAGE` exits 0 with nothing on stdout or stderr, and PAGE is a
        whole page (each reproducer of either kind passes the `show_html` fuzz target in
        tests/fuzz/test_corpus.py; the terminal views of the same reports: tests/report)."""
        assert name in RENDERED
        report, page = tmp_path / "report.json", tmp_path / "page.html"
        report.write_bytes(rendered(saved[kind], name))
        done = run_cli(["show", report, "--html", page])
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
        assert page.read_bytes().startswith(b"<!DOCTYPE html>")
        assert page.read_bytes().endswith(b"</html>\n")
