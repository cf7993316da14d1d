"""Inputs at the edges of every stated range: what `analyze`, `explore` and `replay` write, `show`,
`show --html` and `verify` accept (docs/formats/README.md, "Numeric ranges").

Each example takes valid inputs (a synthetic corpus for `analyze` and `replay`, the pi writer's
sessions for `explore`) and moves numbers to the edges of their ranges: every route field
(tokens 0, 1 and 10^9, durations 0 and 10^12 ms, each weight 0, 10^-12 or 10^12, the quota
budget 10^-12 or 10^18), every request's usage counts and every checkpoint's tokens (0, 1,
10^9), the journals' timestamps shifted up to 2^53 - 1. The run must complete (every value is
within its range), and its report must read back as `show` reads it, render in the terminal
and as the page, and, signed with a key from `keygen`'s writer, verify. Few examples in
`make test`; many under the `fuzz` profile (`make fuzz`). The named cases are the runs that
ended in ANALYZER_FAULT, or wrote a report `show` refused, before the ranges were stated.
"""

from __future__ import annotations

import itertools
import json
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clearing_analysis import strictjson
from clearing_analysis.attest.keys import write_key_pair
from clearing_analysis.attest.verify import verify_report
from clearing_analysis.codes.errors import InputInvalidDetail, InputInvalidError
from clearing_analysis.inputs.configs import Api
from clearing_analysis.inputs.requests import (
    AnalyzeRequest,
    ExploreRequest,
    ReplayRequest,
    ShowRequest,
    parse_retrieval_rate,
)
from clearing_analysis.pipeline.jobs import analyze_job, explore_job, replay_job
from clearing_analysis.pipeline.saved import read_saved_report
from clearing_analysis.qualify.harness import installed_pi_ai, source_digest
from clearing_analysis.qualify.record import (
    ApiSummary,
    DifferenceCategory,
    PiAi,
    QualificationRecord,
    SourceDigest,
    encode_record,
)
from clearing_analysis.ranges import (
    MAX_DURATION_MS,
    MAX_EXACT_INTEGER,
    MAX_QUOTA_BUDGET,
    MAX_TOKENS,
    MAX_WEIGHT,
    MIN_POSITIVE_WEIGHT,
    MIN_QUOTA_BUDGET,
)
from clearing_analysis.report import validate
from clearing_analysis.report.encode import decode_report, encode_report
from clearing_analysis.report.text.view import render_text
from clearing_analysis.synth import generate
from tests._seed_route import SEED_ROUTE
from tests.e2e._cli import fixed_line, run_cli
from tests.report._saved import GOLDEN_REPORT, WRITER_API, WRITER_SESSIONS

USAGE_KEYS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
TOKEN_EDGES = (0, 1, MAX_TOKENS)
WEIGHT_EDGES = (0, 0.0, -0.0, MIN_POSITIVE_WEIGHT, MAX_WEIGHT)


def _examples(in_make_test: int, under_fuzz: int) -> int:
    """Few examples in `make test`; more under the `fuzz` profile (`make fuzz`), fewer than
    its default: each example is a whole run of the command."""
    if settings.get_current_profile_name() == "fuzz":
        return under_fuzz
    return in_make_test


PROPERTY = settings(
    deadline=None, suppress_health_check=list(HealthCheck), max_examples=_examples(3, 100)
)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small synthetic corpus (never modified: each example edits a copy)."""
    root = tmp_path_factory.mktemp("edge-corpus") / "corpus"
    generate(root, 5, conversations=2, profile="mixed")
    return root


@pytest.fixture(scope="module")
def key(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A signing key pair as `keygen` writes it: run.key (0600) and run.key.pub."""
    directory = tmp_path_factory.mktemp("edge-key")
    write_key_pair(directory / "run.key")
    return directory / "run.key"


_runs = itertools.count()


def _fresh(base: Path) -> Path:
    """A new directory for one example's inputs or outputs."""
    directory = base / f"run-{next(_runs)}"
    directory.mkdir()
    return directory


def _route_at_edges(route: dict[str, Any], data: st.DataObject) -> dict[str, Any]:
    """`route` with every field drawn from its range's edges (or kept as it was)."""
    draw = data.draw
    edged = dict(route)
    edged["triggerTokens"] = draw(st.sampled_from((route["triggerTokens"], 1, MAX_TOKENS)))
    for field in ("drainTokens", "summaryInputTokens", "summaryOutputTokens"):
        edged[field] = draw(st.sampled_from((route[field], *TOKEN_EDGES)))
    edged["cacheLifetimeMs"] = draw(
        st.sampled_from((route["cacheLifetimeMs"], 0, MAX_DURATION_MS, "unknown"))
    )
    edged["cacheMarginMs"] = draw(st.sampled_from((route["cacheMarginMs"], 0, MAX_DURATION_MS)))
    for view in ("prices", "quota"):
        edged[view] = {
            name: draw(st.sampled_from((value, *WEIGHT_EDGES)))
            for name, value in route[view].items()
        }
    edged["quotaBudget"] = draw(
        st.sampled_from((route["quotaBudget"], MIN_QUOTA_BUDGET, MAX_QUOTA_BUDGET))
    )
    return edged


