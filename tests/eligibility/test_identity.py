"""Identity proof rules (R-EL-3..6): attestation, collisions, periods, per-run proofs,
allowlisted captured origin."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from clearing_analysis.codes.errors import InputInvalidError
from clearing_analysis.eligibility import EligibilityClass, ExclusionReason, assess, is_web
from clearing_analysis.inputs.configs import AgentConfig
from clearing_analysis.inputs.sidecar import open_sidecar
from clearing_analysis.replay import replay_journals
from tests.eligibility.helpers import (
    PERIOD,
    TARGET_TEXT,
    Target,
    pad,
    target_occurrence,
    write_target,
)
from tests.replay.builder import (
    JournalBuilder,
    SidecarBuilder,
    agent_config,
    allowlist,
    origin,
    routes,
)

R = ExclusionReason
LOOKUP = ("srv", "lookup", "a" * 64)


def _reason(tmp_path: Path, target: Target, **kwargs: Any) -> object:
    kwargs.setdefault("retain", {})
    occurrence, _ = target_occurrence(tmp_path, target, **kwargs)
    if occurrence.reason in (R.IDENTITY_UNPROVEN, R.IDENTITY_AMBIGUOUS):
        assert occurrence.eligibility is EligibilityClass.UPPER_BOUND_ONLY
    return occurrence.reason


def test_builtin_without_agent_config_is_unproven(tmp_path: Path) -> None:
    """Missing inventory is not proof: a read result without --agent-config is upper bound."""
    assert _reason(tmp_path, Target()) is R.IDENTITY_UNPROVEN


def test_builtin_not_enabled_is_unproven(tmp_path: Path) -> None:
    """The built-in must be listed as enabled."""
    config = agent_config({"builtins": ["grep"], "mcpTools": "none"})
    assert _reason(tmp_path, Target(), agent_config=config) is R.IDENTITY_UNPROVEN


def test_mcp_name_collision_is_ambiguous(tmp_path: Path) -> None:
    """An MCP tool exposed under the built-in's name makes the identity ambiguous."""
    config = agent_config({"builtins": ["read"], "mcpTools": [{"exposedName": "read"}]})
    assert _reason(tmp_path, Target(), agent_config=config) is R.IDENTITY_AMBIGUOUS


def test_complete_mcp_inventory_without_collision_proves(tmp_path: Path) -> None:
    """A complete MCP inventory that does not use the name proves the built-in."""
    config = agent_config({"builtins": ["read"], "mcpTools": [{"exposedName": "other"}]})
    assert _reason(tmp_path, Target(), agent_config=config) is None


def test_builtin_name_with_captured_origin_is_ambiguous(tmp_path: Path) -> None:
    """A call named like a built-in but carrying MCP origin came from a server: ambiguous."""
    target = Target(payload=origin(tool="read"))
    assert _reason(tmp_path, target, agent_config=agent_config(PERIOD)) is R.IDENTITY_AMBIGUOUS


def test_period_attestation_void_when_toolset_changes(tmp_path: Path) -> None:
    """Two distinct toolset fingerprints in the snapshot void a period attestation."""
    later = JournalBuilder(journal_id="j2", physical="p2")
    later.tool_turn("u1", [("x", "read")], fingerprint="fp-2")
    later.close()
    target = Target(fingerprint="fp-1")
    got = _reason(tmp_path, target, agent_config=agent_config(PERIOD), extra=[later])
    assert got is R.IDENTITY_UNPROVEN


def test_period_attestation_holds_with_one_fingerprint(tmp_path: Path) -> None:
    """The same fingerprint everywhere (nulls ignored) keeps the period attestation."""
    later = JournalBuilder(journal_id="j2", physical="p2")
    later.tool_turn("u1", [("x", "read")], fingerprint="fp-1")
    later.close()
    target = Target(fingerprint="fp-1")
    assert _reason(tmp_path, target, agent_config=agent_config(PERIOD), extra=[later]) is None


