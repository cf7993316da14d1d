"""The explore report: typed structs for `clearing-analysis explore` (docs/explore.md).

Its own format (`clearing-analysis-explore`) and schema
(policy/schemas/explore-report.schema.json, generated from these structs by `report.schema`),
so that it can never be mistaken for, or read back as, an analysis report. It has no verdict
field at all: explore never yields BUILD / DEFER / STOP (the fixed statement NEVER_A_VERDICT
says why), and every opportunity, pressure and cost figure sits under an `upperBound` name.
Wherever a field means the same thing as in the analysis report (evidence, eligibility,
compactions, simulation, pressure, cost, escaping, web yield, requests, the route check), the
part is the analysis report's struct, filled by the same code; the report's `bound` marker
(UPPER) says that its figures are upper bounds. Only what the analysis report has no field for
is explore's own: the sessions read, the recorded usage, and the tool results of the
upper-bound set (its eligible set is not the analysis report's lower-bound class). Privacy as
for the analysis report (R-OUT-1): fixed codes, enums, counts, byte totals, histograms and
modeled numbers only.
"""

from __future__ import annotations

import enum
from typing import Final, Literal

import msgspec

from clearing_analysis.inputs.configs import Api
from clearing_analysis.inputs.recognize import HistoryFormat
from clearing_analysis.numbers import Rounded
from clearing_analysis.pisession.read import Unrecognized
from clearing_analysis.policy import TranscriptOnlyCode
from clearing_analysis.report.model import (
    AnalyzedPeriod,
    ApiLimitation,
    Cost,
    Count,
    Eligibility,
    Escaping,
    Evidence,
    FixedCode,
    Observed,
    ObservedUsage,
    Pressure,
    Refetches,
    Requests,
    RouteTrigger,
    Simulation,
    UsageBreakdown,
    Version,
    WebYield,
    WhatIfs,
    _Part,
)
from clearing_analysis.toolclass import ToolClass

EXPLORE_FORMAT: Final = "clearing-analysis-explore"
EXPLORE_VERSION: Final = 3


class ExploreStatement(enum.StrEnum):
    """Fixed statements every explore report makes."""

    # Explore never yields BUILD / DEFER / STOP: session histories prove neither the identity of a
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


# The history formats explore reads (R-SRC-1: one adapter each, docs/formats/): every
# `HistoryFormat` but the native journal and UNKNOWN, in its order, so that a format named
# there is reported here without a second list (the report's schema enumerates these keys).
SessionFormat = enum.StrEnum(  # type: ignore[misc]  # its members are computed
    "SessionFormat",
    [
        (fmt.name, fmt.value)
        for fmt in HistoryFormat
        if fmt not in (HistoryFormat.NATIVE_JOURNAL, HistoryFormat.UNKNOWN)
    ],
)
SessionFormat.__doc__ = (
    "The history formats explore reads (R-SRC-1: one adapter each, docs/formats/)."
)


class BoundarySkip(enum.StrEnum):
    """Why a prompt turn's boundary is not counted."""

    UNSUPPORTED_API = "UNSUPPORTED_API"
    DUPLICATE = "DUPLICATE"  # the same turn of the same lineage, first seen in another file
    OUTSIDE_PERIOD = "OUTSIDE_PERIOD"  # the turn's request lies outside --since / --until


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
    # Assistant messages an agent wrote that are no model request (an OpenClaw delivery-mirror
    # copy, say), by fixed code: never a request nor a fallback (R-CM-8).
    transcript_only_messages: dict[TranscriptOnlyCode, Count]
    skipped_boundaries: dict[BoundarySkip, Count]
    boundaries_without_route: dict[Api, Count]
    # Requests of counted turns whose own API is unsupported or has no route (R-CM-8).
    requests_without_route: Count
    # Outside the period of --since / --until: requests of otherwise counted turns, and
    # compactions (its boundaries: skippedBoundaries OUTSIDE_PERIOD).
    requests_outside_period: Count
    compactions_outside_period: Count
    turns_without_request: Count
    # Sessions read per history format (every format present). The fields from here on are
    # absent from explore reports written before they existed (same version): `show` reads
    # those as zeros.
    by_format: dict[SessionFormat, Count] = msgspec.field(default_factory=dict)
    # Claude Code transcripts (docs/formats/claude-code.md): final lines without their newline,
    # dropped; `<synthetic>` assistant messages, no request; counted requests whose recorded
    # output tokens are streaming placeholders (the API's limitation OUTPUT_TOKENS_PLACEHOLDER).
    torn_final_lines: Count = 0
    synthetic_messages: Count = 0
    placeholder_output_requests: Count = 0


class ToolResults(_Part, frozen=True):
    """Unique tool results of one tool class, and what the upper-bound simulation cleared."""

    tool_class: ToolClass
    results: Count
    text_bytes: Count
    upper_bound_eligible: Count
    upper_bound_cleared: Count
    upper_bound_cleared_text_bytes: Count


class ApiExplore(_Part, frozen=True):
    """One API cohort; denominators are never pooled across APIs."""

    limitations: tuple[ApiLimitation, ...]
    route_trigger: RouteTrigger
    requests: Requests
    usage: ObservedUsage
    prompt_turns: Count
    # The analysis report's structs, under the report's bound marker (`bound`: UPPER): the
    # evidence's admitting counts are the upper-bound simulation's, the compactions' drains
    # are estimated (DRAINS_ESTIMATED), eligibility counts each occurrence by its class and
    # reason as analyze does.
    evidence: Evidence
    compactions: Observed
    tool_results: tuple[ToolResults, ...]
    web: WebYield
    eligibility: Eligibility
    upper_bound_simulation: Simulation
    upper_bound_pressure: Pressure
    upper_bound_cost: Cost
    upper_bound_escaping: Escaping


class ExploreReport(_Part, frozen=True, omit_defaults=True):
    """The whole explore report. It has no verdict field: `gating` is always false."""

    format: Literal["clearing-analysis-explore"]
    version: Literal[3]
    tool_version: Version
    gating: Literal[False]
    bound: Literal["UPPER"]
    statements: tuple[ExploreStatement, ...]
    limitations: tuple[ExploreLimitation, ...]
    retrieval_rate: Rounded
    period: AnalyzedPeriod
    sessions: Sessions
    per_api: dict[Api, ApiExplore]
    tool_results_all_apis: tuple[ToolResults, ...]
    what_ifs_informational: WhatIfs
    # Only when the run was given --by (absent otherwise, not null).
    usage_by: UsageBreakdown | None = None
    # Observed re-fetches of the upper bound's cleared results and of all results (R-RF-1):
    # informational; absent from reports written before the part existed.
    refetches_informational: Refetches | None = None


__all__ = [
    "EXPLORE_FORMAT",
    "EXPLORE_VERSION",
    "ApiExplore",
    "BoundarySkip",
    "ExploreLimitation",
    "ExploreReport",
    "ExploreStatement",
    "ObservedUsage",
    "SessionSkip",
    "Sessions",
    "ToolResults",
]
