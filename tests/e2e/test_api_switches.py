"""A history that switches API twice: every per-API figure from one assignment (docs/model.md,
"Per-API cohorts").

A result belongs to the API cohort of the counted boundary of the turn that produced it. After
a switch, the other cohort's results still sit in the context (and in E) but are no occurrence,
candidate or clearing of the new API. Before this rule, the per-API slice of an API that came
after a switch counted the earlier API's results as its occurrences while its tool-results
table, built from its own turns, stayed empty.

The session, by hand (routes for both APIs; turn t's boundary sees the results placed before
it, never compacted here):

| turn | API                | calls        | results in context at its boundary     |
|------|--------------------|--------------|----------------------------------------|
| t0   | anthropic-messages | read, read   | -                                      |
| t1   | anthropic-messages | read         | R1, R2 (anthropic)                     |
| t2   | openai-completions | -            | R1, R2, R3 (anthropic)                 |
| t3   | openai-completions | ls           | R1, R2, R3 (anthropic)                 |
| t4   | anthropic-messages | -            | R1, R2, R3 (anthropic), R4 (openai)    |
| t5   | anthropic-messages | -            | R1, R2, R3 (anthropic), R4 (openai)    |

So anthropic-messages: 4 boundaries, 6 requests, 3 results (read), 0 + 2 + 3 + 3 = 8
occurrences; openai-completions: 2 boundaries, 3 requests, 1 result (ls), 0 occurrences.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from clearing_analysis.inputs.requests import ExploreRequest
from clearing_analysis.pipeline.jobs import explore_job
from tests._seed_route import SEED_ROUTE
from tests.pisession.builder import Session

ANTHROPIC, COMPLETIONS = "anthropic-messages", "openai-completions"
PLAN = [
    (ANTHROPIC, ["read", "read"]),
    (ANTHROPIC, ["read"]),
    (COMPLETIONS, []),
    (COMPLETIONS, ["ls"]),
    (ANTHROPIC, []),
    (ANTHROPIC, []),
]


def _turn(session: Session, api: str, tools: list[str]) -> None:
    session.user("next step")
    if tools:
        for call_id, name in zip(session.assistant(tools, api=api), tools, strict=True):
            session.result(call_id, name)
    session.assistant(api=api)


@pytest.fixture
def explored(tmp_path: Path) -> dict[str, Any]:
    """The explore report of the session above."""
    session = Session()
    for api, tools in PLAN:
        _turn(session, api, tools)
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    session.write(sessions / "switches.jsonl")
    routes = tmp_path / "routes.json"
    routes.write_text(json.dumps([{**SEED_ROUTE, "api": api} for api in (ANTHROPIC, COMPLETIONS)]))
    report: dict[str, Any] = json.loads(
        explore_job(ExploreRequest(sessions=(sessions,), routes=routes)).data
    )
    return report


def _results(part: dict[str, Any]) -> dict[str, int]:
    return {row["toolClass"]: row["results"] for row in part["toolResults"] if row["results"]}


def test_each_api_counts_its_own_cohort(explored: dict[str, Any]) -> None:
    """Boundaries, requests, results and occurrences per API are the hand counts above."""
    anthropic, completions = explored["perApi"][ANTHROPIC], explored["perApi"][COMPLETIONS]
    assert (anthropic["promptTurns"], anthropic["requests"]["requests"]) == (4, 6)
    assert (completions["promptTurns"], completions["requests"]["requests"]) == (2, 3)
    assert _results(anthropic) == {"READ_ONLY_BUILTIN": 3}
    assert _results(completions) == {"READ_ONLY_BUILTIN": 1}
    assert anthropic["eligibility"]["occurrences"] == 8
    assert completions["eligibility"]["occurrences"] == 0


def test_no_api_shows_occurrences_of_results_it_does_not_list(
    explored: dict[str, Any],
) -> None:
    """An occurrence is one of the API's own results at one of its boundaries, so there are at
    most (results x boundaries) of them; the all-APIs table adds up the APIs' results."""
    for part in explored["perApi"].values():
        listed = sum(_results(part).values())
        assert part["eligibility"]["occurrences"] <= listed * part["promptTurns"]
    every = {row["toolClass"]: row["results"] for row in explored["toolResultsAllApis"]}
    assert every["READ_ONLY_BUILTIN"] == 4
