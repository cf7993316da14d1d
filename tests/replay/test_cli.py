"""`clearing-analysis replay`: deterministic counts-only JSON; no ids, text or paths."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests._seed_route import SEED_ROUTE
from tests.replay.builder import JournalBuilder, SidecarBuilder

CANARY = "canary7f3a"
ROUTES = [SEED_ROUTE]


def _inputs(tmp_path: Path) -> list[str]:
    journals = tmp_path / "journals"
    journals.mkdir()
    b = JournalBuilder(journal_id=f"{CANARY}-j", physical=f"{CANARY}-p", logical=f"{CANARY}-l")
    b.tool_turn(f"{CANARY}-t1", [(f"{CANARY}-c1", "read")], text=CANARY)
    b.plain_turn(f"{CANARY}-t2", api=f"{CANARY}-api")
    b.close()
    b.write(journals, f"{CANARY}.jsonl")
    (journals / "open.jsonl").write_bytes(JournalBuilder(journal_id="o").to_bytes())
    sidecar_dir = tmp_path / "sidecar"
    sidecar_dir.mkdir()
    sidecar = SidecarBuilder(sidecar_dir / "h.sqlite", capture_enabled=(f"{CANARY}-p",))
    sidecar.retain(
        (f"{CANARY}-p", f"{CANARY}-t1", f"{CANARY}-t1-r", f"{CANARY}-c1"), f"{CANARY} {CANARY}-c1"
    )
    sidecar.finish()
    routes = tmp_path / "routes.json"
    routes.write_text(json.dumps(ROUTES))
    config = tmp_path / "agent.json"
    config.write_text(json.dumps({"builtins": ["read"], "mcpTools": "none"}))
    return [
        "--journals",
        str(journals),
        "--sidecar",
        str(sidecar_dir / "h.sqlite"),
        "--routes",
        str(routes),
        "--agent-config",
        str(config),
    ]


def _run(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    code = "from clearing_analysis.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, "replay", *args], capture_output=True, check=False
    )


def test_replay_prints_counts_only(tmp_path: Path) -> None:
    """Exit 0; sorted-key JSON with all skip keys; no canary from any input position."""
    args = _inputs(tmp_path)
    done = _run(args)
    assert done.returncode == 0, done.stderr
    assert CANARY.encode() not in done.stdout + done.stderr
    assert str(tmp_path).encode() not in done.stdout
    summary = json.loads(done.stdout)
    assert done.stdout.decode() == json.dumps(summary, sort_keys=True, separators=(",", ":")) + "\n"
    assert summary["journalsReplayed"] == 1
    assert summary["skippedJournals"]["OPEN"] == 1
    assert summary["limitations"] == ["APPROVAL_STATE_UNATTESTED"]
    assert len(summary["skippedJournals"]) == 7
    assert summary["skippedBoundaries"] == {
        "DUPLICATE": 0,
        "OWNER_MISSING": 0,
        "UNSUPPORTED_API": 1,
        "OUTSIDE_CAPTURE_WINDOW": 0,
        "OUTSIDE_PERIOD": 0,
    }
    assert summary["boundariesWithoutRoute"] == {
        "anthropic-messages": 0,
        "openai-codex-responses": 0,
        "openai-completions": 0,
        "openai-responses": 0,
    }
    api = summary["perApi"]["anthropic-messages"]
    assert (api["boundaries"], api["requests"], api["toolResults"]) == (1, 2, 1)
    assert api["eligibility"]["exclusionUnit"] == "result-boundary occurrence"
    assert api["retention"]["proven"] == api["retention"]["matched"] == 1
    again = _run(args)
    assert again.stdout == done.stdout
    workers = _run([*args, "--workers", "2"])
    assert workers.stdout == done.stdout


def test_missing_sidecar_is_input_invalid(tmp_path: Path) -> None:
    """A missing sidecar prints only the fixed line (code, detail, remedy) and exits 2."""
    args = _inputs(tmp_path)
    args[3] = str(tmp_path / "absent.sqlite")
    done = _run(args)
    assert done.returncode == 2
    assert done.stdout == b""
    assert done.stderr == (
        b"clearing-analysis: INPUT_INVALID SIDECAR_MISSING:"
        b" check the --sidecar path: it must name an existing file\n"
    )
