"""The cost part's inputs: exact integer sums of the request sums and the cleared rows."""

from __future__ import annotations

import polars as pl

from clearing_analysis.assemble.cost import cost_inputs
from clearing_analysis.simulation.totals import RequestSums


def _cleared(net: list[int], escaped: list[int], summary: list[int]) -> pl.DataFrame:
    return pl.DataFrame(
        {"net_tokens": net, "escaped_tokens": escaped, "summary_tokens": summary},
        schema={"net_tokens": pl.Int64, "escaped_tokens": pl.Int64, "summary_tokens": pl.Int64},
    )


def test_cost_inputs_sum_the_requests_and_the_cleared_rows() -> None:
    """10 requests with 3 fallbacks: 7 observed; two cleared rows of 400 + 600 net, 450 + 650
    escaped and 400 + 500 summary tokens; the growth passed through."""
    requests = RequestSums(
        requests=10,
        fallback=3,
        input=1_000,
        cache_read=2_000,
        cache_write=300,
        output=40,
        fallback_context=5,
        fallback_output=6,
        removed_observed=70,
    )
    got = cost_inputs(requests, _cleared([400, 600], [450, 650], [400, 500]), growth=12_345)
    assert (got.requests, got.observed_requests, got.prefix) == (10, 7, 3_300)
    assert (got.output, got.fallback_context, got.fallback_output, got.removed_observed) == (
        40,
        5,
        6,
        70,
    )
    assert (got.cleared, got.admitted, got.retrieved, got.summary_cleared) == (
        2,
        1_000,
        1_100,
        900,
    )
    assert got.growth == 12_345


def test_cost_inputs_of_no_cleared_row_are_zero() -> None:
    """No cleared row: none cleared and every cleared sum 0 (not null)."""
    got = cost_inputs(RequestSums(), _cleared([], [], []), growth=0)
    assert (got.cleared, got.admitted, got.retrieved, got.summary_cleared) == (0, 0, 0, 0)