def test_per_run_proof_covers_its_run_despite_config_change(tmp_path: Path) -> None:
    """A per-run proof array is not voided by a toolset change; it proves the run it names."""
    config = agent_config(
        [{"physicalConversationId": "p1", "runId": "t1-r", "builtins": ["read"], "mcpTools": []}]
    )
    later = JournalBuilder(journal_id="j2", physical="p2")
    later.tool_turn("u1", [("x", "read")], fingerprint="fp-2")
    later.close()
    target = Target(fingerprint="fp-1")
    assert _reason(tmp_path, target, agent_config=config, extra=[later]) is None


def test_run_without_proof_is_unproven(tmp_path: Path) -> None:
    """A per-run proof array that does not name the result's run proves nothing for it."""
    config = agent_config(
        [{"physicalConversationId": "p1", "runId": "other", "builtins": ["read"], "mcpTools": []}]
    )
    assert _reason(tmp_path, Target(), agent_config=config) is R.IDENTITY_UNPROVEN


def _reasons_by_conversation(tmp_path: Path, config: AgentConfig) -> dict[str, object]:
    """Replay two conversations that both have the target run `t1-r` (call c1, a proven-able
    read with a matching sidecar row); return the target's reason in each, by conversation."""
    sidecar = SidecarBuilder(tmp_path / "history.sqlite", capture_enabled=("convA", "convB"))
    journals = tmp_path / "journals"
    journals.mkdir()
    paths = []
    for physical in ("convA", "convB"):
        sidecar.retain((physical, "t1", "t1-r", "c1"), TARGET_TEXT)
        b = JournalBuilder(journal_id=f"j-{physical}", physical=physical, logical=f"l-{physical}")
        write_target(b, Target())
        pad(b)
        b.close()
        paths.append(b.write(journals))
    with open_sidecar(sidecar.finish()) as view:
        result = replay_journals(paths, routes(), view)
    reasons: dict[str, object] = {}
    assessment = assess(result, routes(), config, None)
    for boundary in assessment.boundaries:
        if boundary.host_turn_id == "t6":
            target = next(
                o for o in assessment.occurrences(boundary) if o.result.identity.call_id == "c1"
            )
            reasons[boundary.physical_conversation_id] = target.reason
    return reasons


def test_per_run_proof_covers_only_the_conversation_it_names(tmp_path: Path) -> None:
    """A proof for run-id t1-r of convA proves it there, not the t1-r that convB reuses."""
    proof = {"runId": "t1-r", "builtins": ["read"], "mcpTools": "none"}
    config = agent_config([{**proof, "physicalConversationId": "convA"}])
    reasons = _reasons_by_conversation(tmp_path, config)
    assert reasons == {"convA": None, "convB": R.IDENTITY_UNPROVEN}


def test_same_run_id_proven_per_conversation(tmp_path: Path) -> None:
    """Two proofs naming one run id in two conversations are accepted; each proves its own."""
    proof = {"runId": "t1-r", "builtins": ["read"]}
    config = agent_config(
        [
            {**proof, "physicalConversationId": "convA", "mcpTools": "none"},
            {**proof, "physicalConversationId": "convB", "mcpTools": [{"exposedName": "read"}]},
        ]
    )
    reasons = _reasons_by_conversation(tmp_path, config)
    assert reasons == {"convA": None, "convB": R.IDENTITY_AMBIGUOUS}


_PROOF = {"builtins": [], "mcpTools": "none"}


@pytest.mark.parametrize(
    ("value", "detail"),
    [
        pytest.param(
            [{**_PROOF, "runId": "r", "physicalConversationId": "p"}] * 2,
            "AGENT_CONFIG_RUN_ID_DUPLICATE",
            id="duplicate pair",
        ),
        pytest.param(
            [{**_PROOF, "physicalConversationId": "p"}], "AGENT_CONFIG_RUN_ID_MISSING", id="no run"
        ),
        pytest.param(
            [{**_PROOF, "runId": "", "physicalConversationId": "p"}],
            "AGENT_CONFIG_RUN_ID_MISSING",
            id="empty run",
        ),
        pytest.param(
            [{**_PROOF, "runId": "r"}], "AGENT_CONFIG_CONVERSATION_ID_MISSING", id="no conversation"
        ),
        pytest.param(
            [{**_PROOF, "runId": "r", "physicalConversationId": ""}],
            "AGENT_CONFIG_CONVERSATION_ID_MISSING",
            id="empty conversation",
        ),
        pytest.param(
            [{**_PROOF, "runId": "r", "physicalConversationId": None}],
            "AGENT_CONFIG_CONVERSATION_ID_MISSING",
            id="null conversation",
        ),
    ],
)
def test_contradictory_or_missing_run_ids_invalidate_input(value: object, detail: str) -> None:
    """Duplicate (conversation, run) pairs or a missing run or conversation id make the whole
    agent config INPUT_INVALID."""
    with pytest.raises(InputInvalidError) as raised:
        agent_config(value)
    assert raised.value.detail == detail


