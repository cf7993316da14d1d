"""Hand-written simulation rows reduced to the per-API figures the report reads, by the reducers
the pipeline runs (`simulation.figures`): the assembling tests state rows, as the simulation
makes them, and check the parts built from their figures."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from clearing_analysis.inputs.configs import Api
from clearing_analysis.simulation.clearing import (
    BOUNDARY_COLUMNS,
    CLEARED_COLUMNS,
    FLAGS,
    INTS,
)
from clearing_analysis.simulation.figures import (
    BoundaryFigures,
    CheckpointFigures,
    ClearedFigures,
    boundary_figures,
    checkpoint_figures,
    cleared_figures,
)
from clearing_analysis.simulation.unit import CHECKPOINT_COLUMNS

DEFAULT_API = Api.ANTHROPIC_MESSAGES


def columns(layout: Mapping[str, str], rows: Iterable[Mapping[str, Any]]) -> dict[str, list[Any]]:
    """The rows as columns of `layout`; a column a row leaves out is 0 (INTS), False (FLAGS),
    the default API (`api`) or None."""
    defaults: dict[str, Any] = {
        name: 0 if kind == INTS else False if kind == FLAGS else None
        for name, kind in layout.items()
    }
    defaults["api"] = DEFAULT_API.value
    full = [defaults | dict(row) for row in rows]
    return {name: [row[name] for row in full] for name in layout}


def boundaries_of(
    rows: Iterable[Mapping[str, Any]], observed: Iterable[Mapping[str, Any]] = ()
) -> dict[str, BoundaryFigures]:
    """Per API value, the figures of boundary rows (`observed`: checkpoint rows of any API)."""
    return boundary_figures(columns(BOUNDARY_COLUMNS, rows), columns(CHECKPOINT_COLUMNS, observed))


def boundaries_one(rows: Iterable[Mapping[str, Any]], api: Api = DEFAULT_API) -> BoundaryFigures:
    """One API's boundary figures (empty when no row is of it)."""
    return boundaries_of(rows).get(api.value, BoundaryFigures())


def cleared_of(rows: Iterable[Mapping[str, Any]]) -> dict[str, ClearedFigures]:
    """Per API value, the sums of cleared-result rows."""
    return cleared_figures(columns(CLEARED_COLUMNS, rows))


def checkpoints_of(rows: Iterable[Mapping[str, Any]]) -> dict[str, CheckpointFigures]:
    """Per API value, the figures of observed-checkpoint rows."""
    return checkpoint_figures(columns(CHECKPOINT_COLUMNS, rows))


def cleared_one(rows: Iterable[Mapping[str, Any]], api: Api = DEFAULT_API) -> ClearedFigures:
    """One API's cleared-result sums (zero when no row is of it)."""
    return cleared_of(rows).get(api.value, ClearedFigures())


def checkpoints_one(rows: Iterable[Mapping[str, Any]], api: Api = DEFAULT_API) -> CheckpointFigures:
    """One API's observed-checkpoint figures (empty when no row is of it)."""
    return checkpoints_of(rows).get(api.value, CheckpointFigures())
