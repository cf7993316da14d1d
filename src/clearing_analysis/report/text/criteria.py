"""How a gate criterion is written in every view: its value in its unit (a share in percent, a
count as a number), its threshold with its comparison, and how far it is from it (R-G-4).
Shared by the summary, the details and the page (report.html); no view is imported here.
"""

from __future__ import annotations

from clearing_analysis.gate import Comparison, Criterion, CriterionId
from clearing_analysis.report.text.terminal import number, percent


def is_share(criterion: Criterion) -> bool:
    """Whether a criterion measures a share (written in percent), not a count."""
    return criterion.id in {
        CriterionId.ADMITTING_SHARE,
        CriterionId.PRESSURE_REDUCTION,
        CriterionId.COST_INCREASE,
    }


def shown(criterion: Criterion, value: float | None) -> str:
    """A criterion's value in its unit (a share in percent, a count as a number)."""
    return percent(value) if is_share(criterion) else number(value)


def threshold_text(criterion: Criterion) -> str:
    """`>= 10`, `<= 5.0%`: the threshold with its comparison."""
    sign = ">=" if criterion.comparison is Comparison.AT_LEAST else "<="
    return f"{sign} {shown(criterion, criterion.threshold)}"


def gap_text(criterion: Criterion) -> str:
    """How far a measured criterion is from its threshold (`3 short`, `7.7% over`), or what
    it has to spare when it passes; empty when it has no measurement."""
    if criterion.measured is None:
        return ""
    gap = criterion.measured - criterion.threshold
    if criterion.comparison is Comparison.AT_LEAST:
        return f"{shown(criterion, -gap)} short" if gap < 0 else f"{shown(criterion, gap)} to spare"
    return f"{shown(criterion, gap)} over" if gap > 0 else f"{shown(criterion, -gap)} to spare"


def lineage_gap_text(criterion: Criterion) -> str:
    """Criteria 1-2: how many logical conversations are missing (empty when enough)."""
    lineages, minimum = criterion.lineages, criterion.min_lineages
    if lineages is None or minimum is None or lineages >= minimum:
        return ""
    return f"{minimum - lineages} short"


__all__ = ["gap_text", "is_share", "lineage_gap_text", "shown", "threshold_text"]
