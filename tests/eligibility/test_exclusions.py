"""Every exclusion reason, each reached through a replayed journal (or, for the current turn,
the classifier itself), and the precedence between them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from clearing_analysis.eligibility import (
    EligibilityClass,
    ExclusionReason,
    IdentityProofs,
    assess,
)
from clearing_analysis.eligibility.classify import classify_result, occurrence_reason
from clearing_analysis.inputs.sidecar import open_sidecar
from clearing_analysis.replay import Protection, replay_journals
from tests.eligibility.helpers import (
    PERIOD,
    TARGET_TEXT,
    Target,
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
MATCH: dict[str, Any] = {}


def _reason(tmp_path: Path, target: Target, **kwargs: Any) -> tuple[EligibilityClass, Any]:
    kwargs.setdefault("agent_config", agent_config(PERIOD))
    kwargs.setdefault("retain", MATCH)
    occurrence, _ = target_occurrence(tmp_path, target, **kwargs)
    return occurrence.eligibility, occurrence.reason


def test_proven_retained_old_result_is_lower_bound(tmp_path: Path) -> None:
    """A successful, completed, placed plain-text read with proof and exact retention."""
    assert _reason(tmp_path, Target()) == (EligibilityClass.LOWER_BOUND, None)


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        (Target(name="skill"), R.INSTRUCTION_BUILTIN),
        (Target(name="read_instructions"), R.INSTRUCTION_BUILTIN),
        (Target(name="session_history"), R.HISTORY_BUILTIN),
        (Target(name="retrieve_tool_result"), R.HISTORY_BUILTIN),
        (Target(name="bash"), R.EFFECTFUL_BUILTIN),
        (Target(name="edit"), R.EFFECTFUL_BUILTIN),
        (Target(name="write"), R.EFFECTFUL_BUILTIN),
        (Target(is_error=True), R.ERROR_RESULT),
        (Target(status="error"), R.NOT_SUCCESSFUL),
        (Target(status="denied"), R.NOT_SUCCESSFUL),
        (Target(status=None), R.NOT_SUCCESSFUL),
        (Target(run_status="failed"), R.RUN_NOT_COMPLETED),
        (Target(run_status="aborted"), R.RUN_NOT_COMPLETED),
        (Target(returned=False), R.NOT_RETURNED_AND_PLACED),
        (Target(placed=False), R.NOT_RETURNED_AND_PLACED),
        (
            Target(content=[{"type": "image", "data": "AA", "mimeType": "image/png"}]),
            R.IMAGE_RESULT,
        ),
        (Target(content=[]), R.OPAQUE_OR_MIXED_BLOCKS),
        (
            Target(content=[{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]),
            R.OPAQUE_OR_MIXED_BLOCKS,
        ),
        (
            Target(content=[{"type": "text", "text": "a", "textSignature": "sig"}]),
            R.OPAQUE_OR_MIXED_BLOCKS,
        ),
    ],
)
def test_excluded_results(tmp_path: Path, target: Target, reason: ExclusionReason) -> None:
    """Each result-level rule excludes the occurrence from both bounds with its reason."""
    assert _reason(tmp_path, target) == (EligibilityClass.EXCLUDED, reason)


def test_effectful_name_excluded_even_without_proof(tmp_path: Path) -> None:
    """Known effectful names are excluded from both bounds with no agent config at all."""
    assert _reason(tmp_path, Target(name="bash"), agent_config=None) == (
        EligibilityClass.EXCLUDED,
        R.EFFECTFUL_BUILTIN,
    )


def test_destructive_hint_excluded_even_when_allowlisted(tmp_path: Path) -> None:
    """A captured destructiveHint true excludes an app result, allowlist or not."""
    target = Target(name="lookup", payload=origin(destructive=True))
    got = _reason(tmp_path, target, app_allowlist=allowlist(("srv", "lookup", "a" * 64)))
    assert got == (EligibilityClass.EXCLUDED, R.DESTRUCTIVE_HINT)


def test_error_precedes_image(tmp_path: Path) -> None:
    """One reason per occurrence: an error image result is ERROR_RESULT."""
    image = [{"type": "image", "data": "AA", "mimeType": "image/png"}]
    target = Target(is_error=True, content=image)
    assert _reason(tmp_path, target)[1] is R.ERROR_RESULT


def test_protection_precedes_identity(tmp_path: Path) -> None:
    """A recent unproven result is reported as protected, not as unproven."""
    occurrence, assessment = target_occurrence(tmp_path, Target(), retain=MATCH)
    t3 = next(x for x in assessment.boundaries if x.host_turn_id == "t3")
    at_t3 = next(o for o in assessment.occurrences(t3) if o.result.identity.call_id == "c1")
    assert at_t3.reason is R.PROTECTED_RECENT_PROMPT_TURN
    assert occurrence.reason is R.IDENTITY_UNPROVEN


def test_recent_prompt_turns_then_eligible(tmp_path: Path) -> None:
    """Within the three prompt turns before a boundary the result is protected by turn; once
    ten later tool starts and three later turns passed it is eligible."""
    _, assessment = target_occurrence(
        tmp_path, Target(), agent_config=agent_config(PERIOD), retain=MATCH
    )
    reasons = {
        boundary.host_turn_id: o.reason
        for boundary in assessment.boundaries
        for o in assessment.occurrences(boundary)
        if o.result.identity.call_id == "c1"
    }
    assert reasons == {
        "t2": R.PROTECTED_RECENT_PROMPT_TURN,
        "t3": R.PROTECTED_RECENT_PROMPT_TURN,
        "t4": R.PROTECTED_RECENT_PROMPT_TURN,
        "t5": None,
        "t6": None,
    }
    t6 = next(x for x in assessment.boundaries if x.host_turn_id == "t6")
    pads = [o.reason for o in assessment.occurrences(t6) if o.result.identity.call_id != "c1"]
    assert pads == [R.EFFECTFUL_BUILTIN] * 10


def test_ten_latest_tool_starts_protected_across_turns(tmp_path: Path) -> None:
    """After three quiet turns the result is still protected while it is among the ten most
    recently started tool calls; the eleventh start releases it."""
    b = JournalBuilder()
    write_target(b, Target())
    for turn in ("t2", "t3", "t4", "t5"):
        b.plain_turn(turn)
    b.tool_turn("t6", [(f"pad{i}", "bash") for i in range(9)])
    for turn in ("t7", "t8", "t9", "t10"):
        b.plain_turn(turn)
    b.tool_turn("t11", [("pad9", "bash")])
    for turn in ("t12", "t13", "t14", "t15"):
        b.plain_turn(turn)
    b.close()
    sidecar = SidecarBuilder(tmp_path / "h.sqlite", capture_enabled=("p1",))
    sidecar.retain(("p1", "t1", "t1-r", "c1"), TARGET_TEXT)
    with open_sidecar(sidecar.finish()) as view:
        replayed = replay_journals([b.write(tmp_path)], routes(), view)
    assessment = assess(replayed, routes(), agent_config(PERIOD))
    reasons = {
        boundary.host_turn_id: o.reason
        for boundary in assessment.boundaries
        for o in assessment.occurrences(boundary)
        if o.result.identity.call_id == "c1"
    }
    assert reasons["t4"] is R.PROTECTED_RECENT_PROMPT_TURN
    assert reasons["t5"] is R.PROTECTED_RECENT_TOOL_START
    assert reasons["t10"] is R.PROTECTED_RECENT_TOOL_START
    assert reasons["t12"] is None


def test_current_turn_protection_in_classifier(tmp_path: Path) -> None:
    """A result of the boundary's own turn is PROTECTED_CURRENT_TURN, ahead of identity.

    At a pre-turn boundary the new turn has no results yet, so replay never produces this
    protection from a well-formed journal; the classifier still guards it (R-EL-2).
    """
    occurrence, _ = target_occurrence(tmp_path, Target(), retain=MATCH)
    proofs = IdentityProofs(None, None, period_attestation_valid=True)
    got = occurrence_reason(classify_result(occurrence.result, proofs), Protection.CURRENT_TURN)
    assert got is R.PROTECTED_CURRENT_TURN