def _routes_file(routes: list[dict[str, Any]], data: st.DataObject, directory: Path) -> Path:
    path = directory / "routes.json"
    path.write_text(json.dumps([_route_at_edges(route, data) for route in routes]))
    return path


class _Edges:
    """Where a run's numbers go: for each token count, as recorded or at an edge of its range
    (all at 0, all at 10^9, or each one of 0, 1, 10^9 and its own value, from a seed)."""

    def __init__(self, data: st.DataObject) -> None:
        self.mode = data.draw(st.sampled_from(["as-recorded", "zero", "max", "mixed"]))
        self.rng = random.Random(data.draw(st.integers(0, 2**32 - 1)))

    def tokens(self, value: int) -> int:
        if self.mode == "zero":
            return 0
        if self.mode == "max":
            return MAX_TOKENS
        if self.mode == "mixed":
            return self.rng.choice((value, *TOKEN_EDGES))
        return value

    def usage(self, usage: dict[str, Any]) -> None:
        for name in USAGE_KEYS:
            if name in usage:
                usage[name] = self.tokens(usage[name])


def _journal_lines(path: Path) -> Iterator[dict[str, Any]]:
    for raw in path.read_bytes().splitlines():
        yield json.loads(raw)


def _edit_journals(source: Path, target: Path, edges: _Edges, shift_to_edge: bool) -> None:
    """Copy the journals with usage and checkpoint tokens at their edges, and the timestamps
    shifted so that the largest is 2^53 - 1 (their order and gaps unchanged)."""
    files = sorted(source.rglob("*.jsonl"))
    latest = 0
    for path in files:
        for record in _journal_lines(path):
            latest = max(latest, *_timestamps(record))
    offset = MAX_EXACT_INTEGER - latest if shift_to_edge else 0
    for path in files:
        lines = []
        for record in _journal_lines(path):
            message = record.get("message")
            if record["kind"] == "message" and message["role"] == "assistant":
                edges.usage(message["usage"])
            if record["kind"] == "checkpoint":
                record["tokensBefore"] = edges.tokens(record["tokensBefore"])
                record["tokensAfter"] = edges.tokens(record["tokensAfter"])
            _shift(record, offset)
            lines.append(json.dumps(record, separators=(",", ":")))
        out = target / path.relative_to(source)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("\n".join(lines) + "\n")


def _timestamps(record: dict[str, Any]) -> list[int]:
    found = [record[k] for k in ("timestamp", "createdAt") if k in record]
    message = record.get("message")
    if isinstance(message, dict) and "timestamp" in message:
        found.append(message["timestamp"])
    return found or [0]


def _shift(record: dict[str, Any], offset: int) -> None:
    for k in ("timestamp", "createdAt"):
        if k in record:
            record[k] += offset
    message = record.get("message")
    if isinstance(message, dict) and "timestamp" in message:
        message["timestamp"] += offset


def _qualification(data: st.DataObject, directory: Path) -> Path | None:
    """None, or a current record (the installed pi-ai, the harness's digest) whose counts are
    at the edges of their range: 1 or 2^53 - 1 cases and leaves, no unintended difference or
    2^53 - 1 of them."""
    if not data.draw(st.booleans()):
        return None
    largest = MAX_EXACT_INTEGER
    unintended = data.draw(st.sampled_from((0, largest)))
    counts = dict.fromkeys(DifferenceCategory, 0)
    counts[DifferenceCategory.OTHER_LEAF] = unintended
    summary = ApiSummary(
        cases=data.draw(st.sampled_from((1, largest))),
        targeted_leaves=data.draw(st.sampled_from((1, largest))),
        unintended_differences=unintended,
        by_category=counts,
    )
    installed = installed_pi_ai()
    record = QualificationRecord(
        format="clearing-analysis/qualification",
        format_version=1,
        pi_ai=PiAi(package=installed.package, version=installed.version),
        source_digest=SourceDigest(algorithm="sha256", value=source_digest()),
        apis=dict.fromkeys(Api, summary),
    )
    path = directory / "qualification.json"
    path.write_bytes(encode_record(record))
    return path


