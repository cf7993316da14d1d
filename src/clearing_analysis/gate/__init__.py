"""Gate: the fixed per-API decision criteria and the BUILD / DEFER / STOP verdicts (R-G).

`evaluate(...)` turns one API cohort's evidence, pressure model, cost result, retention and
identity signals and qualification into its six criteria (each with its measured value,
threshold and outcome), its DEFER and STOP reason codes and its verdict; `overall(...)`
combines the per-API verdicts. Thresholds come from policy/gate.json and are never flags.
"""

from clearing_analysis.gate.criteria import (
    Comparison,
    Criterion,
    CriterionDetail,
    CriterionId,
    Evidence,
)
from clearing_analysis.gate.verdict import (
    ApiGate,
    CostOutcome,
    DeferReason,
    GateInputs,
    StopReason,
    Verdict,
    evaluate,
    overall,
)

__all__ = [
    "ApiGate",
    "Comparison",
    "CostOutcome",
    "Criterion",
    "CriterionDetail",
    "CriterionId",
    "DeferReason",
    "Evidence",
    "GateInputs",
    "StopReason",
    "Verdict",
    "evaluate",
    "overall",
]