def test_allowlisted_captured_origin_proves_app(tmp_path: Path) -> None:
    """Exact (server, tool, digest) match, tool == message name, readOnlyHint true."""
    target = Target(name="lookup", payload=origin())
    assert _reason(tmp_path, target, app_allowlist=allowlist(LOOKUP)) is None


@pytest.mark.parametrize(
    "payload",
    [
        origin(digest="b" * 64),  # server identity repointed
        origin(server="other"),
        origin(read_only=False),
        origin(read_only=None),
    ],
)
def test_app_origin_mismatch_is_unproven(tmp_path: Path, payload: dict) -> None:
    """A repointed digest, another server or a missing read-only hint prove nothing."""
    target = Target(name="lookup", payload=payload)
    assert _reason(tmp_path, target, app_allowlist=allowlist(LOOKUP)) is R.IDENTITY_UNPROVEN


def test_origin_tool_must_equal_message_name(tmp_path: Path) -> None:
    """An allowlisted origin for another tool does not prove this message's tool."""
    target = Target(name="lookup", payload=origin(tool="fetch"))
    got = _reason(tmp_path, target, app_allowlist=allowlist(("srv", "fetch", "a" * 64)))
    assert got is R.IDENTITY_UNPROVEN


def test_app_name_alone_never_qualifies(tmp_path: Path) -> None:
    """Without captured origin an allowlisted name is still upper bound only."""
    target = Target(name="lookup")
    assert _reason(tmp_path, target, app_allowlist=allowlist(LOOKUP)) is R.IDENTITY_UNPROVEN


def test_app_without_allowlist_is_unproven(tmp_path: Path) -> None:
    """Captured origin without an allowlist proves nothing."""
    assert _reason(tmp_path, Target(name="lookup", payload=origin())) is R.IDENTITY_UNPROVEN


def test_sidecar_origin_used_when_journal_has_none(tmp_path: Path) -> None:
    """The sidecar row's captured origin columns stand in for a journal without origin."""
    retain = {"origin": ("srv", "lookup", "a" * 64, True, None)}
    target = Target(name="lookup")
    assert _reason(tmp_path, target, app_allowlist=allowlist(LOOKUP), retain=retain) is None


def test_journal_origin_wins_over_sidecar_origin(tmp_path: Path) -> None:
    """When the journal captured an origin, a different sidecar origin is not consulted."""
    retain = {"origin": ("srv", "lookup", "a" * 64, True, None)}
    target = Target(name="lookup", payload=origin(digest="b" * 64))
    got = _reason(tmp_path, target, app_allowlist=allowlist(LOOKUP), retain=retain)
    assert got is R.IDENTITY_UNPROVEN


def test_sidecar_destructive_hint_excludes(tmp_path: Path) -> None:
    """A destructive hint captured in the sidecar row excludes the result."""
    retain = {"origin": ("srv", "lookup", "a" * 64, True, True)}
    got = _reason(tmp_path, Target(name="lookup"), app_allowlist=allowlist(LOOKUP), retain=retain)
    assert got is R.DESTRUCTIVE_HINT


def test_web_category() -> None:
    """web_fetch and app tools named web_* are web; other tools are not."""
    assert is_web("web_fetch")
    assert is_web("web_search")
    assert not is_web("read")
    assert not is_web("lookup")