def _reads_back(report: Path, page: Path) -> None:
    """`show` and `show --html` accept what was written: read strictly, every renderer."""
    saved = read_saved_report(ShowRequest(report=report, html=page))
    assert render_text(saved.report, details=False)
    assert render_text(saved.report, details=True)
    saved.write_page(page)
    assert page.read_bytes().startswith(b"<!DOCTYPE html>")


@pytest.mark.structure
@PROPERTY
@given(data=st.data())
def test_analyze_and_replay_at_the_edges(
    data: st.DataObject, corpus: Path, key: Path, tmp_path: Path
) -> None:
    """Routes, usage, checkpoint tokens, timestamps and qualification counts at the edges of
    their ranges: analyze completes, its signed report reads back through show, show --html
    and verify; replay's summary is strict JSON with every integer exact."""
    inputs, outputs = _fresh(tmp_path), _fresh(tmp_path)
    _edit_journals(corpus / "journals", inputs / "journals", _Edges(data), data.draw(st.booleans()))
    shutil.copy(corpus / "history.sqlite", inputs / "history.sqlite")
    shutil.copy(corpus / "agent-config.json", inputs / "agent-config.json")
    routes = _routes_file(json.loads((corpus / "routes.json").read_text()), data, inputs)
    rate = data.draw(st.sampled_from([0.0, 0.05, 1.0]))
    common = {
        "sidecar": inputs / "history.sqlite",
        "routes": routes,
        "qualification": _qualification(data, inputs),
        "agent_config": inputs / "agent-config.json",
        "workers": 1,
    }
    report = outputs / "report.json"
    job = analyze_job(
        AnalyzeRequest(
            journals=(inputs / "journals",),
            **common,
            retrieval_rate=parse_retrieval_rate(rate),
            out=report,
            sign_key=key,
        )
    )
    job.write(report)
    _reads_back(report, outputs / "report.html")
    verify_report(report, key.with_name("run.key.pub"))
    summary = replay_job(ReplayRequest(journals=(inputs / "journals",), **common)).data
    value = strictjson.loads(summary, max_depth=64)
    assert validate.numbers_in_range(value)


def _edit_sessions(source: Path, target: Path, edges: _Edges) -> None:
    """Copy the pi sessions with every request's usage and every compaction's tokensBefore at
    the edges of their ranges."""
    target.mkdir()
    for path in sorted(source.glob("*.jsonl")):
        lines = []
        for raw in path.read_bytes().splitlines():
            entry = json.loads(raw)
            message = entry.get("message")
            if entry.get("type") == "message" and message.get("role") == "assistant":
                edges.usage(message["usage"])
            if entry.get("type") == "compaction":
                entry["tokensBefore"] = edges.tokens(entry["tokensBefore"])
            lines.append(json.dumps(entry))
        (target / path.name).write_text("\n".join(lines) + "\n")


@pytest.mark.structure
@PROPERTY
@given(data=st.data())
def test_explore_at_the_edges(data: st.DataObject, tmp_path: Path) -> None:
    """The pi writer's sessions with usage and compaction tokens at the edges of their ranges,
    explored with a route at its edges: the report reads back through show and show --html."""
    inputs, outputs = _fresh(tmp_path), _fresh(tmp_path)
    _edit_sessions(WRITER_SESSIONS, inputs / "sessions", _Edges(data))
    routes = _routes_file([{**SEED_ROUTE, "api": WRITER_API}], data, inputs)
    report = outputs / "explore.json"
    explore_job(
        ExploreRequest(sessions=(inputs / "sessions",), routes=routes, out=report, workers=1)
    ).write(report)
    _reads_back(report, outputs / "explore.html")


# --- Found before the ranges were stated ----------------------------------------------------


def _seed_routes(tmp_path: Path, corpus: Path, **changes: Any) -> Path:
    routes = json.loads((corpus / "routes.json").read_text())
    routes[0] = {**routes[0], **changes}
    path = tmp_path / "routes.json"
    path.write_text(json.dumps(routes))
    return path


def _analyze_cli(corpus: Path, routes: Path, out: Path) -> Any:
    return run_cli(
        [
            "analyze",
            "--journals",
            corpus / "journals",
            "--sidecar",
            corpus / "history.sqlite",
            "--routes",
            routes,
            "--out",
            out,
        ]
    )


