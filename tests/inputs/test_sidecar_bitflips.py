"""A bit flipped anywhere in a sidecar's page structure is refused or harmless, never a crash.

SQLite keeps no checksums: before the structure check, 23 of these 24 flips still gave a
byte-identical report; 23 are now refused (docs/security.md has the figures). Each flip of a
b-tree page's header or cell pointers is refused with a fixed code (SIDECAR_DAMAGED from
`PRAGMA quick_check`, or SIDECAR_SCHEMA when the schema itself no longer reads) or gives a
report; no flip raises anything else.
"""

from __future__ import annotations

import collections
import random
from pathlib import Path

import pytest

from clearing_analysis.codes.errors import InputInvalidDetail, InputInvalidError
from clearing_analysis.inputs.requests import AnalyzeRequest
from clearing_analysis.pipeline.jobs import analyze_job
from tests.synth.corpora import make_corpus

FLIPS = 24
HEADER_BYTES = 16  # a b-tree page's header (8 or 12 bytes) and its first cell pointers
BTREE_PAGE_TYPES = frozenset({2, 5, 10, 13})  # interior / leaf, index / table (file format)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small synthetic corpus: journals, sidecar and routes."""
    return make_corpus(tmp_path_factory, "build", 4)


def _analyze(corpus: Path, sidecar: Path) -> bytes:
    return analyze_job(
        AnalyzeRequest(
            journals=(corpus / "journals",),
            sidecar=sidecar,
            routes=corpus / "routes.json",
            workers=1,
        )
    ).data


def test_structural_bit_flips_are_refused_or_harmless(corpus: Path, tmp_path: Path) -> None:
    """24 seeded flips in b-tree page headers: each is SIDECAR_DAMAGED, SIDECAR_SCHEMA or a report;
    at least three in four are refused by the structure check."""
    data = (corpus / "history.sqlite").read_bytes()
    page_size = int.from_bytes(data[16:18], "big")
    # Pages after the first whose first byte names a b-tree page (overflow and free pages
    # hold content, not structure).
    btree = [
        page
        for page in range(1, len(data) // page_size)
        if data[page * page_size] in BTREE_PAGE_TYPES
    ]
    rng = random.Random(20)
    outcomes: collections.Counter[str] = collections.Counter()
    for flip in range(FLIPS):
        page = rng.choice(btree)
        position = page * page_size + rng.randrange(HEADER_BYTES)
        damaged = bytearray(data)
        damaged[position] ^= 1 << rng.randrange(8)
        sidecar = tmp_path / f"flip-{flip}" / "history.sqlite"
        sidecar.parent.mkdir()
        sidecar.write_bytes(bytes(damaged))
        try:
            _analyze(corpus, sidecar)
        except InputInvalidError as refused:
            assert refused.detail in {
                InputInvalidDetail.SIDECAR_DAMAGED,
                InputInvalidDetail.SIDECAR_SCHEMA,
            }
            outcomes[refused.detail.value] += 1
        else:
            outcomes["report"] += 1
    assert outcomes[InputInvalidDetail.SIDECAR_DAMAGED.value] >= FLIPS * 3 // 4, outcomes
