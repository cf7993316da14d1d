"""Small synthetic corpora shared by the synth tests (generated once per session)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.synth.corpora import SMALL_CONVERSATIONS, make_corpus


@pytest.fixture(scope="session")
def mixed_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default profile with every guaranteed plan (two conversations per plan)."""
    return make_corpus(tmp_path_factory, "mixed", SMALL_CONVERSATIONS["mixed"])
