"""Payload qualification: does clearing change only the targeted result-text leaves? (R-Q).

The public surface here is the analyzer side: `check_qualification` and its result types.
It reads files only; it never imports or runs Node, pi-ai, provider SDKs or auth code
(R-SC-4). Running the harness is `clearing_analysis.qualify.runner`, imported only by the
`qualify` command.
"""

from __future__ import annotations

from clearing_analysis.qualify.record import DifferenceCategory
from clearing_analysis.qualify.verify import (
    PAYLOAD_UNQUALIFIED,
    ApiQualification,
    QualificationDetail,
    QualificationStatus,
    check_qualification,
)

__all__ = [
    "PAYLOAD_UNQUALIFIED",
    "ApiQualification",
    "DifferenceCategory",
    "QualificationDetail",
    "QualificationStatus",
    "check_qualification",
]
