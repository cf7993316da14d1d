"""A copy of the package installed away from the checkout (`pip install .`, `uv tool install
.`): the qualification is refused with the reason, or matches once the harness is named.

The copy is laid out as a wheel installs it (the package, with `policy/` inside it as
`_policy`, and nothing else) in a directory of its own, and run by a fresh interpreter that
imports it from there, so `harness_dir()` finds no `qualify/` beside it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from clearing_analysis.qualify.harness import HARNESS_ENV
from clearing_analysis.synth import generate
from tests.e2e._cli import fixed_line, run_cli
from tests.synth.corpora import corpus_options

ROOT = Path(__file__).resolve().parents[2]


def _installed_copy(site: Path) -> Path:
    """The package copied as a wheel lays it out, without the checkout around it."""
    package = site / "clearing_analysis"
    shutil.copytree(
        ROOT / "src" / "clearing_analysis",
        package,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copytree(ROOT / "policy", package / "_policy")
    return site


def _run_copy(
    site: Path, args: list[str | Path], env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    code = f"import sys\nsys.path.insert(0, {str(site)!r})\n" + (
        "sys.argv = ['clearing-analysis', *sys.argv[1:]]\n"
        "from clearing_analysis.cli import main\nmain()\n"
    )
    run_env = {k: v for k, v in os.environ.items() if k != HARNESS_ENV}
    run_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-I", "-c", code, *(os.fspath(a) for a in args)],
        capture_output=True,
        check=False,
        cwd=site,
        env=run_env,
        timeout=120,
    )


@pytest.mark.node
def test_an_installed_copy_says_why_its_qualification_does_not_match(tmp_path: Path) -> None:
    """In the copy, `qualify` is QUALIFIER_FAILED HARNESS_NOT_INSTALLED (its remedy names the
    way out) and `analyze` with a record the checkout made reports every API
    PAYLOAD_UNQUALIFIED with the detail HARNESS_UNAVAILABLE, which its summary shows; with
    CLEARING_QUALIFY_HARNESS naming the checkout's harness the same record QUALIFIES."""
    site = _installed_copy(tmp_path / "site")
    import clearing_analysis

    imported = _run_copy(site, ["--help"])
    assert imported.returncode == 0
    assert Path(clearing_analysis.__file__).is_relative_to(ROOT)  # this process: the checkout

    refused = _run_copy(site, ["qualify"])
    assert refused.returncode == 2
    assert refused.stderr == fixed_line("QUALIFIER_FAILED", "HARNESS_NOT_INSTALLED")
    assert b"CLEARING_QUALIFY_HARNESS" in refused.stderr

    corpus = tmp_path / "corpus"
    generate(corpus, 3, conversations=2, profile="build")
    record = tmp_path / "qualification.json"
    assert run_cli(["qualify", "--out", record]).returncode == 0
    args = [*corpus_options(corpus), "--qualification", record]
    analyzed = _run_copy(site, ["analyze", *args])
    assert analyzed.returncode == 0
    report = json.loads(analyzed.stdout)
    details = {part["qualification"]["detail"] for part in report["perApi"].values()}
    assert details == {"HARNESS_UNAVAILABLE"}
    saved = tmp_path / "report.json"
    saved.write_bytes(analyzed.stdout)
    shown = _run_copy(site, ["show", saved])
    assert b"PAYLOAD_UNQUALIFIED (HARNESS_UNAVAILABLE)" in shown.stdout

    named = _run_copy(site, ["analyze", *args], env={HARNESS_ENV: str(ROOT / "qualify")})
    assert named.returncode == 0
    statuses = {p["qualification"]["status"] for p in json.loads(named.stdout)["perApi"].values()}
    assert statuses == {"QUALIFIED"}
