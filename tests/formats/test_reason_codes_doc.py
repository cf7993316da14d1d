"""docs/formats/reason-codes.md lists exactly the codes the source defines, both ways."""

from __future__ import annotations

import re
from enum import Enum

import pytest

from clearing_analysis.codes.errors import (
    AnalysisError,
    GloballyIncompleteError,
    SidecarNotOfflineDetail,
)
from clearing_analysis.inputs.configs import CONFIG_DETAILS
from clearing_analysis.inputs.sidecar import INVALID_DETAILS
from clearing_analysis.journal import InvalidReason, JournalOutcome
from tests.formats._schema import REPO

DOC = REPO / "docs" / "formats" / "reason-codes.md"
# skippedJournals codes decided after decoding (R-RP-2): the decoder cannot see them.
REPLAY_OUTCOMES = {"INTERRUPTED", "DUPLICATE"}


def documented() -> dict[str, list[str]]:
    """Codes in the first column of each table, keyed by the section heading."""
    sections: dict[str, list[str]] = {}
    heading = ""
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            heading = line[3:].strip()
        match = re.match(r"^\| `([A-Z0-9_]+)` \|", line)
        if match:
            sections.setdefault(heading, []).append(match.group(1))
    return sections


def _values(enum: type[Enum]) -> set[str]:
    return {member.value for member in enum}


@pytest.mark.parametrize(
    ("section", "expected"),
    [
        ("Journal outcomes", _values(JournalOutcome) | REPLAY_OUTCOMES),
        ("Journal INVALID details: decoder", _values(InvalidReason)),
        ("Configuration files", {detail.value for detail in CONFIG_DETAILS}),
        ("Sidecar", _values(SidecarNotOfflineDetail) | {d.value for d in INVALID_DETAILS}),
    ],
)
def test_section_equals_source(section: str, expected: set[str]) -> None:
    """Each table holds every code its enum defines, no other, each once."""
    codes = documented()[section]
    assert len(codes) == len(set(codes))
    assert set(codes) == expected


def test_replay_details_equal_source() -> None:
    """The replay table equals replay's BrokenReference enum (once replay is present)."""
    model = pytest.importorskip("clearing_analysis.replay.model")
    codes = documented()["Journal INVALID details: replay"]
    assert len(codes) == len(set(codes))
    assert set(codes) == _values(model.BrokenReference)


def _leaf_codes() -> set[str]:
    found: set[str] = set()
    stack: list[type[AnalysisError]] = [AnalysisError]
    while stack:
        cls = stack.pop()
        found.add(cls.code)
        stack.extend(cls.__subclasses__())
    return found


def test_top_level_codes() -> None:
    """Every documented top-level code exists, and every globally-incomplete code is listed."""
    codes = set(documented()["Top-level codes"])
    assert codes <= _leaf_codes()
    globally_incomplete = {c.code for c in GloballyIncompleteError.__subclasses__()}
    assert globally_incomplete <= codes
    assert {"INPUT_INVALID", "SIDECAR_NOT_OFFLINE", "SNAPSHOT_CHANGED", "NO_JOURNALS"} <= codes


def test_no_section_is_empty() -> None:
    """The parser finds every table (a renamed heading would silently drop a section)."""
    assert set(documented()) == {
        "Top-level codes",
        "Journal outcomes",
        "Journal INVALID details: decoder",
        "Journal INVALID details: replay",
        "Configuration files",
        "Sidecar",
    }
