"""Eligibility classes and the fixed exclusion reasons, in precedence order (R-EL-1..8).

Each result-boundary occurrence (`EXCLUSION_UNIT`, R-EL-8) gets exactly one class and at most
one reason: the first that applies in the order of `ExclusionReason` below. The order goes
from permanent facts about the result to per-boundary protection, then identity, then
retention, so a reason never hides a more fundamental one:

1. tool class by name (instruction / history / effectful built-ins: both bounds, no proof
   needed, R-EL-6; in a pi session, a name no reviewed table has), then a captured destructive
   hint;
2. the result itself: error, not successful, unknown outcome (R-SRC-3), run not completed, not
   returned and placed, image, opaque or mixed blocks (R-EL-1/2);
3. protection at this boundary: current turn, three latest prompt turns, ten latest tool
   starts (R-EL-2, R-SIM-8);
4. identity: ambiguous, unproven (upper bound only, R-EL-3..6);
5. retention: missing (no index entry or not finalized), tombstoned, integrity mismatch,
   redacted, truncated, bytes, digest, text mismatch (upper bound only, R-RT-2).
"""

from __future__ import annotations

import enum

EXCLUSION_UNIT = "result-boundary occurrence"


class EligibilityClass(enum.StrEnum):
    """Whether an occurrence counts toward the lower bound, only the upper bound, or neither."""

    LOWER_BOUND = "LOWER_BOUND"
    UPPER_BOUND_ONLY = "UPPER_BOUND_ONLY"
    EXCLUDED = "EXCLUDED"


class ExclusionReason(enum.StrEnum):
    """Why an occurrence is not lower bound; declaration order is precedence order."""

    INSTRUCTION_BUILTIN = "INSTRUCTION_BUILTIN"
    HISTORY_BUILTIN = "HISTORY_BUILTIN"
    EFFECTFUL_BUILTIN = "EFFECTFUL_BUILTIN"
    # A pi session's tool name that no reviewed pi-family table has (toolclass): nothing says
    # what it does, so it is excluded from the upper bound too.
    UNKNOWN_TOOL = "UNKNOWN_TOOL"
    DESTRUCTIVE_HINT = "DESTRUCTIVE_HINT"
    ERROR_RESULT = "ERROR_RESULT"
    NOT_SUCCESSFUL = "NOT_SUCCESSFUL"
    # An imported result whose history states no outcome (a Codex output without a documented
    # exit status, R-SRC-3): whether the call succeeded is unknown, so it is never clearable.
    UNKNOWN_OUTCOME = "UNKNOWN_OUTCOME"
    RUN_NOT_COMPLETED = "RUN_NOT_COMPLETED"
    NOT_RETURNED_AND_PLACED = "NOT_RETURNED_AND_PLACED"
    IMAGE_RESULT = "IMAGE_RESULT"
    OPAQUE_OR_MIXED_BLOCKS = "OPAQUE_OR_MIXED_BLOCKS"
    PROTECTED_CURRENT_TURN = "PROTECTED_CURRENT_TURN"
    PROTECTED_RECENT_PROMPT_TURN = "PROTECTED_RECENT_PROMPT_TURN"
    PROTECTED_RECENT_TOOL_START = "PROTECTED_RECENT_TOOL_START"
    IDENTITY_AMBIGUOUS = "IDENTITY_AMBIGUOUS"
    IDENTITY_UNPROVEN = "IDENTITY_UNPROVEN"
    RETENTION_MISSING = "RETENTION_MISSING"
    RETENTION_TOMBSTONED = "RETENTION_TOMBSTONED"
    RETENTION_INTEGRITY_MISMATCH = "RETENTION_INTEGRITY_MISMATCH"
    RETENTION_REDACTED = "RETENTION_REDACTED"
    RETENTION_TRUNCATED = "RETENTION_TRUNCATED"
    RETENTION_BYTES_MISMATCH = "RETENTION_BYTES_MISMATCH"
    RETENTION_DIGEST_MISMATCH = "RETENTION_DIGEST_MISMATCH"
    RETENTION_TEXT_MISMATCH = "RETENTION_TEXT_MISMATCH"


UPPER_BOUND_REASONS = frozenset(
    {
        ExclusionReason.IDENTITY_AMBIGUOUS,
        ExclusionReason.IDENTITY_UNPROVEN,
        ExclusionReason.RETENTION_MISSING,
        ExclusionReason.RETENTION_TOMBSTONED,
        ExclusionReason.RETENTION_INTEGRITY_MISMATCH,
        ExclusionReason.RETENTION_REDACTED,
        ExclusionReason.RETENTION_TRUNCATED,
        ExclusionReason.RETENTION_BYTES_MISMATCH,
        ExclusionReason.RETENTION_DIGEST_MISMATCH,
        ExclusionReason.RETENTION_TEXT_MISMATCH,
    }
)


def class_of(reason: ExclusionReason | None) -> EligibilityClass:
    """The eligibility class an occurrence with `reason` falls in."""
    if reason is None:
        return EligibilityClass.LOWER_BOUND
    if reason in UPPER_BOUND_REASONS:
        return EligibilityClass.UPPER_BOUND_ONLY
    return EligibilityClass.EXCLUDED


class Bound(enum.StrEnum):
    """Which set the simulation clears from.

    LOWER (`analyze`): only results with proven identity and byte-identical retention.
    UPPER (`explore`, docs/explore.md): identity and retention are not required (pi sessions
    prove neither), so every result that passes the fixed exclusions and is unprotected at
    the boundary is eligible; the fixed exclusions (tool class, outcome, shape) and protection
    are the same rules as for LOWER.
    """

    LOWER = "LOWER"
    UPPER = "UPPER"


class ApiSignal(enum.StrEnum):
    """Per-API evidence signals for the gate (R-RT-3, R-G-1)."""

    IDENTITY_UNPROVEN = "IDENTITY_UNPROVEN"
    RETENTION_UNMATCHED = "RETENTION_UNMATCHED"
    RETENTION_COVERAGE_LOW = "RETENTION_COVERAGE_LOW"


class Limitation(enum.StrEnum):
    """What the analyzer states it cannot attest (R-EL-7), always reported."""

    # Approval / unresolved-effect state is not recorded natively: not checked, not attested.
    APPROVAL_STATE_UNATTESTED = "APPROVAL_STATE_UNATTESTED"
