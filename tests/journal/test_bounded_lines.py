"""Journal lines are read and split a block at a time (R-REL-7): memory holds a block and the
longest line, never a file's every line at once, and decoding by blocks gives exactly what
decoding the whole file in memory gives."""

from __future__ import annotations

import tempfile
import tracemalloc
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clearing_analysis.inputs.sidecar import open_sidecar
from clearing_analysis.journal import decode as decode_module
from clearing_analysis.journal import decode_bytes, decode_into, decode_path_into
from clearing_analysis.journal.records import Header, Record
from clearing_analysis.policy import limits
from clearing_analysis.replay.journal_replay import replay_journal
from clearing_analysis.replay.model import JournalSkipReason, SkippedJournal
from tests.journal._build import CLOSE, HEADER, RUN, RUN_END, TURN, journal, line, valid
from tests.replay.builder import SidecarBuilder, routes

SCRATCH = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _by_blocks(path: Path) -> tuple[object, list[Record], int]:
    records: list[Record] = []
    outcome, size = decode_path_into(path, records.append)
    return outcome, records, size


def _whole(data: bytes) -> tuple[object, list[Record], int]:
    """The outcome and the records handed over (all of them, or the prefix before a
    refusal) when the file is decoded whole in memory."""
    records: list[Record] = []
    return decode_into(data, records.append), records, len(data)


class TestBlocks:
    """Blocks of any size decode a file as the whole of it decodes."""

    @pytest.mark.parametrize("block", [1, 2, 3, 7, 64, 1 << 16])
    @pytest.mark.parametrize(
        "name",
        ["valid", "open-fragment", "long-lines", "empty-lines", "invalid-late", "empty"],
    )
    def test_any_block_size_decodes_as_the_whole(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, block: int, name: str
    ) -> None:
        """The same outcome, the same records and the bytes read (the file's size when it
        decoded whole), whatever the block size: lines across blocks, lines longer than a
        block, a final fragment, empty lines, an invalid line after valid ones, no bytes."""
        long_turn = {**TURN, "message": {**TURN["message"], "content": "y" * 300}}
        data = {
            "valid": valid(),
            "open-fragment": valid()[:-3],
            "long-lines": journal(long_turn, RUN, RUN_END, CLOSE),
            "empty-lines": line(HEADER) + b"\n\n" + line({**CLOSE, "seq": 1}),
            "invalid-late": journal(TURN, RUN) + b'{"seq": 3, oops}\n' + line(CLOSE),
            "empty": b"",
        }[name]
        # Expected: the file in one block (the whole split at once).
        expected_outcome, expected_records, expected_size = _whole(data)
        monkeypatch.setattr(decode_module, "_BLOCK_BYTES", block)
        path = tmp_path / "journal.jsonl"
        path.write_bytes(data)
        outcome, records, size = _by_blocks(path)
        assert (outcome, records) == (expected_outcome, expected_records)
        assert _whole(data)[:2] == (expected_outcome, expected_records)  # in memory, by blocks
        if isinstance(expected_outcome, Header):
            assert size == expected_size

    @pytest.mark.parametrize("block", [1, 5, 1 << 16])
    @pytest.mark.parametrize("terminated", [True, False])
    def test_a_line_over_the_limit_is_too_long_and_ends_the_reading(
        self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, block: int, terminated: bool
    ) -> None:
        """A line longer than maxJournalLineBytes, terminated or not: INVALID LINE_TOO_LONG as
        in memory, and the reading stops there (the bytes after it are never read)."""
        data = valid()
        longest = max(len(x) for x in data.split(b"\n"))
        small = msgspec.structs.replace(limits(), max_journal_line_bytes=longest)
        monkeypatch.setattr(decode_module, "limits", lambda: small)
        monkeypatch.setattr(decode_module, "_BLOCK_BYTES", block)
        too_long = line(HEADER) + b" " * (longest + 1)
        if terminated:
            too_long += b"\n"
        data = too_long + b"x" * (10 * longest) + b"\n"
        path = tmp_path / "journal.jsonl"
        path.write_bytes(data)
        outcome, _records, size = _by_blocks(path)
        assert outcome == decode_bytes(data)
        assert size < len(line(HEADER)) + 2 * longest + 2 * block

    @SCRATCH
    @given(cuts=st.lists(st.integers(0, 400), max_size=6), block=st.integers(1, 80))
    def test_cut_and_joined_journals(self, cuts: list[int], block: int) -> None:
        """A valid journal with newlines removed or added at arbitrary points: read by blocks
        of any size, from a file or from memory, it decodes as in one block."""
        data = bytearray(valid())
        for cut in cuts:
            position = cut % len(data)
            if data[position : position + 1] == b"\n":
                del data[position]
            else:
                data[position:position] = b"\n"
        expected = _whole(bytes(data))[:2]  # the file in one block
        original = decode_module._BLOCK_BYTES
        decode_module._BLOCK_BYTES = block
        try:
            with tempfile.TemporaryDirectory() as scratch:
                path = Path(scratch) / "journal.jsonl"
                path.write_bytes(bytes(data))
                assert _by_blocks(path)[:2] == expected
            assert _whole(bytes(data))[:2] == expected
        finally:
            decode_module._BLOCK_BYTES = original


def test_a_file_of_3_byte_lines_is_refused_holding_no_more_than_a_block(tmp_path: Path) -> None:
    """A header and 8 MiB of 3-byte lines (2.8 M lines): INVALID at the second line, while
    replay's peak Python allocation stays under a quarter of the file (it held every line at
    once, 125 MiB, when the whole file was split: 100 MiB of such lines took 2 GB)."""
    size = 8 << 20
    path = tmp_path / "tiny.jsonl"
    path.write_bytes(line(HEADER) + b"{}\n" * (size // 3))
    sidecar = SidecarBuilder(tmp_path / "history.sqlite").finish()
    with open_sidecar(sidecar) as view:
        tracemalloc.start()
        try:
            outcome = replay_journal(path, routes(), view)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert outcome == SkippedJournal(JournalSkipReason.INVALID, "UNKNOWN_RECORD_KIND")
    assert peak < size // 4, peak
