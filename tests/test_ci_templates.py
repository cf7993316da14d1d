"""The CI templates users copy (ci/), checked without podman: their public schemas, what they
pin, what they share with the runner script, and the runner's refusals.

The templates' steps themselves run on the built images in CI (tools/container/ci_templates.py,
.ci/run's `ci-templates` phase). Here: both files validate against the schemas their CI
services publish, as bundled with check-jsonschema (offline: any network use would fail at the
dead-end proxy set below), and a broken copy of each does not; every action is pinned by
commit; the templates set only variables the runner reads and run the runner; the runner's
image pin, snapshot and key checks refuse before any podman call.
"""

from __future__ import annotations

import importlib.util
import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from clearing_analysis.cli._exit import EXIT_DEFER, EXIT_STOP

ROOT = Path(__file__).resolve().parent.parent
GITHUB = ROOT / "ci" / "github" / "clearing-analysis.yml"
GITLAB = ROOT / "ci" / "gitlab" / "clearing-analysis.gitlab-ci.yml"
RUNNER = ROOT / "ci" / "sealed-analyze.sh"
RUNNER_TEXT = RUNNER.read_text(encoding="utf-8")
# Every HTTP(S) request would go to the closed discard port: the check must not need one.
OFFLINE = {"HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9"}
DIGEST = "sha256:" + "0" * 64


def _executor() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "ci_templates", ROOT / "tools/container/ci_templates.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


EXECUTOR = _executor()


def _refuse_network(*_args: object, **_kwargs: object) -> None:
    raise OSError("the schema check must not use the network")


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any connection attempt fails, directly or through a proxy from the environment."""
    for name, value in OFFLINE.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(socket.socket, "connect", _refuse_network)
    monkeypatch.setattr(socket, "create_connection", _refuse_network)


def _validate(schema: str, path: Path) -> int:
    """check-jsonschema's exit status for `path` under the bundled `schema` (in this process:
    the same command line its console script runs, without a second interpreter's start)."""
    from check_jsonschema import main

    status = main.main(["--builtin-schema", schema, str(path)], standalone_mode=False)
    assert isinstance(status, int)
    return status


# (file, bundled schemas, a change that breaks it)
SCHEMA_CASES = [
    pytest.param(
        GITHUB,
        "vendor.github-workflows",
        ("    runs-on: ubuntu-24.04\n", "    runs-on: [ubuntu-24.04, {}]\n"),
        id="github-workflow",
    ),
    pytest.param(
        GITHUB,
        "custom.github-workflows-require-timeout",
        ("    timeout-minutes: 30\n", ""),
        id="github-timeout",
    ),
    pytest.param(
        GITLAB,
        "vendor.gitlab-ci",
        ("    when: always\n", "    when: sometimes\n"),
        id="gitlab-ci",
    ),
    pytest.param(
        ROOT / "compose.yaml",
        "vendor.compose-spec",
        ("  network_mode: none\n", "  network_mode: [none]\n"),
        id="compose",
    ),
]


@pytest.mark.usefixtures("offline")
@pytest.mark.parametrize(("path", "schema", "breakage"), SCHEMA_CASES)
def test_files_validate_against_their_published_schemas_offline(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    path: Path,
    schema: str,
    breakage: tuple[str, str],
) -> None:
    """The file passes its service's bundled schema; the same file with one line broken fails
    it, so the check really validates."""
    assert _validate(schema, path) == 0, capsys.readouterr()
    text = path.read_text(encoding="utf-8")
    old, new = breakage
    assert old in text
    broken = tmp_path / path.name
    broken.write_text(text.replace(old, new, 1), encoding="utf-8")
    assert _validate(schema, broken) == 1


def _load(path: Path) -> Any:
    return EXECUTOR.load_yaml(path)


def test_every_action_is_pinned_by_commit() -> None:
    """Each `uses:` (live or commented) names a full 40-hex commit, with its tag in a comment."""
    uses = re.findall(r"uses: ([^\s]+)(.*)", GITHUB.read_text(encoding="utf-8"))
    assert len(uses) >= 3
    for reference, comment in uses:
        assert re.fullmatch(r"actions/[a-z-]+@[0-9a-f]{40}", reference), reference
        assert re.fullmatch(r" # v\d+\.\d+\.\d+", comment), reference


