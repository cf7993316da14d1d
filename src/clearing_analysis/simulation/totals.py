"""How the units' simulations combine into the tables and sums the report reads.

Each unit sends a `UnitSimulation` (`simulation.unit`): the boundary, cleared-result and
(in-window) checkpoint columns with ordinal keys local to the unit, and per-API sums. `combine`
concatenates the columns in unit order, shifting each unit's ordinals past the previous units'
so that keys stay distinct, builds one polars table of each kind, and adds the sums, so the
combined figures are those of one simulation over the whole snapshot (R-PERF-3: the same
report for any number of workers).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import polars as pl

from clearing_analysis.inputs.configs import Api
from clearing_analysis.simulation.run import (
    BOUNDARY_SCHEMA,
    CHECKPOINT_SCHEMA,
    CLEARED_SCHEMA,
    frame,
)
from clearing_analysis.simulation.unit import (
    ApiSimulation,
    CategorySums,
    RequestSums,
    TableColumns,
    UnitSimulation,
)


@dataclass
class SimulationTotals:
    """A simulation reduced for the report: three small tables and per-API sums."""

    boundaries: pl.DataFrame
    cleared: pl.DataFrame
    checkpoints: pl.DataFrame  # observed checkpoints inside the cohorts' windows, with `api`
    per_api: dict[Api, ApiSimulation]
    placeholder_tokens: int


def _next(values: list[Any]) -> int:
    """One past the largest ordinal (0 for none)."""
    return max(values) + 1 if values else 0


def _extend(
    combined: TableColumns, part: TableColumns, offsets: dict[str, int], names: Iterable[str]
) -> None:
    """Append `part`'s columns to `combined`, the ordinals in `offsets` shifted by them."""
    for name in names:
        values = part.get(name, [])
        offset = offsets.get(name, 0)
        combined[name].extend([value + offset for value in values] if offset else values)


def combine(
    parts: Iterable[UnitSimulation], apis: Iterable[Api], placeholder: int
) -> SimulationTotals:
    """The parts in order: columns concatenated with shifted ordinals, sums added."""
    boundaries: TableColumns = {name: [] for name in BOUNDARY_SCHEMA}
    cleared: TableColumns = {name: [] for name in CLEARED_SCHEMA}
    checkpoints: TableColumns = {name: [] for name in CHECKPOINT_SCHEMA}
    per_api = {api: ApiSimulation() for api in apis}
    offsets = {"journal": 0, "conversation": 0, "lineage": 0, "boundary": 0, "result": 0}
    for part in parts:
        _extend(
            boundaries,
            part.boundaries,
            {k: offsets[k] for k in ("journal", "conversation", "lineage")},
            BOUNDARY_SCHEMA,
        )
        _extend(
            cleared,
            part.cleared,
            {k: offsets[k] for k in ("boundary", "conversation", "result")},
            CLEARED_SCHEMA,
        )
        _extend(checkpoints, part.checkpoints, {"journal": offsets["journal"]}, CHECKPOINT_SCHEMA)
        for api, sums in part.per_api.items():
            per_api[api].add(sums)
        offsets["journal"] += max(
            _next(part.boundaries.get("journal", [])), _next(part.checkpoints.get("journal", []))
        )
        offsets["conversation"] += _next(part.boundaries.get("conversation", []))
        offsets["lineage"] += _next(part.boundaries.get("lineage", []))
        offsets["boundary"] += len(part.boundaries.get("journal", []))
        offsets["result"] += _next(part.cleared.get("result", []))
    return SimulationTotals(
        boundaries=frame(boundaries, BOUNDARY_SCHEMA),
        cleared=frame(cleared, CLEARED_SCHEMA),
        checkpoints=frame(checkpoints, CHECKPOINT_SCHEMA),
        per_api=per_api,
        placeholder_tokens=placeholder,
    )


__all__ = [
    "ApiSimulation",
    "CategorySums",
    "RequestSums",
    "SimulationTotals",
    "combine",
]
