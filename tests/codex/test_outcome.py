"""A Codex tool result's outcome from its documented exit status (docs/formats/codex.md)."""

from __future__ import annotations

import json

import pytest

from clearing_analysis.codex import Outcome, outcome_of


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (
            json.dumps({"output": "x", "metadata": {"exit_code": 0, "duration_seconds": 0.1}}),
            Outcome.SUCCESS,
        ),
        (
            json.dumps({"output": "x", "metadata": {"exit_code": 2, "duration_seconds": 0.1}}),
            Outcome.ERROR,
        ),
        (json.dumps({"output": "x", "metadata": {"exit_code": "0"}}), Outcome.UNKNOWN),
        ("Exit code: 0\nWall time: 0.2 seconds\nOutput:\nok", Outcome.SUCCESS),
        ("Exit code: 127\nWall time: 0.2 seconds\nOutput:\n", Outcome.ERROR),
        (
            "Chunk ID: a1\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\nok",
            Outcome.SUCCESS,
        ),
        (
            "Chunk ID: a1\nWall time: 0.1 seconds\nProcess exited with code 1\nOutput:\n",
            Outcome.ERROR,
        ),
        (
            "Chunk ID: a1\nWall time: 1 seconds\nProcess running with session ID 7\nOutput:\n",
            Outcome.UNKNOWN,
        ),
        ("Chunk ID: a1\nOutput:\nProcess exited with code 0", Outcome.UNKNOWN),
        ("Success. Updated the following files:\nM a.py", Outcome.UNKNOWN),
        ("Exit code: 99999999999\n", Outcome.UNKNOWN),
        ('{"output": [[[[', Outcome.UNKNOWN),
        ("", Outcome.UNKNOWN),
    ],
)
def test_outcome_of(output: str, expected: Outcome) -> None:
    """Structured metadata, a freeform first line and a unified-exec header line state the
    status; a running process, text after `Output:` and anything else state none."""
    assert outcome_of(output) is expected


def test_deep_structured_output_is_unknown() -> None:
    """An output nested past the reader's limit is not decoded: UNKNOWN."""
    assert outcome_of('{"output":' + "[" * 10_000 + "]" * 10_000 + "}") is Outcome.UNKNOWN
