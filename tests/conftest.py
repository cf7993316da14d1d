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


# Full-size input bounds (marker `scale`): minutes and gigabytes of disk, so `make fuzz` runs
# them (`pytest -m scale --scale`) and `make test` skips them (their reduced sizes are tests of
# their own there).
def pytest_addoption(parser: pytest.Parser) -> None:
    """`--scale`: run the tests marked `scale`."""
    parser.addoption("--scale", action="store_true", help="run the full-size input bounds")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the `scale` tests unless `--scale` is given."""
    if config.getoption("--scale"):
        return
    skip = pytest.mark.skip(reason="full-size input bounds: make fuzz runs them (--scale)")
    for item in items:
        if "scale" in item.keywords:
            item.add_marker(skip)
