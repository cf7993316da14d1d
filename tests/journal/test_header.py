"""The one reader of journal headers (`journal.header`): a journal's first line, read alone,
is decided exactly as decoding the whole journal decides it, under the same limits, and never
raises (R-REL-4): unit planning reads headers before any journal is replayed."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clearing_analysis.journal import (
    DecodedJournal,
    InvalidReason,
    JournalOutcome,
    RejectedJournal,
    decode_bytes,
)
from clearing_analysis.journal import decode as decode_module
from clearing_analysis.journal import header as header_module
from clearing_analysis.journal.header import grouping_keys, read_header
from clearing_analysis.policy import limits
from tests.formats import _strategies as gen
from tests.journal._build import CLOSE, HEADER, line

DEEP_OBJECTS = b'{"a":' * 1000 + b"1" + b"}" * 1000
HEADER_LINE = line(HEADER)[:-1]

# Named first lines, each followed in its file by a close record (seq 1).
FIRST_LINES: dict[str, bytes] = {
    "objects-nested-1000-deep": DEEP_OBJECTS,
    "header-with-a-field-nested-1000-deep": HEADER_LINE[:-1] + b',"x":' + DEEP_OBJECTS + b"}",
    "arrays-opened-50000-deep": b"[" * 50_000,
    "header-nested-past-the-limit": HEADER_LINE[:-1] + b',"x":' + b"[" * 65 + b"]" * 65 + b"}",
    "not-json": b'{"seq": 0, oops}',
    "not-an-object": b"[1, 2]",
    "invalid-utf8": b'{"seq":0,"kind":"header","x":"\xff"}',
    "repeated-key": HEADER_LINE[:-1] + b',"seq":0}',
    "a-turn-first": line({"seq": 0, "kind": "turn_start", "hostTurnId": "t"})[:-1],
    "header-with-seq-1": line({**HEADER, "seq": 1})[:-1],
    "version-3": line({**HEADER, "version": 3})[:-1],
    "imported-header": line({**HEADER, "origin": "imported"})[:-1],
    "empty-line": b"",
    "compact-header": HEADER_LINE,
    "spaced-header": json.dumps(HEADER).encode(),
}


def _decoded_first_line(journal: bytes) -> object:
    """What decoding the whole journal says of its first line: the header, or the outcome
    when the journal was refused there (its other lines are valid)."""
    decoded = decode_bytes(journal)
    if isinstance(decoded, DecodedJournal):
        return decoded.header
    return decoded


class TestReadHeader:
    """read_header against the decoder."""

    @pytest.mark.parametrize("name", sorted(FIRST_LINES))
    def test_a_first_line_is_decided_as_the_decoder_decides_it(
        self, tmp_path: Path, name: str
    ) -> None:
        """The same header, or the same fixed outcome and detail, as decoding the journal;
        deep nesting is INVALID NESTING_TOO_DEEP, no exception."""
        journal = FIRST_LINES[name] + b"\n" + line({**CLOSE, "seq": 1})
        path = tmp_path / "journal.jsonl"
        path.write_bytes(journal)
        header = read_header(path)
        expected = _decoded_first_line(journal)
        if isinstance(expected, RejectedJournal) and expected.outcome.value == "IMPORTED":
            # Decided only after the last line: the header line itself is a valid header.
            assert not isinstance(header, RejectedJournal)
            assert header.origin == "imported"
        else:
            assert header == expected

    @pytest.mark.parametrize("extra", [0, 1])
    def test_a_first_line_longer_than_any_line_is_too_long(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, extra: int
    ) -> None:
        """With the longest valid line as long as the header line: that header is read; one
        byte more is INVALID LINE_TOO_LONG, as the decoder says, and gives no keys."""
        small = msgspec.structs.replace(limits(), max_journal_line_bytes=len(HEADER_LINE))
        monkeypatch.setattr(decode_module, "limits", lambda: small)
        monkeypatch.setattr(header_module, "limits", lambda: small)
        path = tmp_path / "journal.jsonl"
        first = HEADER_LINE[:-1] + b" " * extra + b"}"
        path.write_bytes(first + b"\n" + line({**CLOSE, "seq": 1}))
        assert read_header(path) == _decoded_first_line(path.read_bytes())
        if extra:
            too_long = RejectedJournal(JournalOutcome.INVALID, InvalidReason.LINE_TOO_LONG)
            assert read_header(path) == too_long
            assert grouping_keys(path) == ()
        else:
            assert len(grouping_keys(path)) == 3

    def test_a_file_without_a_newline_or_empty(self, tmp_path: Path) -> None:
        """One fragment: OPEN, as the decoder says; no bytes: INVALID EMPTY_FILE; a missing
        file: INVALID UNREADABLE."""
        fragment, empty = tmp_path / "fragment.jsonl", tmp_path / "empty.jsonl"
        fragment.write_bytes(HEADER_LINE)
        empty.write_bytes(b"")
        assert read_header(fragment) == decode_bytes(HEADER_LINE)
        assert read_header(empty) == decode_bytes(b"")
        missing = read_header(tmp_path / "absent.jsonl")
        assert isinstance(missing, RejectedJournal)
        assert missing.reason is not None
        assert missing.reason.value == "UNREADABLE"

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(first=st.one_of(gen.json_value, gen.header, gen.body_records))
    def test_any_json_first_line_agrees_with_the_decoder(self, first: object) -> None:
        """Any JSON value, any valid header or record as the first line: the reader and the
        decoder agree (decided on bytes in memory through the same file read)."""
        raw = json.dumps(first).encode()
        journal = raw + b"\n" + line({**CLOSE, "seq": 1})
        expected = _decoded_first_line(journal)
        with tempfile.TemporaryDirectory() as scratch:
            path = Path(scratch) / "journal.jsonl"
            path.write_bytes(journal)
            header = read_header(path)
        if isinstance(expected, RejectedJournal) and expected.outcome.value in (
            "IMPORTED",
            "INHERITED",
        ):
            assert not isinstance(header, RejectedJournal)
        else:
            assert header == expected


class TestGroupingKeys:
    """The keys unit planning reads."""

    def test_keys_of_a_valid_header(self, tmp_path: Path) -> None:
        """Journal id, lineage and physical conversation, each under its field's name."""
        path = tmp_path / "journal.jsonl"
        path.write_bytes(line(HEADER))
        assert grouping_keys(path) == (
            "journalId\0journal-1",
            "logicalConversationId\0lineage-1",
            "physicalConversationId\0conv-1",
        )

    @pytest.mark.parametrize("name", ["objects-nested-1000-deep", "header-with-seq-1", "not-json"])
    def test_no_keys_for_a_first_line_the_decoder_refuses(self, tmp_path: Path, name: str) -> None:
        """A first line the decoder refuses gives no keys (the journal is skipped alone)."""
        path = tmp_path / "journal.jsonl"
        path.write_bytes(FIRST_LINES[name] + b"\n")
        assert grouping_keys(path) == ()


