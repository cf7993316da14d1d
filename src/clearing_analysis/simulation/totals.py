"""How the units' simulations combine into the tables and sums the report reads.

Each unit sends a `UnitSimulation` (`simulation.unit`): the boundary, cleared-result and
(in-window) checkpoint columns with ordinal keys local to the unit, and per-API sums. `combine`
concatenates the columns in unit order, shifting each unit's ordinals past the previous units'
so that keys stay distinct, builds one polars table of each kind, and adds the sums, so the
combined figures are those of one simulation over the whole snapshot (R-PERF-3: the same
report for any number of workers).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import polars as pl

from clearing_analysis.inputs.configs import Api
from clearing_analysis.policy import WhatIfId
from clearing_analysis.simulation.clearing import BOUNDARY_COLUMNS, CLEARED_COLUMNS, INTS, OTHER
from clearing_analysis.simulation.refetch import RefetchTally
from clearing_analysis.simulation.run import (
    BOUNDARY_SCHEMA,
    CHECKPOINT_SCHEMA,
    CLEARED_SCHEMA,
    frame,
)
from clearing_analysis.simulation.unit import (
    CHECKPOINT_COLUMNS,
    ApiSimulation,
    CategorySums,
    Column,
    RequestSums,
    TableColumns,
    UnitSimulation,
    UsageKey,
)
from clearing_analysis.simulation.what_if import PolicySums


@dataclass
class SimulationTotals:
    """A simulation reduced for the report: three small tables and per-API sums."""

    boundaries: pl.DataFrame
    cleared: pl.DataFrame
    checkpoints: pl.DataFrame  # observed checkpoints inside the cohorts' windows, with `api`
    per_api: dict[Api, ApiSimulation]
    placeholder_tokens: int
    what_ifs: dict[WhatIfId, dict[Api, PolicySums]]  # informational (docs/model.md, section 9)
    # Request sums by (API value, journal ordinal, UTC day, catalog model id): the usage
    # tables of `--by`; journal ordinals shifted like the boundaries' (`Combiner.add`).
    usage: dict[UsageKey, RequestSums] = field(default_factory=dict)
    # Observed re-fetches per API (simulation.refetch, R-RF-1): informational.
    refetches: dict[Api, RefetchTally] = field(default_factory=dict)


def _next(values: Column) -> int:
    """One past the largest ordinal (0 for none)."""
    return max(values) + 1 if values else 0


def _empty(layout: Mapping[str, str]) -> TableColumns:
    return {name: array(kind) if kind != OTHER else [] for name, kind in layout.items()}


def _extend(combined: TableColumns, part: TableColumns, offsets: Mapping[str, int]) -> None:
    """Append `part`'s columns to `combined`, the ordinals in `offsets` shifted by them."""
    for name, column in combined.items():
        values = part[name]
        offset = offsets.get(name, 0)
        if offset:
            values = array(INTS, [value + offset for value in values])
        # An array onto an array, a list onto a list: `part` was made by the same layout.
        column.extend(values)


class Combiner:
    """Units' simulations added one at a time, in order: each part's columns are appended (its
    ordinals shifted past the previous parts') when it arrives, so only the combined columns
    are held, never every unit's."""

    def __init__(self, apis: Iterable[Api]) -> None:
        self._boundaries = _empty(BOUNDARY_COLUMNS)
        self._cleared = _empty(CLEARED_COLUMNS)
        self._checkpoints = _empty(CHECKPOINT_COLUMNS)
        apis = tuple(apis)
        self._per_api = {api: ApiSimulation() for api in apis}
        self._what_ifs = {policy: {api: PolicySums() for api in apis} for policy in WhatIfId}
        self._usage: dict[UsageKey, RequestSums] = {}
        self._refetches = {api: RefetchTally() for api in apis}
        self._offsets = {"journal": 0, "conversation": 0, "lineage": 0, "boundary": 0, "result": 0}
        self._finished = False

    def add(self, part: UnitSimulation) -> None:
        """Append the next unit's columns and add its sums."""
        if self._finished:
            raise RuntimeError("a combiner's result was taken: nothing more can be added")
        offsets = self._offsets
        _extend(
            self._boundaries,
            part.boundaries,
            {k: offsets[k] for k in ("journal", "conversation", "lineage")},
        )
        _extend(
            self._cleared,
            part.cleared,
            {k: offsets[k] for k in ("boundary", "conversation", "result")},
        )
        _extend(self._checkpoints, part.checkpoints, {"journal": offsets["journal"]})
        for api, sums in part.per_api.items():
            self._per_api[api].add(sums)
        for (api_value, journal, day, model), usage in part.usage.items():
            key = (api_value, journal + offsets["journal"], day, model)
            self._usage.setdefault(key, RequestSums()).add(usage)
        for api, tally in part.refetches.items():
            self._refetches[api].add(tally)
        for policy, per_api in part.what_ifs.items():
            for api, policy_sums in per_api.items():
                self._what_ifs[policy][api].add(policy_sums)
        offsets["journal"] += max(
            _next(part.boundaries["journal"]), _next(part.checkpoints["journal"])
        )
        offsets["conversation"] += _next(part.boundaries["conversation"])
        offsets["lineage"] += _next(part.boundaries["lineage"])
        offsets["boundary"] += len(part.boundaries["journal"])
        offsets["result"] += _next(part.cleared["result"])

    def result(self, placeholder: int) -> SimulationTotals:
        """The combined tables and sums. Each table's columns are handed over to it and let go
        here, so the columns and the table are never both held through the report (the
        combiner is finished: nothing may be added after)."""
        self._finished = True
        boundaries = frame(self._boundaries, BOUNDARY_SCHEMA)
        self._boundaries = _empty(BOUNDARY_COLUMNS)
        cleared = frame(self._cleared, CLEARED_SCHEMA)
        self._cleared = _empty(CLEARED_COLUMNS)
        checkpoints = frame(self._checkpoints, CHECKPOINT_SCHEMA)
        self._checkpoints = _empty(CHECKPOINT_COLUMNS)
        return SimulationTotals(
            boundaries=boundaries,
            cleared=cleared,
            checkpoints=checkpoints,
            per_api=self._per_api,
            placeholder_tokens=placeholder,
            what_ifs=self._what_ifs,
            usage=self._usage,
            refetches=self._refetches,
        )


def combine(
    parts: Iterable[UnitSimulation], apis: Iterable[Api], placeholder: int
) -> SimulationTotals:
    """The parts in order: columns concatenated with shifted ordinals, sums added."""
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
