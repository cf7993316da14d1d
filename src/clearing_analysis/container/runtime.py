"""The image a run happened in, when the container runtime states it (docs/container.md).

podman writes `/run/.containerenv` into a container; with `--privileged` (and a writable root:
`--read-only` leaves no such file, measured with podman 4.3.1) it holds `key="value"` lines,
among them `imageid="<64 hex>"`, the ID of the image the container runs, and `image="<the
reference it was started from>"`, which ends in `@sha256:<64 hex>` when that reference was a
digest. A sealed run (no capabilities, read-only root) gets an empty file or none, so its
report says null: the pinned digest a CI job pulls, or a signed attestation, binds a report to
its image there. Only a well-formed image ID and, for a signed run's attestation, the digest
part of a digest reference are taken; nothing else of the file (engine, container name and id,
the image's name, which may name a registry) is ever read into a report or an attestation.
"""

from __future__ import annotations

import re
from pathlib import Path

import msgspec

from clearing_analysis.policy import limits

CONTAINERENV = Path("/run/.containerenv")
_IMAGE_ID = re.compile(rb'^imageid="([0-9a-f]{64})"$', re.MULTILINE)
# Only the digest is captured: the name before the `@` is never kept.
_IMAGE_DIGEST = re.compile(rb'^image="[^"\n]*@(sha256:[0-9a-f]{64})"$', re.MULTILINE)
_IMAGE_LINE = re.compile(rb"^image=", re.MULTILINE)


class StatedImage(msgspec.Struct, frozen=True):
    """What the runtime states about the image: its ID and, when the container was started
    from a digest reference, that digest (`sha256:<64 hex>`); None where it states nothing."""

    image_id: str | None
    image_digest: str | None


def stated_image(path: Path = CONTAINERENV) -> StatedImage:
    """The image ID and digest the runtime states in `path`, each None when not stated (no
    file, unreadable, too large, no such line, more than one). A digest is taken only beside
    a stated image ID, from the file's one `image=` line."""
    cap = limits().max_config_file_bytes
    try:
        with path.open("rb") as stream:
            data = stream.read(cap + 1)
    except OSError:
        return StatedImage(None, None)
    if len(data) > cap:
        return StatedImage(None, None)
    ids = _IMAGE_ID.findall(data)
    if len(ids) != 1:
        return StatedImage(None, None)
    digests = _IMAGE_DIGEST.findall(data)
    digest = digests[0] if len(digests) == 1 and len(_IMAGE_LINE.findall(data)) == 1 else None
    return StatedImage(ids[0].decode("ascii"), None if digest is None else digest.decode("ascii"))


def stated_image_id(path: Path = CONTAINERENV) -> str | None:
    """The image ID the runtime states in `path`, or None (see `stated_image`)."""
    return stated_image(path).image_id


__all__ = ["CONTAINERENV", "StatedImage", "stated_image", "stated_image_id"]
