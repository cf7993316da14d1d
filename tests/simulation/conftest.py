"""The generated corpora the simulation's corpus-wide tests share, made once per profile."""

from __future__ import annotations

import pytest

from clearing_analysis.eligibility import Assessment
from clearing_analysis.inputs.configs import Routes
from tests.simulation.corpora import assessed_corpus

# (profile, seed, conversations): every profile whose history the simulation must reproduce.
CASES = [("mixed", 5, 12), ("build", 13, 6), ("redacted", 9, 6)]


@pytest.fixture(scope="package", params=CASES, ids=[f"{p}-{s}" for p, s, _ in CASES])
def assessed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Assessment, Routes]:
    """One generated corpus, replayed and assessed as `analyze` does, with its routes."""
    profile, seed, conversations = request.param
    root = tmp_path_factory.mktemp(f"{profile}-{seed}")
    return assessed_corpus(root, profile, seed, conversations)
