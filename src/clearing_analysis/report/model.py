"""The analysis report's typed structs, and the parts it shares with the explore report.

Every field exists here once. A part that means the same in both report kinds is one struct
here, filled by the same code (`assemble.parts`), and named alike in both: the per-API figures
(`ApiFigures`: evidence, eligibility, simulation, pressure, cost, compactions, tool results,
...), the counts of what the history held beside the per-API cohorts (`HistoryCounts`), the
informational what-ifs, re-fetches and usage tables. Each report says by its `bound` marker
which bound its figures are: LOWER, the analysis report's gated figures over the proven
lower-bound class; UPPER, the explore report's (report.explore_model).

The JSON Schema in policy/schemas/report.schema.json is generated from these structs
(`report.schema`), has no free-form string (every string is an enum, a pattern-constrained
code or version, or a constant), and every report is validated against it before it is
written (R-OUT-2). Only fixed codes, API enums, counts, byte totals, histograms
and modeled numbers appear (R-OUT-1); numbers are rounded once (`numbers.rounded`).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from typing import Annotated, Final, Generic, Literal, TypeVar

import msgspec

from clearing_analysis.eligibility.reasons import EligibilityClass, ExclusionReason, Limitation
from clearing_analysis.gate import ApiGate, Verdict
from clearing_analysis.inputs.configs import Api
from clearing_analysis.models.rates import RateLabel
from clearing_analysis.models.undefined import UndefinedCause
from clearing_analysis.numbers import Rounded
from clearing_analysis.policy import WhatIfId
from clearing_analysis.qualify.verify import QualificationDetail
from clearing_analysis.replay.model import BoundarySkipReason, JournalSkipReason
from clearing_analysis.toolclass import ToolClass

REPORT_FORMAT: Final = "clearing-analysis-report"
REPORT_VERSION: Final = 3

Count = Annotated[int, msgspec.Meta(ge=0)]
SignedTokens = int
FixedCode = Annotated[str, msgspec.Meta(pattern=r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$", max_length=64)]
Version = Annotated[
    str, msgspec.Meta(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$", max_length=64)
]

ImageId = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$", min_length=64, max_length=64)]


class Statement(enum.StrEnum):
    """Fixed statements every report makes (R-OUT-5, seed)."""

    MODELED_NOT_OBSERVED = "MODELED_NOT_OBSERVED"  # opportunity, pressure, cost: modeled
    NO_QUALITY_INFERENCE = "NO_QUALITY_INFERENCE"  # no quality improvement is inferred
    FROZEN_CONTINUATIONS = "FROZEN_CONTINUATIONS"  # no alternate assistant behaviour
    UPPER_BOUNDS_INFORMATIONAL = "UPPER_BOUNDS_INFORMATIONAL"  # per-boundary upper bounds
    # The default 5% retrieval rate is pending lookup-pilot evidence (R-OUT-5): 0%, 5%, 20%
    # and the supplied rate are all reported and cost-gated.
    DEFAULT_RETRIEVAL_RATE_PENDING = "DEFAULT_RETRIEVAL_RATE_PENDING"


class ApiLimitation(enum.StrEnum):
    """What one API's evidence cannot show as it stands, stated beside its verdict; never
    gating (docs/model.md)."""

    # Observed threshold compactions the route's triggerTokens cannot explain.
    ROUTE_TRIGGER_CONTRADICTED = "ROUTE_TRIGGER_CONTRADICTED"
    # cacheLifetimeMs is "unknown": no gap can be cold, so criterion 2 cannot pass.
    CACHE_LIFETIME_UNKNOWN = "CACHE_LIFETIME_UNKNOWN"
    # Some of this API's requests recorded streaming placeholders as their output tokens (a
    # Claude Code transcript, docs/formats/claude-code.md): their output is undercounted.
    OUTPUT_TOKENS_PLACEHOLDER = "OUTPUT_TOKENS_PLACEHOLDER"


class QualificationStatusCode(enum.StrEnum):
    """Whether the API's payload builders were qualified by a valid, current record."""

    QUALIFIED = "QUALIFIED"
    PAYLOAD_UNQUALIFIED = "PAYLOAD_UNQUALIFIED"