def _runner_variables() -> set[str]:
    return set(re.findall(r"\$\{?(CLEARING_[A-Z_]+)", RUNNER_TEXT))


def test_templates_run_the_runner_with_only_its_variables() -> None:
    """Both jobs run ci/sealed-analyze.sh and set nothing it does not read; both keep its
    output directory as the artifact and pin the image by digest."""
    workflow = _load(GITHUB)
    job = workflow["jobs"]["analyze"]
    github_env = {**job["env"], **{k: v for s in job["steps"] for k, v in s.get("env", {}).items()}}
    runs = [s["run"] for s in job["steps"] if "run" in s]
    assert runs == ["sudo -E ci/sealed-analyze.sh"]
    uploads = [s["with"]["path"] for s in job["steps"] if "upload-artifact" in s.get("uses", "")]
    assert uploads == [job["env"]["CLEARING_OUT"] + "/"]
    pipeline = _load(GITLAB)["clearing-analysis"]
    assert pipeline["script"] == ["ci/sealed-analyze.sh"]
    assert pipeline["artifacts"]["paths"] == [pipeline["variables"]["CLEARING_OUT"] + "/"]
    read = _runner_variables()
    for variables in (github_env, pipeline["variables"]):
        assert set(variables) <= read, set(variables) - read
        assert re.fullmatch(r"[^\s@]+@sha256:\S+", variables["CLEARING_IMAGE"])
        assert variables["CLEARING_FAIL_ON"] == ""  # the verdict fails no job by default
    # The two templates configure the runner alike, the key aside (a secret, a file variable).
    assert {k: v for k, v in github_env.items() if "SIGNING" not in k} == pipeline["variables"]


def test_runner_runs_sealed_and_maps_the_documented_statuses() -> None:
    """The runner's podman run is sealed (no network, read-only root and inputs) and its DEFER
    and STOP statuses are the CLI's."""
    assert f"DEFER_STATUS={EXIT_DEFER} STOP_STATUS={EXIT_STOP}" in RUNNER_TEXT
    sealed = re.search(r"SEALED=\(([^)]*)\)", RUNNER_TEXT)
    assert sealed is not None
    for flag in ("--network=none", "--read-only", "--cap-drop=ALL", "--pull=never"):
        assert flag in sealed.group(1)
    assert '-v "$in_dir:/in:ro"' in RUNNER_TEXT
    assert '-v "$scratch/key:/key:ro"' in RUNNER_TEXT


def _snapshot(root: Path) -> Path:
    inputs = root / "inputs"
    (inputs / "corpus" / "journals").mkdir(parents=True)
    (inputs / "corpus" / "history.sqlite").write_bytes(b"")
    (inputs / "corpus" / "routes.json").write_text("[]")
    return inputs


# (id, environment changes, the line's distinguishing words)
REFUSALS = [
    ("tag", {"CLEARING_IMAGE": "registry.example/clearing-analysis:1.0"}, "by digest"),
    ("short-digest", {"CLEARING_IMAGE": "registry.example/x@sha256:abc"}, "by digest"),
    ("placeholder", {"CLEARING_IMAGE": "r/x@sha256:REPLACE-WITH-THE-PUSHED-DIGEST"}, "by digest"),
    ("fail-on", {"CLEARING_FAIL_ON": "build"}, "CLEARING_FAIL_ON must be"),
    ("no-snapshot", {"CLEARING_INPUTS": "missing"}, "names no directory"),
    ("no-sidecar", {"REMOVE": "corpus/history.sqlite"}, "has no corpus/history.sqlite"),
    ("out-exists", {"CLEARING_OUT": "inputs"}, "exists already"),
    ("no-key", {"CLEARING_SIGNING_KEY": ""}, "no signing key"),
    ("two-keys", {"CLEARING_SIGNING_KEY_FILE": "inputs/corpus/routes.json"}, "not both"),
    ("pubkey", {"CLEARING_PUBKEY": "missing.pub"}, "CLEARING_PUBKEY names no file"),
]


