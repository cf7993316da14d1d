"""Report histograms: lower bucket edges, an open last bucket, below and unknown apart."""

from __future__ import annotations

import polars as pl

from clearing_analysis.assemble.parts import histogram


def test_values_fall_in_the_last_bucket_whose_edge_is_not_above_them() -> None:
    """With edges 0, 10, 100: 0 and 9 in the first, 10 in the second, 100 and 10^9 in the
    open last; -1 below the first edge; None unknown."""
    values = pl.Series([0, 9, 10, 100, 1_000_000_000, -1, None], dtype=pl.Int64)
    got = histogram(values, [0, 10, 100])
    assert (got.edges, got.counts, got.below, got.unknown) == ((0, 10, 100), (2, 1, 2), 1, 1)


def test_empty_column() -> None:
    """No value: every count zero."""
    got = histogram(pl.Series([], dtype=pl.Int64), [0, 5])
    assert (got.counts, got.below, got.unknown) == ((0, 0), 0, 0)
