"""One reason per result-boundary occurrence, in the precedence of `reasons.ExclusionReason`.

Only protection depends on the boundary. Everything else about a result (its tool class and
hints, outcome and shape; its identity proof and retention) is decided once per result into a
`ResultClass`, and an occurrence's reason is the first that applies of: the result's fixed
exclusion, the boundary's protection, the result's identity or retention shortfall.
"""

from __future__ import annotations

import msgspec

from clearing_analysis.eligibility.identity import (
    IdentityProofs,
    class_exclusion,
    identity_shortfall,
)
from clearing_analysis.eligibility.reasons import Bound, ExclusionReason
from clearing_analysis.replay.model import Protection, ResultShape, ToolResult
from clearing_analysis.replay.retention import RetentionStatus

_PROTECTION_REASONS = {
    Protection.CURRENT_TURN: ExclusionReason.PROTECTED_CURRENT_TURN,
    Protection.RECENT_PROMPT_TURN: ExclusionReason.PROTECTED_RECENT_PROMPT_TURN,
    Protection.RECENT_TOOL_START: ExclusionReason.PROTECTED_RECENT_TOOL_START,
}

_RETENTION_REASONS = {
    RetentionStatus.MISSING: ExclusionReason.RETENTION_MISSING,
    RetentionStatus.NOT_IDENTITY_LINKED: ExclusionReason.RETENTION_MISSING,
    RetentionStatus.NOT_FINALIZED: ExclusionReason.RETENTION_MISSING,
    RetentionStatus.TOMBSTONED: ExclusionReason.RETENTION_TOMBSTONED,
    RetentionStatus.INTEGRITY_MISMATCH: ExclusionReason.RETENTION_INTEGRITY_MISMATCH,
    RetentionStatus.REDACTED: ExclusionReason.RETENTION_REDACTED,
    RetentionStatus.TRUNCATED: ExclusionReason.RETENTION_TRUNCATED,
    RetentionStatus.BYTES_MISMATCH: ExclusionReason.RETENTION_BYTES_MISMATCH,
    RetentionStatus.DIGEST_MISMATCH: ExclusionReason.RETENTION_DIGEST_MISMATCH,
    RetentionStatus.TEXT_MISMATCH: ExclusionReason.RETENTION_TEXT_MISMATCH,
}


def result_exclusion(result: ToolResult) -> ExclusionReason | None:
    """Reasons that hold at every boundary: tool class, hints, outcome and content shape."""
    by_class = class_exclusion(result)
    if by_class is not None:
        return by_class
    if result.is_error:
        return ExclusionReason.ERROR_RESULT
    if result.call_status == "unknown":
        return ExclusionReason.UNKNOWN_OUTCOME
    if result.call_status != "success":
        return ExclusionReason.NOT_SUCCESSFUL
    if not result.run_completed:
        return ExclusionReason.RUN_NOT_COMPLETED
    if not result.returned_and_placed:
        return ExclusionReason.NOT_RETURNED_AND_PLACED
    if result.shape is ResultShape.IMAGE:
        return ExclusionReason.IMAGE_RESULT
    if result.shape is ResultShape.OPAQUE_OR_MIXED:
        return ExclusionReason.OPAQUE_OR_MIXED_BLOCKS
    return None


def retention_shortfall(result: ToolResult) -> ExclusionReason | None:
    """None when retention is byte-identical; redacted / truncated rows are not eligible."""
    return _RETENTION_REASONS.get(result.retention)


class ResultClass(msgspec.Struct, frozen=True):
    """What holds for a result at every boundary: `fixed` (excluded from both bounds whatever
    the boundary) ahead of protection, `shortfall` (upper bound only) after it."""

    fixed: ExclusionReason | None
    shortfall: ExclusionReason | None


def classify_result(
    result: ToolResult, proofs: IdentityProofs, bound: Bound = Bound.LOWER
) -> ResultClass:
    """The boundary-independent part of every occurrence of `result`; for the UPPER bound no
    identity or retention shortfall applies (`Bound`)."""
    fixed = result_exclusion(result)
    if fixed is not None or bound is Bound.UPPER:
        return ResultClass(fixed, None)
    shortfall = identity_shortfall(result, proofs) or retention_shortfall(result)
    return ResultClass(None, shortfall)


def occurrence_reason(
    result_class: ResultClass, protection: Protection | None
) -> ExclusionReason | None:
    """The single reason for one occurrence, or None when it is lower bound."""
    if result_class.fixed is not None:
        return result_class.fixed
    if protection is not None:
        return _PROTECTION_REASONS[protection]
    return result_class.shortfall
