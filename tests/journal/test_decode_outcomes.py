"""Every decoder outcome and every InvalidReason, each from one small hand-built case.

One case per defect, parametrized over (case, expected outcome, expected detail); the test
asserts the fixed code, never wording (docs/formats/reason-codes.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from clearing_analysis.journal import (
    DecodedJournal,
    InvalidReason,
    JournalOutcome,
    RejectedJournal,
    decode_bytes,
    decode_file,
)
from clearing_analysis.journal import decode as decode_module
from clearing_analysis.journal import records as jr
from clearing_analysis.policy import limits
from tests.journal._build import CLOSE, HEADER, RUN, RUN_END, TURN, journal, line, valid

OUT = JournalOutcome
R = InvalidReason


def _replace_line(data: bytes, index: int, new: bytes) -> bytes:
    lines = data.split(b"\n")
    lines[index] = new
    return b"\n".join(lines)


def _turn_with(raw_message: str) -> bytes:
    """A journal whose turn_start line carries `raw_message` verbatim as its message."""
    raw = b'{"seq":1,"kind":"turn_start","hostTurnId":"t","message":' + raw_message.encode() + b"}"
    return _replace_line(valid(), 1, raw)


def _nested(depth: int) -> bytes:
    raw = "[" * depth + "]" * depth
    return _replace_line(
        valid(),
        1,
        b'{"seq":1,"kind":"turn_start","hostTurnId":"t","message":{"role":"user","content":"x",'
        b'"timestamp":1,"deep":' + raw.encode() + b"}}",
    )


def _user_at(timestamp: int) -> str:
    return '{"role":"user","content":"x","timestamp":' + str(timestamp) + "}"


USAGE = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15}


def _with_usage(**usage: object) -> bytes:
    """A valid journal with one assistant message whose usage has these counts."""
    message = {
        "role": "assistant",
        "content": [{"type": "text", "text": "ok"}],
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "m",
        "usage": {**USAGE, **usage},
        "stopReason": "stop",
        "timestamp": 1002,
    }
    return journal(
        TURN, RUN, {"kind": "message", "runId": "run-1", "message": message}, RUN_END, CLOSE
    )


def _with_checkpoint(**tokens: object) -> bytes:
    """A valid journal with one checkpoint of these token counts."""
    checkpoint = {
        "kind": "checkpoint",
        "trigger": "threshold",
        "tokensBefore": 100,
        "tokensAfter": 10,
        "summary": "s",
        "firstKeptSeq": None,
        "timestamp": 1003,
        **tokens,
    }
    return journal(TURN, RUN, RUN_END, checkpoint, CLOSE)


CASES: list[tuple[str, bytes, JournalOutcome, InvalidReason | None]] = [
    # Outcomes other than INVALID.
    ("version 3", valid(version=3), OUT.UNSUPPORTED_VERSION, None),
    ("version 1", valid(version=1), OUT.UNSUPPORTED_VERSION, None),
    ("version huge int", valid(version=10**30), OUT.UNSUPPORTED_VERSION, None),
    (
        "version 3, later lines garbage",
        line({**HEADER, "version": 3}) + b"{oops\n",
        OUT.UNSUPPORTED_VERSION,
        None,
    ),
    ("imported", valid(origin="imported"), OUT.IMPORTED, None),
    ("inherited", valid(origin="inherited"), OUT.INHERITED, None),
    ("imported without close", journal(TURN, header={"origin": "imported"}), OUT.IMPORTED, None),
    (
        "imported, truncated tail",
        journal(TURN, header={"origin": "imported"}) + b'{"seq":2,"ki',
        OUT.IMPORTED,
        None,
    ),
    (
        "inherited, truncated tail",
        journal(TURN, header={"origin": "inherited"}) + b'{"seq',
        OUT.INHERITED,
        None,
    ),
    ("open: no close", journal(TURN, RUN, RUN_END), OUT.OPEN, None),
    ("open: truncated tail", journal(TURN, RUN) + b'{"seq":3,"kind":"run_e', OUT.OPEN, None),
    ("open: complete close without newline", valid()[:-1], OUT.OPEN, None),
    ("open: only a header fragment", line(HEADER)[:20], OUT.OPEN, None),
    ("open: header only", journal(), OUT.OPEN, None),
    # INVALID wins over every other outcome.
    (
        "invalid beats imported",
        _replace_line(valid(origin="imported"), 2, b"{oops"),
        OUT.INVALID,
        R.MALFORMED_JSON,
    ),
    (
        "invalid beats open tail",
        _replace_line(journal(TURN, RUN), 1, b"[]") + b'{"se',
        OUT.INVALID,
        R.NOT_AN_OBJECT,
    ),
    # INVALID details.
    ("empty file", b"", OUT.INVALID, R.EMPTY_FILE),
    (
        "invalid UTF-8 byte",
        _turn_with('{"role":"user","content":"\xff","timestamp":1}').replace(b"\xc3\xbf", b"\xff"),
        OUT.INVALID,
        R.INVALID_UTF8,
    ),
    (
        "overlong UTF-8",
        _turn_with('{"role":"user","content":"_","timestamp":1}').replace(b'"_"', b'"\xc0\xaf"'),
        OUT.INVALID,
        R.INVALID_UTF8,
    ),
    (
        "escaped lone surrogate",
        _turn_with('{"role":"user","content":"\\ud800","timestamp":1}'),
        OUT.INVALID,
        R.INVALID_UTF8,
    ),
    (
        "lone surrogate in a key",
        _turn_with('{"role":"user","content":"x","timestamp":1,"\\udfff":1}'),
        OUT.INVALID,
        R.INVALID_UTF8,
    ),
    ("BOM before header", b"\xef\xbb\xbf" + valid(), OUT.INVALID, R.MALFORMED_JSON),
    ("blank line", valid().replace(b"\n", b"\n\n", 1), OUT.INVALID, R.MALFORMED_JSON),
    (
        "trailing comma",
        _turn_with('{"role":"user","content":"x","timestamp":1,}'),
        OUT.INVALID,
        R.MALFORMED_JSON,
    ),
    (
        "two objects on a line",
        _replace_line(valid(), 1, line(TURN).strip() + line(TURN).strip()),
        OUT.INVALID,
        R.MALFORMED_JSON,
    ),
    ("single quotes", _turn_with("{'role':'user'}"), OUT.INVALID, R.MALFORMED_JSON),
    (
        "duplicate top-level key",
        _replace_line(valid(), 4, b'{"seq":4,"kind":"close","timestamp":1,"timestamp":2}'),
        OUT.INVALID,
        R.DUPLICATE_KEY,
    ),
    (
        "duplicate key at depth",
        _turn_with(
            '{"role":"user","content":[{"type":"text","text":"a","text":"b"}],"timestamp":1}'
        ),
        OUT.INVALID,
        R.DUPLICATE_KEY,
    ),
    (
        "NaN",
        _turn_with('{"role":"user","content":"x","timestamp":NaN}'),
        OUT.INVALID,
        R.NON_FINITE_NUMBER,
    ),
    (
        "Infinity",
        _turn_with('{"role":"user","content":"x","timestamp":Infinity}'),
        OUT.INVALID,
        R.NON_FINITE_NUMBER,
    ),
    (
        "-Infinity",
        _turn_with('{"role":"user","content":"x","timestamp":-Infinity}'),
        OUT.INVALID,
        R.NON_FINITE_NUMBER,
    ),
    (
        "1e400 overflows a double",
        _turn_with('{"role":"user","content":"x","timestamp":1e400}'),
        OUT.INVALID,
        R.NON_FINITE_NUMBER,
    ),
    (
        "5000-digit integer",
        _turn_with('{"role":"user","content":"x","timestamp":' + "9" * 5000 + "}"),
        OUT.INVALID,
        R.NUMBER_OUT_OF_RANGE,
    ),
    (
        "integer above 2^53-1",
        _turn_with('{"role":"user","content":"x","timestamp":9007199254740992}'),
        OUT.INVALID,
        R.VALUE_OUT_OF_RANGE,
    ),
    ("negative timestamp", _turn_with(_user_at(-1)), OUT.INVALID, R.VALUE_OUT_OF_RANGE),
    ("usage input above 10^9", _with_usage(input=10**9 + 1), OUT.INVALID, R.VALUE_OUT_OF_RANGE),
    (
        "usage totalTokens 2^53-1",
        _with_usage(totalTokens=2**53 - 1),
        OUT.INVALID,
        R.VALUE_OUT_OF_RANGE,
    ),
    ("usage cacheRead -1", _with_usage(cacheRead=-1), OUT.INVALID, R.VALUE_OUT_OF_RANGE),
    ("usage output a float", _with_usage(output=1.5), OUT.INVALID, R.WRONG_SHAPE),
    (
        "checkpoint tokensBefore above 10^9",
        _with_checkpoint(tokensBefore=10**9 + 1),
        OUT.INVALID,
        R.VALUE_OUT_OF_RANGE,
    ),
    ("nesting past the limit", _nested(70), OUT.INVALID, R.NESTING_TOO_DEEP),
    ("nesting past the recursion limit", _nested(200_000), OUT.INVALID, R.NESTING_TOO_DEEP),
    ("wrong-typed version", valid(version="2"), OUT.INVALID, R.WRONG_SHAPE),
    (
        "float version",
        _replace_line(valid(), 0, line(HEADER).strip().replace(b'"version":2', b'"version":3.0')),
        OUT.INVALID,
        R.WRONG_SHAPE,
    ),
    ("bool version", valid(version=True), OUT.INVALID, R.WRONG_SHAPE),
    ("other format, version 3", valid(format="pi-session", version=3), OUT.INVALID, R.WRONG_SHAPE),
    ("unknown origin", valid(origin="forked"), OUT.INVALID, R.WRONG_SHAPE),
    ("unknown field", journal({**TURN, "extra": 1}, CLOSE), OUT.INVALID, R.WRONG_SHAPE),
    (
        "missing field",
        journal({k: v for k, v in RUN.items() if k != "owner"}, CLOSE),
        OUT.INVALID,
        R.WRONG_SHAPE,
    ),
    (
        "seq as float",
        _replace_line(valid(), 1, line(TURN).strip().replace(b'"seq":1', b'"seq":1.0')),
        OUT.INVALID,
        R.WRONG_SHAPE,
    ),
    ("not an object: array", _replace_line(valid(), 1, b"[1,2]"), OUT.INVALID, R.NOT_AN_OBJECT),
    ("not an object: string", _replace_line(valid(), 1, b'"turn"'), OUT.INVALID, R.NOT_AN_OBJECT),
    ("not an object: header line", b"1\n" + valid(), OUT.INVALID, R.NOT_AN_OBJECT),
    (
        "unknown record kind",
        journal({"kind": "note", "text": "x"}, CLOSE),
        OUT.INVALID,
        R.UNKNOWN_RECORD_KIND,
    ),
    ("kind missing", journal({"text": "x"}, CLOSE), OUT.INVALID, R.UNKNOWN_RECORD_KIND),
    ("kind not a string", journal({"kind": 5}, CLOSE), OUT.INVALID, R.UNKNOWN_RECORD_KIND),
    (
        "pi v3 entry type",
        journal({"kind": "compaction", "summary": "s"}, CLOSE),
        OUT.INVALID,
        R.UNKNOWN_RECORD_KIND,
    ),
    (
        "header missing",
        b"".join(line({**r, "seq": i}) for i, r in enumerate([TURN, CLOSE])),
        OUT.INVALID,
        R.HEADER_MISSING,
    ),
    ("header repeated", journal(TURN, HEADER, CLOSE), OUT.INVALID, R.HEADER_REPEATED),
    (
        "seq gap",
        _replace_line(valid(), 2, line({**RUN, "seq": 3}).strip()),
        OUT.INVALID,
        R.SEQ_NOT_MONOTONIC,
    ),
    (
        "seq repeat",
        _replace_line(valid(), 2, line({**RUN, "seq": 1}).strip()),
        OUT.INVALID,
        R.SEQ_NOT_MONOTONIC,
    ),
    (
        "seq starts at 1",
        b"".join(line({**r, "seq": i + 1}) for i, r in enumerate([HEADER, TURN, CLOSE])),
        OUT.INVALID,
        R.SEQ_NOT_MONOTONIC,
    ),
    ("record after close", valid() + line({**CLOSE, "seq": 5}), OUT.INVALID, R.RECORD_AFTER_CLOSE),
    ("fragment after close", valid() + b'{"seq":5', OUT.INVALID, R.RECORD_AFTER_CLOSE),
    ("blank fragment after close", valid() + b" ", OUT.INVALID, R.RECORD_AFTER_CLOSE),
]


@pytest.mark.parametrize(
    ("data", "outcome", "reason"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_outcome(data: bytes, outcome: JournalOutcome, reason: InvalidReason | None) -> None:
    """The case decodes to exactly its documented outcome and detail code."""
    assert decode_bytes(data) == RejectedJournal(outcome, reason)


def test_every_invalid_reason_has_a_case() -> None:
    """Each InvalidReason is produced by some case here (UNREADABLE and LINE_TOO_LONG below)."""
    covered = {case[3] for case in CASES if case[3]} | {R.UNREADABLE, R.LINE_TOO_LONG}
    assert covered == set(InvalidReason)


def test_every_outcome_has_a_case() -> None:
    """Each JournalOutcome is produced by some case here."""
    assert {case[2] for case in CASES} == set(JournalOutcome)


def test_valid_journal_decodes() -> None:
    """The base journal of these cases decodes, so each case fails for its own defect."""
    result = decode_bytes(valid())
    assert isinstance(result, DecodedJournal)
    assert [r.seq for r in result.records] == [0, 1, 2, 3, 4]
    assert result.byte_size == len(valid())


def test_crlf_line_endings_are_json_whitespace() -> None:
    """A CR before the newline is insignificant JSON whitespace, as documented."""
    assert isinstance(decode_bytes(valid().replace(b"\n", b"\r\n")), DecodedJournal)


def _small_limits(monkeypatch: pytest.MonkeyPatch, max_line: int) -> None:
    small = msgspec.structs.replace(limits(), max_journal_line_bytes=max_line)
    monkeypatch.setattr(decode_module, "limits", lambda: small)


@pytest.mark.parametrize("terminated", [True, False])
def test_line_too_long(monkeypatch: pytest.MonkeyPatch, terminated: bool) -> None:
    """A line longer than maxJournalLineBytes is INVALID/LINE_TOO_LONG, terminated or not."""
    data = valid()
    longest = max(len(x) for x in data.split(b"\n"))
    _small_limits(monkeypatch, longest)
    assert isinstance(decode_bytes(data), DecodedJournal)  # exactly at the limit is fine
    long_turn = {**TURN, "message": {**TURN["message"], "content": "x" * longest}}
    bad = journal(long_turn, CLOSE)
    if not terminated:
        bad = bad[: bad.index(b"\n", len(line(HEADER))) - 1]
    assert decode_bytes(bad) == RejectedJournal(OUT.INVALID, R.LINE_TOO_LONG)


def test_unreadable_path(tmp_path: Path) -> None:
    """A directory or a missing path is INVALID/UNREADABLE, never an exception."""
    assert decode_file(tmp_path) == RejectedJournal(OUT.INVALID, R.UNREADABLE)
    assert decode_file(tmp_path / "absent.jsonl") == RejectedJournal(OUT.INVALID, R.UNREADABLE)


def test_decode_file_matches_decode_bytes(tmp_path: Path) -> None:
    """decode_file reads the same records and reports the file's byte size."""
    path = tmp_path / "j.jsonl"
    path.write_bytes(valid())
    result = decode_file(path)
    assert isinstance(result, DecodedJournal)
    assert result == decode_bytes(valid())


