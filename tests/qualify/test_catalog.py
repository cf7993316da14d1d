"""qualify/catalog.mjs against the installed pi-ai: the checked-in catalog is its exact output."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from clearing_analysis.policy import policy_dir
from clearing_analysis.qualify.harness import HARNESS_SOURCES, harness_dir, installed_pi_ai

pytestmark = pytest.mark.node

REGENERATE = "node qualify/catalog.mjs > policy/pi-ai-models.json"


def _run_catalog() -> subprocess.CompletedProcess[bytes]:
    """`node qualify/catalog.mjs` with nothing of the caller's environment but PATH."""
    node = shutil.which("node")
    assert node is not None, "node is not on PATH"
    return subprocess.run(
        [node, str(harness_dir() / "catalog.mjs")],
        capture_output=True,
        check=False,
        cwd=harness_dir(),
        env={"PATH": os.environ.get("PATH", os.defpath), "LANG": "C.UTF-8"},
        timeout=120,
    )


def test_checked_in_catalog_is_the_installed_pi_ais() -> None:
    """policy/pi-ai-models.json is byte for byte what catalog.mjs prints for the installed
    pi-ai; after a pi-ai upgrade this fails until the file is regenerated and reviewed."""
    done = _run_catalog()
    assert (done.returncode, done.stderr) == (0, b"")
    checked_in = (policy_dir() / "pi-ai-models.json").read_bytes()
    assert done.stdout == checked_in, f"the pi-ai catalog changed: run `{REGENERATE}` and review"


def test_catalog_is_deterministic() -> None:
    """Two runs print the same bytes (sorted models, fixed key order)."""
    assert _run_catalog().stdout == _run_catalog().stdout


def test_catalog_names_the_installed_package() -> None:
    """The printed package and version are the installed pi-ai's, from its own manifest."""
    installed = installed_pi_ai()
    head = _run_catalog().stdout.decode("utf-8")
    assert f'"package": "{installed.package}"' in head
    assert f'"version": "{installed.version}"' in head


def test_catalog_script_is_not_a_qualification_source() -> None:
    """The catalog drives no payload builder, so it stays out of the qualification digest."""
    assert "catalog.mjs" not in HARNESS_SOURCES
