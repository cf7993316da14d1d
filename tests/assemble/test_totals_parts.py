"""The parts summed from the units' totals and the simulation's tables: eligibility, the
route check's histogram, the observed checkpoints and the all-APIs sums."""

from __future__ import annotations

from clearing_analysis.assemble.parts import (
    all_apis,
    compactions_part,
    eligibility_part,
    route_trigger_part,
)
from clearing_analysis.eligibility.reasons import EligibilityClass, ExclusionReason
from clearing_analysis.eligibility.totals import ApiTotals
from clearing_analysis.inputs.configs import Api
from clearing_analysis.models.route_check import TriggerCheck
from clearing_analysis.simulation.totals import (
    ApiSimulation,
    CategorySums,
    RequestSums,
    SimulationTotals,
)
from tests._figures import checkpoints_one


def test_eligibility_part_counts_occurrences_by_class_and_reason() -> None:
    """2 lower bound, 1 unproven identity (upper bound only) and 3 effectful built-ins
    (excluded): 6 occurrences, each reason and class counted."""
    totals = ApiTotals()
    totals.occurrences.add_counts(
        {None: 2, ExclusionReason.IDENTITY_UNPROVEN: 1, ExclusionReason.EFFECTFUL_BUILTIN: 3}
    )
    part = eligibility_part(totals)
    assert (part.exclusion_unit, part.occurrences) == ("result-boundary occurrence", 6)
    assert part.by_class == {
        EligibilityClass.LOWER_BOUND: 2,
        EligibilityClass.UPPER_BOUND_ONLY: 1,
        EligibilityClass.EXCLUDED: 3,
    }
    assert part.by_reason[ExclusionReason.IDENTITY_UNPROVEN] == 1
    assert part.by_reason[ExclusionReason.EFFECTFUL_BUILTIN] == 3
    assert sum(part.by_reason.values()) == 4


def _check() -> TriggerCheck:
    return TriggerCheck(
        compactions=3,
        below_band=1,
        below_trigger=0,
        beyond_overshoot=1,
        overshoot=5_000,
        tolerance=2_000,
        implied_at_least=205_000,
        implied_below=60_000,
    )


def test_route_trigger_part_buckets_threshold_checkpoints_as_percent_of_trigger() -> None:
    """Trigger 200,000: threshold checkpoints after a request at 60,000 (30%), 199,999
    (99%, rounded down) and 210,000 (105%) fall in the 25, 75 and 100 buckets; a manual
    checkpoint and one not after a request are left out; the check's counts pass through."""
    rows = zip(
        ["THRESHOLD", "THRESHOLD", "THRESHOLD", "MANUAL", "THRESHOLD"],
        [True, True, True, True, False],
        [60_000, 199_999, 210_000, 100_000, 10_000],
        strict=True,
    )
    checkpoints = checkpoints_one(
        {"trigger": trigger, "after_request": after, "tokens_before": before}
        for trigger, after, before in rows
    )
    assert checkpoints.threshold_tokens_before == [60_000, 199_999, 210_000]
    part = route_trigger_part(_check(), 200_000, checkpoints.threshold_tokens_before)
    histogram = part.tokens_before_percent_of_trigger
    assert histogram.edges == (0, 25, 50, 75, 100, 125, 150, 200, 400)
    assert histogram.counts == (0, 1, 0, 1, 1, 0, 0, 0, 0)
    assert (histogram.below, histogram.unknown) == (0, 0)
    assert (part.threshold_compactions, part.below_band, part.beyond_overshoot) == (3, 1, 1)
    assert (part.overshoot_tokens, part.tolerance_tokens) == (5_000, 2_000)
    assert (part.implied_trigger_at_least, part.implied_trigger_below) == (205_000, 60_000)


def _api(requests: int, web_bytes: int) -> ApiSimulation:
    sums = ApiSimulation(
        requests=RequestSums(requests=requests, input=10 * requests),
        web=CategorySums(results=1, text_bytes=web_bytes),
    )
    sums.boundary_span = requests
    return sums


def test_all_apis_adds_every_apis_sums() -> None:
    """3 and 4 requests over two APIs: 7 requests, 70 input tokens, 2 web results of
    100 + 50 bytes, a span of 7."""
    simulation = SimulationTotals(
        per_api={Api.ANTHROPIC_MESSAGES: _api(3, 100), Api.OPENAI_RESPONSES: _api(4, 50)},
        placeholder_tokens=0,
        what_ifs={},
    )
    every = all_apis(simulation)
    assert (every.requests.requests, every.requests.input, every.boundary_span) == (7, 70, 7)
    assert (every.web.results, every.web.text_bytes) == (2, 150)


def test_all_apis_leaves_each_api_as_it_was() -> None:
    """Adding up does not change the per-API sums it reads."""
    first = _api(3, 100)
    simulation = SimulationTotals(
        per_api={Api.ANTHROPIC_MESSAGES: first, Api.OPENAI_RESPONSES: _api(4, 50)},
        placeholder_tokens=0,
        what_ifs={},
    )
    all_apis(simulation)
    all_apis(simulation)
    assert (first.requests.requests, first.web.text_bytes) == (3, 100)


def test_compactions_part_counts_checkpoints_by_trigger_and_buckets_their_tokens() -> None:
    """Three checkpoints, two THRESHOLD and one MANUAL; 210,000 / 150,000 / 90,000 tokens
    before in the 200,000, 120,000 and 80,000 buckets; drains of 40,000 and an unknown one;
    summaries of 2,000, 1,000 and 999."""
    rows = zip(
        ["THRESHOLD", "MANUAL", "THRESHOLD"],
        [210_000, 150_000, 90_000],
        [40_000, 40_000, None],
        [2_000, 1_000, 999],
        strict=True,
    )
    checkpoints = checkpoints_one(
        {"trigger": trigger, "tokens_before": before, "tokens_after": after, "summary_tokens": s}
        for trigger, before, after, s in rows
    )
    part = compactions_part(checkpoints)
    assert (part.checkpoints, part.by_trigger) == (3, {"MANUAL": 1, "THRESHOLD": 2})
    assert part.tokens_before.counts == (0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0)
    assert (part.drains.counts[5], part.drains.unknown) == (2, 1)
    assert part.summary_tokens.counts[:3] == (1, 2, 0)
