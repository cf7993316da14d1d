"""The image a run happened in, when the container runtime states it (docs/container.md).

podman writes `/run/.containerenv` into a container; with `--privileged` it holds `key="value"`
lines, among them `imageid="<64 hex>"`, the ID of the image the container runs. A sealed run
(no capabilities, read-only root) gets an empty file or none, so its report says null: the
pinned digest a CI job pulls, or a signed attestation, binds a report to its image there.
Only a well-formed image ID is taken; nothing else of the file (engine, container name and
id, image name, which may name a registry) is ever read into a report.
"""

from __future__ import annotations

import re
from pathlib import Path

from clearing_analysis.policy import limits

CONTAINERENV = Path("/run/.containerenv")
_IMAGE_ID = re.compile(rb'^imageid="([0-9a-f]{64})"$', re.MULTILINE)


def stated_image_id(path: Path = CONTAINERENV) -> str | None:
    """The image ID the runtime states in `path`, or None (no file, unreadable, too large,
    no such line, or more than one)."""
    cap = limits().max_config_file_bytes
    try:
        with path.open("rb") as stream:
            data = stream.read(cap + 1)
    except OSError:
        return None
    if len(data) > cap:
        return None
    found = _IMAGE_ID.findall(data)
    return found[0].decode("ascii") if len(found) == 1 else None


__all__ = ["CONTAINERENV", "stated_image_id"]
