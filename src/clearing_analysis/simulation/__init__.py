"""Simulation: the step-by-step clearing simulation over the assessed boundaries (R-SIM).

`unit.walk(assessment, routes)` visits each physical conversation's counted boundaries in time
order, counts every result-boundary occurrence where it arises, clears lower-bound results at
cold pressured boundaries within the budget and batch rules, and collects plain columns (one
row per counted boundary, cleared result, request and unique result) with ordinal keys and no
identifiers or text, plus the per-API occurrence counts. `unit.summarize` reduces them to what
the report needs without polars (a pool worker never loads it); `run.simulate` makes polars
tables of them with the native growth (tests and views); `totals.combine` joins the units.

This package's own namespace loads no polars: import `simulation.run` for the tables.
"""

from clearing_analysis.simulation.clearing import in_pressure_band, is_cold, usage_is_fallback

__all__ = [
    "in_pressure_band",
    "is_cold",
    "usage_is_fallback",
]
