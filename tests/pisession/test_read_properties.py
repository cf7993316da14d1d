"""Hypothesis over the pi session reader, which parses untrusted files: it never raises, always
answers with a typed outcome, keeps nothing of a refused file, and reads every generated
well-formed session into the path the documented rules give."""

from __future__ import annotations

import io
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clearing_analysis.pisession import (
    ReadSession,
    RejectedSession,
    SessionInvalid,
    SessionOutcome,
    read_stream,
)
from clearing_analysis.pisession import entries as pe
from tests.pisession.builder import Session

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
_ENTRY_KEYS = st.sampled_from(
    ["type", "id", "parentId", "timestamp", "message", "summary", "tokensBefore", "role"]
)
_TYPES = st.sampled_from(
    ["message", "compaction", "branch_summary", "model_change", "custom", "label", "zz", "session"]
)


@st.composite
def _entry_like(draw: st.DrawFn) -> dict[str, Any]:
    value: dict[str, Any] = draw(st.dictionaries(_ENTRY_KEYS, _JSON, max_size=5))
    if draw(st.booleans()):
        value["type"] = draw(_TYPES)
    return value


def _read(raw: bytes) -> ReadSession | RejectedSession:
    return read_stream(io.BytesIO(raw))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_arbitrary_bytes_never_raise(raw: bytes) -> None:
    """Any bytes give a ReadSession or a RejectedSession with a documented outcome/detail."""
    read = _read(raw)
    if isinstance(read, RejectedSession):
        assert read.outcome in SessionOutcome
        assert read.detail is None or read.detail in SessionInvalid


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_entry_like(), max_size=6), st.sampled_from([None, 1, 2, 3]))
def test_entry_like_lines_after_a_header_never_raise(
    lines: list[dict[str, Any]], version: int | None
) -> None:
    """Objects shaped almost like entries after a valid header: a typed answer, never an
    exception; a refusal carries only enums (nothing of the lines)."""
    raw = Session(version=version).text() + "".join(json.dumps(v) + "\n" for v in lines)
    read = _read(raw.encode())
    if isinstance(read, RejectedSession):
        assert read.outcome is SessionOutcome.INVALID
        assert isinstance(read.detail, SessionInvalid)
    else:
        assert read.shape.entries == len(lines)
        assert len(read.path) + read.shape.off_path_entries == len(lines)


@st.composite
def _turns(draw: st.DrawFn) -> list[list[str]]:
    tools = st.sampled_from(["read", "ls", "bash", "edit", "grep", "my_app_tool"])
    return draw(st.lists(st.lists(tools, max_size=4), min_size=1, max_size=6))


@settings(max_examples=60, deadline=None)
@given(_turns(), st.sampled_from([None, 2, 3]), st.integers(min_value=0, max_value=5))
def test_generated_sessions_read_into_the_documented_path(
    turns: list[list[str]], version: int | None, branch_at: int
) -> None:
    """A generated session with an abandoned branch: the path holds exactly the resumed
    branch's messages (the last entry and its ancestors; all of a linear v1 file)."""
    session = Session(version=version)
    fork_point: str | None = None
    for index, tools in enumerate(turns):
        session.turn(tools)
        if index == branch_at % len(turns):
            fork_point = session.last_id
    expected = sum(3 + len(t) for t in turns)
    if version is not None and fork_point is not None:
        session.user("resume here", parent=fork_point)
        session.assistant()
    read = _read(session.text().encode())
    assert isinstance(read, ReadSession)
    messages = [p for p in read.path if isinstance(p.entry, pe.MessageEntry)]
    if version is None:
        assert len(messages) == expected
    else:
        kept_turns = turns[: branch_at % len(turns) + 1]
        kept = sum(3 + len(t) for t in kept_turns)
        assert len(messages) == kept + 2
        assert read.shape.off_path_entries == expected - kept
