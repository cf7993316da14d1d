"""The journal JSON Schema and the decoder accept and refuse the same records.

Per record: the schema (with integers in integer form) and `strictjson` + the typed structs must
agree. Per journal: the worked example validates line by line and decodes whole.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from clearing_analysis.journal import DecodedJournal, decode, decode_bytes
from tests.formats import _strategies as gen
from tests.formats._schema import EXAMPLES, schema_accepts

SCHEMA = "journal-v2.record"
EXAMPLE = EXAMPLES / "journal-v2.example.jsonl"
PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def decoder_accepts(record: Any) -> bool:
    """Whether one record survives the decoder's per-line path (strict JSON, then the structs)."""
    raw = json.dumps(record).encode()
    try:
        decode._to_record(decode._parse_line(raw, max_depth=64))
    except decode._Invalid:
        return False
    return True


def _journal(*records: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


HEADER = {
    "seq": 0,
    "kind": "header",
    "format": "pi-native-journal",
    "version": 2,
    "journalId": "j",
    "physicalConversationId": "p",
    "logicalConversationId": "l",
    "origin": "native",
    "createdAt": 0,
}


def test_example_lines_validate_against_schema() -> None:
    """Every line of the worked example journal is a valid record per the schema."""
    lines = EXAMPLE.read_bytes().splitlines()
    assert len(lines) > 40
    for line in lines:
        assert schema_accepts(SCHEMA, json.loads(line))


def test_example_decodes_whole() -> None:
    """The worked example decodes as a closed native journal with every record kind."""
    result = decode_bytes(EXAMPLE.read_bytes())
    assert isinstance(result, DecodedJournal)
    kinds = {type(record).__name__ for record in result.records}
    assert kinds == {
        "Header",
        "TurnStart",
        "RunStart",
        "MessageRecord",
        "ToolCallStart",
        "ToolCallEnd",
        "RunEnd",
        "Checkpoint",
        "Redaction",
        "Close",
    }


def test_example_shows_the_documented_features() -> None:
    """The example holds a re-prompt, an MCP origin, an error, an image, signed thinking."""
    records = [json.loads(line) for line in EXAMPLE.read_bytes().splitlines()]
    turn_ids = [r["hostTurnId"] for r in records if r["kind"] == "turn_start"]
    assert len(turn_ids) != len(set(turn_ids))  # a re-prompt reuses a host turn id
    assert any(r["kind"] == "run_start" and r["reason"] == "reprompt" for r in records)
    assert any((r.get("payload") or {}).get("origin") for r in records)
    messages = [r["message"] for r in records if r["kind"] == "message"]
    assert any(m["role"] == "toolResult" and m["isError"] for m in messages)
    assert any(
        m["role"] == "toolResult" and any(b["type"] == "image" for b in m["content"])
        for m in messages
    )
    assert any(
        b["type"] == "thinking" and b.get("thinkingSignature")
        for m in messages
        if m["role"] == "assistant"
        for b in m["content"]
    )
    checkpoint = next(r for r in records if r["kind"] == "checkpoint")
    assert checkpoint["firstKeptSeq"] is not None
    redaction = next(r for r in records if r["kind"] == "redaction")
    assert records[redaction["targetSeq"]]["message"]["role"] == "toolResult"


@PROPERTY
@given(gen.any_record)
def test_generated_valid_records_accepted_by_both(record: dict[str, Any]) -> None:
    """A record built from the documented format passes the schema and the decoder."""
    assert schema_accepts(SCHEMA, record)
    assert decoder_accepts(record)


@PROPERTY
@given(gen.body_records)
def test_generated_records_decode_inside_a_journal(record: dict[str, Any]) -> None:
    """Any valid body record between a header and a close decodes as a closed journal."""
    data = _journal(HEADER, {**record, "seq": 1}, {"seq": 2, "kind": "close", "timestamp": 0})
    assert isinstance(decode_bytes(data), DecodedJournal)


@PROPERTY
@given(gen.mutated(gen.any_record))
def test_mutated_records_schema_and_decoder_agree(record: Any) -> None:
    """After one random edit (drop/add/replace a field) schema and decoder still agree."""
    assert schema_accepts(SCHEMA, record) == decoder_accepts(record)


def _with(base: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    copy = json.loads(json.dumps(base))
    node = copy
    for key in path[:-1]:
        node = node[key]
    if value is _DROP:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return copy


_DROP = object()
_EXAMPLE_RECORDS = [json.loads(line) for line in EXAMPLE.read_bytes().splitlines()]


def _first(kind: str, **match: Any) -> dict[str, Any]:
    for record in _EXAMPLE_RECORDS:
        if record["kind"] == kind and all(record.get(k) == v for k, v in match.items()):
            return record
    raise LookupError(kind)


_ASSISTANT = next(
    r for r in _EXAMPLE_RECORDS if r["kind"] == "message" and r["message"]["role"] == "assistant"
)
_RESULT = next(
    r for r in _EXAMPLE_RECORDS if r["kind"] == "message" and r["message"]["role"] == "toolResult"
)
_MCP = next(r for r in _EXAMPLE_RECORDS if r.get("payload"))

INVALID_SHAPES = [
    ("unknown top-level field", _first("close"), ("note",), "x"),
    ("snake_case field name", _first("run_end"), ("run_id",), "run-1"),
    ("missing required field", _first("run_end"), ("status",), _DROP),
    ("seq negative", _first("close"), ("seq",), -1),
    ("seq above 2^53-1", _first("close"), ("seq",), 2**53),
    ("seq float", _first("close"), ("seq",), 3.0),
    ("seq bool", _first("close"), ("seq",), True),
    ("seq string", _first("close"), ("seq",), "3"),
    ("header version string", HEADER, ("version",), "2"),
    ("header version float", HEADER, ("version",), 2.0),
    ("header other format", HEADER, ("format",), "pi-session"),
    ("header origin unknown", HEADER, ("origin",), "forked"),
    ("empty journal id", HEADER, ("journalId",), ""),
    ("owner empty string", _first("run_start"), ("owner",), ""),
    ("owner missing", _first("run_start"), ("owner",), _DROP),
    ("run reason unknown", _first("run_start"), ("reason",), "resume"),
    ("run status unknown", _first("run_end"), ("status",), "cancelled"),
    ("tool status unknown", _first("tool_call_end"), ("status",), "ok"),
    ("returned not bool", _first("tool_call_end"), ("returned",), 1),
    ("arguments array", _first("tool_call_start"), ("arguments",), []),
    ("digest uppercase", _MCP, ("payload", "origin", "serverIdentityDigest"), "A" * 64),
    ("digest newline", _MCP, ("payload", "origin", "serverIdentityDigest"), "a" * 64 + "\n"),
    ("digest short", _MCP, ("payload", "origin", "serverIdentityDigest"), "a" * 63),
    ("annotations null", _MCP, ("payload", "origin", "annotations"), None),
    ("annotation unknown", _MCP, ("payload", "origin", "annotations", "idempotentHint"), True),
    ("hint not bool", _MCP, ("payload", "origin", "annotations", "readOnlyHint"), "true"),
    ("origin unknown field", _MCP, ("payload", "origin", "url"), "x"),
    ("checkpoint trigger", _first("checkpoint"), ("trigger",), "auto"),
    ("firstKeptSeq missing", _first("checkpoint"), ("firstKeptSeq",), _DROP),
    ("redaction scope", _first("redaction"), ("scope",), "image"),
    ("message role unknown", _RESULT, ("message", "role"), "bashExecution"),
    ("content block type", _RESULT, ("message", "content", 0, "type"), "json"),
    ("block unknown field", _RESULT, ("message", "content", 0, "note"), "x"),
    ("isError missing", _RESULT, ("message", "isError"), _DROP),
    ("toolCallId empty", _RESULT, ("message", "toolCallId"), ""),
    ("stopReason unknown", _ASSISTANT, ("message", "stopReason"), "end_turn"),
    ("usage negative", _ASSISTANT, ("message", "usage", "input"), -1),
    ("usage float", _ASSISTANT, ("message", "usage", "output"), 1.5),
    ("usage missing total", _ASSISTANT, ("message", "usage", "totalTokens"), _DROP),
    (
        "usage cost huge",
        _ASSISTANT,
        ("message", "usage", "cost"),
        dict.fromkeys(("input", "output", "cacheRead", "cacheWrite", "total"), 10**400),
    ),
    (
        "thinking in user",
        _first("turn_start"),
        ("message", "content"),
        [{"type": "thinking", "thinking": "x"}],
    ),
    ("turn_start message without role", _first("turn_start"), ("message", "role"), _DROP),
    ("user timestamp missing", _first("turn_start"), ("message", "timestamp"), _DROP),
    ("kind unknown", _first("close"), ("kind",), "note"),
]


@pytest.mark.parametrize(
    ("base", "path", "value"),
    [case[1:] for case in INVALID_SHAPES],
    ids=[case[0] for case in INVALID_SHAPES],
)
def test_invalid_shape_refused_by_both(
    base: dict[str, Any], path: tuple[Any, ...], value: Any
) -> None:
    """Each invalid record shape is refused by the schema and by the decoder alike."""
    record = _with(base, path, value)
    assert not schema_accepts(SCHEMA, record)
    assert not decoder_accepts(record)
