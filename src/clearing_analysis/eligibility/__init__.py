"""Eligibility: identity proof, protection, retention and per-API counts (R-EL, R-RT).

Runs after `replay` (journal -> replay -> eligibility): `assess` classifies every
result-boundary occurrence of a merged replay as LOWER_BOUND / UPPER_BOUND_ONLY / EXCLUDED
with one fixed reason, and counts retention over unique proven results per API.
"""

from clearing_analysis.eligibility.assess import (
    ApiAssessment,
    Assessment,
    Boundary,
    Occurrence,
    RetentionCounts,
    assess,
    count_occurrences,
)
from clearing_analysis.eligibility.classify import ResultClass, classify_result, occurrence_reason
from clearing_analysis.eligibility.context import ContextCursor, protection
from clearing_analysis.eligibility.identity import IdentityProofs
from clearing_analysis.eligibility.occurrences import (
    ContextTally,
    OccurrenceTally,
    classified_context,
)
from clearing_analysis.eligibility.reasons import (
    EXCLUSION_UNIT,
    ApiSignal,
    Bound,
    EligibilityClass,
    ExclusionReason,
    Limitation,
)
from clearing_analysis.eligibility.summary import dumps_summary, replay_summary
from clearing_analysis.toolclass import ToolClass, is_web, tool_class

__all__ = [
    "EXCLUSION_UNIT",
    "ApiAssessment",
    "ApiSignal",
    "Assessment",
    "Bound",
    "Boundary",
    "ContextCursor",
    "ContextTally",
    "EligibilityClass",
    "ExclusionReason",
    "IdentityProofs",
    "Limitation",
    "Occurrence",
    "OccurrenceTally",
    "ResultClass",
    "RetentionCounts",
    "ToolClass",
    "assess",
    "classified_context",
    "classify_result",
    "count_occurrences",
    "dumps_summary",
    "is_web",
    "occurrence_reason",
    "protection",
    "replay_summary",
    "tool_class",
]
