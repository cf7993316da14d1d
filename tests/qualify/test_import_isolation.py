"""R-SC-4: the analyzer side never imports pi-ai, provider SDKs, HTTP clients or auth code.

A fresh interpreter imports `clearing_analysis` and every submodule, runs the analyzer-side
qualification check, and then inspects `sys.modules`: every loaded top-level module must be
standard library, the project itself, or a runtime dependency locked in uv.lock (allowlist),
and none may be a known provider / HTTP / auth package (denylist, belt and braces).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = textwrap.dedent(
    """
    import importlib, json, pkgutil, sys, tomllib
    from importlib import metadata

    include_cli = sys.argv[1] == "all"
    import clearing_analysis

    def excluded(name):
        # The demo drives both programs (qualify, then replay) like the CLI does.
        runner_side = name in (
            "clearing_analysis.qualify.runner", "clearing_analysis.pipeline.demo"
        ) or name.startswith("clearing_analysis.cli")
        return runner_side and not include_cli

    # Walk by hand: pkgutil.walk_packages would import excluded packages to recurse.
    todo = [(clearing_analysis.__path__, "clearing_analysis.")]
    while todo:
        path, prefix = todo.pop()
        for info in pkgutil.iter_modules(path, prefix):
            if excluded(info.name):
                continue
            module = importlib.import_module(info.name)
            if info.ispkg:
                todo.append((module.__path__, info.name + "."))

    from clearing_analysis.qualify import check_qualification
    check_qualification(None)

    lock = tomllib.loads(open(sys.argv[2], encoding="utf-8").read())
    packages = {p["name"]: p for p in lock["package"]}
    allowed, todo = set(), ["clearing-analysis"]
    while todo:
        name = todo.pop()
        if name in allowed:
            continue
        allowed.add(name)
        todo.extend(dep["name"] for dep in packages[name].get("dependencies", []))

    def norm(name):
        return name.lower().replace("_", "-").replace(".", "-")

    dists = metadata.packages_distributions()
    # A module an allowed package's extension registers under a top-level name of its own,
    # with no file, so that no distribution lists it: cryptography's Rust extension registers
    # its embedded OpenSSL bindings as `_openssl`. Only a file-less module of that name counts.
    registered_by = {"_openssl": "cryptography"}
    # A package an allowed package imports only when it happens to be installed: jsonschema's
    # format checker takes `idna` for the idn-hostname format. The runtime lock does not hold
    # it (the image has none); the dev group brings it, through check-jsonschema's requests.
    optional_of = {"idna": "jsonschema"}
    top = sorted({m.split(".")[0] for m in sys.modules})
    foreign = []
    for module in top:
        # __mp_main__ is multiprocessing's alias of __main__; _sysconfigdata_* is the
        # interpreter's generated build configuration: both standard library artefacts.
        if module in sys.stdlib_module_names or module.startswith("_sysconfigdata_"):
            continue
        if module in {"__main__", "__mp_main__", "clearing_analysis"}:
            continue
        owners = {norm(d) for d in dists.get(module, [])}
        if not owners and module in registered_by:
            if getattr(sys.modules[module], "__file__", None) is None:
                owners = {norm(registered_by[module])}
        if module in optional_of and optional_of[module] in allowed:
            continue
        if not owners or not owners <= {norm(a) for a in allowed}:
            foreign.append(module)
    print(json.dumps({
        "top": top,
        "foreign": foreign,
        "runner": "clearing_analysis.qualify.runner" in sys.modules,
        "project": sorted(m for m in sys.modules if m.startswith("clearing_analysis")),
    }))
    """
)

DENIED = {
    "anthropic", "openai", "google", "mistralai", "boto3", "botocore", "httpx", "requests",
    "aiohttp", "urllib3", "websockets", "keyring", "oauthlib", "jwt", "authlib", "grpc",
}  # fmt: skip


def _probe(scope: str) -> dict[str, object]:
    completed = subprocess.run(
        [sys.executable, "-c", PROBE, scope, str(ROOT / "uv.lock")],
        capture_output=True,
        check=False,
        cwd=ROOT,
    )
    assert completed.returncode == 0, completed.stderr.decode(errors="replace")[-2000:]
    result: dict[str, object] = json.loads(completed.stdout)
    return result


def test_analyzer_side_imports_only_stdlib_project_and_locked_deps() -> None:
    """Every submodule except the Node runner and the CLI loads nothing outside the allowlist."""
    result = _probe("analyzer")
    assert result["foreign"] == []
    assert result["runner"] is False
    project = result["project"]
    assert isinstance(project, list)
    assert {"clearing_analysis.qualify.verify", "clearing_analysis.journal.decode"} <= set(project)
    top = result["top"]
    assert isinstance(top, list)
    assert DENIED.isdisjoint(top)


def test_whole_package_including_cli_stays_inside_the_allowlist() -> None:
    """Even with the CLI and the Node runner imported, no provider/auth/HTTP module loads."""
    result = _probe("all")
    assert result["foreign"] == []
    assert result["runner"] is True
    top = result["top"]
    assert isinstance(top, list)
    assert DENIED.isdisjoint(top)
