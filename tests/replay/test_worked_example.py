"""The worked example of docs/formats/journal-v2.md replays as the document says."""

from __future__ import annotations

from pathlib import Path

from clearing_analysis.eligibility import ApiSignal, ExclusionReason, assess
from clearing_analysis.eligibility.identity import IdentityProofs, identity_shortfall
from clearing_analysis.inputs.configs import (
    Api,
    load_agent_config,
    load_app_allowlist,
    load_routes,
)
from clearing_analysis.inputs.sidecar import open_sidecar
from clearing_analysis.replay import ResultShape, replay_journals
from tests.replay.builder import SidecarBuilder

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "formats" / "examples"


def test_worked_example(tmp_path: Path) -> None:
    """Four boundaries with the documented gaps (each ending at the turn's first request);
    seq 6, 10, 18, 22 proven; the web envelope redacted; image and error never cleared; after
    the checkpoint only kept results remain."""
    routes = load_routes(EXAMPLES / "routes.example.json")
    config = load_agent_config(EXAMPLES / "agent-config.example.json")
    allowlist = load_app_allowlist(EXAMPLES / "app-allowlist.example.json")
    sidecar = SidecarBuilder(tmp_path / "h.sqlite", capture_enabled=("conv-0192",)).finish()
    with open_sidecar(sidecar) as view:
        result = replay_journals([EXAMPLES / "journal-v2.example.jsonl"], routes, view)
    assert result.replayed_journals == 1
    journal = result.journals[0].journal
    assert [b.host_turn_id for b in journal.boundaries] == ["turn-1", "turn-2", "turn-3", "turn-4"]
    assert result.journals[0].boundary_skips == (None, None, None, None)
    assert [b.gap_ms for b in journal.boundaries] == [None, 896_900, 84_800, 36_800]
    assert [len(b.requests) for b in journal.boundaries] == [3, 5, 3, 1]

    proofs = IdentityProofs.for_snapshot(config, allowlist, journal.toolset_fingerprints)
    assert proofs.period_attestation_valid
    plain = [r for r in journal.results if r.shape is ResultShape.PLAIN_TEXT and not r.is_error]
    proven = [r.tool_name for r in plain if identity_shortfall(r, proofs) is None]
    assert proven == ["grep", "read", "web_fetch", "lookup_issue"]
    assert [r.tool_name for r in journal.results if r.web_envelope_redacted] == ["web_fetch"]

    assessment = assess(result, routes, config, allowlist)
    reasons = {
        (b.host_turn_id, o.result.tool_name, o.result.shape): o.reason
        for b in assessment.boundaries
        for o in assessment.occurrences(b)
    }
    assert reasons[("turn-3", "read", ResultShape.IMAGE)] is ExclusionReason.IMAGE_RESULT
    assert reasons[("turn-3", "bash", ResultShape.PLAIN_TEXT)] is ExclusionReason.EFFECTFUL_BUILTIN
    after_checkpoint = [
        o.result.tool_name for o in assessment.occurrences(assessment.boundaries[3])
    ]
    assert after_checkpoint == ["edit"]
    api = assessment.per_api[Api.ANTHROPIC_MESSAGES]
    assert (api.retention.proven, api.retention.matched) == (4, 0)
    assert api.signals == (ApiSignal.RETENTION_UNMATCHED,)
