"""The period a run analyzes (`--since`, `--until` of analyze, explore and replay).

A user asks about part of a history: `--since` and `--until` take an ISO-8601 date
(`2026-06-01`) or date and time (`2026-06-01T09:30`, `2026-06-01T09:30:00+02:00`); a time
without an offset is UTC. The period is [since, until): `--since` is included and `--until`
is not, but a date alone given to `--until` names a whole day, so the period runs to the next
day's midnight (UTC) and the named day is included. Either may be left out (open on that side).

Replay skips a boundary whose request lies outside the period (OUTSIDE_PERIOD, counted as the
capture window's skips are), the assessment leaves out and counts requests outside it, and the
simulation leaves out and counts compactions outside it (docs/model.md, "The period"). A value
that is no such date, or a period that holds no instant, is INPUT_INVALID; the typed value is
never echoed.
"""

from __future__ import annotations

import datetime
import re

import msgspec

from clearing_analysis.codes.errors import InputInvalidDetail, InputInvalidError

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_MAX_MS = 2**53 - 1


class Period(msgspec.Struct, frozen=True):
    """[since_ms, until_ms) in Unix milliseconds; None: open on that side."""

    since_ms: int | None = None
    until_ms: int | None = None

    def contains(self, ms: int) -> bool:
        """Whether the instant `ms` lies in the period."""
        if self.since_ms is not None and ms < self.since_ms:
            return False
        return self.until_ms is None or ms < self.until_ms

    @property
    def bounded(self) -> bool:
        """Whether either side was given."""
        return self.since_ms is not None or self.until_ms is not None


EVERYTHING = Period()


def _millis(text: str, *, end_of_day: bool) -> int:
    value = text.strip()
    if not value.isascii():
        raise InputInvalidError(InputInvalidDetail.PERIOD_NOT_A_DATE)
    try:
        moment = datetime.datetime.fromisoformat(value)
    except ValueError:
        raise InputInvalidError(InputInvalidDetail.PERIOD_NOT_A_DATE) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    if end_of_day and _DATE.fullmatch(value):
        moment += datetime.timedelta(days=1)
    millis = (moment - _EPOCH) // datetime.timedelta(milliseconds=1)
    if not 0 <= millis <= _MAX_MS:
        raise InputInvalidError(InputInvalidDetail.PERIOD_NOT_A_DATE)
    return millis


def parse_period(since: str | None, until: str | None) -> Period:
    """The period `--since` and `--until` name (see the module docstring)."""
    since_ms = None if since is None else _millis(since, end_of_day=False)
    until_ms = None if until is None else _millis(until, end_of_day=True)
    if since_ms is not None and until_ms is not None and since_ms >= until_ms:
        raise InputInvalidError(InputInvalidDetail.PERIOD_EMPTY)
    return Period(since_ms, until_ms)


__all__ = ["EVERYTHING", "Period", "parse_period"]
