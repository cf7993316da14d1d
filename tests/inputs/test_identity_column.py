"""The input files' identities as one integer column (`output.IdentityColumn`): membership is
exactly a set's, whatever the numbers, so an output that is an input (or its hard link) is
still named OUTPUT_IS_INPUT when the run keeps 16 bytes a file instead of a set of tuples."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from clearing_analysis.inputs.output import IdentityColumn

_NUMBER = st.integers(min_value=0, max_value=2**64 - 1) | st.integers(0, 6)
_PAIR = st.tuples(_NUMBER, _NUMBER)


@given(st.lists(_PAIR, max_size=40), _PAIR)
def test_membership_is_a_sets(identities: list[tuple[int, int]], probe: tuple[int, int]) -> None:
    """Small numbers make inodes equal to other files' devices and to each other, so a probe
    whose inode sits at a device's position, or beside another device, is tried too."""
    column = IdentityColumn.of(identities)
    assert (probe in column) == (probe in set(identities))
    assert all(identity in column for identity in identities)


def test_named_non_members() -> None:
    """A swapped pair, an inode found only among the devices, two numbers of neighbouring
    files, a negative or too large number, a triple and a non-tuple are not members."""
    column = IdentityColumn.of([(5, 7), (9, 5)])
    assert (5, 7) in column and (9, 5) in column
    assert (7, 5) not in column  # swapped
    assert (9, 9) not in column  # 9 is only a device
    assert (7, 9) not in column  # one file's inode, then the next one's device
    assert (5, -1) not in column
    assert (5, 2**64) not in column
    assert (5, 7, 0) not in column
    assert [5, 7] not in column
    assert (5, 7) not in IdentityColumn.of([])
