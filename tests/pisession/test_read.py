"""The pi session reader per format version (docs/formats/pi-sessions.md): the resumed path,
branches, the entry types, unknown types counted by fixed code, refusals by fixed detail."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from clearing_analysis.pisession import (
    ReadSession,
    RejectedSession,
    SessionInvalid,
    SessionOutcome,
    Unrecognized,
    read_session,
    read_stream,
)
from clearing_analysis.pisession import entries as pe
from clearing_analysis.pisession.read import stream_grouping_keys
from clearing_analysis.policy import limits
from tests.pisession.builder import Session
from tests.pisession.builder import usage as builder_usage


def _read(session: Session | str | bytes) -> ReadSession | RejectedSession:
    raw = session.text() if isinstance(session, Session) else session
    return read_stream(io.BytesIO(raw.encode() if isinstance(raw, str) else raw))


def _ok(session: Session) -> ReadSession:
    read = _read(session)
    assert isinstance(read, ReadSession), read
    return read


def _roles(read: ReadSession) -> list[str]:
    return [type(p.message).__name__ for p in read.path if p.message is not None]


@pytest.mark.parametrize("version", [None, 1, 2, 3])
def test_each_version_reads_a_linear_session(version: int | None) -> None:
    """Version 1 (no `version` field, no ids), 2 and 3 (a tree) read the same linear history
    into the same path; the shape names the version."""
    session = Session(version=version)
    session.turn(["read"])
    read = _ok(session)
    assert read.shape.version == (version or 1)
    assert _roles(read) == [
        "UserMessage",
        "AssistantMessage",
        "ToolResultMessage",
        "AssistantMessage",
    ]
    assert read.shape.entries == 4
    assert read.shape.off_path_entries == 0
    assert read.shape.leaves == 1


def test_a_later_version_is_unsupported() -> None:
    """Version 4 is unknown: the file is skipped as UNSUPPORTED_VERSION."""
    session = Session(version=3)
    session.lines[0]["version"] = 4
    read = _read(session)
    assert read == RejectedSession(SessionOutcome.UNSUPPORTED_VERSION)


def test_the_resumed_leaf_is_the_last_entry_of_the_file() -> None:
    """Two branches from the first turn: the path is the last entry and its ancestors; the
    other branch's entries are counted as off the path, and the file has two branch tips."""
    session = Session()
    session.turn(["read"], text="first")
    fork_point = session.last_id
    session.turn(["ls"], text="abandoned branch")
    session.user("resumed branch", parent=fork_point)
    session.assistant()
    read = _ok(session)
    users = [p.message for p in read.path if isinstance(p.message, pe.UserMessage)]
    texts = [m.content[0].text for m in users if isinstance(m.content, list)]  # type: ignore[union-attr]
    assert texts == ["first", "resumed branch"]
    assert read.shape.off_path_entries == 4
    assert read.shape.leaves == 2


def test_a_branch_written_after_the_main_line_wins_even_if_shorter() -> None:
    """The leaf is the last line, not the longest branch: writing the earlier branch last
    makes it the resumed one."""
    session = Session()
    session.user("root")
    root = session.last_id
    session.assistant()
    session.turn(["read"], text="long")
    session.turn(["read"], text="longer")
    session.user("short", parent=root)
    read = _ok(session)
    assert len([p for p in read.path if p.message is not None]) == 2
    assert read.shape.off_path_entries == 9


def test_compaction_keeps_from_its_first_kept_entry() -> None:
    """A compaction names its first kept entry by id (v2, v3) or line (v1); the reader gives
    its path position when it lies before the compaction on the path, else nothing kept."""
    for version in (1, 3):
        session = Session(version=version)
        session.turn(["read"])
        kept_line = len(session.lines)
        kept_id = session.user("kept")
        session.assistant()
        fields = (
            {"firstKeptEntryId": kept_id} if version == 3 else {"firstKeptEntryIndex": kept_line}
        )
        session.entry("compaction", summary="summary", tokensBefore=50_000, **fields)
        session.turn(["read"])
        read = _ok(session)
        compaction = next(i for i, p in enumerate(read.path) if isinstance(p.entry, pe.Compaction))
        assert read.first_kept == {compaction: kept_line - 1}, version


