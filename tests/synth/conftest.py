"""Small synthetic corpora shared by the synth tests (generated once per session)."""

from __future__ import annotations

from pathlib import Path

import pytest

from clearing_analysis.synth import generate


def make_corpus(
    tmp_path_factory: pytest.TempPathFactory, profile: str, conversations: int, seed: int = 11
) -> Path:
    """Generate a corpus of `profile` into a fresh directory and return it."""
    out = tmp_path_factory.mktemp(f"synth-{profile}") / "corpus"
    generate(out, seed, conversations=conversations, profile=profile)
    return out


@pytest.fixture(scope="session")
def mixed_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default profile with every guaranteed skip plan (22 conversations are needed)."""
    return make_corpus(tmp_path_factory, "mixed", 24)
