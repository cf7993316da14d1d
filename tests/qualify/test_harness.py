"""Source digest definition, pinned package and runner environment."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from clearing_analysis.qualify import harness as harness_module
from clearing_analysis.qualify.harness import (
    HarnessUnavailable,
    harness_dir,
    installed_pi_ai,
    pinned_package,
    placeholder_path,
    source_digest,
)
from clearing_analysis.qualify.runner import DEAD_END, _environment


def test_digest_follows_the_documented_framing(harness_copy: Path) -> None:
    """SHA-256 of the domain line, then label, length and bytes of each file, in order."""
    digest = hashlib.sha256(b"clearing-analysis/qualification-sources/1\n")
    files = [
        ("qualify/fixtures.mjs", harness_copy / "fixtures.mjs"),
        ("qualify/reference.mjs", harness_copy / "reference.mjs"),
        ("qualify/diff.mjs", harness_copy / "diff.mjs"),
        ("qualify/capture.mjs", harness_copy / "capture.mjs"),
        ("policy/placeholder.txt", placeholder_path()),
    ]
    for label, path in files:
        data = path.read_bytes()
        digest.update(label.encode() + b"\n" + str(len(data)).encode() + b"\n" + data)
    assert source_digest(harness_copy) == digest.hexdigest()


def test_digest_is_sensitive_to_moving_bytes_between_files(harness_copy: Path) -> None:
    """Length framing: moving a byte from one source to the next changes the digest."""
    before = source_digest(harness_copy)
    first = harness_copy / "fixtures.mjs"
    second = harness_copy / "reference.mjs"
    data = first.read_bytes()
    first.write_bytes(data[:-1])
    second.write_bytes(data[-1:] + second.read_bytes())
    assert source_digest(harness_copy) != before


def test_checkout_digest_equals_copy_digest(harness_copy: Path) -> None:
    """The digest depends on bytes only, not on where the harness lives."""
    assert source_digest(harness_copy) == source_digest(harness_dir())


def test_pinned_package_is_exact() -> None:
    """qualify/package.json pins exactly one package at an exact version."""
    assert pinned_package() == ("@mariozechner/pi-ai", "0.73.1")
    lock = json.loads((harness_dir() / "package-lock.json").read_text())
    entry = lock["packages"]["node_modules/@mariozechner/pi-ai"]
    assert entry["version"] == "0.73.1"
    assert entry["integrity"].startswith("sha512-")
    assert all("integrity" in spec for name, spec in lock["packages"].items() if name)


@pytest.mark.parametrize(
    ("dependencies", "reason"),
    [
        ({"@mariozechner/pi-ai": "^0.73.1"}, "HARNESS_PIN_NOT_EXACT"),
        ({"../../etc": "1.0.0"}, "HARNESS_MANIFEST_INVALID"),
        ({}, "HARNESS_MANIFEST_INVALID"),
        ({"a": "1.0.0", "b": "1.0.0"}, "HARNESS_MANIFEST_INVALID"),
    ],
)
def test_bad_manifest_is_refused(
    harness_copy: Path, dependencies: dict[str, str], reason: str
) -> None:
    """A loose pin, a path-like name or not exactly one dependency is refused."""
    (harness_copy / "package.json").write_text(json.dumps({"dependencies": dependencies}))
    with pytest.raises(HarnessUnavailable) as raised:
        installed_pi_ai(harness_copy)
    assert raised.value.reason == reason


def test_installed_name_must_match_pin(harness_copy: Path) -> None:
    """An installed manifest for another package name is not the pinned pi-ai."""
    manifest = harness_copy / "node_modules" / "@mariozechner" / "pi-ai" / "package.json"
    manifest.write_text(json.dumps({"name": "@earendil-works/pi-ai", "version": "0.73.1"}))
    with pytest.raises(HarnessUnavailable) as raised:
        installed_pi_ai(harness_copy)
    assert raised.value.reason == "PI_AI_NOT_INSTALLED"


def test_harness_dir_is_the_checkout_qualify_directory() -> None:
    """The harness is found next to src/ and policy/ in the checkout."""
    assert harness_dir() == Path(harness_module.__file__).resolve().parents[3] / "qualify"
    assert (harness_dir() / "capture.mjs").is_file()


def test_runner_environment_carries_no_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """Node gets PATH, a locale and dead-end proxies only: no keys, no user proxy."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-looking")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-real-looking")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NODE_OPTIONS", "--require=/tmp/evil.js")
    env = _environment()
    assert set(env) == {
        "PATH", "LANG", "NO_PROXY", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
        "http_proxy", "https_proxy", "all_proxy",
    }  # fmt: skip
    assert env["HTTPS_PROXY"] == DEAD_END == "http://127.0.0.1:9"
    assert env["NO_PROXY"] == ""
