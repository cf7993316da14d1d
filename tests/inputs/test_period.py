"""--since / --until (inputs.period): ISO dates and datetimes, UTC unless an offset is given,
[since, until) with a date alone for --until naming its whole day; bad values are fixed
INPUT_INVALID details that never echo what was typed."""

from __future__ import annotations

import pytest

from clearing_analysis.codes.errors import InputInvalidError
from clearing_analysis.inputs.period import EVERYTHING, Period, parse_period

DAY = 86_400_000
JUNE_1 = 1_780_272_000_000  # 2026-06-01T00:00:00Z


@pytest.mark.parametrize(
    ("since", "until", "expected"),
    [
        ("2026-06-01", None, Period(JUNE_1, None)),
        (None, "2026-06-01", Period(None, JUNE_1 + DAY)),  # the named day is included
        ("2026-06-01T09:30", None, Period(JUNE_1 + 9 * 3_600_000 + 30 * 60_000, None)),
        ("2026-06-01T02:00:00+02:00", None, Period(JUNE_1, None)),  # an offset is honoured
        ("2026-06-01T00:00:00Z", "2026-06-01T00:00:00.001Z", Period(JUNE_1, JUNE_1 + 1)),
        (None, None, EVERYTHING),
    ],
)
def test_the_documented_forms(since: str | None, until: str | None, expected: Period) -> None:
    """Each documented form gives the instants the module docstring says."""
    assert parse_period(since, until) == expected


def test_since_is_included_and_until_is_not() -> None:
    """The period is [since, until)."""
    period = parse_period("2026-06-01", "2026-06-01T12:00")
    assert period.contains(JUNE_1) and period.contains(JUNE_1 + 12 * 3_600_000 - 1)
    assert not period.contains(JUNE_1 - 1) and not period.contains(JUNE_1 + 12 * 3_600_000)
    assert EVERYTHING.contains(0) and not EVERYTHING.bounded


@pytest.mark.parametrize(
    ("since", "until", "detail"),
    [
        ("yesterday-canary-7f3a", None, "PERIOD_NOT_A_DATE"),
        (None, "2026-13-40", "PERIOD_NOT_A_DATE"),
        ("1969-12-31", None, "PERIOD_NOT_A_DATE"),  # before the epoch
        ("2026-06-0\uff11", None, "PERIOD_NOT_A_DATE"),  # a fullwidth digit one
        ("2026-06-02", "2026-06-01", "PERIOD_EMPTY"),
        ("2026-06-01T10:00", "2026-06-01T10:00", "PERIOD_EMPTY"),
    ],
)
def test_bad_values_are_fixed_details(since: str | None, until: str | None, detail: str) -> None:
    """No date, a date before 1970, or a period that holds no instant: INPUT_INVALID with a
    fixed detail; the typed value is not in the error."""
    with pytest.raises(InputInvalidError) as raised:
        parse_period(since, until)
    assert raised.value.detail.value == detail
    assert "canary" not in str(raised.value)