class _Part(msgspec.Struct, frozen=True, rename="camel", forbid_unknown_fields=True):
    """Immutable, camelCase on the wire, strict when read back (`show`)."""


class Histogram(_Part, frozen=True):
    """Counts per bucket: `edges[i]` is the smallest value of bucket i, the last is open.
    `below` counts values under the first edge; `unknown` values that were not known."""

    edges: tuple[int, ...]
    counts: tuple[Count, ...]
    below: Count
    unknown: Count


# The reasons a report kind counts skipped boundaries under (analysis: every replay reason;
# explore: the few a session history can give, report.explore_model.BoundarySkip).
_BoundarySkip_T = TypeVar("_BoundarySkip_T", bound=enum.StrEnum)


class HistoryCounts(_Part, Generic[_BoundarySkip_T], frozen=True):
    """What the history held beside the per-API cohorts, in both report kinds alike: the
    boundaries skipped by fixed reason, and what no API's figures count (R-RP-2, R-CM-8)."""

    skipped_boundaries: dict[_BoundarySkip_T, Count]
    boundaries_without_route: dict[Api, Count]
    # Requests of counted turns whose own API is unsupported or has no route: each request
    # belongs to the API its own message names (R-CM-8), and these belong to none.
    requests_without_route: Count
    # Outside the period of --since / --until (its boundaries: skippedBoundaries
    # OUTSIDE_PERIOD): requests of otherwise counted turns, and compactions.
    requests_outside_period: Count
    compactions_outside_period: Count
    turns_without_request: Count


class Snapshot(HistoryCounts[BoundarySkipReason], frozen=True):
    """What was replayed and what was skipped, with fixed reason counts (R-RP-2, R-RP-3)."""

    journals_replayed: Count
    journal_bytes: Count
    skipped_journals: dict[JournalSkipReason, Count]
    invalid_journal_details: dict[FixedCode, Count]


class AnalyzedPeriod(_Part, frozen=True):
    """The period the run analyzed (--since / --until), [since, until) in Unix milliseconds,
    UTC; null: open on that side (neither given: the whole history)."""

    since_ms: Count | None
    until_ms: Count | None


class Evidence(_Part, frozen=True):
    """Counted boundaries and their pressure and cold evidence (criteria 1-3)."""

    boundaries: Count
    logical_conversations: Count
    pressured: Count
    pressured_logical_conversations: Count
    cold_pressured: Count
    cold_pressured_logical_conversations: Count
    admitting: Count
    admitting_share: Rounded
    request_gaps_ms: Histogram
    # A request gap strictly beyond this is cold: the route's cacheLifetimeMs + cacheMarginMs
    # (R-SIM-3); null when the lifetime is unknown, when no gap is cold.
    cold_gap_ms: Count | None
    estimates: Histogram
    # E of the cold boundaries alone: the rest of `estimates` are warm or of unknown gap.
    cold_estimates: Histogram


class Eligibility(_Part, frozen=True):
    """Result-boundary occurrences by class and reason (R-EL-8)."""

    exclusion_unit: Literal["result-boundary occurrence"]
    occurrences: Count
    by_class: dict[EligibilityClass, Count]
    by_reason: dict[ExclusionReason, Count]


class Retention(_Part, frozen=True):
    """Unique proven results and their retention (R-RT-1..3)."""

    candidates: Count
    proven: Count
    matched: Count
    redacted: Count
    truncated: Count
    unmatched: Count
    matched_share: Rounded | None
    coverage_floor: Rounded


class Simulation(_Part, frozen=True):
    """The step-by-step simulation's totals (R-SIM-4..10); upper bounds are informational."""

    clearing_points: Count
    batches: Count
    cleared_results: Count
    admitted_net_tokens: Count
    admitted_text_bytes: Count
    retrieved_tokens: Count
    budget_stops: Count
    placeholder_tokens: Count
    admitted_per_batch: Histogram
    upper_bound_net_tokens: Count
    upper_bound_admitting: Count


