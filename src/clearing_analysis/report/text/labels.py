"""The fixed words every view of a report prints: the verdicts' styles, the criteria's labels,
the fixed statements and the API limitations with what they mean, and how a figure's title
names the report's bound. Shared by the terminal views and the page (report.html), so that
both say the same; no view is imported here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import assert_never

from clearing_analysis.eligibility.reasons import Bound
from clearing_analysis.gate import CriterionId, Verdict
from clearing_analysis.report import explore_model as em
from clearing_analysis.report import model as rm

VERDICT_STYLE = {
    Verdict.BUILD: "bold green",
    Verdict.DEFER: "bold yellow",
    Verdict.STOP: "bold red",
}
# The criteria as the views name them (docs/model.md, "The gate").
CRITERION_LABEL = {
    CriterionId.PRESSURED_BOUNDARIES: "pressured boundaries",
    CriterionId.COLD_PRESSURED_BOUNDARIES: "cold pressured",
    CriterionId.ADMITTING_SHARE: "admitting >= 20k",
    CriterionId.PRESSURE_REDUCTION: "pressure reduction",
    CriterionId.COST_INCREASE: "cost increase (worst)",
    CriterionId.PAYLOAD_DIFFERENCES: "payload differences",
}

# The statements both report kinds make, worded alike.
_MODELED = "All opportunity, pressure and cost figures are modeled, not observed savings."
_NO_QUALITY = "No quality improvement is inferred."
_FROZEN = "The models replay frozen continuations: no alternate assistant behaviour."
_PENDING = (
    "The default 5% retrieval rate is pending lookup-pilot evidence: 0%, 5%, 20% and the "
    "supplied rate are all reported"
)

STATEMENT_TEXT: Mapping[rm.Statement, str] = {
    rm.Statement.MODELED_NOT_OBSERVED: _MODELED,
    rm.Statement.NO_QUALITY_INFERENCE: _NO_QUALITY,
    rm.Statement.FROZEN_CONTINUATIONS: _FROZEN,
    rm.Statement.UPPER_BOUNDS_INFORMATIONAL: (
        "Per-boundary upper bounds (unproven identity included) are informational only."
    ),
    rm.Statement.DEFAULT_RETRIEVAL_RATE_PENDING: f"{_PENDING} and cost-gated.",
}
EXPLORE_STATEMENT_TEXT: Mapping[em.ExploreStatement, str] = {
    em.ExploreStatement.NEVER_A_VERDICT: (
        "Exploration only: never a verdict. Session histories (pi, Claude Code, Codex) prove"
        " neither a tool's identity nor "
        "the retention of its result, which the decision gate needs; run `analyze` on native "
        "journals with the tool-history sidecar for that."
    ),
    em.ExploreStatement.UPPER_BOUND_ONLY: (
        "Every opportunity, pressure and cost figure is an upper bound: identity and retention "
        "are assumed, and what pi does not record is taken in the favourable direction."
    ),
    em.ExploreStatement.MODELED_NOT_OBSERVED: _MODELED,
    em.ExploreStatement.NO_QUALITY_INFERENCE: _NO_QUALITY,
    em.ExploreStatement.FROZEN_CONTINUATIONS: _FROZEN,
    em.ExploreStatement.DRAINS_ESTIMATED: (
        "pi records no tokens after a compaction: drains are estimates of the compacted context."
    ),
    em.ExploreStatement.DEFAULT_RETRIEVAL_RATE_PENDING: f"{_PENDING}.",
}


def statement_text(statement: rm.Statement | em.ExploreStatement) -> str:
    """What a fixed statement of either report kind says."""
    match statement:
        case rm.Statement():
            return STATEMENT_TEXT[statement]
        case em.ExploreStatement():
            return EXPLORE_STATEMENT_TEXT[statement]
        case _:
            assert_never(statement)


LIMITATION_TEXT: Mapping[rm.ApiLimitation, str] = {
    rm.ApiLimitation.ROUTE_TRIGGER_CONTRADICTED: (
        "the observed compactions contradict the route's triggerTokens: check T against the"
        " implied trigger below"
    ),
    rm.ApiLimitation.CACHE_LIFETIME_UNKNOWN: (
        "the route's cacheLifetimeMs is unknown, so no gap can be cold: set it from the"
        " provider's documentation"
    ),
    rm.ApiLimitation.OUTPUT_TOKENS_PLACEHOLDER: (
        "some requests recorded streaming placeholders as output tokens, so recorded output"
        " and its cost are undercounted"
    ),
}

# How a title names an upper bound (explore's figures); the gated figures need no mark.
UPPER_BOUND = "UPPER BOUND"


def bound_mark(bound: Bound) -> str | None:
    """What a figure's title adds to name the report's bound: nothing for the gated lower
    bound (analysis), `UPPER BOUND` for explore's."""
    match bound:
        case Bound.LOWER:
            return None
        case Bound.UPPER:
            return UPPER_BOUND
        case _:
            assert_never(bound)


__all__ = [
    "CRITERION_LABEL",
    "EXPLORE_STATEMENT_TEXT",
    "LIMITATION_TEXT",
    "STATEMENT_TEXT",
    "UPPER_BOUND",
    "VERDICT_STYLE",
    "bound_mark",
    "statement_text",
]
