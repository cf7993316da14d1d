"""The six criteria of the per-API gate, each measured and compared in exact arithmetic.

1. PRESSURED_BOUNDARIES: at least 10 pressured pre-turn boundaries (0.75·T <= E < T) across at
   least 3 logical conversations;
2. COLD_PRESSURED_BOUNDARIES: at least 10 cold pressured boundaries across at least 3 logical
   conversations;
3. ADMITTING_SHARE: at least 25% of the cold pressured boundaries admit at least 20,000 new
   lower-bound net tokens in the simulation (no cold pressured boundary: share 0, R-SIM-10);
4. PRESSURE_REDUCTION: at least 15% less modeled compaction pressure at the supplied retrieval
   rate (undefined model: fails with PRESSURE_MODEL_UNDEFINED);
5. COST_INCREASE: at most 5% higher modeled total cost at every retrieval sensitivity in both
   views;
6. PAYLOAD_DIFFERENCES: zero unintended payload differences in offline qualification.

Criteria 1-3 count native E (R-SIM-10). A criterion's `measured` and `threshold` are rounded
for the report; `passed` is decided before rounding.
"""

from __future__ import annotations

import enum
from fractions import Fraction

import msgspec

from clearing_analysis.numbers import Rounded, rounded


class CriterionId(enum.StrEnum):
    """The six criteria, in the seed's order."""

    PRESSURED_BOUNDARIES = "PRESSURED_BOUNDARIES"
    COLD_PRESSURED_BOUNDARIES = "COLD_PRESSURED_BOUNDARIES"
    ADMITTING_SHARE = "ADMITTING_SHARE"
    PRESSURE_REDUCTION = "PRESSURE_REDUCTION"
    COST_INCREASE = "COST_INCREASE"
    PAYLOAD_DIFFERENCES = "PAYLOAD_DIFFERENCES"


class Comparison(enum.StrEnum):
    """How `measured` must compare with `threshold` to pass."""

    AT_LEAST = "AT_LEAST"
    AT_MOST = "AT_MOST"


class CriterionDetail(enum.StrEnum):
    """Why a criterion has no usable measurement (`passed` False or None)."""

    PRESSURE_MODEL_UNDEFINED = "PRESSURE_MODEL_UNDEFINED"  # G = 0 or T <= P: fails
    SUMMARY_DOES_NOT_FIT = "SUMMARY_DOES_NOT_FIT"  # no reduction credited (measured <= 0)
    COST_MODEL_UNDEFINED = "COST_MODEL_UNDEFINED"  # undefined pressure model: not evaluated
    COST_RATIO_UNBOUNDED = "COST_RATIO_UNBOUNDED"  # zero off-arm cost, positive on-arm cost
    PAYLOAD_UNQUALIFIED = "PAYLOAD_UNQUALIFIED"  # no valid current record: not evaluated


class Criterion(msgspec.Struct, frozen=True, rename="camel", forbid_unknown_fields=True):
    """One criterion's outcome: None for `passed` means not evaluated."""

    id: CriterionId
    passed: bool | None
    measured: Rounded | None
    threshold: Rounded
    comparison: Comparison
    # Criteria 1-2 also need enough logical conversations; both parts must pass.
    lineages: int | None = None
    min_lineages: int | None = None
    detail: CriterionDetail | None = None


class Evidence(msgspec.Struct, frozen=True):
    """One API cohort's boundary counts (from the simulation's boundary table)."""

    boundaries: int
    pressured: int
    pressured_lineages: int
    cold_pressured: int
    cold_pressured_lineages: int
    admitting: int  # cold pressured boundaries admitting >= 20,000 new net tokens

    @property
    def admitting_share(self) -> Fraction:
        """admitting / cold pressured; 0 when there is no cold pressured boundary."""
        if self.cold_pressured == 0:
            return Fraction(0)
        return Fraction(self.admitting, self.cold_pressured)


def counted_criterion(
    criterion: CriterionId, count: int, lineages: int, min_count: int, min_lineages: int
) -> Criterion:
    """Criteria 1 and 2: a count and its logical conversations, both at least their minimum."""
    return Criterion(
        id=criterion,
        passed=count >= min_count and lineages >= min_lineages,
        measured=float(count),
        threshold=float(min_count),
        comparison=Comparison.AT_LEAST,
        lineages=lineages,
        min_lineages=min_lineages,
    )


def at_least(criterion: CriterionId, measured: Fraction, threshold: Fraction) -> Criterion:
    """A share or reduction that must reach its threshold."""
    return Criterion(
        id=criterion,
        passed=measured >= threshold,
        measured=rounded(measured),
        threshold=rounded(threshold),
        comparison=Comparison.AT_LEAST,
    )


__all__ = [
    "Comparison",
    "Criterion",
    "CriterionDetail",
    "CriterionId",
    "Evidence",
    "at_least",
    "counted_criterion",
]
