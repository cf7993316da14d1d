"""Fetch the packages pinned in tools/container/node/package-lock.json, verified (R-CT-1).

Runs inside the image build with the base's own python3 (stdlib only), before any Node or npm
exists in the image: it is how the pinned Node runtime and npm get there. For each direct
dependency of the lock it downloads the `resolved` tarball, checks it against the lock's
`integrity` (SRI sha512) and unpacks its `package/` tree into DEST/<name>. Anything unexpected
(another URL scheme, a missing or different hash, a link, device or path escaping the tree in
the tarball) stops the build. File modes are normalized so the result depends only on the lock.

Usage: python3 fetch_locked_npm.py LOCKFILE DEST
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import pathlib
import posixpath
import sys
import tarfile

# The image build's downloader, never imported by the analyzer (R-SC-4 concerns the product).
import urllib.request  # noqa: TID251

PREFIX = "package/"


def _verified(url: str, integrity: str) -> bytes:
    algorithm, _, expected = integrity.partition("-")
    if algorithm != "sha512" or not url.startswith("https://"):
        raise SystemExit("fetch_locked_npm: lock entry must be https with sha512 integrity")
    with urllib.request.urlopen(url, timeout=120) as response:  # noqa: S310, TID251 (https)
        data: bytes = response.read()
    if base64.b64encode(hashlib.sha512(data).digest()).decode("ascii") != expected:
        raise SystemExit("fetch_locked_npm: integrity mismatch")
    return data


def _unpack(data: bytes, target: pathlib.Path) -> None:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        for member in archive.getmembers():
            name = posixpath.normpath(member.name)
            if (
                not (name + "/").startswith(PREFIX)
                or name.startswith("/")
                or ".." in name.split("/")
            ):
                raise SystemExit("fetch_locked_npm: unexpected member path")
            relative = name[len(PREFIX) :] if name != "package" else ""
            path = target / relative
            if member.isdir():
                path.mkdir(parents=True, exist_ok=True)
            elif member.isfile():
                path.parent.mkdir(parents=True, exist_ok=True)
                source = archive.extractfile(member)
                assert source is not None
                path.write_bytes(source.read())
                path.chmod(0o755 if member.mode & 0o111 else 0o644)
            else:
                raise SystemExit("fetch_locked_npm: links and special files are refused")


def main(lockfile: str, dest: str) -> None:
    """Fetch and unpack every direct dependency named in the lock."""
    lock = json.loads(pathlib.Path(lockfile).read_text(encoding="utf-8"))
    direct = lock["packages"][""]["dependencies"]
    for name in sorted(direct):
        entry = lock["packages"][f"node_modules/{name}"]
        if entry["version"] != direct[name]:
            raise SystemExit("fetch_locked_npm: lock does not match package.json")
        _unpack(_verified(entry["resolved"], entry["integrity"]), pathlib.Path(dest) / name)


if __name__ == "__main__":
    main(*sys.argv[1:3])
