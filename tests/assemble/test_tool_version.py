"""The version a report states (`tool_version`) is the package's, the project's and the
installed distribution's alike."""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

import clearing_analysis
from clearing_analysis.assemble.parts import tool_version

ROOT = Path(__file__).resolve().parents[2]


def test_tool_version_is_the_package_the_project_and_the_installed_version() -> None:
    """pyproject.toml states the version a build gets, `__version__` the one a report states:
    a release that bumps one and not the other fails here, not in a user's report."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert tool_version() == clearing_analysis.__version__
    assert tool_version() == project["version"]
    assert tool_version() == version("clearing-analysis")
