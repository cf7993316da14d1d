#!/usr/bin/env python3
"""Run the steps of both CI templates (ci/github/, ci/gitlab/) on the images just built.

CI runs this after the sealed smoke test (.ci/run, phase `ci-templates`; `make image-smoke`
too): it lays out a repository as a user of the templates would (the templates' files copied
to the paths they name, a committed snapshot at CLEARING_INPUTS, the public key at
CLEARING_PUBKEY), then executes each template's job as its CI service would, step by step and
line by line, as written:

- GitHub Actions: the `analyze` job's steps in order, each `run:` with `bash --noprofile
  --norc -eo pipefail` (the workflow's `defaults.run.shell: bash`) in the workspace, under the
  workflow's, the job's and the step's `env:`; a step after a failed one runs only if its `if:`
  is `${{ !cancelled() }}` or `${{ always() }}`. `actions/checkout` is the workspace itself;
  `actions/upload-artifact` collects its `path:`. Any other action, `${{ }}` expression or
  `if:` is refused, so an edit to a template that this runner does not understand fails here
  instead of being skipped.
- GitLab CI: the `clearing-analysis` job's `script:` lines in one `bash -eo pipefail` under its
  `variables:`; `artifacts: paths` are collected (`when: always`). `rules:` are not evaluated
  (the job is run as if they matched).

Only two things differ from a real run, both inputs: CLEARING_IMAGE, whose placeholder digest
becomes the built analyzer image's (`localhost/clearing-analysis@sha256:…`, already present, so
nothing is pulled), and the signing key, a key made by the checkout's `keygen` handed in as the
secret (`secrets.CLEARING_SIGNING_KEY`) or the file variable (CLEARING_SIGNING_KEY_FILE). And
two commands on PATH, as tools/container/doc_blocks.py does for the documented blocks: with
PODMAN_ROOT set (.ci/run's throw-away storage), `podman` adds `--root`/`--runroot` for that
storage; and since this runs as root, where `sudo -E CMD` changes nothing but PATH (sudo's
secure_path would drop that podman), `sudo` is a shim that runs `-E CMD` as it is, refusing any
other use.

The runs, each in a fresh workspace, and what each must give:
 1. GitHub, as written: exit 0; the artifact holds exactly report.json, report.html and
    report.json.intoto.jsonl; the report equals the checkout's `analyze` of the same snapshot
    byte for byte, and the attestation verifies outside with the public key.
 2. GitLab, as written: the same, and the same report bytes.
 3. GitHub with CLEARING_FAIL_ON=defer: the job fails with the status of the report's verdict
    (3 DEFER, 4 STOP), and the report is still kept as the artifact.
 4. GitHub on a snapshot whose sidecar has a `-wal` companion: the job fails with exit 2, the
    artifact step still runs and finds nothing.
Prints `key=value` lines and `ci_templates=pass`; exits non-zero on the first failure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
GITHUB_TEMPLATE = REPO / "ci" / "github" / "clearing-analysis.yml"
GITLAB_TEMPLATE = REPO / "ci" / "gitlab" / "clearing-analysis.gitlab-ci.yml"
RUNNER = REPO / "ci" / "sealed-analyze.sh"
GITHUB_JOB = "analyze"
GITLAB_JOB = "clearing-analysis"
ARTIFACT_FILES = ("report.html", "report.json", "report.json.intoto.jsonl")
_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_SECRET = re.compile(r"secrets\.([A-Za-z_][A-Za-z0-9_]*)")
# `if:` conditions under which a step runs after a failed one; absent: only after success.
_ALWAYS = {"!cancelled()", "always()"}


class TemplateError(Exception):
    """A template holds something this runner does not execute (it refuses, never skips)."""


def load_yaml(path: Path) -> Any:
    """A template, parsed (ruamel.yaml, which check-jsonschema brings into the dev venv)."""
    from ruamel.yaml import YAML  # noqa: PLC0415

    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


def resolve(value: object, secrets: Mapping[str, str]) -> str:
    """An `env:` value with its `${{ secrets.NAME }}` expressions replaced (any other
    expression is refused)."""
    text = str(value)

    def replace(match: re.Match[str]) -> str:
        secret = _SECRET.fullmatch(match.group(1))
        if secret is None:
            raise TemplateError(f"unsupported expression {match.group(0)}")
        if secret.group(1) not in secrets:
            raise TemplateError(f"no value for {match.group(0)}")
        return secrets[secret.group(1)]

    return _EXPRESSION.sub(replace, text)


def runs_after_failure(condition: object) -> bool:
    """Whether a step with this `if:` runs once an earlier step failed."""
    if condition is None:
        return False
    inner = _EXPRESSION.fullmatch(str(condition).strip())
    text = inner.group(1) if inner else str(condition).strip()
    if text in _ALWAYS:
        return True
    raise TemplateError(f"unsupported if: {condition}")


@dataclass
class Step:
    """One step to execute: a shell script or an artifact upload (of `path`)."""

    name: str
    script: str | None = None
    upload: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    after_failure: bool = False


@dataclass
class Job:
    """A template's job, ready to execute."""

    env: dict[str, str]
    steps: list[Step]
    shell: list[str]


