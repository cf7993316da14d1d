"""Bound.UPPER eligibility on pi sessions (docs/explore.md, "The upper bound"): a result is
eligible when it is plain text, successful, not an error, from a tool the reviewed pi-family
table names and classes read-only (policy/tools.json: instruction, history, effectful and
unknown names are excluded), and outside the protection windows; identity and retention are not
required. Each exclusion is shown by changing one result of an otherwise eligible history and
watching exactly its occurrences move from eligible to the expected reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from clearing_analysis.eligibility import Bound, ExclusionReason
from clearing_analysis.eligibility.classify import classify_result
from clearing_analysis.eligibility.identity import IdentityProofs
from clearing_analysis.inputs.configs import load_routes
from clearing_analysis.inputs.requests import ExploreRequest
from clearing_analysis.pipeline.jobs import explore_job
from clearing_analysis.replay.model import ReplayedJournal
from clearing_analysis.replay.pi_replay import replay_pi_session
from tests._seed_route import SEED_ROUTE
from tests._upper_bound import excluded_by_reason, upper_bound_eligible
from tests.pisession.builder import Session

API = SEED_ROUTE["api"]


def _history(candidate: dict[str, Any], filler_calls: int = 4) -> Session:
    """Turn 1 produces the candidate result; seven filler turns of `filler_calls` reads each
    follow, so the candidate leaves the protection windows at the later boundaries."""
    session = Session()
    session.user("first")
    name = candidate.get("name", "read")
    (call,) = session.assistant([name])
    session.result(
        call,
        name,
        content=candidate.get("content"),
        error=candidate.get("error", False),
    )
    session.assistant()
    for index in range(7):
        session.turn(["read"] * filler_calls, text=f"filler {index}")
    return session


def _eligibility(tmp_path: Path, session: Session, name: str = "s") -> dict[str, Any]:
    root = tmp_path / name
    root.mkdir()
    session.write(root / "session.jsonl")
    routes = tmp_path / f"{name}-routes.json"
    routes.write_text(json.dumps([SEED_ROUTE]))
    done = explore_job(ExploreRequest(sessions=(root,), routes=routes, workers=1))
    report: dict[str, Any] = json.loads(done.data)
    eligibility: dict[str, Any] = report["perApi"][API]["eligibility"]
    return eligibility


@pytest.fixture
def base(tmp_path: Path) -> dict[str, Any]:
    """The history with an eligible plain-text read as the candidate."""
    return _eligibility(tmp_path, _history({}), "base")


@pytest.mark.parametrize(
    ("candidate", "reason"),
    [
        ({"content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}]}, "IMAGE_RESULT"),
        (
            {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
            "OPAQUE_OR_MIXED_BLOCKS",
        ),
        ({"error": True}, "ERROR_RESULT"),
        ({"name": "bash"}, "EFFECTFUL_BUILTIN"),
        ({"name": "edit"}, "EFFECTFUL_BUILTIN"),
        ({"name": "write"}, "EFFECTFUL_BUILTIN"),
        ({"name": "exec"}, "EFFECTFUL_BUILTIN"),  # OpenClaw's shell
        ({"name": "process"}, "EFFECTFUL_BUILTIN"),  # OpenClaw's background shell sessions
        ({"name": "todo_write"}, "INSTRUCTION_BUILTIN"),  # oh-my-pi
        ({"name": "sessions_history"}, "HISTORY_BUILTIN"),  # OpenClaw
        ({"name": "zz_extension_tool"}, "UNKNOWN_TOOL"),  # in no reviewed table
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_each_fixed_exclusion_removes_exactly_the_candidate(
    tmp_path: Path, base: dict[str, Any], candidate: dict[str, Any], reason: str
) -> None:
    """The candidate's unprotected occurrences leave the upper bound for `reason`; nothing
    else changes."""
    changed = _eligibility(tmp_path, _history(candidate), "changed")
    moved = upper_bound_eligible(base) - upper_bound_eligible(changed)
    assert moved > 0
    before, after = excluded_by_reason(base), excluded_by_reason(changed)
    assert after[reason] - before[reason] >= moved
    assert changed["occurrences"] == base["occurrences"]
    others = {k for k in after if k != reason and not k.startswith("PROTECTED")}
    assert {k: after[k] for k in others} == {k: before[k] for k in others}


def test_prompt_turn_protection_holds_the_three_previous_turns(base: dict[str, Any]) -> None:
    """Every result is protected at the boundaries of its own and the next three prompt
    turns: PROTECTED_RECENT_PROMPT_TURN counts them, and identity is never asked for."""
    excluded = excluded_by_reason(base)
    assert excluded["PROTECTED_RECENT_PROMPT_TURN"] > 0
    assert upper_bound_eligible(base) > 0
    assert not {k for k, v in excluded.items() if v} - {
        "PROTECTED_RECENT_PROMPT_TURN",
        "PROTECTED_RECENT_TOOL_START",
        "PROTECTED_CURRENT_TURN",
    }


def test_tool_start_protection_holds_the_ten_latest_starts(
    tmp_path: Path, base: dict[str, Any]
) -> None:
    """With one call per filler turn the candidate stays among the ten latest tool starts
    longer: PROTECTED_RECENT_TOOL_START rises and fewer occurrences are eligible."""
    sparse = _eligibility(tmp_path, _history({}, filler_calls=1), "sparse")
    assert excluded_by_reason(sparse)["PROTECTED_RECENT_TOOL_START"] > 0
    per_result_base = upper_bound_eligible(base) / base["occurrences"]
    assert upper_bound_eligible(sparse) / sparse["occurrences"] < per_result_base


def test_upper_bound_waives_identity_and_retention_only(tmp_path: Path) -> None:
    """On the same replayed results LOWER demands identity and retention (a shortfall) and
    UPPER does not; the fixed reasons are the same for both, including a failed call
    (NOT_SUCCESSFUL), an unknown outcome (UNKNOWN_OUTCOME, which only imported Codex results
    have) and an incomplete run, which pi sessions never record but the rules keep."""
    path = _history({}).write(tmp_path / "one.jsonl")
    routes = tmp_path / "routes.json"
    routes.write_text(json.dumps([SEED_ROUTE]))
    replayed = replay_pi_session(path, load_routes(routes))
    assert isinstance(replayed, ReplayedJournal)
    proofs = IdentityProofs.for_snapshot(None, None, [])
    result = replayed.results[0]
    assert classify_result(result, proofs, Bound.UPPER).shortfall is None
    assert classify_result(result, proofs, Bound.UPPER).fixed is None
    assert classify_result(result, proofs, Bound.LOWER).shortfall is not None
    for change, reason in (
        ({"call_status": "error"}, ExclusionReason.NOT_SUCCESSFUL),
        ({"call_status": None}, ExclusionReason.NOT_SUCCESSFUL),
        ({"call_status": "unknown"}, ExclusionReason.UNKNOWN_OUTCOME),
        ({"run_completed": False}, ExclusionReason.RUN_NOT_COMPLETED),
        ({"returned_and_placed": False}, ExclusionReason.NOT_RETURNED_AND_PLACED),
    ):
        failed = msgspec.structs.replace(result, **change)
        for bound in Bound:
            assert classify_result(failed, proofs, bound).fixed is reason, (change, bound)
