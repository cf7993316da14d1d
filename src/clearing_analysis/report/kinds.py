"""The two report kinds as one closed choice, for the renderers to match exhaustively.

A renderer takes either kind (`AnyReport`) and renders every part both hold with the same
code, whatever the kind, titled by the report's bound (`bound`); where the kinds differ (a
verdict and its criteria, or the sessions read) it matches on the kind with
`match` / `typing.assert_never`, so that a third kind would fail the type check wherever it is
not handled. Structs only: nothing here renders.
"""

from __future__ import annotations

from clearing_analysis.eligibility.reasons import Bound
from clearing_analysis.report import explore_model as em
from clearing_analysis.report import model as rm

AnyReport = rm.Report | em.ExploreReport
# One API's part of either kind: the figures both hold (`rm.ApiFigures`) and the kind's own.
AnyApi = rm.ApiReport | em.ApiExplore


def bound(report: AnyReport) -> Bound:
    """The report's bound: LOWER (analysis: gated, over the proven lower-bound class) or UPPER
    (explore: every figure an upper bound), as its `bound` marker states it."""
    return Bound(report.bound)


__all__ = ["AnyApi", "AnyReport", "bound"]
