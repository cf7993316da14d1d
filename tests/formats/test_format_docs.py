"""The format pages link only to files and headings that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.formats._schema import REPO

PAGES = sorted((REPO / "docs" / "formats").glob("*.md"))
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchors(page: Path) -> set[str]:
    """GitHub-style heading slugs of a page."""
    slugs = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            slugs.add(re.sub(r"\s", "-", re.sub(r"[^\w\s-]", "", title)))
    return slugs


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_links_resolve(page: Path) -> None:
    """Every relative link names an existing file, and every #anchor an existing heading."""
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if "://" in target:
            continue
        path_part, _, anchor = target.partition("#")
        linked = (page.parent / path_part).resolve() if path_part else page
        assert linked.exists(), target
        if anchor and linked.suffix == ".md":
            assert anchor in _anchors(linked), target


def test_every_format_page_is_indexed() -> None:
    """The formats README links every page of the directory."""
    index = (REPO / "docs" / "formats" / "README.md").read_text(encoding="utf-8")
    for page in PAGES:
        if page.name != "README.md":
            assert f"({page.name})" in index, page.name
