"""The sample Claude Code project under tests/data/claude-code/ (docs/explore.md) is what
tests/histories/sample.py writes, and reads as documented."""

from __future__ import annotations

from pathlib import Path

from clearing_analysis.histories.claude_code import ReadTranscript, read_transcript
from tests.histories import sample


def test_committed_sample_is_what_the_builder_writes(tmp_path: Path) -> None:
    """Byte for byte (rewrite with `python -m tests.histories.sample`)."""
    written = sample.write(tmp_path)
    for path in written:
        committed = sample.FOLDER / path.relative_to(tmp_path)
        assert committed.read_bytes() == path.read_bytes(), committed


def test_sample_reads_with_its_rewind_compaction_and_subagent() -> None:
    """The session: 6 requests, the rewound answer off the path, a compaction; its subagent:
    2 requests, a conversation of its own."""
    project = sample.FOLDER / "-home-dev-shop"
    session = read_transcript(project / f"{sample.SESSION}.jsonl")
    subagent = read_transcript(project / sample.SESSION / "subagents" / "agent-a71c2e4.jsonl")
    assert isinstance(session, ReadTranscript) and isinstance(subagent, ReadTranscript)
    assert len(session.requests) - 1 == 6  # the rewound request is read but not on the path
    assert session.shape.leaves == 2
    assert sum(1 for node in session.path if node.kind == "system") == 2
    assert len(subagent.requests) == 2
    assert subagent.journal_id != session.journal_id