def test_compaction_naming_an_entry_off_the_path_keeps_nothing() -> None:
    """A first kept entry that is not on the resumed path (or after the compaction) keeps
    nothing, as pi's context builder does."""
    session = Session()
    session.turn(["read"])
    session.entry("compaction", summary="s", tokensBefore=1000, firstKeptEntryId="e-unknown")
    read = _ok(session)
    assert list(read.first_kept.values()) == [None]


def test_known_non_message_entries_are_read_and_not_counted_unrecognized() -> None:
    """branch_summary, model_change, thinking_level_change, custom, custom_message, label and
    session_info are known entry types: on the path, none unrecognized."""
    session = Session()
    session.entry("model_change", provider="anthropic", modelId="claude-sonnet-4-5")
    session.entry("thinking_level_change", thinkingLevel="high")
    session.user()
    session.assistant(thinking=True)
    session.entry("branch_summary", summary="what the other branch did", fromId="e0000001")
    session.entry("custom", customType="extension-state", data={"k": 1})
    session.entry("custom_message", customType="note", content="hello", display=True)
    session.entry("label", targetId="e0000001", label="mark")
    session.entry("session_info", name="my session")
    read = _ok(session)
    kinds = [type(p.entry).__name__ for p in read.path]
    assert kinds == [
        "ModelChange",
        "ThinkingLevelChange",
        "MessageEntry",
        "MessageEntry",
        "BranchSummary",
        "CustomEntry",
        "CustomMessageEntry",
        "Label",
        "SessionInfo",
    ]
    assert set(read.shape.unrecognized.values()) == {0}


def test_unknown_entry_types_and_roles_are_counted_by_fixed_code_never_named() -> None:
    """An unknown entry type stays a node of the tree (its child is on the path) and is
    counted as ENTRY_TYPE; an unknown message role as MESSAGE_ROLE; neither name is kept."""
    session = Session()
    session.user()
    session.entry("zz_canary_entry_type", payload="zz_canary_payload")
    session.message({"role": "zz_canary_role", "timestamp": 1})
    session.assistant()
    read = _ok(session)
    assert read.shape.unrecognized == {
        Unrecognized.ENTRY_TYPE: 1,
        Unrecognized.MESSAGE_ROLE: 1,
        Unrecognized.ORPHAN_TOOL_RESULT: 0,
    }
    assert len(read.path) == 4
    assert "zz_canary" not in repr(read.shape)
    assert [p.entry for p in read.path].count(None) == 1


def _with_line(line: bytes) -> bytes:
    """A valid version-3 header, then `line`."""
    return Session().text().encode() + line


@pytest.mark.parametrize(
    ("raw", "detail"),
    [
        (b"", SessionInvalid.EMPTY_FILE),
        (b'{"type":"message","timestamp":"x"}\n', SessionInvalid.NOT_A_SESSION),
        (b'{"type":"session","timestamp":"x"}\n', SessionInvalid.NOT_A_SESSION),
        (_with_line(b"{not json}\n"), SessionInvalid.MALFORMED_JSON),
        (_with_line(b'{"type":"label","type":"label"}\n'), SessionInvalid.DUPLICATE_KEY),
        (_with_line(b'{"type":"label","n":NaN}\n'), SessionInvalid.NON_FINITE_NUMBER),
        (_with_line(b'{"type":"label","n":"\xff"}\n'), SessionInvalid.INVALID_UTF8),
        (_with_line(b"[1, 2]\n"), SessionInvalid.NOT_AN_OBJECT),
        (_with_line(b'{"type":7}\n'), SessionInvalid.WRONG_SHAPE),
        (
            _with_line(b'{"type":"compaction","id":"a","parentId":null}\n'),
            SessionInvalid.WRONG_SHAPE,
        ),
        (
            _with_line(b'{"type":"session","id":"x","timestamp":"x"}\n'),
            SessionInvalid.HEADER_REPEATED,
        ),
        (
            _with_line(b'{"type":"label","timestamp":"t","id":"a","parentId":"nowhere"}\n'),
            SessionInvalid.PARENT_UNKNOWN,
        ),
        (
            _with_line(b'{"type":"label","timestamp":"t","parentId":null}\n'),
            SessionInvalid.ENTRY_ID_MISSING,
        ),
        (
            _with_line(
                b'{"type":"label","timestamp":"t","id":"a","parentId":null}\n'
                b'{"type":"label","timestamp":"t","id":"a","parentId":null}\n'
            ),
            SessionInvalid.ENTRY_ID_REPEATED,
        ),
        (_with_line(b"[" * 200 + b"]" * 200 + b"\n"), SessionInvalid.NESTING_TOO_DEEP),
    ],
    ids=lambda value: value if isinstance(value, SessionInvalid) else "",
)
def test_malformed_lines_are_invalid_with_their_fixed_detail(
    raw: bytes, detail: SessionInvalid
) -> None:
    """Each broken rule gives the documented INVALID detail, nothing of the line."""
    assert _read(raw) == RejectedSession(SessionOutcome.INVALID, detail)


