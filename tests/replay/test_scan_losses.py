"""structuredScanLosses: redacted JSON web envelopes the guard rejects again (R-SIM-9)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from clearing_analysis.inputs.sidecar import SidecarView
from clearing_analysis.replay import ReplayedJournal, replay_journal
from tests.replay.builder import JournalBuilder, SidecarBuilder, routes

OpenView = Callable[[SidecarBuilder], SidecarView]


def _replay(tmp_path: Path, view: SidecarView, b: JournalBuilder) -> ReplayedJournal:
    b.close()
    outcome = replay_journal(b.write(tmp_path), routes(), view)
    assert isinstance(outcome, ReplayedJournal)
    return outcome


AWS_LIKE = "AKIA" + "Q" * 16  # shaped like an AWS access key id; not a real one


def test_structured_scan_losses_are_redacted_json_envelopes_the_guard_rejects(
    tmp_path: Path, sidecar_builder: SidecarBuilder, open_view: OpenView
) -> None:
    """Only a result marked as a redacted JSON web envelope is scanned; it is a scan loss when
    a detector trips on its text. A plain-text redaction or an unredacted envelope carrying the
    same shape is not."""
    envelope = '{"url":"u","status":200,"content":"key ' + AWS_LIKE + '"}'
    clean = '{"url":"u","status":200,"content":"nothing secret here"}'
    b = JournalBuilder()
    b.turn("t1")
    b.run("r1", "t1")
    b.assistant("r1", calls=[(c, "web_fetch", {}) for c in ("c1", "c2", "c3", "c4")])
    seqs = {}
    for call_id, text in (("c1", envelope), ("c2", clean), ("c3", envelope), ("c4", envelope)):
        b.call_start("r1", call_id, "web_fetch")
        b.call_end("r1", call_id)
        seqs[call_id] = b.result("r1", call_id, "web_fetch", text=text)
    b.assistant("r1")
    b.run_end("r1")
    b.redaction(seqs["c1"])
    b.redaction(seqs["c2"])
    b.redaction(seqs["c3"], scope="text", fmt="text")
    journal = _replay(tmp_path, open_view(sidecar_builder), b)
    assert [r.web_envelope_redacted for r in journal.results] == [True, True, False, False]
    assert [r.scan_loss for r in journal.results] == [True, False, False, False]