def github_job(workflow: Mapping[str, Any], secrets: Mapping[str, str]) -> Job:
    """The workflow's `analyze` job as steps (see the module docstring)."""
    job = workflow["jobs"][GITHUB_JOB]
    shell = workflow.get("defaults", {}).get("run", {}).get("shell")
    if shell != "bash":
        raise TemplateError("the workflow must set defaults.run.shell: bash")
    env = {k: resolve(v, secrets) for k, v in {**workflow.get("env", {}), **job["env"]}.items()}
    steps: list[Step] = []
    for index, step in enumerate(job["steps"]):
        name = step.get("name", f"step {index + 1}")
        after_failure = runs_after_failure(step.get("if"))
        step_env = {k: resolve(v, secrets) for k, v in step.get("env", {}).items()}
        if "run" in step:
            steps.append(Step(name, script=step["run"], env=step_env, after_failure=after_failure))
            continue
        action = str(step["uses"]).split("@", 1)[0]
        if action == "actions/checkout":
            continue  # the workspace is the checkout
        if action == "actions/upload-artifact":
            steps.append(Step(name, upload=step["with"]["path"], after_failure=after_failure))
            continue
        raise TemplateError(f"unsupported action {action}")
    return Job(env, steps, ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c"])


def gitlab_job(pipeline: Mapping[str, Any], variables: Mapping[str, str]) -> Job:
    """The pipeline's `clearing-analysis` job as steps: its script, then its artifacts."""
    job = pipeline[GITLAB_JOB]
    env = {k: str(v) for k, v in {**pipeline.get("variables", {}), **job["variables"]}.items()}
    env.update(variables)
    if job["artifacts"].get("when") != "always":
        raise TemplateError("the job must keep its artifacts when it fails (when: always)")
    steps = [Step("script", script="\n".join(job["script"]))]
    steps += [
        Step("artifacts", upload=path, after_failure=True) for path in job["artifacts"]["paths"]
    ]
    return Job(env, steps, ["bash", "-eo", "pipefail", "-c"])


@dataclass
class Outcome:
    """How a job ended: the status of its first failed step (0 if none) and what it kept."""

    status: int
    artifacts: dict[str, list[str]]


def execute(job: Job, workspace: Path, base_env: Mapping[str, str]) -> Outcome:
    """Run the job's steps in `workspace` as its CI service would."""
    status = 0
    artifacts: dict[str, list[str]] = {}
    for step in job.steps:
        if status != 0 and not step.after_failure:
            continue
        if step.upload is not None:
            kept = workspace / step.upload
            names = sorted(p.name for p in kept.iterdir()) if kept.is_dir() else []
            artifacts[step.upload.rstrip("/")] = names
            continue
        assert step.script is not None
        env = {**base_env, **job.env, **step.env}
        print(f"ci-templates: step {step.name!r}", flush=True)
        done = subprocess.run([*job.shell, step.script], cwd=workspace, env=env, check=False)
        if done.returncode != 0 and status == 0:
            status = done.returncode
    return Outcome(status, artifacts)


def fail(message: str) -> None:
    raise SystemExit(f"ci_templates.py: FAIL {message}")


def _podman(*args: str) -> str:
    """podman, with PODMAN_ROOT's storage when set (as the other container scripts do)."""
    root = os.environ.get("PODMAN_ROOT")
    storage = ["--root", f"{root}/root", "--runroot", f"{root}/run"] if root else []
    return subprocess.run(
        ["podman", *storage, *args], check=True, capture_output=True, text=True
    ).stdout.strip()


@dataclass
class Fixture:
    """What every run's workspace starts from, made once."""

    snapshot: Path  # corpus/ and qualification.json
    private_key: Path
    public_key: Path
    image: str  # the analyzer image by digest
    checkout_report: bytes
    base_env: dict[str, str]


def _fixture(work: Path) -> Fixture:
    analyzer = os.environ.get("ANALYZER_IMAGE", "localhost/clearing-analysis:latest")
    qualifier = os.environ.get("QUALIFIER_IMAGE", "localhost/clearing-analysis-qualifier:latest")
    cli = REPO / ".venv" / "bin" / "clearing-analysis"
    snapshot = work / "snapshot"
    snapshot.mkdir()
    subprocess.run(
        [cli, "synth", "--out", snapshot / "corpus", "--seed", "7", "--conversations", "4"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    # The committed record: the qualifier image's, as a user makes it once per pi-ai pin.
    records = work / "records"
    records.mkdir()
    os.chown(records, 65534, 65534)
    _podman(
        "run", "--rm", "--pull=never", "--network=none", "--read-only", "--cap-drop=ALL",
        "--security-opt=no-new-privileges", "--ulimit", "nofile=1024:1024",
        "--ulimit", "nproc=4096:4096", "-v", f"{records}:/out:rw", qualifier,
        "qualify", "--out", "/out/qualification.json",
    )  # fmt: skip
    shutil.copyfile(records / "qualification.json", snapshot / "qualification.json")
    keys = work / "keys"
    keys.mkdir()
    subprocess.run([cli, "keygen", "--out", keys / "run-signing.key"], check=True)
    args = ["analyze", "--journals", "corpus/journals", "--sidecar", "corpus/history.sqlite"]
    args += ["--routes", "corpus/routes.json", "--qualification", "qualification.json"]
    args += ["--agent-config", "corpus/agent-config.json"]
    args += ["--app-allowlist", "corpus/app-allowlist.json"]
    checkout_report = subprocess.run(
        [cli, *args], cwd=snapshot, check=True, capture_output=True
    ).stdout
    digest = _podman("image", "inspect", "--format", "{{.Digest}}", analyzer)
    name = analyzer.rsplit(":", 1)[0] if ":" in analyzer.rsplit("/", 1)[-1] else analyzer
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLEARING_")}
    env.pop("CONTAINERS_CONF", None)  # the templates need none (their --ulimit flags)
    env["PATH"] = f"{_commands(work / 'bin')}:{env.get('PATH', '')}"
    return Fixture(
        snapshot,
        keys / "run-signing.key",
        keys / "run-signing.key.pub",
        f"{name}@{digest}",
        checkout_report,
        env,
    )


def _commands(bin_dir: Path) -> Path:
    """`sudo` and, with PODMAN_ROOT, `podman` for the jobs' PATH (module docstring)."""
    bin_dir.mkdir()
    if os.geteuid() != 0:
        raise SystemExit("ci_templates.py: run as root, as CI does (the GitHub job uses sudo)")
    sudo = bin_dir / "sudo"
    sudo.write_text(
        '#!/bin/sh\n[ "$1" = -E ] || { echo "sudo shim: only -E CMD" >&2; exit 1; }\n'
        'shift\nexec "$@"\n',
        encoding="utf-8",
    )
    sudo.chmod(0o755)
    root = os.environ.get("PODMAN_ROOT")
    real = shutil.which("podman")
    if root and real:
        podman = bin_dir / "podman"
        podman.write_text(
            f'#!/bin/sh\nexec {real} --root "{root}/root" --runroot "{root}/run" "$@"\n',
            encoding="utf-8",
        )
        podman.chmod(0o755)
    return bin_dir


def _workspace(fixture: Fixture, root: Path, template_env: Mapping[str, str]) -> Path:
    """A repository as a template's user has it: the runner, the snapshot, the public key."""
    workspace = Path(tempfile.mkdtemp(dir=root, prefix="workspace-"))
    (workspace / "ci").mkdir()
    shutil.copy2(RUNNER, workspace / "ci" / RUNNER.name)
    shutil.copytree(fixture.snapshot, workspace / template_env["CLEARING_INPUTS"])
    pubkey = workspace / template_env["CLEARING_PUBKEY"]
    pubkey.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(fixture.public_key, pubkey)
    return workspace


def _verified_report(fixture: Fixture, out: Path) -> bytes:
    """The run's report, after its attestation verified outside with the public key."""
    cli = REPO / ".venv" / "bin" / "clearing-analysis"
    subprocess.run(
        [cli, "verify", out / "report.json", "--pubkey", fixture.public_key, "--require-sealed"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return (out / "report.json").read_bytes()


def _run(
    kind: str, fixture: Fixture, root: Path, overrides: Mapping[str, str]
) -> tuple[Outcome, Path, dict[str, str]]:
    """One run of a template's job in a fresh workspace."""
    key = fixture.private_key.read_text(encoding="utf-8")
    if kind == "github":
        job = github_job(load_yaml(GITHUB_TEMPLATE), {"CLEARING_SIGNING_KEY": key})
    else:
        job = gitlab_job(
            load_yaml(GITLAB_TEMPLATE), {"CLEARING_SIGNING_KEY_FILE": str(fixture.private_key)}
        )
    if "CLEARING_IMAGE" not in job.env:
        fail(f"the {kind} template sets no CLEARING_IMAGE")
    job.env.update({"CLEARING_IMAGE": fixture.image, **overrides})
    workspace = _workspace(fixture, root, job.env)
    started = time.monotonic()
    outcome = execute(job, workspace, fixture.base_env)
    print(f"ci_{kind}_seconds={time.monotonic() - started:.1f}")
    return outcome, workspace, job.env


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="clearing-ci-templates-") as work_name:
        work = Path(work_name)
        fixture = _fixture(work)
        reports: dict[str, bytes] = {}
        for kind in ("github", "gitlab"):
            outcome, workspace, env = _run(kind, fixture, work, {})
            out = env["CLEARING_OUT"]
            if outcome.status != 0:
                fail(f"the {kind} job failed with status {outcome.status}")
            kept = outcome.artifacts.get(out)
            if kept != list(ARTIFACT_FILES):
                fail(f"the {kind} artifact holds {kept}")
            reports[kind] = _verified_report(fixture, workspace / out)
            if reports[kind] != fixture.checkout_report:
                fail(f"the {kind} job's report differs from the checkout's analyze")
            print(f"ci_{kind}_status=0 ci_{kind}_artifact={','.join(kept)}")
            print(f"ci_{kind}_report_equals_checkout=yes")
        verdict = json.loads(fixture.checkout_report)["verdict"]
        expected = {"BUILD": 0, "DEFER": 3, "STOP": 4}[verdict]
        if expected == 0:
            fail("the snapshot BUILDs: the --fail-on run would prove nothing")
        outcome, workspace, env = _run("github", fixture, work, {"CLEARING_FAIL_ON": "defer"})
        kept = outcome.artifacts.get(env["CLEARING_OUT"])
        if (outcome.status, kept) != (expected, list(ARTIFACT_FILES)):
            fail(f"fail-on defer gave status {outcome.status} and artifact {kept}")
        if _verified_report(fixture, workspace / env["CLEARING_OUT"]) != fixture.checkout_report:
            fail("the failed job's report differs from the checkout's analyze")
        print(f"ci_github_fail_on_defer_status={outcome.status} verdict={verdict} artifact=kept")
        # A refused snapshot: exit 2, nothing written, the artifact step still runs.
        wal = fixture.snapshot / "corpus" / "history.sqlite-wal"
        wal.write_bytes(b"")
        try:
            outcome, workspace, env = _run("github", fixture, work, {})
        finally:
            wal.unlink()
        kept = outcome.artifacts.get(env["CLEARING_OUT"])
        if (outcome.status, kept) != (2, []):
            fail(f"the refused run gave status {outcome.status} and artifact {kept}")
        print("ci_github_refused_status=2 artifact=empty")
    print("ci_templates=pass")
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except TemplateError as error:
        print(f"ci_templates.py: FAIL {error}", file=sys.stderr)
        raise SystemExit(1) from None
