"""Generated corpora assessed as `analyze` assesses them, for the simulation's tests."""

from __future__ import annotations

from pathlib import Path

from clearing_analysis.eligibility import Assessment, assess
from clearing_analysis.inputs.configs import (
    Routes,
    load_agent_config,
    load_app_allowlist,
    load_routes,
)
from clearing_analysis.inputs.paths import select_journals
from clearing_analysis.inputs.sidecar import open_sidecar
from clearing_analysis.replay import replay_journals
from clearing_analysis.synth import generate


def assessed_corpus(
    root: Path, profile: str, seed: int, conversations: int
) -> tuple[Assessment, Routes]:
    """Generate a corpus under `root` (synth), replay it with its sidecar and assess it with
    its own agent config and app allowlist; the assessment and the corpus's routes."""
    corpus = root / "corpus"
    generate(corpus, seed, conversations=conversations, profile=profile)
    routes = load_routes(corpus / "routes.json")
    paths = [j.path for j in select_journals([corpus / "journals"]).journals]
    with open_sidecar(corpus / "history.sqlite") as view:
        replayed = replay_journals(paths, routes, view)
    assessment = assess(
        replayed,
        routes,
        load_agent_config(corpus / "agent-config.json"),
        load_app_allowlist(corpus / "app-allowlist.json"),
    )
    return assessment, routes