_USAGE_COUNTS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")


def _session_with(**changes: object) -> bytes:
    """A valid one-turn session whose request's usage, compaction or command has `changes`."""
    session = Session()
    session.user()
    usage = changes.pop("usage", None)
    session.assistant(usage_={**builder_usage(), **usage} if usage else None)
    if "tokensBefore" in changes:
        session.entry("compaction", summary="s", tokensBefore=changes.pop("tokensBefore"))
    if "exitCode" in changes:
        message = {
            "role": "bashExecution",
            "command": "ls",
            "output": "a",
            "exitCode": changes.pop("exitCode"),
            "timestamp": session.tick(),
        }
        session.message(message)
    return session.text().encode()


@pytest.mark.parametrize(
    ("changes", "detail"),
    [
        ({"usage": {"input": 10**9 + 1}}, SessionInvalid.VALUE_OUT_OF_RANGE),
        ({"usage": {"cacheRead": 2**53 - 1}}, SessionInvalid.VALUE_OUT_OF_RANGE),
        ({"usage": {"totalTokens": -1}}, SessionInvalid.VALUE_OUT_OF_RANGE),
        ({"usage": {"output": 2**63}}, SessionInvalid.VALUE_OUT_OF_RANGE),
        ({"usage": {"output": "10"}}, SessionInvalid.WRONG_SHAPE),
        ({"tokensBefore": 10**9 + 1}, SessionInvalid.VALUE_OUT_OF_RANGE),
        ({"exitCode": 2**31}, SessionInvalid.VALUE_OUT_OF_RANGE),
        ({"exitCode": -(2**31) - 1}, SessionInvalid.VALUE_OUT_OF_RANGE),
    ],
    ids=["input", "cacheRead-2^53-1", "negative", "2^63", "string", "compaction", "exit", "neg"],
)
def test_a_number_outside_its_range_is_invalid(
    changes: dict[str, object], detail: SessionInvalid
) -> None:
    """A usage count above 10^9 (or negative), a compaction's tokensBefore above 10^9, an
    exitCode beyond 32 bits: INVALID VALUE_OUT_OF_RANGE (docs/formats/pi-sessions.md); a
    string count stays WRONG_SHAPE."""
    assert _read(_session_with(**changes)) == RejectedSession(SessionOutcome.INVALID, detail)


@pytest.mark.parametrize(
    "changes",
    [
        {
            "usage": dict.fromkeys(
                ("input", "output", "cacheRead", "cacheWrite", "totalTokens"), 10**9
            )
        },
        {"usage": dict.fromkeys(("input", "output", "cacheRead", "cacheWrite", "totalTokens"), 0)},
        {"tokensBefore": 10**9},
        {"exitCode": 2**31 - 1},
        {"exitCode": -(2**31)},
    ],
    ids=["usage-max", "usage-zero", "compaction-max", "exit-max", "exit-min"],
)
def test_a_number_at_an_edge_of_its_range_is_read(changes: dict[str, object]) -> None:
    """The ranges include their edges: the session is read."""
    assert isinstance(_read(_session_with(**changes)), ReadSession)


