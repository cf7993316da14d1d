"""Every seed and every kept reproducer of the fuzz targets passes its target (no atheris
needed): the crash classes stay fixed, and a seed that stopped being valid input is noticed."""

from __future__ import annotations

from pathlib import Path

import pytest
from fuzz.targets import TARGETS

ROOT = Path(__file__).resolve().parents[2]
INPUTS = sorted(
    (target, path)
    for target in TARGETS
    for part in ("corpus", "regressions")
    for path in (ROOT / "fuzz" / part / target).glob("*")
)


@pytest.mark.parametrize(("target", "path"), INPUTS, ids=lambda v: getattr(v, "name", v))
def test_input_gives_a_fixed_outcome(target: str, path: Path) -> None:
    """The target answers with one of its parser's fixed outcomes."""
    TARGETS[target].run(path.read_bytes())


def test_every_target_has_seeds_and_the_crash_classes_are_kept() -> None:
    """Each target has a seed corpus; every crash class's reproducers are all there."""
    for target in TARGETS:
        assert any((ROOT / "fuzz" / "corpus" / target).iterdir()), target
    kept = {path.parent.name for _, path in INPUTS if "regressions" in path.parts}
    assert {"journal", "pisession", "report", "show_html"} <= kept
    names = {path.name for _, path in INPUTS if path.parent.name == "report"}
    reproducers = ("nan", "infinity", "counts-beyond-edges", "401-digit-integer")
    later = ("cost-without-rates", "cold-estimates-other-edges", "cold-estimates-beyond-all")
    for reproducer in (*reproducers, *later):
        assert f"analysis-{reproducer}.json" in names
        assert f"explore-{reproducer}.json" in names
    # The pages that crashed `show --html`: kept for both targets that render one.
    pages = {path.name for _, path in INPUTS if path.parent.name == "show_html"}
    for reproducer in ("what-if-ratio-1e308", "cost-rate-1e308", "no-tool-results"):
        for kind in ("analysis", "explore"):
            assert f"{kind}-{reproducer}.json" in names & pages
