"""R-SC-4 import lint: no source file imports a provider SDK, HTTP client or auth package,
and only the qualification runner may start processes or touch the network stack.

A static complement to test_import_isolation.py: it also catches imports hidden in functions
that an import-time probe would never execute.
"""

from __future__ import annotations

import ast
from pathlib import Path

import clearing_analysis

SRC = Path(clearing_analysis.__file__).resolve().parent

DENIED = {
    "anthropic", "openai", "google", "mistralai", "boto3", "botocore", "httpx", "requests",
    "aiohttp", "urllib3", "websockets", "websocket", "keyring", "oauthlib", "jwt", "authlib",
    "grpc", "pi_ai",
}  # fmt: skip
# Process and network primitives: the analyzer needs none of them (seed: it never contacts
# a provider); the qualification runner starts Node and is never imported by analyze.
RUNNER_ONLY = {"subprocess", "socket", "ssl", "http", "urllib.request", "asyncio.subprocess"}
RUNNER = SRC / "qualify" / "runner.py"


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _matches(name: str, banned: set[str]) -> bool:
    return any(name == b or name.startswith(f"{b}.") for b in banned)


def test_no_source_imports_provider_http_or_auth_packages() -> None:
    """No module anywhere in the package imports a denied package, even lazily."""
    offenders = {
        str(path.relative_to(SRC)): sorted(n for n in _imports(path) if _matches(n, DENIED))
        for path in SRC.rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_only_the_runner_uses_process_or_network_modules() -> None:
    """subprocess / socket / ssl / http / urllib.request appear in the runner only."""
    offenders = {
        str(path.relative_to(SRC)): sorted(n for n in _imports(path) if _matches(n, RUNNER_ONLY))
        for path in SRC.rglob("*.py")
        if path != RUNNER
    }
    assert {k: v for k, v in offenders.items() if v} == {}
    assert _matches("subprocess", _imports(RUNNER))


def test_lint_sees_lazy_imports(tmp_path: Path) -> None:
    """The lint finds an import inside a function body (what a runtime probe would miss)."""
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    import openai.types\n    from httpx import Client\n")
    assert {"openai.types", "httpx", "httpx.Client"} <= _imports(sample)
    assert _matches("openai.types", DENIED)
