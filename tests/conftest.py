"""Shared test helpers: one faithful qualification run of the installed pi-ai builders."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

from clearing_analysis.qualify.harness import harness_dir
from clearing_analysis.qualify.record import QualificationRecord
from clearing_analysis.qualify.runner import qualify

PI_AI = "@mariozechner/pi-ai"


@pytest.fixture(scope="session")
def real_record() -> QualificationRecord:
    """One faithful qualification run of the installed builders (shared by the session)."""
    assert (harness_dir() / "node_modules" / PI_AI / "package.json").is_file(), (
        "run `make setup` first: qualify/node_modules is missing"
    )
    return qualify()


# Hypothesis profiles: `default` for make test; `fuzz` for the structure-aware property tests
# that `make fuzz` runs (pytest --hypothesis-profile=fuzz). A test that names its own
# max_examples keeps it under both.
settings.register_profile("default", max_examples=100)
settings.register_profile(
    "fuzz", max_examples=500, deadline=None, suppress_health_check=list(HealthCheck)
)