class PressureAtRate(_Part, frozen=True):
    """On-arm pressure and reduction at one retrieval rate."""

    rate: Rounded
    labels: tuple[RateLabel, ...]
    on: Rounded
    reduction: Rounded


class Pressure(_Part, frozen=True):
    """The pressure model (R-PM); numbers are modeled compaction cycles and tokens."""

    defined: bool
    # Why it is undefined (G <= 0, T <= P): every cause that holds; empty when defined.
    undefined_causes: tuple[UndefinedCause, ...]
    growth: SignedTokens
    boundary_span: SignedTokens
    compaction_removed: SignedTokens
    trigger: Count
    drain: Count
    admitted: Count
    retrieved: Count
    off: Rounded | None
    savings_per_cycle: Rounded | None
    summary_input_per_cycle: Rounded | None
    summary_fits: bool
    gated_rate: Rounded
    sensitivities: tuple[PressureAtRate, ...]


class RouteTrigger(_Part, frozen=True):
    """The route's trigger T against the observed threshold compactions that followed a
    request (docs/model.md); informational, never gating."""

    threshold_compactions: Count
    below_band: Count  # tokensBefore < 0.75·T: the route's trigger is too high
    # 0.75·T <= tokensBefore < T - tolerance: below T by more than the tolerance, too high
    below_trigger: Count
    beyond_overshoot: Count  # tokensBefore > T + overshoot: the route's trigger is too low
    overshoot_tokens: Count  # the largest growth of E from one boundary to the next
    tolerance_tokens: Count  # routeTriggerTolerancePercent of T (policy/simulation.json)
    tokens_before_percent_of_trigger: Histogram
    implied_trigger_at_least: Count | None
    implied_trigger_below: Count | None


class Compactions(_Part, frozen=True):
    """Observed compactions, reported beside the model, never mixed into it (R-PM-3); in an
    explore report their drains are estimated (DRAINS_ESTIMATED)."""

    checkpoints: Count
    by_trigger: dict[FixedCode, Count]
    tokens_before: Histogram
    drains: Histogram
    summary_tokens: Histogram


class ToolClassResults(_Part, frozen=True):
    """Unique results of one tool class: all of them, those of the report's eligible set (its
    bound's: the lower-bound class, or explore's upper-bound set) and what the simulation
    cleared of them."""

    tool_class: ToolClass
    results: Count
    text_bytes: Count
    eligible: Count
    cleared: Count
    cleared_text_bytes: Count


class WebYield(_Part, frozen=True):
    """Web results (web built-ins and web_ app tools) and their cleared share (R-SIM-7)."""

    results: Count
    text_bytes: Count
    cleared: Count
    cleared_text_bytes: Count
    yield_share: Rounded | None
    redacted_web_envelopes: Count
    structured_scan_losses: Count


class Escaping(_Part, frozen=True):
    """Retrieval's extra JSON layer over the cleared results (escapedBytes, R-SIM-7)."""

    original_bytes: Count
    escaped_bytes: Count
    escaped_to_original_ratio: Rounded | None


class Requests(_Part, frozen=True):
    """Every assistant message is a request (R-CM-1); fallback = labeled uncached heuristic."""

    requests: Count
    fallback: Count
    fallback_share: Rounded | None


class ObservedUsage(_Part, frozen=True):
    """Recorded usage summed over the requests whose usage counts (R-CM-1: some count recorded,
    whatever the stopReason): the off arm's observed basis."""

    observed_requests: Count
    input: Count
    output: Count
    cache_read: Count
    cache_write: Count
    # These sums at the route's list prices (currency per million tokens): the history's cost
    # as recorded, without the fallback's estimate or any modeled summary. Absent from reports
    # written before it existed (same version): `show` still reads those, and the view says
    # the cost was not recorded.
    list_price_cost: Rounded | None = None


