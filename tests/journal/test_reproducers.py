"""No single journal line can end the run (R-REL-4): the fast path's failures are the strict
path's to decide.

The reproducers in fuzz/regressions/journal (a line of objects nested 1,000 deep; the
JSONTestSuite's n_structure_open_array_object as a tool call's arguments; deep arguments)
used to raise RecursionError out of the typed decoding. Each is now its journal's INVALID
outcome with a fixed detail, and the next journal decodes as before. A line whose decoding runs
out of memory (MemoryError) is tested with every other caller of the strict parse, in
tests/test_strictjson.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from clearing_analysis.journal import InvalidReason, JournalOutcome, RejectedJournal, decode_bytes
from clearing_analysis.journal.decode import _fast
from clearing_analysis.policy import limits
from tests.journal._build import valid

ROOT = Path(__file__).resolve().parents[2]
REPRODUCERS = sorted((ROOT / "fuzz" / "regressions" / "journal").glob("*.jsonl"))


@pytest.mark.parametrize("path", REPRODUCERS, ids=lambda p: p.name)
def test_reproducer_is_invalid_nesting_too_deep(path: Path) -> None:
    """Each reproducer is INVALID / NESTING_TOO_DEEP, as the strict path says."""
    assert decode_bytes(path.read_bytes()) == RejectedJournal(
        JournalOutcome.INVALID, InvalidReason.NESTING_TOO_DEEP
    )


# Reproducers whose first line (the header) is the deep one: the one reader of journal headers
# decides them (tests/journal/test_header.py); the others nest a later line.
DEEP_HEADERS = {"deep-first-line.jsonl", "deep-header.jsonl"}


@pytest.mark.parametrize(
    "path", [p for p in REPRODUCERS if p.name not in DEEP_HEADERS], ids=lambda p: p.name
)
def test_fast_path_declines_every_line(path: Path) -> None:
    """The fast path vouches for the header and declines the deep line, without raising."""
    header, deep = path.read_bytes().splitlines()
    assert _fast(header, limits().max_nesting_depth) is not None
    assert _fast(deep, limits().max_nesting_depth) is None


@pytest.mark.parametrize("name", sorted(DEEP_HEADERS))
def test_fast_path_declines_a_deep_header(name: str) -> None:
    """A header nested past the limit is declined by the fast path too, without raising."""
    first = (REPRODUCERS[0].parent / name).read_bytes().splitlines()[0]
    assert _fast(first, limits().max_nesting_depth) is None


def test_nested_arrays_alone_stay_nesting_too_deep() -> None:
    """Deep arrays, which never reached the typed decoder's recursion, keep their outcome."""
    line = b"[" * 1000 + b"]" * 1000
    result = decode_bytes(valid().replace(b"\n", b"\n" + line + b"\n", 1))
    assert result == RejectedJournal(JournalOutcome.INVALID, InvalidReason.NESTING_TOO_DEEP)
