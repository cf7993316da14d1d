"""The fixed words every view of a report prints: the verdicts' styles, the criteria's labels,
the fixed statements and the API limitations with what they mean, how a figure's title names
the report's bound, and the policy values the words name. Shared by the terminal views and the
page (report.html), so that both say the same; no view is imported here.

A word that names a policy value (the admitting threshold of 20k, the 8 MiB budget, the
default 5% retrieval rate and the rates 0%, 5%, 20% reported beside it, the 5% cost limit, the
pressure band's 0.75, the re-fetch interval's 95%) is written from `clearing_analysis.policy`
when the view is rendered, never as a literal: a policy change shows in every view.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import assert_never

from clearing_analysis.eligibility.reasons import Bound
from clearing_analysis.gate import CriterionId, Verdict
from clearing_analysis.policy import gate_policy, simulation_policy
from clearing_analysis.replay.arguments import refetch_policy
from clearing_analysis.report import explore_model as em
from clearing_analysis.report import model as rm
from clearing_analysis.report.text.terminal import binary_size, decimal_text, exact_percent, kilo

VERDICT_STYLE = {
    Verdict.BUILD: "bold green",
    Verdict.DEFER: "bold yellow",
    Verdict.STOP: "bold red",
}


def admitting() -> str:
    """What a boundary admits to count as admitting: ">= 20k" net tokens (policy/gate.json)."""
    return f">= {kilo(gate_policy().admitted_net_tokens_per_boundary)}"


def budget() -> str:
    """The simulation's byte budget per conversation: "8 MiB" (policy/simulation.json)."""
    return binary_size(simulation_policy().conversation_budget_bytes)


def band_floor() -> str:
    """The pressure band's lower fraction of T: "0.75" (policy/simulation.json)."""
    return decimal_text(simulation_policy().pressure_low_fraction)


def default_rate() -> str:
    """The default retrieval rate: "5%" (policy/gate.json)."""
    return exact_percent(gate_policy().default_retrieval_rate)


def reported_rates() -> str:
    """The retrieval rates always reported beside the supplied one: "0%, 5%, 20%"."""
    return ", ".join(exact_percent(rate) for rate in gate_policy().retrieval_sensitivities)


def cost_limit() -> str:
    """The gate's cost limit, criterion 5: "5%" (policy/gate.json)."""
    return exact_percent(gate_policy().max_cost_increase)


def interval_confidence() -> str:
    """The confidence of the re-fetch share's interval: "95%" (policy/refetch.json)."""
    return exact_percent(refetch_policy().interval_confidence)


def criterion_labels() -> Mapping[CriterionId, str]:
    """The criteria as the views name them (docs/model.md, "The gate")."""
    return {
        CriterionId.PRESSURED_BOUNDARIES: "pressured boundaries",
        CriterionId.COLD_PRESSURED_BOUNDARIES: "cold pressured",
        CriterionId.ADMITTING_SHARE: f"admitting {admitting()}",
        CriterionId.PRESSURE_REDUCTION: "pressure reduction",
        CriterionId.COST_INCREASE: "cost increase (worst)",
        CriterionId.PAYLOAD_DIFFERENCES: "payload differences",
    }


def criterion_label(criterion: CriterionId) -> str:
    """One criterion as the views name it."""
    return criterion_labels()[criterion]


# The statements both report kinds make, worded alike.
_MODELED = "All opportunity, pressure and cost figures are modeled, not observed savings."
_NO_QUALITY = "No quality improvement is inferred."
_FROZEN = "The models replay frozen continuations: no alternate assistant behaviour."


def _pending() -> str:
    return (
        f"The default {default_rate()} retrieval rate is pending lookup-pilot evidence:"
        f" {reported_rates()} and the supplied rate are all reported"
    )


def _analysis_statements() -> Mapping[rm.Statement, str]:
    return {
        rm.Statement.MODELED_NOT_OBSERVED: _MODELED,
        rm.Statement.NO_QUALITY_INFERENCE: _NO_QUALITY,
        rm.Statement.FROZEN_CONTINUATIONS: _FROZEN,
        rm.Statement.UPPER_BOUNDS_INFORMATIONAL: (
            "Per-boundary upper bounds (unproven identity included) are informational only."
        ),
        rm.Statement.DEFAULT_RETRIEVAL_RATE_PENDING: f"{_pending()} and cost-gated.",
    }


def _explore_statements() -> Mapping[em.ExploreStatement, str]:
    return {
        em.ExploreStatement.NEVER_A_VERDICT: (
            "Exploration only: never a verdict. Session histories (pi, Claude Code, Codex) prove"
            " neither a tool's identity nor "
            "the retention of its result, which the decision gate needs; run `analyze` on native "
            "journals with the tool-history sidecar for that."
        ),
        em.ExploreStatement.UPPER_BOUND_ONLY: (
            "Every opportunity, pressure and cost figure is an upper bound: identity and "
            "retention are assumed, and what pi does not record is taken in the favourable "
            "direction."
        ),
        em.ExploreStatement.MODELED_NOT_OBSERVED: _MODELED,
        em.ExploreStatement.NO_QUALITY_INFERENCE: _NO_QUALITY,
        em.ExploreStatement.FROZEN_CONTINUATIONS: _FROZEN,
        em.ExploreStatement.DRAINS_ESTIMATED: (
            "pi records no tokens after a compaction: drains are estimates of the compacted"
            " context."
        ),
        em.ExploreStatement.DEFAULT_RETRIEVAL_RATE_PENDING: f"{_pending()}.",
    }


def statement_text(statement: rm.Statement | em.ExploreStatement) -> str:
    """What a fixed statement of either report kind says (its policy values as they are)."""
    match statement:
        case rm.Statement():
            return _analysis_statements()[statement]
        case em.ExploreStatement():
            return _explore_statements()[statement]
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
    "LIMITATION_TEXT",
    "UPPER_BOUND",
    "VERDICT_STYLE",
    "admitting",
    "band_floor",
    "bound_mark",
    "budget",
    "cost_limit",
    "criterion_label",
    "criterion_labels",
    "default_rate",
    "interval_confidence",
    "reported_rates",
    "statement_text",
]
