"""How the units' simulations combine into the sums and figures the report reads.

Each unit sends a `UnitSimulation` (`simulation.unit`): per API its sums and the fixed-size
figures of its boundary, cleared-result and checkpoint rows (`simulation.figures`), and its
usage sums with journal ordinals local to the unit. `Combiner` adds them in unit order,
shifting each unit's journal ordinals past the previous units' so that the usage tables keep
one row per journal; the combined figures are those of one simulation over the whole snapshot
(R-PERF-3: the same report for any number of workers), and what is held does not grow with
the number of boundaries (R-PERF-1).
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from clearing_analysis.inputs.configs import Api
from clearing_analysis.policy import WhatIfId
from clearing_analysis.simulation.refetch import RefetchTally
from clearing_analysis.simulation.unit import (
    ApiSimulation,
    CategorySums,
    RequestSums,
    UnitSimulation,
    UsageKey,
)
from clearing_analysis.simulation.what_if import PolicySums


class SimulationTotals(msgspec.Struct):
    """A simulation reduced for the report: per-API sums and figures."""

    per_api: dict[Api, ApiSimulation]
    placeholder_tokens: int
    what_ifs: dict[WhatIfId, dict[Api, PolicySums]]  # informational (docs/model.md, section 9)
    # Request sums by (API value, journal ordinal, UTC day, catalog model id): the usage
    # tables of `--by`; journal ordinals shifted past the previous units' (`Combiner.add`).
    usage: dict[UsageKey, RequestSums] = msgspec.field(default_factory=dict)
    # Observed re-fetches per API (simulation.refetch, R-RF-1): informational.
    refetches: dict[Api, RefetchTally] = msgspec.field(default_factory=dict)


class Combiner:
    """Units' simulations added one at a time, in order, as they arrive: only the sums are
    held, never a unit's."""

    def __init__(self, apis: Iterable[Api], *, usage: bool = True) -> None:
        """`usage`: keep the units' usage by journal, day and model (the tables of `--by`,
        one row per journal); without it the result's `usage` is empty."""
        apis = tuple(apis)
        self._keep_usage = usage
        self._per_api = {api: ApiSimulation() for api in apis}
        self._what_ifs = {policy: {api: PolicySums() for api in apis} for policy in WhatIfId}
        self._usage: dict[UsageKey, RequestSums] = {}
        self._refetches = {api: RefetchTally() for api in apis}
        self._journals = 0  # the previous units' journals: the next unit's ordinals start here
        self._finished = False

    def add(self, part: UnitSimulation) -> None:
        """Add the next unit's sums and figures."""
        if self._finished:
            raise RuntimeError("a combiner's result was taken: nothing more can be added")
        for api, sums in part.per_api.items():
            self._per_api[api].add(sums)
        if self._keep_usage:
            for (api_value, journal, day, model), usage in part.usage.items():
                key = (api_value, journal + self._journals, day, model)
                self._usage.setdefault(key, RequestSums()).add(usage)
        for api, tally in part.refetches.items():
            self._refetches[api].add(tally)
        for policy, per_api in part.what_ifs.items():
            for api, policy_sums in per_api.items():
                self._what_ifs[policy][api].add(policy_sums)
        self._journals += part.journals

    def result(self, placeholder: int) -> SimulationTotals:
        """The combined sums (the combiner is finished: nothing may be added after)."""
        self._finished = True
        return SimulationTotals(
            per_api=self._per_api,
            placeholder_tokens=placeholder,
            what_ifs=self._what_ifs,
            usage=self._usage,
            refetches=self._refetches,
        )


def combine(
    parts: Iterable[UnitSimulation], apis: Iterable[Api], placeholder: int
) -> SimulationTotals:
    """The parts in order: sums and figures added, journal ordinals shifted."""
    combiner = Combiner(apis)
    for part in parts:
        combiner.add(part)
    return combiner.result(placeholder)


__all__ = [
    "ApiSimulation",
    "CategorySums",
    "Combiner",
    "RequestSums",
    "SimulationTotals",
    "UsageKey",
    "combine",
]
