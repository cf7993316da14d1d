"""Simulation: the step-by-step clearing simulation over the assessed boundaries (R-SIM).

`unit.walk(assessment, routes)` visits each physical conversation's counted boundaries in time
order, counts every result-boundary occurrence where it arises, clears lower-bound results at
cold pressured boundaries within the budget and batch rules, and collects plain columns (one
row per counted boundary, cleared result, request and unique result) with ordinal keys and no
identifiers or text, plus the per-API occurrence counts. `unit.summarize` reduces them to what
the report needs, per API sums and fixed-size figures (`figures`), without polars; `totals`
adds the units' in order. `run.simulate` makes polars tables of the same columns with the
native growth (`growth`): the reference the reduction is tested against.

This package's own namespace loads no polars: import `simulation.run` for the tables.
"""

from clearing_analysis.simulation.clearing import in_pressure_band, is_cold, usage_is_fallback

__all__ = [
    "in_pressure_band",
    "is_cold",
    "usage_is_fallback",
]