def test_rejected_carries_no_input() -> None:
    """A rejection holds only enums: nothing from the input can leak through it."""
    result = decode_bytes(_turn_with('{"role":"user","content":"SECRET-CANARY","timestamp":-1}'))
    assert result == RejectedJournal(OUT.INVALID, R.VALUE_OUT_OF_RANGE)
    assert "SECRET" not in repr(result)
    assert json.dumps([result.outcome, result.reason]) == '["INVALID", "VALUE_OUT_OF_RANGE"]'


def _with_call_end(status: str) -> bytes:
    """A valid journal with one read call whose tool_call_end carries `status`."""
    start = {
        "kind": "tool_call_start",
        "runId": "run-1",
        "callId": "c1",
        "toolName": "read",
        "arguments": {},
        "timestamp": 1002,
    }
    end = {
        "kind": "tool_call_end",
        "runId": "run-1",
        "callId": "c1",
        "status": status,
        "returned": True,
        "placed": True,
        "timestamp": 1002,
    }
    return journal(TURN, RUN, start, end, RUN_END, CLOSE)


def test_no_journal_line_states_an_unknown_outcome() -> None:
    """`unknown`, the in-memory outcome of an imported result (R-SRC-3), is refused on a
    journal line exactly as any other status journal v2 does not define; an `aborted` end
    decodes to a plain ToolCallEnd, never to the in-memory OutcomeUnknownEnd."""
    refused = RejectedJournal(OUT.INVALID, R.WRONG_SHAPE)
    assert decode_bytes(_with_call_end("unknown")) == refused
    assert decode_bytes(_with_call_end("ok")) == refused
    decoded = decode_bytes(_with_call_end("aborted"))
    assert isinstance(decoded, DecodedJournal)
    ends = [r for r in decoded.records if isinstance(r, jr.ToolCallEnd)]
    assert [(type(r), r.status) for r in ends] == [(jr.ToolCallEnd, "aborted")]
    schema = json.loads(
        (Path(__file__).parents[2] / "policy/schemas/journal-v2.record.schema.json").read_text()
    )
    statuses = schema["$defs"]["record_tool_call_end"]["properties"]["status"]["enum"]
    assert statuses == ["success", "error", "aborted", "denied"]
