"""The small synthetic corpora the synth and replay tests share."""

from __future__ import annotations

from pathlib import Path

import pytest

from clearing_analysis.synth import PROFILES, generate

SEED = 11
# Per profile, the conversations a small corpus needs: `mixed` interleaves each of its
# guaranteed plans with a normal conversation, so it needs twice as many as it has plans.
SMALL_CONVERSATIONS: dict[str, int] = {
    name: 2 * len(profile.guaranteed_plans) or 4 for name, profile in PROFILES.items()
}


def make_corpus(
    tmp_path_factory: pytest.TempPathFactory, profile: str, conversations: int, seed: int = SEED
) -> Path:
    """Generate a corpus of `profile` into a fresh directory and return it."""
    out = tmp_path_factory.mktemp(f"synth-{profile}") / "corpus"
    generate(out, seed, conversations=conversations, profile=profile)
    return out


def corpus_options(corpus: Path) -> list[str]:
    """The options every command reading a corpus takes: its journals, sidecar and routes."""
    return [
        "--journals",
        str(corpus / "journals"),
        "--sidecar",
        str(corpus / "history.sqlite"),
        "--routes",
        str(corpus / "routes.json"),
    ]
