"""The shared JSON-lines steps the history readers refuse lines with (jsonlines)."""

from __future__ import annotations

import io

import msgspec
import pytest

from clearing_analysis import jsonlines, strictjson
from clearing_analysis.policy import limits


class _Shape(msgspec.Struct):
    count: int


def test_lines_say_whether_each_ended_with_a_newline() -> None:
    """Every line without its newline, the last (torn) one marked as not ended."""
    stream = io.BytesIO(b'{"a":1}\n{"b":2}\n{"c"')
    assert list(jsonlines.lines(stream)) == [
        (b'{"a":1}', True),
        (b'{"b":2}', True),
        (b'{"c"', False),
    ]


def test_an_over_long_line_is_line_too_long() -> None:
    """A line past maxJournalLineBytes is read one byte past the limit and refused."""
    limit = limits().max_journal_line_bytes
    ((body, _),) = list(jsonlines.lines(io.BytesIO(b"x" * (limit + 10) + b"\n")))[:1]
    with pytest.raises(jsonlines.LineRejected) as refused:
        jsonlines.check_length(body)
    assert refused.value.reason == jsonlines.LINE_TOO_LONG
    assert jsonlines.check_length(b"x" * limit) == b"x" * limit


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"[1, 2]", jsonlines.NOT_AN_OBJECT),
        (b'{"a": 1, "a": 2}', strictjson.DUPLICATE_KEY),
        (b'{"a": NaN}', strictjson.NON_FINITE_NUMBER),
        (b'{"a": ', strictjson.MALFORMED_JSON),
        (b'{"a": "\xff"}', strictjson.INVALID_UTF8),
    ],
)
def test_a_line_that_is_no_strict_json_object_is_refused_with_its_reason(
    raw: bytes, reason: str
) -> None:
    """Each named invalid line gets the strictjson reason (or NOT_AN_OBJECT), nothing of it."""
    with pytest.raises(jsonlines.LineRejected) as refused:
        jsonlines.json_object(raw)
    assert refused.value.reason == reason
    assert refused.value.args == (reason,)


def test_conversion_refuses_a_wrong_shape_strictly() -> None:
    """A value of the wrong type is WRONG_SHAPE (strict: no string-to-integer coercion)."""
    assert jsonlines.convert({"count": 3}, _Shape) == _Shape(3)
    with pytest.raises(jsonlines.LineRejected) as refused:
        jsonlines.convert({"count": "3"}, _Shape)
    assert refused.value.reason == strictjson.WRONG_SHAPE
