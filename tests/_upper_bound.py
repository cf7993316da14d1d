"""The upper bound's eligibility read from an explore report's `eligibility` part, which is the
analysis report's (occurrences by class and by reason, docs/explore.md)."""

from __future__ import annotations

from typing import Any

from clearing_analysis.eligibility.reasons import UPPER_BOUND_REASONS


def upper_bound_eligible(eligibility: dict[str, Any]) -> int:
    """Occurrences the upper bound may clear: all but the EXCLUDED class."""
    return int(eligibility["occurrences"] - eligibility["byClass"]["EXCLUDED"])


def excluded_by_reason(eligibility: dict[str, Any]) -> dict[str, int]:
    """The reasons that exclude an occurrence even from the upper bound, with their counts."""
    upper = {reason.value for reason in UPPER_BOUND_REASONS}
    return {k: int(v) for k, v in eligibility["byReason"].items() if k not in upper}
