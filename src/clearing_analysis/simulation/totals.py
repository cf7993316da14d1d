"""A unit's simulation, reduced to what the report needs, and how units combine.

Per unit: the boundary, cleared-result and (in-window) checkpoint tables, numbers only, with
ordinal keys local to the unit; per API: the request sums the cost model reads, the growth
parts, and per tool class the results and what was cleared of them. `combine` concatenates the
tables in unit order, shifting each unit's ordinals past the previous units' so that keys stay
distinct, and adds the sums, so the combined figures are those of one simulation over the
whole snapshot (R-PERF-3: the same report for any number of workers).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from clearing_analysis.inputs.configs import Api
from clearing_analysis.simulation.run import (
    BOUNDARY_SCHEMA,
    CHECKPOINT_SCHEMA,
    CLEARED_SCHEMA,
    Simulation,
)
from clearing_analysis.toolclass import ToolClass


@dataclass
class RequestSums:
    """Integer sums over one API's requests (R-CM-1, R-CM-7)."""

    requests: int = 0
    fallback: int = 0
    input: int = 0  # over observed requests
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0
    fallback_context: int = 0  # over fallback requests
    fallback_output: int = 0
    removed_observed: int = 0  # Σ observed min(cleared tokens carried, prefix)

    def add(self, other: RequestSums) -> None:
        """Add another unit's sums."""
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class CategorySums:
    """Unique results of one tool class (or of the web subset) and what was cleared of them."""

    results: int = 0
    text_bytes: int = 0
    lower_bound_class: int = 0
    cleared: int = 0
    cleared_text_bytes: int = 0

    def add(self, other: CategorySums) -> None:
        """Add another unit's sums."""
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class ApiSimulation:
    """One API's sums."""

    requests: RequestSums = field(default_factory=RequestSums)
    categories: dict[ToolClass, CategorySums] = field(
        default_factory=lambda: {tool: CategorySums() for tool in ToolClass}
    )
    web: CategorySums = field(default_factory=CategorySums)
    boundary_span: int = 0
    compaction_removed: int = 0

    def add(self, other: ApiSimulation) -> None:
        """Add another unit's sums."""
        self.requests.add(other.requests)
        for tool, sums in other.categories.items():
            self.categories[tool].add(sums)
        self.web.add(other.web)
        self.boundary_span += other.boundary_span
        self.compaction_removed += other.compaction_removed


@dataclass
class SimulationTotals:
    """A simulation reduced for the report: three small tables and per-API sums."""

    boundaries: pl.DataFrame
    cleared: pl.DataFrame
    checkpoints: pl.DataFrame  # observed checkpoints inside the cohorts' windows, with `api`
    per_api: dict[Api, ApiSimulation]
    placeholder_tokens: int


# One aggregation per table and unit (not one per API and tool class): polars' fixed cost per
# operation would otherwise dominate a unit's reduction.
_PREFIX = pl.col("input") + pl.col("cache_read") + pl.col("cache_write")
_REQUEST_AGGREGATES = (
    pl.len().alias("rows"),
    pl.col("input").sum(),
    pl.col("cache_read").sum(),
    pl.col("cache_write").sum(),
    pl.col("output").sum(),
    pl.col("context_tokens").sum(),
    pl.col("message_tokens").sum(),
    pl.min_horizontal(pl.col("cleared_tokens_carried"), _PREFIX).sum().alias("removed"),
)
_RESULT_AGGREGATES = (
    pl.len().alias("rows"),
    pl.col("text_bytes").sum(),
    pl.col("lower_bound_class").sum(),
    pl.col("cleared").sum(),
    pl.col("text_bytes").filter(pl.col("cleared")).sum().alias("cleared_text_bytes"),
)


def _request_sums(groups: dict[tuple[str, bool], dict[str, int]], api: Api) -> RequestSums:
    observed = groups.get((api.value, False), {})
    fallback = groups.get((api.value, True), {})
    return RequestSums(
        requests=observed.get("rows", 0) + fallback.get("rows", 0),
        fallback=fallback.get("rows", 0),
        input=observed.get("input", 0),
        cache_read=observed.get("cache_read", 0),
        cache_write=observed.get("cache_write", 0),
        output=observed.get("output", 0),
        fallback_context=fallback.get("context_tokens", 0),
        fallback_output=fallback.get("message_tokens", 0),
        removed_observed=observed.get("removed", 0),
    )


