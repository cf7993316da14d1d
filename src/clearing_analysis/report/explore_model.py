"""The explore report: typed structs for `clearing-analysis explore` (docs/explore.md).

Its own format (`clearing-analysis-explore`) and schema
(policy/schemas/explore-report.schema.json, generated from these structs by `report.schema`),
so that it can never be mistaken for, or read back as, an analysis report. It has no verdict
field at all: explore never yields BUILD / DEFER / STOP (the fixed statement NEVER_A_VERDICT
says why), and the report's `bound` marker (UPPER) says that every opportunity, pressure and
cost figure is an upper bound. Wherever a field means the same thing as in the analysis report
it is the same struct under the same name, filled by the same code: the per-API figures
(`ApiFigures`: evidence, eligibility, compactions, simulation, pressure, cost, escaping, tool
results, web yield, requests, usage, the route check) and the counts of what the history held
beside the per-API cohorts (`HistoryCounts`). Only what the analysis report has no field for is
explore's own: the sessions read and the prompt turns. Privacy as for the analysis report
(R-OUT-1): fixed codes, enums, counts, byte totals, histograms and modeled numbers only.
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
    ApiFigures,
    Count,
    FixedCode,
    HistoryCounts,
    Refetches,
    ToolClassResults,
    UsageBreakdown,
    Version,
    WhatIfs,
    _Part,
)

EXPLORE_FORMAT: Final = "clearing-analysis-explore"
EXPLORE_VERSION: Final = 4


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


class Sessions(HistoryCounts[BoundarySkip], frozen=True):
    """What was read, what was skipped, and what lay beyond the resumed paths; with the
    analysis report's snapshot it shares the counts of `HistoryCounts`."""

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


class ApiExplore(ApiFigures, frozen=True):
    """One API cohort of the explore report: the figures the analysis report holds too, under
    the report's bound marker (`bound`: UPPER; the evidence's admitting counts are the
    upper-bound simulation's, the compactions' drains are estimated, DRAINS_ESTIMATED, and
    eligibility counts each occurrence by its class and reason as analyze does), and the
    counted prompt turns."""

    prompt_turns: Count


class ExploreReport(_Part, frozen=True, omit_defaults=True):
    """The whole explore report. It has no verdict field: `gating` is always false."""

    format: Literal["clearing-analysis-explore"]
    version: Literal[4]
    tool_version: Version
    gating: Literal[False]
    bound: Literal["UPPER"]
    statements: tuple[ExploreStatement, ...]
    limitations: tuple[ExploreLimitation, ...]
    retrieval_rate: Rounded
    period: AnalyzedPeriod
    sessions: Sessions
    per_api: dict[Api, ApiExplore]
    tool_results_all_apis: tuple[ToolClassResults, ...]
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
    "SessionSkip",
    "Sessions",
]