_FIRST_LINE_OUTCOMES = frozenset(
    {JournalOutcome.INVALID, JournalOutcome.UNSUPPORTED_VERSION, JournalOutcome.OPEN}
)
# Bytes that build deep or broken JSON more often than uniform bytes would.
_JSON_PIECES = st.sampled_from(
    [b"{", b"}", b"[", b"]", b'"a":', b'"kind":"header"', b",", b"1", b"\xff", b"\n", b"\\u"]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.one_of(
        st.binary(max_size=300),
        st.lists(_JSON_PIECES, max_size=400).map(b"".join),
        st.integers(min_value=1, max_value=3000).map(lambda depth: b'{"a":' * depth),
    )
)
def test_any_bytes_give_a_header_or_a_fixed_outcome(data: bytes) -> None:
    """Whatever a file holds, read_header returns a header or one of the outcomes a first line
    alone fixes (INVALID with a detail, UNSUPPORTED_VERSION, OPEN), and grouping_keys returns
    keys or none: neither raises."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "journal.jsonl"
        path.write_bytes(data)
        header = read_header(path)
        keys = grouping_keys(path)
    if isinstance(header, RejectedJournal):
        assert header.outcome in _FIRST_LINE_OUTCOMES
        assert (header.reason is not None) == (header.outcome is JournalOutcome.INVALID)
        assert keys == ()
    else:
        assert len(keys) == 3
