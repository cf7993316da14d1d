"""Replaying a synthetic corpus gives the counts the generator planted (issue 4 acceptance).

The generator writes DIR/ground-truth.json for its tests; the analyzer never reads it. Here
the replay summary of each profile's corpus must equal the manifest: replayed and skipped
journals, skipped boundaries, and per API the boundaries, requests, tool results, retention,
redacted JSON web envelopes and structuredScanLosses.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from clearing_analysis.eligibility import (
    EligibilityClass,
    ToolClass,
    assess,
    replay_summary,
    tool_class,
)
from clearing_analysis.inputs.configs import load_agent_config, load_app_allowlist, load_routes
from clearing_analysis.inputs.paths import select_journals
from clearing_analysis.inputs.requests import ReplayRequest
from clearing_analysis.inputs.sidecar import open_sidecar
from clearing_analysis.pipeline.jobs import replay_job
from clearing_analysis.replay import replay_journals
from clearing_analysis.synth import PROFILES, generate
from tests.synth.corpora import SMALL_CONVERSATIONS

RETENTION_KEYS = ("proven", "matched", "redacted", "truncated", "unmatched")
ENVELOPE_KEYS = ("redactedWebEnvelopes", "structuredScanLosses")


def _summary(corpus: Path) -> dict[str, Any]:
    routes = load_routes(corpus / "routes.json")
    paths = [j.path for j in select_journals([corpus / "journals"]).journals]
    with open_sidecar(corpus / "history.sqlite") as view:
        result = replay_journals(paths, routes, view)
    return replay_summary(
        assess(
            result,
            routes,
            load_agent_config(corpus / "agent-config.json"),
            load_app_allowlist(corpus / "app-allowlist.json"),
        )
    )


def _builtin_lower_bound(corpus: Path) -> int:
    """Lower-bound occurrences of read-only built-in results in the corpus."""
    routes = load_routes(corpus / "routes.json")
    paths = [j.path for j in select_journals([corpus / "journals"]).journals]
    with open_sidecar(corpus / "history.sqlite") as view:
        result = replay_journals(paths, routes, view)
    assessment = assess(result, routes, load_agent_config(corpus / "agent-config.json"))
    return sum(
        1
        for boundary in assessment.boundaries
        for o in assessment.occurrences(boundary)
        if o.eligibility is EligibilityClass.LOWER_BOUND
        and tool_class(o.result.tool_name) is ToolClass.READ_ONLY_BUILTIN
    )


def _expected_view(manifest: dict[str, Any]) -> dict[str, Any]:
    return {
        "replayed": manifest["replayedJournals"],
        "skippedJournals": manifest["skippedJournals"],
        "skippedBoundaries": manifest["skippedBoundaries"],
        "perApi": {
            api: {
                "boundaries": v["boundaries"],
                "requests": v["requests"],
                "toolResults": v["toolResults"],
                "retention": {k: v["retention"][k] for k in RETENTION_KEYS},
                **{k: v[k] for k in ENVELOPE_KEYS},
            }
            for api, v in manifest["perApi"].items()
        },
    }


def _actual_view(summary: dict[str, Any], apis: list[str]) -> dict[str, Any]:
    # The generator plants no OUTSIDE_PERIOD skip: its corpora are replayed without a period.
    skipped = dict(summary["skippedBoundaries"])
    assert skipped.pop("OUTSIDE_PERIOD") == 0
    return {
        "replayed": summary["journalsReplayed"],
        "skippedJournals": summary["skippedJournals"],
        "skippedBoundaries": skipped,
        "perApi": {
            api: {
                "boundaries": summary["perApi"][api]["boundaries"],
                "requests": summary["perApi"][api]["requests"],
                "toolResults": summary["perApi"][api]["toolResults"],
                "retention": {k: summary["perApi"][api]["retention"][k] for k in RETENTION_KEYS},
                **{k: summary["perApi"][api][k] for k in ENVELOPE_KEYS},
            }
            for api in apis
        },
    }


@pytest.mark.slow
@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_replay_counts_equal_manifest(tmp_path: Path, profile: str) -> None:
    """Every count the generator planted is what replay finds, for every profile's small corpus
    (journal and boundary skips, per API counts, retention, redacted web envelopes and
    structuredScanLosses, retention defects)."""
    corpus = tmp_path / "corpus"
    generate(corpus, seed=11, conversations=SMALL_CONVERSATIONS[profile], profile=profile)
    manifest = json.loads((corpus / "ground-truth.json").read_text())
    summary = _summary(corpus)
    assert _actual_view(summary, list(manifest["perApi"])) == _expected_view(manifest)
    defects = manifest["retentionDefects"]
    totals = {
        key: sum(a["retention"]["defects"][key] for a in summary["perApi"].values())
        for key in defects
    }
    assert totals == defects


def test_units_and_workers_agree_with_the_whole_corpus(tmp_path: Path) -> None:
    """The replay summary of a generated corpus (forks, duplicates, resumed copies) is the same
    replayed as one piece and split into units, with one worker and with two."""
    corpus = tmp_path / "corpus"
    generate(corpus, seed=5, conversations=6, profile="mixed")
    whole = _summary(corpus)
    for workers in (1, 2):
        job = replay_job(
            ReplayRequest(
                journals=(corpus / "journals",),
                sidecar=corpus / "history.sqlite",
                routes=corpus / "routes.json",
                agent_config=corpus / "agent-config.json",
                app_allowlist=corpus / "app-allowlist.json",
                workers=workers,
            )
        )
        summary = dict(job.summary)
        del summary["qualification"]
        assert summary == whole


@pytest.mark.parametrize("profile", ["build", "warm", "redacted"])
def test_period_attestation_proves_builtins_in_generated_corpora(
    tmp_path: Path, profile: str
) -> None:
    """A period-attested corpus keeps one toolset fingerprint, so built-ins are proven."""
    corpus = tmp_path / "corpus"
    generate(corpus, seed=11, conversations=4, profile=profile)
    assert isinstance(json.loads((corpus / "agent-config.json").read_text()), dict)
    assert _builtin_lower_bound(corpus) > 0


def test_per_run_proofs_prove_builtins_in_a_generated_corpus(tmp_path: Path) -> None:
    """The mixed profile's per-run proofs, keyed by conversation and run, prove built-ins."""
    corpus = tmp_path / "corpus"
    generate(corpus, seed=11, conversations=4, profile="mixed")
    assert isinstance(json.loads((corpus / "agent-config.json").read_text()), list)
    assert _builtin_lower_bound(corpus) > 0
