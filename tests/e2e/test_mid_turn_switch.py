"""A turn that switches API between its requests: each request, and each tool result, belongs
to the API its own message names (R-CM-8, docs/model.md "Per-API cohorts").

Real OpenClaw sessions fall back to another provider inside a turn: the first provider's
requests fail with no usage, the next one does the work. Counted by the turn's first request,
every later request and result of the turn went to the failing API (on one real session
openai-completions read 75 requests with 17 fallbacks, 22.7%, where its own messages hold 59
with 1). The same history, by hand, as a pi session (`explore`) and as a native journal (the
`analyze` pipeline), routes for anthropic-messages and openai-completions only:

| turn | requests, in order                                                         | results |
|------|----------------------------------------------------------------------------|---------|
| t0   | anthropic (error, no usage) x2, completions (read), completions, responses | R0      |
| t1   | completions (read), completions                                            | R1      |

So anthropic-messages: 1 boundary (t0's request is its), 2 requests, 2 fallbacks, no result;
openai-completions: 1 boundary (t1), 4 requests, no fallback, R0 and R1 (asked for by its own
requests), and R0 is an occurrence at t1 (one of its own results in context); the
openai-responses request has no route: it is counted apart, in no cohort. By the turn's first
request instead, anthropic would hold 5 requests with 2 fallbacks and R0, completions 2
requests, R1 and no occurrence.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from clearing_analysis.eligibility import assess
from clearing_analysis.eligibility.totals import combine, totals_of
from clearing_analysis.inputs.configs import Api, parse_agent_config
from clearing_analysis.inputs.requests import ExploreRequest
from clearing_analysis.inputs.sidecar import open_sidecar
from clearing_analysis.pipeline.jobs import explore_job
from clearing_analysis.replay import replay_journals
from clearing_analysis.simulation import unit
from tests._seed_route import SEED_ROUTE
from tests.pisession.builder import Session
from tests.replay.builder import JournalBuilder, SidecarBuilder, routes, usage

ANTHROPIC, COMPLETIONS, RESPONSES = "anthropic-messages", "openai-completions", "openai-responses"
NO_USAGE = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}


def _session() -> Session:
    session = Session()
    session.user("t0")
    session.assistant(api=ANTHROPIC, stop="error", usage_=NO_USAGE)
    session.assistant(api=ANTHROPIC, stop="error", usage_=NO_USAGE)
    (call,) = session.assistant(["read"], api=COMPLETIONS)
    session.result(call, "read")
    session.assistant(api=COMPLETIONS)
    session.assistant(api=RESPONSES)
    session.user("t1")
    (call,) = session.assistant(["read"], api=COMPLETIONS)
    session.result(call, "read")
    session.assistant(api=COMPLETIONS)
    return session


def _explored(tmp_path: Path) -> dict[str, Any]:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    _session().write(sessions / "switch.jsonl")
    route_file = tmp_path / "routes.json"
    route_file.write_text(json.dumps([{**SEED_ROUTE, "api": a} for a in (ANTHROPIC, COMPLETIONS)]))
    report: dict[str, Any] = json.loads(
        explore_job(ExploreRequest(sessions=(sessions,), routes=route_file)).data
    )
    return report


def test_explore_counts_each_request_and_result_on_its_own_api(tmp_path: Path) -> None:
    """Requests, fallbacks, boundaries, results and occurrences per API: the table above."""
    report = _explored(tmp_path)
    anthropic, completions = report["perApi"][ANTHROPIC], report["perApi"][COMPLETIONS]
    assert anthropic["requests"] == {"requests": 2, "fallback": 2, "fallbackShare": 1.0}
    assert completions["requests"] == {"requests": 4, "fallback": 0, "fallbackShare": 0.0}
    assert (anthropic["promptTurns"], completions["promptTurns"]) == (1, 1)
    assert sum(row["results"] for row in anthropic["toolResults"]) == 0
    assert sum(row["results"] for row in completions["toolResults"]) == 2
    assert completions["eligibility"]["occurrences"] == 1
    assert anthropic["eligibility"]["occurrences"] == 0
    assert report["sessions"]["requestsWithoutRoute"] == 1
    assert completions["usage"]["observedRequests"] == 4


def _journal(tmp_path: Path) -> tuple[Path, Path]:
    """The same history as a native journal, its results retained in a sidecar."""
    b = JournalBuilder()
    b.turn("t0")
    b.run("r0", "t0")
    b.assistant("r0", "", api=ANTHROPIC, stop="error", use=NO_USAGE)
    b.assistant("r0", "", api=ANTHROPIC, stop="error", use=NO_USAGE)
    b.assistant("r0", "", api=COMPLETIONS, calls=[("c0", "read", {})], use=usage(100, 100))
    b.call_start("r0", "c0", "read", {})
    b.call_end("r0", "c0")
    b.result("r0", "c0", "read", text="x" * 400)
    b.assistant("r0", "done", api=COMPLETIONS, use=usage(200, 200))
    b.assistant("r0", "done", api=RESPONSES, use=usage(200, 200))
    b.run_end("r0")
    b.turn("t1")
    b.run("r1", "t1")
    b.assistant("r1", "", api=COMPLETIONS, calls=[("c1", "read", {})], use=usage(300, 300))
    b.call_start("r1", "c1", "read", {})
    b.call_end("r1", "c1")
    b.result("r1", "c1", "read", text="y" * 400)
    b.assistant("r1", "done", api=COMPLETIONS, use=usage(400, 400))
    b.run_end("r1")
    b.close()
    journals = tmp_path / "journals"
    journals.mkdir()
    sidecar = SidecarBuilder(tmp_path / "history.sqlite", capture_enabled=("p1",))
    sidecar.retain(("p1", "t0", "r0", "c0"), "x" * 400)
    sidecar.retain(("p1", "t1", "r1", "c1"), "y" * 400)
    return b.write(journals), sidecar.finish()


def test_native_journal_counts_each_request_and_result_on_its_own_api(tmp_path: Path) -> None:
    """The analyze pipeline's replay totals and request sums (what USAGE_FALLBACK_EXCESSIVE
    and the cost blends read) follow each message's own API, as explore's do."""
    journal, sidecar_path = _journal(tmp_path)
    routed = routes(ANTHROPIC, COMPLETIONS)
    with open_sidecar(sidecar_path) as view:
        replayed = replay_journals([journal], routed, view)
    assessment = assess(
        replayed, routed, parse_agent_config({"builtins": ["read"], "mcpTools": "none"})
    )
    walked = unit.walk(assessment, routed)
    totals = combine([totals_of(assessment, walked.occurrences)], sorted(routed.by_api))
    anthropic, completions = Api(ANTHROPIC), Api(COMPLETIONS)
    assert (totals.per_api[anthropic].requests, totals.per_api[completions].requests) == (2, 4)
    assert (totals.per_api[anthropic].tool_results, totals.per_api[completions].tool_results) == (
        0,
        2,
    )
    assert totals.requests_without_route == 1
    assert totals.per_api[completions].occurrences.total == 1
    sums = unit.summarize(walked).per_api
    assert (sums[anthropic].requests.requests, sums[anthropic].requests.fallback) == (2, 2)
    assert (sums[completions].requests.requests, sums[completions].requests.fallback) == (4, 0)
    assert sums[completions].requests.input == 100 + 200 + 300 + 400
    assert sums[anthropic].categories[next(iter(sums[anthropic].categories))].results == 0
    assert sum(c.results for c in sums[completions].categories.values()) == 2
