"""Negative tests: a deliberately wrong clearing is an unintended difference for EVERY API.

The faults are applied to the cleared history inside the harness, so the payloads still come
from the real installed builders; only the clearing is wrong.
"""

from __future__ import annotations

import pytest

from clearing_analysis.inputs.configs import Api
from clearing_analysis.qualify.record import DifferenceCategory
from clearing_analysis.qualify.runner import FaultMode, HarnessOutput, run_harness

pytestmark = pytest.mark.node

# The category each fault must show up in (it may show up in others as well).
EXPECTED = {
    FaultMode.ARGUMENT: DifferenceCategory.TOOL_CALL_ARGUMENTS,
    FaultMode.SIGNATURE: DifferenceCategory.SIGNATURE,
    FaultMode.ORDERING: DifferenceCategory.ORDERING,
    FaultMode.UNTARGETED: DifferenceCategory.UNTARGETED_RESULT_TEXT,
    FaultMode.SKIP: DifferenceCategory.TARGET_NOT_CHANGED,
}


@pytest.fixture(scope="module", params=list(FaultMode))
def faulty(request: pytest.FixtureRequest) -> tuple[FaultMode, HarnessOutput]:
    """One harness run per fault mode."""
    mode: FaultMode = request.param
    return mode, run_harness(mode)


def test_fault_is_detected_for_every_api(faulty: tuple[FaultMode, HarnessOutput]) -> None:
    """Every API reports unintended differences, in the category the fault belongs to."""
    mode, output = faulty
    assert output.fault == mode
    assert set(output.apis) == set(Api)
    for api, summary in output.apis.items():
        assert summary.unintended_differences > 0, (mode, api)
        assert summary.by_category[EXPECTED[mode]] > 0, (mode, api)


def test_signature_fault_is_not_reported_as_ordering(
    faulty: tuple[FaultMode, HarnessOutput],
) -> None:
    """Categories are specific: a fault never lands in ORDERING unless it reorders."""
    mode, output = faulty
    if mode is FaultMode.ORDERING:
        return
    for summary in output.apis.values():
        assert summary.by_category[DifferenceCategory.ORDERING] == 0
