"""Shared end-to-end fixtures: one canary input set per test session (read-only for tests)."""

from __future__ import annotations

import pytest

from tests.e2e._canary_inputs import CanaryInputs, build_canary_inputs


@pytest.fixture(scope="session")
def canary_inputs(tmp_path_factory: pytest.TempPathFactory) -> CanaryInputs:
    """The canary input set (tests/e2e/_canary_inputs.py); tests must not modify it."""
    return build_canary_inputs(tmp_path_factory.mktemp("e2e-canary"))
