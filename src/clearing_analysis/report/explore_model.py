"""The explore report: typed structs for `clearing-analysis explore` (docs/explore.md).

Its own format (`clearing-analysis-explore`) and schema
(policy/schemas/explore-report.schema.json, generated from these structs by `report.schema`),
so that it can never be mistaken for, or read back as, an analysis report. It has no verdict
field at all: explore never yields BUILD / DEFER / STOP (the fixed statement NEVER_A_VERDICT
says why), and every opportunity, pressure and cost figure sits under an `upperBound` name.
Parts shared with the analysis report (histograms, evidence counts, pressure, cost) are the
same structs, filled by the same code. Privacy as for the analysis report (R-OUT-1): fixed
codes, enums, counts, byte totals, histograms and modeled numbers only.
"""

from __future__ import annotations

import enum
from typing import Final, Literal

from clearing_analysis.eligibility.reasons import ExclusionReason
from clearing_analysis.inputs.configs import Api
from clearing_analysis.numbers import Rounded
from clearing_analysis.pisession.read import Unrecognized
from clearing_analysis.report.model import (
    ApiLimitation,
    Cost,
    Count,
    Escaping,
    FixedCode,
    Histogram,
    Pressure,
    Requests,
    RouteTrigger,
    Version,
    WebYield,
    _Part,
)
from clearing_analysis.toolclass import ToolClass

EXPLORE_FORMAT: Final = "clearing-analysis-explore"
EXPLORE_VERSION: Final = 1


class ExploreStatement(enum.StrEnum):
    """Fixed statements every explore report makes."""

    # Explore never yields BUILD / DEFER / STOP: pi sessions prove neither the identity of a
    # tool nor the retention of its result, which the gate needs (seed, R-EL-1, R-RT).
    NEVER_A_VERDICT = "NEVER_A_VERDICT"
    # Every opportunity, pressure and cost figure is an upper bound: identity and retention
    # are assumed, and what pi does not record is taken in the favourable direction.
    UPPER_BOUND_ONLY = "UPPER_BOUND_ONLY"
    MODELED_NOT_OBSERVED = "MODELED_NOT_OBSERVED"
    NO_QUALITY_INFERENCE = "NO_QUALITY_INFERENCE"
    FROZEN_CONTINUATIONS = "FROZEN_CONTINUATIONS"
    # pi records no tokens after a compaction: drains are the compacted context's estimate.
    DRAINS_ESTIMATED = "DRAINS_ESTIMATED"
    # The default 5% retrieval rate is pending lookup-pilot evidence (R-OUT-5).
    DEFAULT_RETRIEVAL_RATE_PENDING = "DEFAULT_RETRIEVAL_RATE_PENDING"


class ExploreLimitation(enum.StrEnum):
    """What a pi session cannot show, always reported."""

    IDENTITY_UNPROVEN = "IDENTITY_UNPROVEN"
    RETENTION_UNPROVEN = "RETENTION_UNPROVEN"
    # Run owner and outcome, tool-call status beyond isError, returned / placed.
    RUN_OUTCOMES_UNRECORDED = "RUN_OUTCOMES_UNRECORDED"
    APPROVAL_STATE_UNATTESTED = "APPROVAL_STATE_UNATTESTED"


class SessionSkip(enum.StrEnum):
    """Why a session file contributes nothing (docs/formats/pi-sessions.md)."""

    UNSUPPORTED_VERSION = "UNSUPPORTED_VERSION"
    OPEN = "OPEN"
    INVALID = "INVALID"
    DUPLICATE = "DUPLICATE"  # same session id as a session read earlier


class BoundarySkip(enum.StrEnum):
    """Why a prompt turn's boundary is not counted."""

    UNSUPPORTED_API = "UNSUPPORTED_API"
    DUPLICATE = "DUPLICATE"  # the same turn of the same lineage, first seen in another file


class ObservedUsage(_Part, frozen=True):
    """Recorded usage summed over the requests whose usage counts (R-CM-1: some count recorded,
    whatever the stopReason): the off arm's observed basis."""

    observed_requests: Count
    input: Count
    output: Count
    cache_read: Count
    cache_write: Count