def test_a_line_too_long_is_invalid() -> None:
    """A line above maxJournalLineBytes is LINE_TOO_LONG (policy/limits.json)."""
    size = limits().max_journal_line_bytes + 1
    line = b'{"type":"label","pad":"' + b"a" * size + b'"}\n'
    assert _read(_with_line(line)) == RejectedSession(
        SessionOutcome.INVALID, SessionInvalid.LINE_TOO_LONG
    )


def test_a_last_line_without_newline_is_open() -> None:
    """pi may still be writing the last line: OPEN, not INVALID."""
    text = Session().text() + json.dumps({"type": "label", "timestamp": "t"})
    assert _read(text) == RejectedSession(SessionOutcome.OPEN)


def test_an_unreadable_path_is_invalid(tmp_path: Path) -> None:
    """A file that cannot be opened is INVALID / EMPTY_FILE."""
    missing = tmp_path / "missing.jsonl"
    assert read_session(missing) == RejectedSession(
        SessionOutcome.INVALID, SessionInvalid.EMPTY_FILE
    )


REGRESSIONS = Path(__file__).resolve().parents[2] / "fuzz" / "regressions" / "pisession"


@pytest.mark.parametrize(
    "role",
    [["user"], {"user": 1}, 7, None, True, "zz_canary_role"],
    ids=["list", "object", "number", "null", "bool", "unknown-string"],
)
def test_a_role_that_is_not_a_known_string_is_counted_never_hashed(role: object) -> None:
    """A message's role of any other type or value is an unknown role, counted as
    MESSAGE_ROLE (a list or an object used to raise TypeError: unhashable)."""
    session = Session()
    session.user()
    session.message({"role": role, "content": "hi", "timestamp": 1})
    session.assistant()
    read = _ok(session)
    assert read.shape.unrecognized[Unrecognized.MESSAGE_ROLE] == 1
    assert [p.message is None for p in read.path] == [False, True, False]


@pytest.mark.parametrize("path", sorted(REGRESSIONS.glob("*.jsonl")), ids=lambda p: p.name)
def test_reproducers_read_with_their_role_counted(path: Path) -> None:
    """The two-line reproducers kept for the fuzz targets read, one unknown role each."""
    read = _read(path.read_bytes())
    assert isinstance(read, ReadSession), read
    assert read.shape.unrecognized[Unrecognized.MESSAGE_ROLE] == 1


DEEP_OBJECTS = b'{"a":' * 1000 + b"1" + b"}" * 1000


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        ([DEEP_OBJECTS], ()),
        ([b'{"type":"session","id":"s","version":9,"timestamp":"t"}'], ()),
        ([b'{"type":"session","id":"","timestamp":"t"}'], ()),
        ([b'{"type":"session","id":"s","timestamp":"t"}', DEEP_OBJECTS], ("session\0s",)),
        ([b'{"type":"session","id":"s","timestamp":"t"}', b"[]", b'{"type":"message"}'], None),
        ([b'{"type":"session","id":"s","timestamp":"t"}', b"{}", b'{"type":"message"}'], None),
    ],
    ids=[
        "first-line-nested-1000-deep",
        "unsupported-version",
        "empty-id",
        "second-line-nested-1000-deep",
        "not-an-object-before-the-message",
        "no-type-before-the-message",
    ],
)
def test_grouping_keys_read_no_further_than_the_reader(
    lines: list[bytes], expected: tuple[str, ...] | None
) -> None:
    """The grouping keys are read under the reader's own rules and limits: a header the
    reader refuses gives none (deep nesting included, no exception), and no line is read past
    one the reader refuses, so a refused line before the first message gives no lineage."""
    keys = stream_grouping_keys(io.BytesIO(b"\n".join(lines) + b"\n"))
    assert keys == (expected if expected is not None else ("session\0s",))
    assert isinstance(read_stream(io.BytesIO(b"\n".join(lines) + b"\n")), RejectedSession)
