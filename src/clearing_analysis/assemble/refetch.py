"""The observed re-fetch part from the combined simulation's tallies (R-RF-1).

The observed share is refetched / comparable with its Wilson score interval at the policy's
confidence (policy/refetch.json): the interval that stays inside [0, 1] and is not degenerate
at 0 or n successes, which matters here, where few re-fetches of few results are common.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from statistics import NormalDist

from clearing_analysis.assemble.parts import histogram
from clearing_analysis.inputs.configs import Api
from clearing_analysis.numbers import Rounded, rounded, share
from clearing_analysis.replay.arguments import refetch_policy
from clearing_analysis.report import model as rm
from clearing_analysis.simulation.refetch import RefetchSums, RefetchTally


def wilson_interval(successes: int, trials: int, confidence: float) -> tuple[float, float] | None:
    """The Wilson score interval of `successes` of `trials` at `confidence` (None: no trial)."""
    if trials == 0:
        return None
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / trials
    z2n = z * z / trials
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(p * (1 - p) / trials + z2n / (4 * trials)) / (1 + z2n)
    # At 0 or n successes the bound is exactly 0 or 1 (the float formula leaves a residue).
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def _interval(sums: RefetchSums) -> tuple[Rounded | None, Rounded | None]:
    found = wilson_interval(sums.refetched, sums.comparable, refetch_policy().interval_confidence)
    if found is None:
        return None, None
    return rounded(found[0]), rounded(found[1])


def population(sums: RefetchSums) -> rm.RefetchPopulation:
    """One population's part."""
    low, high = _interval(sums)
    return rm.RefetchPopulation(
        results=sums.results,
        comparable=sums.comparable,
        refetched=sums.refetched,
        refetched_after_write=sums.refetched_after_write,
        observed_share=share(sums.refetched, sums.comparable),
        interval_low=low,
        interval_high=high,
        distance_turns=histogram(sums.turn_distances),
        distance_tokens=histogram(sums.token_distances),
    )


def refetches_part(tallies: Mapping[Api, RefetchTally], apis: tuple[Api, ...]) -> rm.Refetches:
    """The part for `apis` (in their order), an empty tally for an API without one."""
    per_api = {}
    for api in apis:
        tally = tallies.get(api, RefetchTally())
        per_api[api] = rm.ApiRefetches(
            cleared=population(tally.cleared), all_results=population(tally.all_results)
        )
    return rm.Refetches(gating=False, per_api=per_api)


__all__ = ["population", "refetches_part", "wilson_interval"]