# A UTC calendar day, YYYY-MM-DD (docs/privacy.md: the days of the requests' timestamps).
UtcDay = Annotated[str, msgspec.Meta(pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$", max_length=10)]
# A model as the pinned pi-ai catalog names it, PROVIDER/ID; `show` refuses one the catalog
# does not list (report.validate), so no recorded text can ride in it.
CatalogModelId = Annotated[str, msgspec.Meta(pattern=r"^[^/\s]+/[^\s]+$", max_length=128)]


class _UsageColumns(_Part, frozen=True):
    """The usage columns of one row of a usage table: every request of the row's requests, and
    the recorded usage of those whose usage counts (R-CM-1) with its list-price cost (each
    request at the route of the API its own message names, R-CM-8)."""

    requests: Count
    input: Count
    cache_read: Count
    cache_write: Count
    output: Count
    list_price_cost: Rounded


class SessionUsage(_UsageColumns, frozen=True):
    """One session's (journal's) usage; `session` is its ordinal in the report's order (first
    met, from 1), never its id or path."""

    session: Annotated[int, msgspec.Meta(ge=1)]


class DayUsage(_UsageColumns, frozen=True):
    """One UTC calendar day's usage (the days of the requests' timestamps)."""

    day: UtcDay


class ModelUsage(_UsageColumns, frozen=True):
    """One model's usage; `model` null: models the pinned catalog does not list, together."""

    model: CatalogModelId | None


class UsageBreakdown(_Part, frozen=True):
    """The usage of every API's counted requests, by session, by UTC day and by model: the
    tables of `--by`, stored only when the run was given `--by` (docs/report.md). Each table's
    rows add up to the per-API usage summed over the APIs."""

    by_session: tuple[SessionUsage, ...]
    by_day: tuple[DayUsage, ...]
    by_model: tuple[ModelUsage, ...]


class RemovedDelta(_Part, frozen=True):
    """Removed tokens: observed (until the checkpoint that compacts them) + extension."""

    total: Rounded
    observed: Rounded
    extension: Rounded


class SummaryDelta(_Part, frozen=True):
    """Summary-cycle change + enlarged summaries."""

    total: Rounded
    cycle_change: Rounded
    enlarged_summaries: Rounded


class RetrievalDelta(_Part, frozen=True):
    """Full retrieval round trips + returned-history growth."""

    total: Rounded
    round_trips: Rounded
    returned_history: Rounded


class Delta(_Part, frozen=True):
    """Signed components of on - off in one view; they add up exactly to `total`."""

    retained: Rounded
    removed: RemovedDelta
    summary: SummaryDelta
    retrieval: RetrievalDelta
    total: Rounded


class ViewFigures(_Part, frozen=True):
    """One view's off and on arms; `ratio` is null when off is 0 and on positive (unbounded)."""

    off: Rounded
    on: Rounded
    ratio: Rounded | None
    increase: Rounded | None
    within_threshold: bool


class CostAtRate(_Part, frozen=True):
    """Both views at one retrieval rate, each with its signed components."""

    rate: Rounded
    labels: tuple[RateLabel, ...]
    list_price: ViewFigures
    quota_share: ViewFigures
    list_delta: Delta
    quota_share_delta: Delta


class UncachedAtRate(_Part, frozen=True):
    """The all-uncached on arm at one rate (off stays observed)."""

    rate: Rounded
    labels: tuple[RateLabel, ...]
    list_price_on: Rounded
    list_price_ratio: Rounded | None
    quota_share_on: Rounded
    quota_share_ratio: Rounded | None


class AllUncached(_Part, frozen=True):
    """R-CM-6: on-arm prefixes, retrieval round trips and drain recaches at no less than
    uncached input. An upper-bound scenario: never gating."""

    gating: Literal[False]
    sensitivities: tuple[UncachedAtRate, ...]


class WarmRewrite(_Part, frozen=True):
    """Pressured boundaries that are warm or of unknown gap: clearing there would rewrite the
    whole cached prefix (cacheWrite instead of cacheRead). Warm clearing is not enabled."""

    gating: Literal[False]
    warm_pressured_boundaries: Count
    unknown_gap_pressured_boundaries: Count
    prefix_tokens: Count
    list_price_cost: Rounded
    quota_share_cost: Rounded


class SummaryInputFigures(_Part, frozen=True):
    """The cost ratios at the supplied rate with another summary input size."""

    summary_input_tokens: Count
    list_price_ratio: Rounded | None
    quota_share_ratio: Rounded | None


class SummaryInputSensitivity(_Part, frozen=True):
    """How the cost ratio moves with summaryInputTokens halved and doubled (informational)."""

    gating: Literal[False]
    halved: SummaryInputFigures | None
    doubled: SummaryInputFigures | None


class Cost(_Part, frozen=True):
    """The cost model (R-CM); undefined with the pressure model (G = 0 or T <= P)."""

    defined: bool
    undefined_causes: tuple[UndefinedCause, ...]  # the pressure model's; empty when defined
    list_price_blend: Rounded | None
    quota_share_blend: Rounded | None
    mean_observed_prefix: Rounded | None
    # The two sums of the components that no other part prints, so that a reader rebuilds
    # every component from the printed blends and counts (R-OUT-4): Σ over observed requests
    # of min(cleared tokens carried, prefix), and Σ over cleared results of min(500, tokens).
    removed_observed_tokens: Count
    summary_cleared_tokens: Count
    sensitivities: tuple[CostAtRate, ...]
    all_uncached_informational: AllUncached
    warm_rewrite_informational: WarmRewrite
    summary_input_informational: SummaryInputSensitivity


class Qualification(_Part, frozen=True):
    """Offline payload qualification of this API (R-Q-3): version only, never a digest."""

    status: QualificationStatusCode
    detail: QualificationDetail | None
    cases: Count | None
    unintended_differences: Count | None


class ApiFigures(_Part, frozen=True):
    """The figures of one API cohort that both report kinds hold, each meaning the same under
    the report's bound (LOWER: gated, over the proven lower-bound class; UPPER: explore's
    upper bound); denominators are never pooled across APIs."""

    limitations: tuple[ApiLimitation, ...]
    route_trigger: RouteTrigger
    requests: Requests
    # The usage the history recorded for this API (R-CM-1, R-CM-8): what it cost as recorded,
    # observed under either bound.
    usage: ObservedUsage
    # In an explore report the evidence's admitting counts are the upper-bound simulation's.
    evidence: Evidence
    eligibility: Eligibility
    simulation: Simulation
    pressure: Pressure
    cost: Cost
    escaping: Escaping
    compactions: Compactions
    tool_results: tuple[ToolClassResults, ...]
    web: WebYield


class ApiReport(ApiFigures, frozen=True):
    """One API cohort of the analysis report: the shared figures, gated (`gate`), with what
    only the lower bound proves (retention) and the payload qualification."""

    gate: ApiGate
    retention: Retention
    qualification: Qualification


class WhatIfAtRate(_Part, frozen=True):
    """One what-if policy at one fixed retrieval rate (docs/model.md, section 9)."""

    rate: Rounded
    labels: tuple[RateLabel, ...]
    compactions_avoided: Rounded  # C_off - C_on over the analyzed window
    pressure_reduction: Rounded  # 1 - C_on / C_off
    list_price_ratio: Rounded | None  # (on + rewrite) / off; null: unbounded
    quota_share_ratio: Rounded | None


class WhatIfPolicy(_Part, frozen=True):
    """What one named pruning policy would have done to one API cohort's history."""

    policy: WhatIfId
    reference: bool  # the seed's row: equal to the gated simulation's figures
    clearing_events: Count
    warm_clearing_events: Count
    warm_share: Rounded | None  # of the clearing events; null with none
    cleared_results: Count
    tokens_removed: Count  # net tokens of the cleared results (S)
    rewritten_prefix_tokens: Count  # W over the warm clearing events
    list_price_rewrite: Rounded
    quota_share_rewrite: Rounded
    defined: bool  # the pressure and cost models are (G > 0 and T > P)
    undefined_causes: tuple[UndefinedCause, ...]  # which of those fails; empty when defined
    compactions_off: Rounded | None  # C_off
    sensitivities: tuple[WhatIfAtRate, ...]


class WhatIfs(_Part, frozen=True):
    """The pruning policies agents ship, modeled on this history: informational, never gating.
    It holds no verdict and the gate never reads it."""

    gating: Literal[False]
    per_api: dict[Api, tuple[WhatIfPolicy, ...]]


class Overall(_Part, frozen=True):
    """Totals over the supplied APIs (tool results and web yield are also reported overall)."""

    verdict: Verdict
    tool_results: tuple[ToolClassResults, ...]
    web: WebYield


class Report(_Part, frozen=True, omit_defaults=True):
    """The whole report."""

    format: Literal["clearing-analysis-report"]
    version: Literal[3]
    tool_version: Version
    # The report's bound marker: its figures are gated, over the proven lower-bound class.
    bound: Literal["LOWER"]
    pi_ai_version: Version | None
    image_id: ImageId | None
    statements: tuple[Statement, ...]
    limitations: tuple[Limitation, ...]
    retrieval_rate: Rounded
    period: AnalyzedPeriod
    verdict: Verdict
    snapshot: Snapshot
    per_api: dict[Api, ApiReport]
    overall: Overall
    what_ifs_informational: WhatIfs
    # Only when the run was given --by (absent otherwise, not null).
    usage_by: UsageBreakdown | None = None
    # Observed re-fetches (R-RF-1): informational; absent from reports written before the
    # part existed.
    refetches_informational: Refetches | None = None


class RefetchPopulation(_Part, frozen=True):
    """One population's re-fetches: `results` in it, `comparable` (with canonical arguments,
    the share's denominator), `refetched` (a later equal call, no write of the file between),
    `refetchedAfterWrite` (a file re-read after a write or edit of it: legitimate, apart),
    `observedShare` = refetched / comparable and its 95% Wilson score interval (null with no
    comparable result), and how far later each re-fetch came."""

    results: Count
    comparable: Count
    refetched: Count
    refetched_after_write: Count
    observed_share: Rounded | None
    interval_low: Rounded | None
    interval_high: Rounded | None
    distance_turns: Histogram
    distance_tokens: Histogram


class ApiRefetches(_Part, frozen=True):
    """One API: the cleared results (after the clearing point) and all results."""

    cleared: RefetchPopulation
    all_results: RefetchPopulation


class Refetches(_Part, frozen=True):
    """Observed re-fetches per API. It holds no verdict and the gate never reads it: the
    observed share is gated on only when the user passes it as --retrieval-rate."""

    gating: Literal[False]
    per_api: dict[Api, ApiRefetches]


_Part_T = TypeVar("_Part_T")


def in_api_order(per_api: Mapping[Api, _Part_T]) -> Iterator[tuple[Api, _Part_T]]:
    """`per_api`'s entries in the seed's API order, as `analyze` builds them, whatever order
    they were read in (a saved report's keys are sorted): both views list APIs alike."""
    for api in Api:
        if api in per_api:
            yield api, per_api[api]


__all__ = [
    "REPORT_FORMAT",
    "REPORT_VERSION",
    "AllUncached",
    "AnalyzedPeriod",
    "ApiFigures",
    "ApiRefetches",
    "ApiReport",
    "Compactions",
    "Cost",
    "CostAtRate",
    "DayUsage",
    "Delta",
    "Eligibility",
    "Escaping",
    "Evidence",
    "Histogram",
    "HistoryCounts",
    "ModelUsage",
    "ObservedUsage",
    "Overall",
    "Pressure",
    "PressureAtRate",
    "Qualification",
    "QualificationStatusCode",
    "RefetchPopulation",
    "Refetches",
    "RemovedDelta",
    "Report",
    "Requests",
    "Retention",
    "RetrievalDelta",
    "SessionUsage",
    "Simulation",
    "Snapshot",
    "Statement",
    "SummaryDelta",
    "SummaryInputFigures",
    "SummaryInputSensitivity",
    "ToolClassResults",
    "UncachedAtRate",
    "UsageBreakdown",
    "ViewFigures",
    "WarmRewrite",
    "WebYield",
    "WhatIfAtRate",
    "WhatIfPolicy",
    "WhatIfs",
    "in_api_order",
]
