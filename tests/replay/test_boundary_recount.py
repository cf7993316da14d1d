"""Replay's per-boundary facts equal an independent recount's, boundary by boundary (R-SIM-9).

tests/synth/recount.py derives E, the request time, the gap and the completed prompt runs
before each counted boundary from docs/replay.md's definitions, without replay's code. Here,
for every profile's small corpus, replay must agree with it on every counted boundary (keyed
by journal file and host turn id), on which boundaries are counted at all, on the skip and
INVALID detail counts, and per API on redacted web envelopes and structuredScanLosses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from clearing_analysis.eligibility import assess, replay_summary
from clearing_analysis.inputs.configs import load_agent_config, load_app_allowlist, load_routes
from clearing_analysis.inputs.paths import select_journals
from clearing_analysis.inputs.sidecar import open_sidecar
from clearing_analysis.replay.merge import merge, replay_outcomes
from clearing_analysis.synth import PROFILES
from tests.synth.corpora import SMALL_CONVERSATIONS, make_corpus
from tests.synth.recount import Recount, recount

Facts = tuple[int, int | None, int, int]  # E, gap, request time, completed prompt runs before


def _replayed(corpus: Path) -> tuple[dict[tuple[str, str], Facts], dict[str, Any]]:
    """Replay's facts of every counted boundary, keyed by (file name, host turn id), and the
    replay summary. The assessed boundaries must be the same ones, in merge order."""
    routes = load_routes(corpus / "routes.json")
    paths = [j.path for j in select_journals([corpus / "journals"]).journals]
    with open_sidecar(corpus / "history.sqlite") as view:
        outcomes = list(replay_outcomes(paths, routes, view))
    result = merge(outcomes)
    file_of = {id(outcome): path.name for outcome, path in zip(outcomes, paths, strict=True)}
    counted: list[tuple[tuple[str, str], Facts]] = []
    for merged in result.journals:
        name = file_of[id(merged.journal)]
        for boundary, skip, before in zip(
            merged.journal.boundaries,
            merged.boundary_skips,
            merged.completed_prompt_runs_before,
            strict=True,
        ):
            if skip is None:
                facts = (boundary.estimate, boundary.gap_ms, boundary.request_ms, before)
                counted.append(((name, boundary.host_turn_id), facts))
    assessment = assess(
        result,
        routes,
        load_agent_config(corpus / "agent-config.json"),
        load_app_allowlist(corpus / "app-allowlist.json"),
    )
    # What the simulation stage receives: the same boundaries, E and batch counts, in order.
    assessed = [
        (b.host_turn_id, b.estimate, b.completed_prompt_runs_before) for b in assessment.boundaries
    ]
    assert assessed == [(key[1], facts[0], facts[3]) for key, facts in counted]
    facts_by_key = dict(counted)
    assert len(facts_by_key) == len(counted)  # a boundary per (file, host turn)
    return facts_by_key, replay_summary(assessment)


def _recounted(seen: Recount) -> dict[tuple[str, str], Facts]:
    facts = {
        (b.journal, b.host_turn_id): (
            b.estimate,
            b.gap_ms,
            b.request_ms,
            b.completed_prompt_runs_before,
        )
        for b in seen.boundaries
    }
    assert len(facts) == len(seen.boundaries)
    return facts


@pytest.mark.slow
@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_every_counted_boundary_matches_the_recount(
    tmp_path_factory: pytest.TempPathFactory, profile: str
) -> None:
    """For each profile's small corpus, replay and the recount count the same boundaries and
    agree on each one's E, gap, request time and completed prompt runs before it; they agree
    on skipped journals, INVALID details, skipped boundaries and per API on redacted JSON web
    envelopes and structuredScanLosses."""
    corpus = make_corpus(tmp_path_factory, profile, SMALL_CONVERSATIONS[profile])
    replayed, summary = _replayed(corpus)
    seen = recount(corpus)
    recounted = _recounted(seen)
    assert len(replayed) > 30
    assert replayed.keys() == recounted.keys()
    assert replayed == recounted
    assert summary["skippedJournals"] == {
        k: seen.skipped_journals.get(k, 0) for k in summary["skippedJournals"]
    }
    assert summary["invalidJournalDetails"] == dict(sorted(seen.invalid_details.items()))
    assert summary["skippedBoundaries"] == {
        k: seen.skipped_boundaries.get(k, 0) for k in summary["skippedBoundaries"]
    }
    assert summary["boundariesWithoutRoute"] == {
        k: seen.boundaries_without_route.get(k, 0) for k in summary["boundariesWithoutRoute"]
    }
    for api, counts in summary["perApi"].items():
        for key in ("redactedWebEnvelopes", "structuredScanLosses"):
            assert counts[key] == seen.per_api[api][key], (api, key)
