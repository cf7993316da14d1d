"""Models: compaction pressure (R-PM) and cost (R-CM), in exact arithmetic.

Every number here is modeled, not observed savings (R-OUT-5). Inputs are cohort sums of one
API (never pooled across APIs); arithmetic uses `fractions.Fraction`, and only the report
rounds, so a worked example in docs/model.md is reproduced digit for digit.
"""

from clearing_analysis.models.pressure import (
    PressureAtRate,
    PressureInputs,
    PressureModel,
    pressure_model,
)
from clearing_analysis.models.rates import RateLabel, Sensitivity, sensitivities

__all__ = [
    "PressureAtRate",
    "PressureInputs",
    "PressureModel",
    "RateLabel",
    "Sensitivity",
    "pressure_model",
    "sensitivities",
]
