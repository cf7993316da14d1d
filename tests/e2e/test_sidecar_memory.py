"""A sidecar costs memory bounded by its size, never by what it declares (R-REL-7), through
the real CLI under an address-space limit (RLIMIT_AS 2 GiB), as docs/security.md states.

Two files that once cost far more than they hold: a 45 KB sidecar whose text column is
generated (`CAST(zeroblob(300000000) AS TEXT)`, computed for each row read: 9 GB for 30 rows)
is refused before any row is read; a 24 MiB sidecar whose one row a hundred index entries name
(read once per name: 2.4 GB) is read with that row held once.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e._cli import fixed_line, run_cli
from tests.inputs.test_sidecar_offline import generated_text
from tests.replay.builder import JournalBuilder, SidecarBuilder, result_id

TWO_GIB = 2 << 30
CALLS = 30
ROUTES = [
    {
        "api": "anthropic-messages",
        "triggerTokens": 200000,
        "drainTokens": 40000,
        "summaryInputTokens": 40000,
        "summaryOutputTokens": 2000,
        "cacheLifetimeMs": 300000,
        "cacheMarginMs": 30000,
        "prices": {"input": 3, "cacheRead": 0.3, "cacheWrite": 3.75, "output": 15},
        "quota": {"input": 1, "cacheRead": 0.1, "cacheWrite": 1.25, "output": 5},
        "quotaBudget": 100000000,
    }
]


def _inputs(root: Path, calls: int) -> list[str]:
    """A journal of conversation conv-1 whose turn-1 / run-1 reads `calls` results (call-0,
    call-1, ...), the routes and the attestation that proves `read`: every result's id is
    looked up in the sidecar."""
    journal = JournalBuilder(journal_id="j1", physical="conv-1", logical="l1")
    journal.turn("turn-1")
    journal.run("run-1", "turn-1")
    names = [(f"call-{n}", "read", {"path": f"f{n}"}) for n in range(calls)]
    journal.assistant("run-1", "", calls=names)
    for call_id, name, args in names:
        journal.call_start("run-1", call_id, name, args)
        journal.call_end("run-1", call_id)
        journal.result("run-1", call_id, name, text=f"contents of {call_id}")
    journal.assistant("run-1", "done")
    journal.run_end("run-1")
    journal.close()
    (root / "journals").mkdir()
    journal.write(root / "journals")
    (root / "routes.json").write_text(json.dumps(ROUTES))
    (root / "agent.json").write_text(json.dumps({"builtins": ["read"], "mcpTools": "none"}))
    return [
        "--journals",
        str(root / "journals"),
        "--routes",
        str(root / "routes.json"),
        "--agent-config",
        str(root / "agent.json"),
        "--workers",
        "1",
    ]


def test_a_45_kb_sidecar_with_a_generated_column_is_refused_within_2_gib(tmp_path: Path) -> None:
    """The generated-column sidecar: exit 2, SIDECAR_COMPUTED_SCHEMA alone on stderr, no
    report created, inside 2 GiB of address space (it once grew to 9 GB)."""
    args = _inputs(tmp_path, CALLS)
    sidecar = generated_text(tmp_path / "history.sqlite", 300_000_000, rows=CALLS)
    assert sidecar.stat().st_size < 64 * 1024
    out = tmp_path / "report.json"
    done = run_cli(
        ["analyze", *args, "--sidecar", sidecar, "--out", out],
        address_space=TWO_GIB,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr == fixed_line("INPUT_INVALID", "SIDECAR_COMPUTED_SCHEMA")
    assert not out.exists()


def test_a_row_many_ids_name_is_held_once_within_2_gib(tmp_path: Path) -> None:
    """One 24 MiB row that all 100 of the journal's ids name (their own identities are not
    the row's: none matches): the analysis completes (exit 0) inside 2 GiB, where reading the
    row once per id took 2.4 GB."""
    calls = 100
    args = _inputs(tmp_path, calls)
    sidecar = SidecarBuilder(tmp_path / "history.sqlite", capture_enabled=("conv-1",))
    sidecar.retain(("conv-1", "turn-9", "run-9", "call-9"), "x" * (24 << 20), indexed=False)
    sidecar.db.executemany(
        "INSERT INTO committed_id_index VALUES (?, 1)",
        [(result_id("conv-1", "turn-1", "run-1", f"call-{n}"),) for n in range(calls)],
    )
    path = sidecar.finish()
    done = run_cli(["analyze", *args, "--sidecar", path, "--json"], address_space=TWO_GIB)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["snapshot"]["journalsReplayed"] == 1
