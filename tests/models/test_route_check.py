"""The route's trigger against observed threshold compactions (docs/model.md, "The route's
trigger against observed compactions"): the rule by hand, its evidence from the tables, and the
report's limitation on a hand-built corpus."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from clearing_analysis.inputs.requests import AnalyzeRequest
from clearing_analysis.models.route_check import check_trigger
from clearing_analysis.pipeline.jobs import analyze_job
from clearing_analysis.report.model import ApiLimitation, ApiReport
from clearing_analysis.report.text.view import render_text
from clearing_analysis.simulation.growth import trigger_evidence
from tests._seed_route import SEED_ROUTE
from tests.replay.builder import SidecarBuilder
from tests.simulation.scenario import Conversation


def test_consistent_compactions_imply_the_trigger() -> None:
    """T = 200,000, overshoot 30,000: compactions at 201,000 and 229,000 are consistent, and
    imply a trigger in [229,000 - 30,000, 201,000) = [199,000, 201,000)."""
    check = check_trigger(200_000, [201_000, 229_000], 30_000)
    assert (check.below_band, check.beyond_overshoot, check.contradicted) == (0, 0, False)
    assert (check.implied_at_least, check.implied_below) == (199_000, 201_000)


def test_compactions_well_below_the_trigger_contradict_it() -> None:
    """The catalog's 983,616-token trigger against compactions at 120,000-200,000: every one is
    below 0.75 T = 737,712, so the route's trigger is too high."""
    check = check_trigger(983_616, [120_000, 160_000, 200_000], 40_000)
    assert (check.compactions, check.below_band, check.beyond_overshoot) == (3, 3, 0)
    assert check.contradicted


def test_the_tolerance_and_the_overshoot_are_exact_edges() -> None:
    """T - 2% of T itself and T + overshoot itself are consistent; one token beyond is not,
    and below 0.75 T is the band's count, not the tolerance's."""
    check = check_trigger(200_000, [196_000, 230_000], 30_000)
    assert (check.contradicted, check.tolerance) == (False, 4_000)
    assert check_trigger(200_000, [195_999], 30_000).below_trigger == 1
    assert check_trigger(200_000, [150_000], 30_000).below_trigger == 1
    assert check_trigger(200_000, [149_999], 30_000).below_band == 1
    assert check_trigger(200_000, [149_999], 30_000).below_trigger == 0
    assert check_trigger(200_000, [230_001], 30_000).beyond_overshoot == 1
    assert check_trigger(200_000, [], 30_000).implied_below is None


def test_a_trigger_above_the_implied_range_beyond_the_tolerance_is_flagged() -> None:
    """pi-mono's before-compaction.jsonl under `routes init`'s T = 183,616 (claude-sonnet-4-5):
    compactions at 175,004 and 185,014 with an overshoot of 52,116 imply a trigger in
    [132,898, 175,004). 175,004 is above the band's floor (137,712) but T lies 8,612 above it,
    more than the tolerance of 3,672 (2% of T): contradicted. Before, only the floor decided
    and the route passed. The OpenClaw session that compacted at 180,158 under that same T
    (its 20,000-token reserve against pi's 16,384) lies within the tolerance."""
    check = check_trigger(183_616, [175_004, 185_014], 52_116)
    assert (check.implied_at_least, check.implied_below) == (132_898, 175_004)
    assert (check.below_band, check.below_trigger, check.beyond_overshoot) == (0, 1, 0)
    assert (check.tolerance, check.contradicted) == (3_672, True)
    assert check_trigger(183_616, [180_158], 52_116).contradicted is False


def _tables() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    boundaries = pl.DataFrame(
        {
            "journal": [0, 0, 0, 0, 1, 1],
            "turn": [0, 1, 2, 4, 0, 1],
            "estimate": [10_000, 60_000, 15_000, 400_000, 5_000, 25_000],
            "usage_based": [True, True, True, True, True, True],
        }
    )
    # A checkpoint before turn 2 of journal 0 (60,000 -> 15,000 is not growth), a threshold one
    # after a request, one right after it (no request between) and an overflow one.
    checkpoints = pl.DataFrame(
        {
            "journal": [0, 0, 0, 1],
            "before_turn": [2, 2, 4, 1],
            "tokens_before": [190_000, 1_000, 250_000, 210_000],
            "trigger": ["THRESHOLD", "THRESHOLD", "OVERFLOW", "THRESHOLD"],
            "after_request": [True, False, True, True],
        }
    )
    return boundaries, checkpoints, checkpoints


def test_evidence_takes_adjacent_uncut_growth_and_threshold_compactions_after_a_request() -> None:
    """Overshoot: 0 -> 1 in journal 0 grows 50,000; 1 -> 2 is cut by a checkpoint; 2 -> 4 is
    not adjacent; journal 1's 0 -> 1 is cut. Only the threshold compactions after a request.
    A pair whose earlier E is heuristic only does not count."""
    boundaries, checkpoints, observed = _tables()
    tokens, overshoot = trigger_evidence(boundaries, checkpoints, observed)
    assert overshoot == 50_000
    assert sorted(tokens) == [190_000, 210_000]
    heuristic_first = boundaries.with_columns(pl.Series("usage_based", [False, *[True] * 5]))
    assert trigger_evidence(heuristic_first, checkpoints, observed)[1] == 0


