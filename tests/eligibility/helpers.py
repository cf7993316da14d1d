"""A target tool result old enough to be unprotected, replayed and assessed end to end."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clearing_analysis.eligibility import Assessment, Occurrence, assess
from clearing_analysis.inputs.configs import AgentConfig, AppAllowlist
from clearing_analysis.inputs.sidecar import open_sidecar
from clearing_analysis.replay import replay_journals
from tests.replay.builder import JournalBuilder, SidecarBuilder, routes

TARGET_TEXT = "target result text"
PERIOD = {"builtins": ["read", "grep", "web_fetch"], "mcpTools": "none"}


@dataclass
class Target:
    """How the target result (turn t1, run t1-r, call c1) is written."""

    name: str = "read"
    content: list[dict[str, Any]] | None = None
    is_error: bool = False
    status: str | None = "success"
    returned: bool = True
    placed: bool = True
    run_status: str = "completed"
    payload: dict[str, Any] | None = None
    fingerprint: str | None = None


def write_target(b: JournalBuilder, t: Target) -> None:
    """Turn t1 with the target call c1."""
    b.turn("t1")
    b.run("t1-r", "t1", fingerprint=t.fingerprint)
    b.assistant("t1-r", "", calls=[("c1", t.name, {"q": 1})])
    b.call_start("t1-r", "c1", t.name, {"q": 1}, payload=t.payload)
    if t.status is not None:
        b.call_end("t1-r", "c1", status=t.status, returned=t.returned, placed=t.placed)
    b.result("t1-r", "c1", t.name, text=TARGET_TEXT, content=t.content, is_error=t.is_error)
    b.assistant("t1-r", "done")
    b.run_end("t1-r", t.run_status)


def pad(b: JournalBuilder, fingerprint: str | None = None) -> None:
    """Ten later tool starts and three later prompt turns, then the final boundary."""
    b.tool_turn("t2", [(f"pad{i}", "bash") for i in range(10)], fingerprint=fingerprint)
    for turn in ("t3", "t4", "t5", "t6"):
        b.plain_turn(turn)


def target_occurrence(
    tmp_path: Path,
    target: Target,
    *,
    agent_config: AgentConfig | None = None,
    app_allowlist: AppAllowlist | None = None,
    retain: dict[str, Any] | None = None,
    extra: list[JournalBuilder] | None = None,
) -> tuple[Occurrence, Assessment]:
    """Replay the target journal (plus `extra` journals) and return the target's occurrence at
    the final boundary. `retain` holds SidecarBuilder.retain keyword arguments (None: no row)."""
    # Capture enabled from the epoch for every conversation: all boundaries in window.
    captured = tuple(sorted({"p1", *(x.physical for x in extra or [])}))
    sidecar = SidecarBuilder(tmp_path / "history.sqlite", capture_enabled=captured)
    if retain is not None:
        sidecar.retain(("p1", "t1", "t1-r", "c1"), TARGET_TEXT, **retain)
    journals = tmp_path / "journals"
    journals.mkdir()
    b = JournalBuilder()
    write_target(b, target)
    pad(b, target.fingerprint)
    b.close()
    paths = [b.write(journals, "00.jsonl")]
    paths += [x.write(journals, f"{i + 1:02d}.jsonl") for i, x in enumerate(extra or [])]
    with open_sidecar(sidecar.finish()) as view:
        result = replay_journals(paths, routes(), view)
    assessment = assess(result, routes(), agent_config, app_allowlist)
    final = next(x for x in assessment.boundaries if x.host_turn_id == "t6")
    occurrence = next(o for o in assessment.occurrences(final) if o.result.identity.call_id == "c1")
    return occurrence, assessment
