"""Report histograms: lower bucket edges, an open last bucket, below and unknown apart."""

from __future__ import annotations

import pytest

from clearing_analysis.assemble.parts import bucketed, histogram
from clearing_analysis.simulation.figures import Buckets


def test_values_fall_in_the_last_bucket_whose_edge_is_not_above_them() -> None:
    """With edges 0, 10, 100: 0 and 9 in the first, 10 in the second, 100 and 10^9 in the
    open last; -1 below the first edge; None unknown."""
    got = bucketed([0, 9, 10, 100, 1_000_000_000, -1, None], [0, 10, 100])
    assert (got.edges, got.counts, got.below, got.unknown) == ((0, 10, 100), (2, 1, 2), 1, 1)


def test_empty_column() -> None:
    """No value: every count zero."""
    got = bucketed([], [0, 5])
    assert (got.counts, got.below, got.unknown) == ((0, 0), 0, 0)


def test_merged_buckets_count_both_parts() -> None:
    """Two parts' buckets merged are the buckets of all their values."""
    first, second = Buckets.over([0, 10]), Buckets.over([0, 10])
    first.extend([1, 20, None])
    second.extend([-5, 10, 11])
    first.merge(second)
    assert histogram(first) == bucketed([1, 20, None, -5, 10, 11], [0, 10])
    assert (first.counts, first.below, first.unknown) == ([1, 3], 1, 1)


def test_buckets_of_other_edges_do_not_merge() -> None:
    """Adding counts of different edges would mix buckets: refused."""
    with pytest.raises(ValueError, match="different edges"):
        Buckets.over([0, 10]).merge(Buckets.over([0, 5]))
