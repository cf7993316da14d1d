"""Journal decoding: native v2 journal files into typed records (docs/formats/journal-v2.md)."""

from clearing_analysis.journal.decode import (
    DecodedJournal,
    DecodeResult,
    InvalidReason,
    JournalOutcome,
    RecordSink,
    RejectedJournal,
    decode_bytes,
    decode_file,
    decode_header,
    decode_into,
    decode_path_into,
    decode_stream,
    read_journal,
)

__all__ = [
    "DecodeResult",
    "DecodedJournal",
    "InvalidReason",
    "JournalOutcome",
    "RecordSink",
    "RejectedJournal",
    "decode_bytes",
    "decode_file",
    "decode_header",
    "decode_into",
    "decode_path_into",
    "decode_stream",
    "read_journal",
]