def _category(row: dict[str, int] | None) -> CategorySums:
    if row is None:
        return CategorySums()
    return CategorySums(
        results=row["rows"],
        text_bytes=row["text_bytes"],
        lower_bound_class=row["lower_bound_class"],
        cleared=row["cleared"],
        cleared_text_bytes=row["cleared_text_bytes"],
    )


def _grouped(frame: pl.DataFrame, keys: list[str], aggregates: Iterable[pl.Expr]) -> list[Any]:
    return frame.group_by(keys).agg(*aggregates).rows(named=True)


def reduce(simulation: Simulation) -> SimulationTotals:
    """What the report needs of one unit's simulation."""
    requests = {
        (row["api"], row["fallback"]): row
        for row in _grouped(simulation.requests, ["api", "fallback"], _REQUEST_AGGREGATES)
    }
    results = {
        (row["api"], row["tool_class"]): row
        for row in _grouped(simulation.results, ["api", "tool_class"], _RESULT_AGGREGATES)
    }
    web = {
        row["api"]: row
        for row in _grouped(simulation.results.filter(pl.col("web")), ["api"], _RESULT_AGGREGATES)
    }
    per_api: dict[Api, ApiSimulation] = {}
    observed: list[pl.DataFrame] = []
    for api, growth in simulation.growth.items():
        per_api[api] = ApiSimulation(
            requests=_request_sums(requests, api),
            categories={
                tool: _category(results.get((api.value, tool.value))) for tool in ToolClass
            },
            web=_category(web.get(api.value)),
            boundary_span=growth.boundary_span,
            compaction_removed=growth.compaction_removed,
        )
        observed.append(growth.checkpoints.with_columns(pl.lit(api.value).alias("api")))
    checkpoints = pl.concat(observed) if observed else pl.DataFrame(schema=dict(CHECKPOINT_SCHEMA))
    return SimulationTotals(
        boundaries=simulation.boundaries,
        cleared=simulation.cleared,
        checkpoints=checkpoints,
        per_api=per_api,
        placeholder_tokens=simulation.placeholder_tokens,
    )


def _shifted(frame: pl.DataFrame, offsets: dict[str, int]) -> pl.DataFrame:
    return frame.with_columns(
        [(pl.col(name) + offset).alias(name) for name, offset in offsets.items() if offset]
    )


def _next(frame: pl.DataFrame, column: str) -> int:
    """One past the largest ordinal of `column` (0 for an empty table)."""
    value = frame.select(pl.col(column).max()).item()
    return 0 if value is None else int(value) + 1


def combine(
    parts: Iterable[SimulationTotals], apis: Iterable[Api], placeholder: int
) -> SimulationTotals:
    """The parts in order: tables concatenated with shifted ordinals, sums added."""
    boundaries: list[pl.DataFrame] = []
    cleared: list[pl.DataFrame] = []
    checkpoints: list[pl.DataFrame] = []
    per_api = {api: ApiSimulation() for api in apis}
    offsets = {"journal": 0, "conversation": 0, "lineage": 0, "boundary": 0, "result": 0}
    for part in parts:
        boundaries.append(
            _shifted(
                part.boundaries,
                {k: offsets[k] for k in ("journal", "conversation", "lineage")},
            )
        )
        cleared.append(
            _shifted(
                part.cleared,
                {k: offsets[k] for k in ("boundary", "conversation", "result")},
            )
        )
        checkpoints.append(_shifted(part.checkpoints, {"journal": offsets["journal"]}))
        for api, sums in part.per_api.items():
            per_api[api].add(sums)
        offsets["journal"] += max(
            _next(part.boundaries, "journal"), _next(part.checkpoints, "journal")
        )
        offsets["conversation"] += _next(part.boundaries, "conversation")
        offsets["lineage"] += _next(part.boundaries, "lineage")
        offsets["boundary"] += part.boundaries.height
        offsets["result"] += _next(part.cleared, "result")
    return SimulationTotals(
        boundaries=pl.concat(boundaries)
        if boundaries
        else pl.DataFrame(schema=dict(BOUNDARY_SCHEMA)),
        cleared=pl.concat(cleared) if cleared else pl.DataFrame(schema=dict(CLEARED_SCHEMA)),
        checkpoints=(
            pl.concat(checkpoints) if checkpoints else pl.DataFrame(schema=dict(CHECKPOINT_SCHEMA))
        ),
        per_api=per_api,
        placeholder_tokens=placeholder,
    )


__all__ = [
    "ApiSimulation",
    "CategorySums",
    "RequestSums",
    "SimulationTotals",
    "combine",
    "reduce",
]
