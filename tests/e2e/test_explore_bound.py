"""The upper bound is never below what `analyze` admits on the same history (docs/explore.md,
"Relation to analyze"): synthetic corpora of every profile, over several seeds, are analyzed as
native journals with their sidecar, exported to pi-session form (`synth.pi_export`) and
explored; per API, explore's admitted net tokens are at least analyze's, and the strict bound
(the independent per-boundary sum) is at least both.

The step-by-step simulation is not monotone in general, so this is a tested property over the
corpora, not a theorem (docs/explore.md says so)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from clearing_analysis.inputs.requests import AnalyzeRequest, ExploreRequest
from clearing_analysis.pipeline.jobs import analyze_job, explore_job
from clearing_analysis.synth import PROFILES, generate
from clearing_analysis.synth.pi_export import export_sessions
from tests.synth.corpora import SMALL_CONVERSATIONS

SEEDS = (3, 29)
# Profiles whose small corpora reach pressure at every seed (the others may clear nothing).
CLEARING = {"build", "mixed", "read-then-edit"}


def _reports(root: Path) -> tuple[dict[str, Any], dict[str, Any], int]:
    analyzed = analyze_job(
        AnalyzeRequest(
            journals=(root / "journals",),
            sidecar=root / "history.sqlite",
            routes=root / "routes.json",
            agent_config=root / "agent-config.json",
            app_allowlist=root / "app-allowlist.json",
            workers=1,
        ),
        containerenv=root / "no-containerenv",
    )
    sessions = root.parent / "sessions"
    exported = export_sessions(sorted((root / "journals").glob("*.jsonl")), sessions)
    explored = explore_job(
        ExploreRequest(sessions=(sessions,), routes=root / "routes.json", workers=1)
    )
    return json.loads(analyzed.data), json.loads(explored.data), exported


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_upper_bound_is_never_below_what_analyze_admits(
    profile: str, seed: int, tmp_path: Path
) -> None:
    """Per API: analyze's admitted net tokens <= explore's <= the independent sum."""
    root = tmp_path / "corpus"
    generate(root, seed, conversations=SMALL_CONVERSATIONS[profile], profile=profile)
    analyzed, explored, exported = _reports(root)
    assert exported > 0
    admitting = compared = 0
    for api, part in analyzed["perApi"].items():
        compared += explored["perApi"][api]["requests"]["requests"] > 0
        lower = part["simulation"]["admittedNetTokens"]
        upper = explored["perApi"][api]["simulation"]
        assert lower <= upper["admittedNetTokens"], (api, lower, upper["admittedNetTokens"])
        assert upper["admittedNetTokens"] <= upper["upperBoundNetTokens"], api
        assert lower <= upper["upperBoundNetTokens"], api
        admitting += upper["admittedNetTokens"] > 0
    assert compared > 0  # not vacuous: the same requests were read both ways
    if profile in CLEARING:
        assert admitting > 0  # and the profiles made to clear do clear
