"""Simulation: the step-by-step clearing simulation over the assessed boundaries (R-SIM).

`simulate(assessment, routes)` visits each physical conversation's counted boundaries in time
order, counts every result-boundary occurrence where it arises, clears lower-bound results at
cold pressured boundaries within the budget and batch rules, and returns polars tables (one
row per counted boundary, cleared result, request and unique result) with ordinal keys and no
identifiers or text, plus the per-API occurrence counts and native growth.
"""

from clearing_analysis.simulation.clearing import in_pressure_band, is_cold, usage_is_fallback
from clearing_analysis.simulation.growth import Growth, cohort_growth
from clearing_analysis.simulation.run import Simulation, simulate

__all__ = [
    "Growth",
    "Simulation",
    "cohort_growth",
    "in_pressure_band",
    "is_cold",
    "simulate",
    "usage_is_fallback",
]
