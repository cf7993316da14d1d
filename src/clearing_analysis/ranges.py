"""The stated range of every number an input may hold (docs/formats/README.md, "Numeric ranges").

Each number is checked where it enters, by the typed decoding of its file (`msgspec.Meta`
bounds on the structs; the JSON Schemas in policy/schemas/ state the same bounds, and
tests/formats/test_ranges.py holds them equal). A value outside its range is that file's
fixed refusal: `ROUTES_VALUE_OUT_OF_RANGE` (exit 2), a journal or a pi session skipped
INVALID with the detail `VALUE_OUT_OF_RANGE` (counted), a qualification record MALFORMED.

The ranges are far beyond anything a real history or route holds, and narrow enough that
every figure a report derives from them is a finite double and every sum it prints stays
within ±(2^53 - 1), the integers a JSON number holds exactly (what `show` accepts back):

- tokens: one request's usage (each of input, output, cacheRead, cacheWrite, totalTokens), a
  checkpoint's tokens before and after, and a route's token figures are at most
  `MAX_TOKENS` = 10^9, 500 times the largest context window in the pinned pi-ai catalog
  (2,000,000). A report's integer figures are then single values (at most 2·10^9: the doubled
  summary input) or sums of them; a sum reaches 2^53 only over some 9 million requests at the
  limit, which the report refuses to state (`TOTALS_OUT_OF_RANGE`, report/encode.py) rather
  than round;
- durations: `cacheLifetimeMs` and `cacheMarginMs` at most `MAX_DURATION_MS` = 10^12 ms (about
  31.7 years), so that their sum, the cold gap a report prints, is exact; timestamps are
  milliseconds in [0, 2^53 - 1] (285,000 years), and only their differences are used;
- weights: each price (per million tokens) and quota weight (per token) is 0 or within
  [`MIN_POSITIVE_WEIGHT`, `MAX_WEIGHT`] = [10^-12, 10^12] (the pinned catalog's prices lie in
  [0.001, 600]); `quotaBudget` within [`MIN_QUOTA_BUDGET`, `MAX_QUOTA_BUDGET`] =
  [10^-12, 10^18]. A positive weight has a floor because a cost ratio divides by the off arm:
  a price of 5e-324 beside one of 10^12 would make a ratio near 10^340, beyond a double (an
  input price of 1e308 made one overflow outright). With these bounds every cost figure stays
  below about 10^100, an off arm that is not zero above 10^-39, and so every cost ratio below
  about 10^140 (docs/formats/routes.md works it out);
- counts of a qualification record: [0, 2^53 - 1] (cases and targeted leaves at least 1); the
  report prints them as they are;
- a pi session's `exitCode` of a user command: a 32-bit signed integer, as a process exit
  status is.
"""

from __future__ import annotations

from typing import Final

# 2**53 - 1: beyond it a JSON number no longer holds every integer exactly (RFC 8259 §6), and
# JavaScript writers (Number.MAX_SAFE_INTEGER) no longer count exactly.
MAX_EXACT_INTEGER: Final = 2**53 - 1
MAX_TOKENS: Final = 10**9
MAX_DURATION_MS: Final = 10**12
MIN_POSITIVE_WEIGHT: Final = 1e-12
MAX_WEIGHT: Final = 1e12
MIN_QUOTA_BUDGET: Final = 1e-12
MAX_QUOTA_BUDGET: Final = 1e18
MIN_EXIT_CODE: Final = -(2**31)
MAX_EXIT_CODE: Final = 2**31 - 1


def weight_in_range(value: float) -> bool:
    """A price or quota weight: 0, or within [MIN_POSITIVE_WEIGHT, MAX_WEIGHT]."""
    return value == 0 or MIN_POSITIVE_WEIGHT <= value <= MAX_WEIGHT


__all__ = [
    "MAX_DURATION_MS",
    "MAX_EXACT_INTEGER",
    "MAX_EXIT_CODE",
    "MAX_QUOTA_BUDGET",
    "MAX_TOKENS",
    "MAX_WEIGHT",
    "MIN_EXIT_CODE",
    "MIN_POSITIVE_WEIGHT",
    "MIN_QUOTA_BUDGET",
    "weight_in_range",
]
