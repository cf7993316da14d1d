"""No policy value is a literal in a renderer: every word that names one (the admitting
threshold, the simulation's byte budget, the default retrieval rate and the rates reported
beside it, the gate's cost limit, the pressure band's floor, the re-fetch interval's
confidence) is written from `clearing_analysis.policy` when the view is rendered
(report.text.labels), so a policy change shows in the terminal views and the page alike.

The checked-in policy gives the words every view has always printed; a copy of the policy with
other values, read through `policy_dir`, gives those values instead, in both report kinds.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from clearing_analysis import policy
from clearing_analysis.replay import arguments
from clearing_analysis.report import explore_model as em
from clearing_analysis.report import model as rm
from clearing_analysis.report.encode import decode_report
from clearing_analysis.report.formats import ReportFormat, render
from clearing_analysis.report.text import labels
from clearing_analysis.report.text.view import render_text
from tests.report._saved import GOLDEN_REPORT, explore_report_bytes

# Values unlike the checked-in ones, each in its policy file.
CHANGED = {
    "gate.json": {
        "admittedNetTokensPerBoundary": 30_000,
        "maxCostIncrease": 0.07,
        "retrievalSensitivities": [0, 0.1, 0.3],
        "defaultRetrievalRate": 0.1,
    },
    "simulation.json": {"conversationBudgetBytes": 16 * 1024 * 1024, "pressureLowFraction": 0.8},
    "refetch.json": {"intervalConfidence": 0.9},
}
# What the views print of the checked-in values, and must no longer print with the changed.
CHECKED_IN = (
    "admitting >= 20k",
    "8 MiB",
    "below 0.75 T",
    "0.75·T",
    "within 5%",
    "default 5% retrieval rate",
    "0%, 5%, 20%",
    "at 5% retrieval",
    "95% interval",
)


def _clear_policy_caches() -> None:
    """Forget every policy read so far (each is read once, functools.cache)."""
    for module in (policy, arguments):
        assert isinstance(module, ModuleType)
        for value in vars(module).values():
            clear = getattr(value, "cache_clear", None)
            if callable(clear):
                clear()


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> tuple[rm.Report, em.ExploreReport]:
    """The golden analysis report and an explore report, decoded under the checked-in policy."""
    analysis = decode_report(GOLDEN_REPORT.read_bytes())
    explored = decode_report(explore_report_bytes(tmp_path_factory.mktemp("explore")))
    assert isinstance(analysis, rm.Report)
    assert isinstance(explored, em.ExploreReport)
    return analysis, explored


@pytest.fixture
def changed_policy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The policy read from a copy with the CHANGED values, for the test's duration."""
    copy = tmp_path / "policy"
    shutil.copytree(policy.policy_dir(), copy)
    for name, values in CHANGED.items():
        path = copy / name
        path.write_text(json.dumps({**json.loads(path.read_text()), **values}))
    _clear_policy_caches()
    monkeypatch.setattr(policy, "policy_dir", lambda: copy)
    yield
    monkeypatch.undo()
    _clear_policy_caches()


def _flat(text: str) -> str:
    """A view's text with every run of whitespace one space (its lines wrap anywhere)."""
    return " ".join(text.split())


def _views(report: rm.Report | em.ExploreReport) -> tuple[str, str, str]:
    """The text view with its details, the page, and the page without its lists of codes with
    their meanings (`<dl>`: the meanings are `explain`'s, from clearing_analysis.codes)."""
    text = render_text(report, width=200, details=True)
    page = render(report, ReportFormat.HTML).decode("utf-8")
    return _flat(text), page, re.sub(r"<dl>.*?</dl>", "", page, flags=re.DOTALL)


def test_the_checked_in_policy_gives_the_words_the_views_print() -> None:
    """Each word, from the checked-in policy, as every view has printed it."""
    assert labels.admitting() == ">= 20k"
    assert labels.budget() == "8 MiB"
    assert labels.band_floor() == "0.75"
    assert labels.default_rate() == "5%"
    assert labels.reported_rates() == "0%, 5%, 20%"
    assert labels.cost_limit() == "5%"
    assert labels.interval_confidence() == "95%"


def test_the_analysis_views_follow_the_policy(
    reports: tuple[rm.Report, em.ExploreReport], changed_policy: None
) -> None:
    """An analysis report's details and page print the changed values, none of the old."""
    text, page, drawn = _views(reports[0])
    for wanted in (
        "3 admitting >= 30k",
        "cold pressured admitting >= 30k",
        "stopped by the 16 MiB budget",
        "below 0.8 T (trigger too high)",
        "within 7%",
        "90% interval",
        "The default 10% retrieval rate is pending lookup-pilot evidence: 0%, 10%, 30% and the"
        " supplied rate are all reported and cost-gated.",
    ):
        assert wanted in text, wanted
    for wanted in (
        "admitting &gt;= 30k",
        "0.8·T &lt;= E &lt; T",
        "(0%, 10%, 30% and the supplied rate)",
        "at 10% retrieval",
        "The default 10% retrieval rate is pending lookup-pilot evidence",
    ):
        assert wanted in page, wanted
    for old in CHECKED_IN:
        assert old not in text, old
        assert old.replace(">", "&gt;") not in drawn, old


def test_the_explore_views_follow_the_policy(
    reports: tuple[rm.Report, em.ExploreReport], changed_policy: None
) -> None:
    """An explore report's details and page print the changed values, none of the old."""
    text, page, drawn = _views(reports[1])
    for wanted in (
        "cold pressured boundaries admitting >= 30k",
        "stopped by the 16 MiB budget",
        "below 0.8 T (trigger too high)",
        "The default 10% retrieval rate is pending lookup-pilot evidence: 0%, 10%, 30% and the"
        " supplied rate are all reported.",
    ):
        assert wanted in text, wanted
    for wanted in ("0.8·T &lt;= E &lt; T", "The default 10% retrieval rate is pending"):
        assert wanted in page, wanted
    for old in CHECKED_IN:
        assert old not in text, old
        assert old.replace(">", "&gt;") not in drawn, old


def test_the_caches_are_the_checked_in_policy_again() -> None:
    """After the tests above, the words are the checked-in ones (no policy copy leaks)."""
    assert labels.admitting() == ">= 20k"
    assert labels.default_rate() == "5%"