class Sessions(_Part, frozen=True):
    """What was read, what was skipped, and what lay beyond the resumed paths."""

    sessions_read: Count
    session_bytes: Count
    by_version: dict[Literal["1", "2", "3"], Count]
    skipped_sessions: dict[SessionSkip, Count]
    invalid_session_details: dict[FixedCode, Count]
    entries: Count
    off_path_entries: Count
    branched_sessions: Count
    unrecognized: dict[Unrecognized, Count]
    skipped_boundaries: dict[BoundarySkip, Count]
    boundaries_without_route: dict[Api, Count]
    turns_without_request: Count


class Evidence(_Part, frozen=True):
    """Counted prompt-turn boundaries and their pressure and cold evidence (native E, R-SIM-2/3):
    what the sessions show, the same counts `analyze` gates on."""

    boundaries: Count
    logical_conversations: Count
    pressured: Count
    pressured_logical_conversations: Count
    cold_pressured: Count
    cold_pressured_logical_conversations: Count
    request_gaps_ms: Histogram
    estimates: Histogram


class Eligibility(_Part, frozen=True):
    """Result-boundary occurrences: eligible for the upper bound, or excluded with the fixed
    reason (tool class, outcome, shape) or protection that applies."""

    exclusion_unit: Literal["result-boundary occurrence"]
    occurrences: Count
    upper_bound_eligible: Count
    excluded_by_reason: dict[ExclusionReason, Count]


class ToolResults(_Part, frozen=True):
    """Unique tool results of one tool class, and what the upper-bound simulation cleared."""

    tool_class: ToolClass
    results: Count
    text_bytes: Count
    upper_bound_eligible: Count
    upper_bound_cleared: Count
    upper_bound_cleared_text_bytes: Count


class UpperBoundSimulation(_Part, frozen=True):
    """The step-by-step simulation (the same code as `analyze`) over the upper-bound set."""

    clearing_points: Count
    batches: Count
    cleared_results: Count
    admitted_net_tokens: Count
    admitted_text_bytes: Count
    retrieved_tokens: Count
    budget_stops: Count
    placeholder_tokens: Count
    admitted_per_batch: Histogram
    cold_pressured_admitting: Count
    cold_pressured_admitting_share: Rounded
    independent_per_boundary_net_tokens: Count


class Compactions(_Part, frozen=True):
    """Compactions on the resumed paths inside each API's window, beside the model."""

    compactions: Count
    tokens_before: Histogram
    estimated_drains: Histogram
    summary_tokens: Histogram


class ApiExplore(_Part, frozen=True):
    """One API cohort; denominators are never pooled across APIs."""

    limitations: tuple[ApiLimitation, ...]
    route_trigger: RouteTrigger
    requests: Requests
    usage: ObservedUsage
    prompt_turns: Count
    evidence: Evidence
    compactions: Compactions
    tool_results: tuple[ToolResults, ...]
    web: WebYield
    eligibility: Eligibility
    upper_bound_simulation: UpperBoundSimulation
    upper_bound_pressure: Pressure
    upper_bound_cost: Cost
    upper_bound_escaping: Escaping


class ExploreReport(_Part, frozen=True):
    """The whole explore report. It has no verdict field: `gating` is always false."""

    format: Literal["clearing-analysis-explore"]
    version: Literal[1]
    tool_version: Version
    gating: Literal[False]
    bound: Literal["UPPER"]
    statements: tuple[ExploreStatement, ...]
    limitations: tuple[ExploreLimitation, ...]
    retrieval_rate: Rounded
    sessions: Sessions
    per_api: dict[Api, ApiExplore]
    tool_results_all_apis: tuple[ToolResults, ...]


__all__ = [
    "EXPLORE_FORMAT",
    "EXPLORE_VERSION",
    "ApiExplore",
    "BoundarySkip",
    "Compactions",
    "Eligibility",
    "Evidence",
    "ExploreLimitation",
    "ExploreReport",
    "ExploreStatement",
    "ObservedUsage",
    "SessionSkip",
    "Sessions",
    "ToolResults",
    "UpperBoundSimulation",
]