def _corpus(root: Path, trigger: int, compaction: str = "threshold") -> dict[str, Path]:
    """One conversation with a checkpoint at 190,000 tokens (tests/simulation's
    `Conversation.checkpoint`, of trigger `compaction`) after ten turns, under a route with
    trigger `trigger`."""
    c = Conversation()
    for index in range(6):
        c.turn(f"t{index}", reads=[400], e_next=100_000 + 15_000 * index)
    c.checkpoint(trigger=compaction)
    for index in range(6, 9):
        c.turn(f"t{index}", e_next=60_000)
    journals = root / "journals"
    journals.mkdir(parents=True)
    c.builder.close()
    c.builder.write(journals, "000.jsonl")
    sidecar = SidecarBuilder(root / "history.sqlite", capture_enabled=(c.physical,))
    for identity, text in c.retained:
        sidecar.retain(identity, text)
    sidecar.finish()
    routes = root / "routes.json"
    routes.write_text(json.dumps([{**SEED_ROUTE, "triggerTokens": trigger}]))
    return {"journals": journals, "sidecar": root / "history.sqlite", "routes": routes}


def _api_report(paths: dict[str, Path]) -> ApiReport:
    job = analyze_job(
        AnalyzeRequest(
            journals=(paths["journals"],), sidecar=paths["sidecar"], routes=paths["routes"]
        )
    )
    (report,) = job.report.per_api.values()
    return report


def test_analyze_states_the_contradiction_beside_the_verdict(tmp_path: Path) -> None:
    """A compaction at 190,000 tokens: consistent with T = 180,000 (largest growth between
    adjacent boundaries 15,000, so up to 195,000), too high a trigger at T = 983,616 (below
    0.75 T), too low at T = 100,000 (beyond 115,000). The gate does not change with it."""
    fits = _api_report(_corpus(tmp_path / "fits", 180_000))
    assert fits.limitations == ()
    assert (fits.route_trigger.threshold_compactions, fits.route_trigger.overshoot_tokens) == (
        1,
        15_000,
    )
    assert fits.route_trigger.tokens_before_percent_of_trigger.counts[4] == 1  # 105%
    high = _api_report(_corpus(tmp_path / "high", 983_616))
    assert high.limitations == (ApiLimitation.ROUTE_TRIGGER_CONTRADICTED,)
    assert (high.route_trigger.below_band, high.route_trigger.beyond_overshoot) == (1, 0)
    low = _api_report(_corpus(tmp_path / "low", 100_000))
    assert low.limitations == (ApiLimitation.ROUTE_TRIGGER_CONTRADICTED,)
    assert (low.route_trigger.below_band, low.route_trigger.beyond_overshoot) == (0, 1)
    assert (
        low.route_trigger.implied_trigger_at_least,
        low.route_trigger.implied_trigger_below,
    ) == (
        175_000,
        190_000,
    )


def test_manual_compactions_never_contradict_the_trigger(tmp_path: Path) -> None:
    """A manual compaction (a user's /compact; Claude Code's compact_boundary with trigger
    manual) fires wherever the user asks, so it says nothing about T: the route check reads
    threshold compactions only, and the same compaction that contradicts T = 983,616 as a
    threshold one is not counted as a manual one."""
    manual = _api_report(_corpus(tmp_path / "manual", 983_616, compaction="manual"))
    assert manual.limitations == ()
    assert manual.route_trigger.threshold_compactions == 0
    threshold = _api_report(_corpus(tmp_path / "threshold", 983_616))
    assert threshold.limitations == (ApiLimitation.ROUTE_TRIGGER_CONTRADICTED,)


def test_the_summary_states_the_contradiction_on_the_verdict_line(tmp_path: Path) -> None:
    """The one-screen summary names the limitation beside the API's verdict, with the trigger
    range the compactions imply; a consistent route shows none."""
    paths = _corpus(tmp_path / "low", 100_000)
    job = analyze_job(
        AnalyzeRequest(
            journals=(paths["journals"],), sidecar=paths["sidecar"], routes=paths["routes"]
        )
    )
    text = " ".join(render_text(job.report).split())
    assert (
        "limitations ROUTE_TRIGGER_CONTRADICTED (compactions imply a trigger from 175,000 to"
        " below 190,000)" in text
    )
    fits = _corpus(tmp_path / "fits", 180_000)
    job = analyze_job(
        AnalyzeRequest(journals=(fits["journals"],), sidecar=fits["sidecar"], routes=fits["routes"])
    )
    assert "ROUTE_TRIGGER_CONTRADICTED" not in render_text(job.report)


def test_an_unknown_cache_lifetime_is_stated(tmp_path: Path) -> None:
    """cacheLifetimeMs "unknown": no gap can be cold, and the report says so per API; the
    summary says it on the verdict line that shows COLD_EVIDENCE_LOW, with what to do."""
    paths = _corpus(tmp_path / "c", 180_000)
    route = json.loads(paths["routes"].read_text())
    paths["routes"].write_text(json.dumps([{**route[0], "cacheLifetimeMs": "unknown"}]))
    job = analyze_job(
        AnalyzeRequest(
            journals=(paths["journals"],), sidecar=paths["sidecar"], routes=paths["routes"]
        )
    )
    (report,) = job.report.per_api.values()
    assert report.limitations == (ApiLimitation.CACHE_LIFETIME_UNKNOWN,)
    text = " ".join(render_text(job.report).split())
    assert "COLD_EVIDENCE_LOW" in text
    assert (
        "limitations CACHE_LIFETIME_UNKNOWN (no gap can be cold: set cacheLifetimeMs from the"
        " provider's docs)" in text
    )
