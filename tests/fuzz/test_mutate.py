"""The mutator's value edits (fuzz/mutate.py): numbers at boundaries, collections emptied, one
field at one boundary on every line; each keeps the document's shape."""

from __future__ import annotations

import json
import math
import random

import pytest
from fuzz.mutate import (
    BOUNDARIES,
    RandomChooser,
    dumps,
    mutate_document,
    mutate_lines,
    mutate_value,
)

from clearing_analysis import ranges


class Scripted:
    """Choices from a fixed list (then 0): a mutation chosen exactly."""

    def __init__(self, *choices: int) -> None:
        self._choices = list(choices)

    def below(self, n: int) -> int:
        """The next scripted choice, which must be in [0, n)."""
        choice = self._choices.pop(0) if self._choices else 0
        assert 0 <= choice < n
        return choice


def test_boundaries_cover_the_types_and_every_stated_range() -> None:
    """0, -1, 2^31, 2^53 ± 1, 2^63, 1e308, the smallest subnormal and -0.0, and both sides of
    each stated range's edges."""
    wanted = {0, -1, 2**31, 2**53 - 1, 2**53 + 1, 2**63, 1e308, 5e-324}
    wanted |= {ranges.MAX_TOKENS, ranges.MAX_TOKENS + 1, ranges.MAX_DURATION_MS + 1}
    wanted |= {ranges.MIN_POSITIVE_WEIGHT, ranges.MAX_WEIGHT, ranges.MAX_QUOTA_BUDGET}
    assert wanted <= set(BOUNDARIES)
    assert any(isinstance(b, float) and b == 0 and math.copysign(1, b) < 0 for b in BOUNDARIES)


@pytest.mark.parametrize("boundary", BOUNDARIES, ids=repr)
def test_every_boundary_is_written_as_itself(boundary: float) -> None:
    """Written into JSON and read back, a boundary is the same number of the same type (-0.0
    keeps its sign, 5e-324 stays a subnormal, 2^64 an exact integer)."""
    read = json.loads(dumps({"n": boundary}))["n"]
    assert type(read) is type(boundary)
    assert read == boundary
    assert math.copysign(1, read) == math.copysign(1, boundary)


def test_a_number_is_set_to_a_boundary() -> None:
    """A value edit (choice 0 of 3) on a document with numbers sets one of them to a
    boundary, the shape untouched."""
    index = BOUNDARIES.index(2**53 + 1)
    edited = mutate_value({"usage": {"input": 5, "output": 6}}, Scripted(0, 1, index, 1, 1))
    assert edited == {"usage": {"input": 5, "output": 2**53 + 1}}


def test_every_number_at_once() -> None:
    """One time in eight every number of the document takes the same boundary."""
    index = BOUNDARIES.index(ranges.MAX_TOKENS)
    edited = mutate_value({"a": 1, "b": [2, {"c": 3.5}]}, Scripted(0, 1, index, 0))
    assert edited == {"a": ranges.MAX_TOKENS, "b": [ranges.MAX_TOKENS, {"c": ranges.MAX_TOKENS}]}


def test_a_collection_is_emptied() -> None:
    """Where one element is expected, none: an array or object emptied in place."""
    edited = mutate_value({"content": [{"type": "text"}], "n": 1}, Scripted(0, 0, 0))
    assert edited == {"content": [], "n": 1}


def test_one_field_at_a_boundary_on_every_line() -> None:
    """Every line's `input` at 2^52 (sums past what a report may state); lines without the
    field are kept byte for byte."""
    lines = [
        b'{"kind":"header","seq":0}',
        b'{"seq":1,"usage":{"input":5,"output":1}}',
        b'{"seq":2,"usage":{"input":7,"output":2}}',
    ]
    data = b"\n".join(lines) + b"\n"
    names = sorted({"seq", "input", "output"})
    index = BOUNDARIES.index(2**53)
    mutated = mutate_lines(data, Scripted(4, 0, names.index("input"), index))
    out = mutated.split(b"\n")
    assert out[0] == lines[0]
    assert [json.loads(line)["usage"]["input"] for line in out[1:3]] == [2**53, 2**53]
    assert [json.loads(line)["usage"]["output"] for line in out[1:3]] == [1, 2]


def test_value_edits_are_a_third_of_the_mutations() -> None:
    """Over many random mutations of a valid document, value edits (numbers at a boundary)
    are common."""
    document = json.dumps({"a": [1, 2], "b": {"c": 1.5}, "d": "x"}).encode()
    rng = random.Random(3)
    marks = [dumps(b) for b in (2**53 + 1, 1e308, 5e-324, 2**63, -(2**63))]
    hits = sum(
        any(mark in mutate_document(document, RandomChooser(rng)) for mark in marks)
        for _ in range(600)
    )
    assert hits > 20