@pytest.mark.parametrize(
    ("changes", "words"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS]
)
def test_runner_refuses_a_bad_configuration_before_podman(
    tmp_path: Path, changes: dict[str, str], words: str
) -> None:
    """Each refused configuration: one line naming the variable (never its value), exit 2,
    and no podman call (PATH holds a podman that would record one), nothing created."""
    inputs = _snapshot(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    called = tmp_path / "podman-called"
    (bin_dir / "podman").write_text(f"#!/bin/sh\ntouch {called}\nexit 99\n")
    (bin_dir / "podman").chmod(0o755)
    changes = dict(changes)
    removed = changes.pop("REMOVE", None)
    if removed:
        (inputs / removed).unlink()
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "CLEARING_IMAGE": f"registry.example/clearing-analysis@{DIGEST}",
        "CLEARING_INPUTS": "inputs",
        "CLEARING_OUT": "out",
        "CLEARING_SIGNING_KEY": "-----BEGIN PRIVATE KEY-----",
        **changes,
    }
    before = sorted(p.name for p in tmp_path.iterdir())
    done = subprocess.run(
        ["bash", str(RUNNER)], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("sealed-analyze: ") and words in line
    for value in changes.values():
        assert not value or value not in line.removeprefix("sealed-analyze: ").split(), value
    assert not called.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == before


class TestExecutor:
    """The template executor refuses what it does not understand instead of skipping it."""

    def test_reads_the_github_job_as_written(self) -> None:
        """The workflow's job: its env with the secret resolved, the runner step, then the
        upload that runs even after a failure; checkout is the workspace."""
        job = EXECUTOR.github_job(_load(GITHUB), {"CLEARING_SIGNING_KEY": "KEY"})
        assert job.shell[:1] == ["bash"] and "pipefail" in job.shell
        assert [(s.script, s.upload, s.after_failure) for s in job.steps] == [
            ("sudo -E ci/sealed-analyze.sh", None, False),
            (None, "clearing-analysis-out/", True),
        ]
        assert job.steps[0].env == {"CLEARING_SIGNING_KEY": "KEY"}

    def test_reads_the_gitlab_job_as_written(self) -> None:
        """The pipeline's job: its variables plus the file variable, its script, its artifacts."""
        job = EXECUTOR.gitlab_job(_load(GITLAB), {"CLEARING_SIGNING_KEY_FILE": "/k"})
        assert job.env["CLEARING_SIGNING_KEY_FILE"] == "/k"
        assert [(s.script, s.upload) for s in job.steps] == [
            ("ci/sealed-analyze.sh", None),
            (None, "clearing-analysis-out/"),
        ]

    @pytest.mark.parametrize(
        ("edit", "message"),
        [
            (lambda s: s.update(uses="actions/cache@" + "0" * 40), "unsupported action"),
            (lambda s: s.update({"if": "${{ failure() }}"}), "unsupported if"),
            (lambda s: s.update(env={"X": "${{ github.token }}"}), "unsupported expression"),
        ],
        ids=["action", "condition", "expression"],
    )
    def test_refuses_what_it_cannot_execute(self, edit: Any, message: str) -> None:
        """An unknown action, condition or expression is an error, not a skipped step."""
        workflow = _load(GITHUB)
        step = workflow["jobs"]["analyze"]["steps"][-1]
        step.pop("uses")
        step.pop("with")
        step["uses"] = "actions/upload-artifact@" + "0" * 40
        step["with"] = {"path": "x"}
        edit(step)
        with pytest.raises(EXECUTOR.TemplateError, match=message):
            EXECUTOR.github_job(workflow, {"CLEARING_SIGNING_KEY": "KEY"})

    def test_a_failed_step_skips_all_but_the_always_steps(self, tmp_path: Path) -> None:
        """After a failing script only a step marked to run after failure runs; the job's
        status is the first failure's."""
        job = EXECUTOR.Job(
            {},
            [
                EXECUTOR.Step("fails", script="exit 3"),
                EXECUTOR.Step("skipped", script="touch skipped"),
                EXECUTOR.Step("kept", upload="out/", after_failure=True),
            ],
            ["bash", "-eo", "pipefail", "-c"],
        )
        (tmp_path / "out").mkdir()
        (tmp_path / "out" / "report.json").write_text("{}")
        outcome = EXECUTOR.execute(job, tmp_path, dict(os.environ))
        assert (outcome.status, outcome.artifacts) == (3, {"out": ["report.json"]})
        assert not (tmp_path / "skipped").exists()