class TestFoundBeforeTheRanges:
    """Route values and usage sums that ended a run in ANALYZER_FAULT or wrote a report
    `show` refused: now a fixed refusal, exit 2, nothing written, or a counted skip."""

    def test_an_input_price_of_1e308_is_refused(self, corpus: Path, tmp_path: Path) -> None:
        """Was exit 1 (OverflowError rounding the list-price figures): ROUTES_VALUE_OUT_OF_RANGE."""
        seed = json.loads((corpus / "routes.json").read_text())[0]
        routes = _seed_routes(tmp_path, corpus, prices={**seed["prices"], "input": 1e308})
        out = tmp_path / "out" / "report.json"
        out.parent.mkdir()
        done = _analyze_cli(corpus, routes, out)
        line = fixed_line("INPUT_INVALID", "ROUTES_VALUE_OUT_OF_RANGE")
        assert (done.returncode, done.stdout, done.stderr) == (2, b"", line)
        assert not any(out.parent.iterdir())

    def test_a_summary_input_of_2_53_minus_1_is_refused(self, corpus: Path, tmp_path: Path) -> None:
        """Was accepted, and the report's doubled figure (2^54 - 2) made `show` refuse it as
        REPORT_NOT_A_REPORT: ROUTES_VALUE_OUT_OF_RANGE now, nothing written."""
        routes = _seed_routes(tmp_path, corpus, summaryInputTokens=MAX_EXACT_INTEGER)
        out = tmp_path / "out" / "report.json"
        out.parent.mkdir()
        done = _analyze_cli(corpus, routes, out)
        line = fixed_line("INPUT_INVALID", "ROUTES_VALUE_OUT_OF_RANGE")
        assert (done.returncode, done.stdout, done.stderr) == (2, b"", line)
        assert not any(out.parent.iterdir())

    def test_a_summary_input_at_its_limit_is_shown(self, corpus: Path, tmp_path: Path) -> None:
        """The largest accepted summaryInputTokens (10^9): the report, its doubled figure
        2·10^9 included, reads back through `show`."""
        routes = _seed_routes(tmp_path, corpus, summaryInputTokens=MAX_TOKENS)
        out = tmp_path / "out" / "report.json"
        out.parent.mkdir()
        assert _analyze_cli(corpus, routes, out).returncode == 0
        shown = run_cli(["show", out])
        assert (shown.returncode, shown.stderr) == (0, b"")

    def test_sessions_whose_usage_sums_pass_2_53_are_skipped(self, tmp_path: Path) -> None:
        """Two requests of 2^52 input tokens each (each within the old bound, their sum 2^53
        beyond every exact integer): the explore report was written and `show` refused it.
        Now each such session is INVALID VALUE_OUT_OF_RANGE (counted), the rest is explored,
        and the report reads back through `show`."""
        sessions = tmp_path / "sessions"
        shutil.copytree(WRITER_SESSIONS, sessions)
        edges = sorted(WRITER_SESSIONS.glob("*.jsonl"))[0]
        lines = []
        for raw in edges.read_bytes().splitlines():
            entry = json.loads(raw)
            if entry.get("type") == "message" and entry["message"].get("role") == "assistant":
                entry["message"]["usage"]["input"] = 2**52
            lines.append(json.dumps(entry))
        (sessions / "zz-huge-usage.jsonl").write_text("\n".join(lines) + "\n")
        routes = tmp_path / "routes.json"
        routes.write_text(json.dumps([{**SEED_ROUTE, "api": WRITER_API}]))
        out = tmp_path / "out" / "explore.json"
        out.parent.mkdir()
        done = run_cli(["explore", "--sessions", sessions, "--routes", routes, "--out", out])
        assert (done.returncode, done.stderr) == (0, b"")
        explored = json.loads(out.read_bytes())["sessions"]
        assert explored["skippedSessions"]["INVALID"] == 1
        assert explored["invalidSessionDetails"] == {"VALUE_OUT_OF_RANGE": 1}
        shown = run_cli(["show", out])
        assert (shown.returncode, shown.stderr) == (0, b"")


def test_a_report_beyond_exact_integers_is_never_written() -> None:
    """What no per-value range excludes, a sum over more history than a report states
    exactly, is refused before anything is written: the writer checks every report as `show`
    reads it (TOTALS_OUT_OF_RANGE)."""
    report = decode_report(GOLDEN_REPORT.read_bytes())
    api = next(iter(report.per_api))
    part = report.per_api[api]
    beyond = msgspec.structs.replace(
        part, pressure=msgspec.structs.replace(part.pressure, growth=MAX_EXACT_INTEGER + 1)
    )
    huge = msgspec.structs.replace(report, per_api={**report.per_api, api: beyond})
    with pytest.raises(InputInvalidError) as refused:
        encode_report(huge)
    assert refused.value.detail is InputInvalidDetail.TOTALS_OUT_OF_RANGE
    at_edge = msgspec.structs.replace(
        part, pressure=msgspec.structs.replace(part.pressure, growth=MAX_EXACT_INTEGER)
    )
    assert encode_report(msgspec.structs.replace(report, per_api={**report.per_api, api: at_edge}))
