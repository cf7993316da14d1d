#!/usr/bin/env python3
"""Run the shell blocks of README.md and of every docs/*.md page as written, in order.

CI runs this in its sealed smoke phase (tools/container/smoke.sh), after `make image`: every
```sh block of each page, in page order, in one bash process per page (`set -euo pipefail`,
so the first failing command fails the run), the README's starting in the checkout (its
install step runs there; its examples then `cd` into scratch directories of their own),
every other page's in a new scratch directory of its own. The pages are found, not listed:
README.md and each docs/*.md holding a ```sh fence, so a new page is never left out. A block
right after a line `<!-- doc-test: skip (REASON) -->` is not run; the reason is printed, and a
marker without a reason fails the run. Nothing else is changed in
what the blocks say: they run with the host's podman and without CONTAINERS_CONF, exactly as
a reader copying them would (the build scripts' containers.conf is theirs alone).

The environment differs from a reader's in three ways only, none of which a block can see:
- TMPDIR and HOME are directories of this run (removed at the end), so `mktemp -d` and
  `pipx install` leave nothing behind;
- with PODMAN_ROOT set (.ci/run builds into a throw-away storage), `podman` on PATH is a
  wrapper adding `--root`/`--runroot` for that storage, for podman-compose too;
- CHECKOUT names the checkout and PATH starts with its .venv/bin, as the README's install step
  exports them for the later pages (each page runs in a bash process of its own).
Prints `doc_blocks_<page>_seconds=...` and `doc_blocks=pass`; exits non-zero on a failure.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SKIP = re.compile(r"^<!-- doc-test: skip \((.*)\) -->$")
FENCE = "```sh"


def pages(repo: Path = REPO) -> tuple[str, ...]:
    """README.md, then each docs/*.md in name order, of those holding a ```sh fence."""
    candidates = [repo / "README.md", *sorted((repo / "docs").glob("*.md"))]
    return tuple(
        page.relative_to(repo).as_posix()
        for page in candidates
        if page.is_file()
        and any(line.strip() == FENCE for line in page.read_text(encoding="utf-8").splitlines())
    )


PAGES = pages()
HOST_CA = Path("/etc/ssl/certs/ca-certificates.crt")


def shell_blocks(page: Path) -> list[tuple[int, str, str | None]]:
    """Each ```sh block of `page`: its first line number, its text and a skip reason."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[tuple[int, str, str | None]] = []
    index = 0
    while index < len(lines):
        if lines[index].strip() == FENCE:
            start = index + 1
            end = lines.index("```", start)
            before = lines[index - 1].strip() if index else ""
            marker = SKIP.match(before)
            if before.startswith("<!-- doc-test:") and not (marker and marker.group(1).strip()):
                where = f"{page.name}:{start}"
                raise ValueError(f"{where}: a doc-test marker must say why: skip (REASON)")
            found.append((start + 1, "\n".join(lines[start:end]), marker and marker.group(1)))
            index = end
        index += 1
    return found


def script(page: str, blocks: list[tuple[int, str, str | None]]) -> str:
    """One bash script running the page's blocks in order, each announced by its line."""
    parts = ["set -euo pipefail"]
    for line, text, skip in blocks:
        if skip is not None:
            parts.append("echo " + shlex.quote(f"doc-test: {page}:{line} not run: {skip}"))
            continue
        parts.append("echo " + shlex.quote(f"doc-test: {page}:{line}"))
        parts.append(text)
    return "\n".join(parts) + "\n"


def _podman_wrapper(bin_dir: Path) -> None:
    """`podman` on PATH, using PODMAN_ROOT's storage (see the module docstring)."""
    root = os.environ.get("PODMAN_ROOT")
    if not root:
        return
    real = shutil.which("podman")
    if real is None:
        raise SystemExit("doc_blocks.py: podman is not installed")
    wrapper = bin_dir / "podman"
    wrapper.write_text(
        f'#!/bin/sh\nexec {real} --root "{root}/root" --runroot "{root}/run" "$@"\n',
        encoding="utf-8",
    )
    wrapper.chmod(0o755)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="clearing-doc-blocks-") as work:
        root = Path(work)
        for name in ("bin", "home", "tmp", "scratch"):
            (root / name).mkdir()
        _podman_wrapper(root / "bin")
        env = {k: v for k, v in os.environ.items() if k != "CONTAINERS_CONF"}
        env.update(
            PATH=f"{root / 'bin'}:{REPO / '.venv' / 'bin'}:{env.get('PATH', '')}",
            HOME=str(root / "home"),
            TMPDIR=str(root / "tmp"),
            CHECKOUT=str(REPO),
        )
        if HOST_CA.is_file():  # downloads trust the host's bundle (an intercepting proxy here)
            env.setdefault("PIP_CERT", str(HOST_CA))
        for page in PAGES:
            blocks = shell_blocks(REPO / page)
            start = REPO if page == "README.md" else root / "scratch" / Path(page).stem
            start.mkdir(exist_ok=True)
            began = time.monotonic()
            done = subprocess.run(
                ["bash", "-c", script(page, blocks)], cwd=start, env=env, check=False
            )
            elapsed = time.monotonic() - began
            if done.returncode != 0:
                print(f"doc_blocks.py: FAIL {page} exited {done.returncode}", file=sys.stderr)
                return 1
            print(f"doc_blocks_{Path(page).stem}_seconds={elapsed:.1f}")
    print("doc_blocks=pass")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
