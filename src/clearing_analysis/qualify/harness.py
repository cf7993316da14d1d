"""Where the qualification harness lives and what identifies it (R-Q-3).

Guarantees:
- `source_digest` is the SHA-256 over the exact bytes of the fixture builder, reference, diff
  and capture driver sources and the placeholder text, framed as documented in
  docs/qualification.md ("Source digest"): a domain line, then for each file in the fixed
  order of `DIGEST_SOURCES` its label, a newline, its byte length in decimal, a newline and
  its bytes. Length framing makes the concatenation unambiguous.
- `installed_pi_ai` reads the package name pinned in `qualify/package.json` and the version
  of that package as installed under `qualify/node_modules/`, strictly, without running Node.
- Every failure is `HarnessUnavailable` with a fixed reason; no path or file text escapes.
This module never imports or runs Node, pi-ai, provider SDKs or auth code (R-SC-4).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path

import msgspec

import clearing_analysis
from clearing_analysis import strictjson
from clearing_analysis.policy import limits, policy_dir

DIGEST_DOMAIN = b"clearing-analysis/qualification-sources/1\n"
# Order and labels are part of the digest definition (docs/qualification.md).
HARNESS_SOURCES: tuple[str, ...] = ("fixtures.mjs", "reference.mjs", "diff.mjs", "capture.mjs")
PLACEHOLDER_NAME = "placeholder.txt"
# npm package names: optional scope, lower-case URL-safe characters; never a path.
_PACKAGE_NAME = re.compile(r"(?:@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*")
_EXACT_VERSION = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+(?:-[0-9A-Za-z.-]+)?")


class HarnessUnavailable(Exception):  # noqa: N818  (a verdict with a fixed reason)
    """The harness or its installed pi-ai cannot be read; `reason` is a fixed code."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class PiAiIdentity(msgspec.Struct, frozen=True):
    """The pi-ai package the harness runs: npm name and exact installed version."""

    package: str
    version: str


# Set by the OCI image, where the package is an installed wheel and the harness lives beside
# the virtual environment (docs/container.md); a checkout needs nothing.
HARNESS_ENV = "CLEARING_QUALIFY_HARNESS"
# Set by the OCI images to the image's role: the analyzer image (no Node, no pi-ai code: it
# verifies records, it cannot make them) or the qualifier image (docs/container.md).
IMAGE_ROLE_ENV = "CLEARING_IMAGE_ROLE"
ANALYZER_ROLE = "analyzer"


def harness_dir() -> Path:
    """`$CLEARING_QUALIFY_HARNESS` if set, else the checkout's `qualify/` (next to `src/`)."""
    configured = os.environ.get(HARNESS_ENV)
    if configured:
        return Path(configured)
    return Path(clearing_analysis.__file__).resolve().parent.parent.parent / "qualify"


def placeholder_path() -> Path:
    """The placeholder text a cleared result becomes (policy/placeholder.txt)."""
    return policy_dir() / PLACEHOLDER_NAME


def _read_regular(path: Path, max_bytes: int) -> bytes:
    """A regular file's bytes (no symlink followed at the last component), size-limited."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        raise HarnessUnavailable("HARNESS_FILE_MISSING") from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode) or status.st_size > max_bytes:
            raise HarnessUnavailable("HARNESS_FILE_INVALID")
        chunks: list[bytes] = []
        remaining = max_bytes + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError:
        raise HarnessUnavailable("HARNESS_FILE_INVALID") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_bytes:
        raise HarnessUnavailable("HARNESS_FILE_INVALID")
    return data


def _frame(label: str, data: bytes) -> bytes:
    return label.encode("ascii") + b"\n" + str(len(data)).encode("ascii") + b"\n" + data


def source_digest(harness: Path | None = None, placeholder: Path | None = None) -> str:
    """SHA-256 hex over the framed harness sources and placeholder (definition above)."""
    directory = harness_dir() if harness is None else harness
    placeholder_file = placeholder_path() if placeholder is None else placeholder
    cap = limits().max_config_file_bytes
    digest = hashlib.sha256(DIGEST_DOMAIN)
    for name in HARNESS_SOURCES:
        digest.update(_frame(f"qualify/{name}", _read_regular(directory / name, cap)))
    digest.update(_frame(f"policy/{PLACEHOLDER_NAME}", _read_regular(placeholder_file, cap)))
    return digest.hexdigest()


def _json_object(data: bytes) -> dict[str, object]:
    try:
        value = strictjson.loads(data, max_depth=limits().max_nesting_depth)
    except strictjson.JsonRejected:
        raise HarnessUnavailable("HARNESS_MANIFEST_INVALID") from None
    if not isinstance(value, dict):
        raise HarnessUnavailable("HARNESS_MANIFEST_INVALID")
    return value


def pinned_package(harness: Path | None = None) -> tuple[str, str]:
    """The single dependency of qualify/package.json: (npm name, exact pinned version)."""
    directory = harness_dir() if harness is None else harness
    manifest = _json_object(
        _read_regular(directory / "package.json", limits().max_config_file_bytes)
    )
    dependencies = manifest.get("dependencies")
    if not isinstance(dependencies, dict) or len(dependencies) != 1:
        raise HarnessUnavailable("HARNESS_MANIFEST_INVALID")
    ((name, version),) = dependencies.items()
    if not isinstance(version, str) or not _PACKAGE_NAME.fullmatch(name):
        raise HarnessUnavailable("HARNESS_MANIFEST_INVALID")
    if not _EXACT_VERSION.fullmatch(version):
        raise HarnessUnavailable("HARNESS_PIN_NOT_EXACT")
    return name, version


def installed_pi_ai(harness: Path | None = None) -> PiAiIdentity:
    """The pinned package as installed in qualify/node_modules (its own package.json)."""
    directory = harness_dir() if harness is None else harness
    name, _pinned = pinned_package(directory)
    manifest_path = directory.joinpath("node_modules", *name.split("/"), "package.json")
    manifest = _json_object(_read_regular(manifest_path, limits().max_config_file_bytes))
    installed_name = manifest.get("name")
    version = manifest.get("version")
    if installed_name != name or not isinstance(version, str):
        raise HarnessUnavailable("PI_AI_NOT_INSTALLED")
    if not _EXACT_VERSION.fullmatch(version):
        raise HarnessUnavailable("PI_AI_NOT_INSTALLED")
    return PiAiIdentity(package=name, version=version)
