"""Codex rollouts through the mapping, the replay and `explore` (docs/formats/codex.md): the
records a rollout maps to, outcomes and classes of its results, rollouts mixed with pi
sessions, and nothing of a rollout's text, paths, ids or MCP server names in any output."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from clearing_analysis.codex import ReadRollout, read_stream
from clearing_analysis.codex.mapping import UNPAIRED_RESULT_TOOL, map_rollout
from clearing_analysis.inputs.configs import load_routes
from clearing_analysis.journal import messages as jm
from clearing_analysis.journal import records as jr
from clearing_analysis.replay.model import JournalSkipReason, ReplayedJournal, SkippedJournal
from clearing_analysis.replay.pi_replay import replay_history
from clearing_analysis.toolclass import ToolClass
from tests._seed_route import SEED_ROUTE
from tests._upper_bound import excluded_by_reason, upper_bound_eligible
from tests.codex.builder import Rollout
from tests.e2e._canary import Canaries, leaks
from tests.e2e._cli import run_cli
from tests.pisession.builder import Session

CANARY = "zz-canary-c0d3x"  # in the routes file's name
CODEX_ROUTE = {**SEED_ROUTE, "api": "openai-codex-responses"}


def _read(rollout: Rollout) -> ReadRollout:
    read = read_stream(io.BytesIO(rollout.text().encode()))
    assert isinstance(read, ReadRollout), read
    return read


def _routes(tmp_path: Path) -> Path:
    path = tmp_path / f"routes-{CANARY}.json"
    path.write_text(json.dumps([SEED_ROUTE, CODEX_ROUTE]))
    return path


def _session(rollout: Rollout) -> Rollout:
    """Three prompt turns of read-only, shell and MCP calls with documented and undocumented
    outcomes."""
    for turn in range(3):
        rollout.prompt(f"prompt {CANARY} {turn}")
        rollout.call(f"a{turn}", "exec_command").call(f"b{turn}", "read_file")
        rollout.call(f"m{turn}", f"mcp__{CANARY}__lookup")
        rollout.request(20_000 * (turn + 1), 10_000 * turn, 300, text=f"reply {CANARY}")
        rollout.output(
            f"a{turn}", f"Chunk ID: 1\nProcess exited with code {turn}\nOutput:\n{CANARY}"
        )
        rollout.output(f"b{turn}", f"L1: {CANARY} " * 50)
        rollout.output(f"m{turn}", json.dumps({"server": CANARY}))
        rollout.repeat()
        rollout.request(30_000 * (turn + 1), 20_000, 100, text=f"done {CANARY}")
        rollout.event({"type": "task_complete", "turn_id": CANARY})
    return rollout


def test_a_rollout_maps_onto_journal_records() -> None:
    """Prompts start turns, requests are assistant messages with usage input - cached /
    cacheRead cached, API and provider from the plan windows; results end their calls with
    the outcome their exit status states (none stated: an in-memory OutcomeUnknownEnd); a
    compaction is a checkpoint; an aborted turn ends its run aborted."""
    rollout = Rollout().prompt().call("c1").request(1_000, 600, 50)
    rollout.output("c1", "Exit code: 0\nWall time: 1 seconds\nOutput:\n")
    rollout.call("c2", "apply_patch").request(2_000, 1_500, 20).output("c2", "Success.")
    rollout.line("compacted", {"message": "summary", "replacement_history": []})
    rollout.prompt().event({"type": "turn_aborted", "reason": "interrupted"})
    rollout.output("nobody", "x")
    records = map_rollout(_read(rollout)).records
    assistants = [
        r.message
        for r in records
        if isinstance(r, jr.MessageRecord) and isinstance(r.message, jm.AssistantMessage)
    ]
    assert [(a.usage.input, a.usage.cache_read, a.usage.output) for a in assistants] == [
        (400, 600, 50),
        (500, 1_500, 20),
    ]
    assert {(a.api, a.provider, a.model) for a in assistants} == {
        ("openai-codex-responses", "openai-codex", "gpt-5.3-codex")
    }
    ends = [(type(r), r.status) for r in records if isinstance(r, jr.ToolCallEnd)]
    assert ends == [
        (jr.ToolCallEnd, "success"),
        (jr.OutcomeUnknownEnd, "aborted"),
        (jr.OutcomeUnknownEnd, "aborted"),
    ]
    (checkpoint,) = (r for r in records if isinstance(r, jr.Checkpoint))
    assert (checkpoint.tokens_before, checkpoint.first_kept_seq) == (2_020, None)
    # The unpaired result after the aborted turn opens a turn of its own (no request).
    statuses = [r.status for r in records if isinstance(r, jr.RunEnd)]
    assert statuses == ["completed", "aborted", "completed"]
    starts = [r.tool_name for r in records if isinstance(r, jr.ToolCallStart)]
    assert starts == ["exec_command", "apply_patch", UNPAIRED_RESULT_TOOL]


def test_replayed_results_carry_codex_classes_and_outcomes(tmp_path: Path) -> None:
    """exec_command is effectful, read_file read-only, an mcp__ name an app tool; an exit
    code 0 is a successful call, another an error, an output stating none of unknown outcome."""
    path = tmp_path / "rollout.jsonl"
    path.write_text(_session(Rollout()).text())
    routes = load_routes(_routes(tmp_path))
    replayed = replay_history(path, routes)
    assert isinstance(replayed, ReplayedJournal)
    results = {(r.tool_class, r.call_status, r.is_error) for r in replayed.results}
    assert results == {
        (ToolClass.EFFECTFUL_BUILTIN, "success", False),
        (ToolClass.EFFECTFUL_BUILTIN, "error", True),
        (ToolClass.READ_ONLY_BUILTIN, "unknown", False),
        (ToolClass.APP, "unknown", False),
    }
    assert len(replayed.results) == 9


def _candidate(output: str) -> Rollout:
    """A read_file result with `output` as its first line in the first of seven prompt turns;
    the later turns' calls are exec_command (effectful, excluded whatever their outcome), so
    the candidate leaves every protection and only its outcome decides its class."""
    rollout = Rollout().prompt("first").call("cand", "read_file").request(20_000, 0, 300)
    rollout.output("cand", output + "\n" + "L1: text " * 400)
    rollout.request(30_000, 20_000, 100).event({"type": "task_complete", "turn_id": "t"})
    for turn in range(6):
        rollout.prompt(f"filler {turn}")
        for k in range(4):
            rollout.call(f"f{turn}.{k}", "exec_command")
        rollout.request(40_000 + 10_000 * turn, 30_000, 100)
        for k in range(4):
            rollout.output(f"f{turn}.{k}", "Process exited with code 0\nOutput:\nok")
        rollout.request(45_000 + 10_000 * turn, 40_000, 100)
        rollout.event({"type": "task_complete", "turn_id": "t"})
    return rollout


def _explored_eligibility(tmp_path: Path, rollout: Rollout) -> dict[str, Any]:
    sessions = tmp_path / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "rollout.jsonl").write_text(rollout.text())
    out = tmp_path / "report.json"
    args = ["explore", "--sessions", str(sessions), "--routes", str(_routes(tmp_path))]
    done = run_cli([*args, "--out", str(out)])
    assert done.returncode == 0, done.stderr
    eligibility: dict[str, Any] = json.loads(out.read_bytes())["perApi"]["openai-codex-responses"][
        "eligibility"
    ]
    return eligibility


@pytest.mark.parametrize(
    ("first_line", "reason"),
    [
        ("Exit code: 0", None),
        ("Process exited with code 0", None),
        ("Success. Updated the following files:", "UNKNOWN_OUTCOME"),
        ("Exit code: 2", "ERROR_RESULT"),
        ("Process exited with code 1", "ERROR_RESULT"),
    ],
)
def test_explore_excludes_a_result_by_its_documented_exit_status(
    tmp_path: Path, first_line: str, reason: str | None
) -> None:
    """An unprotected read result with exit status 0 is in the upper bound; one whose output
    states no exit status is excluded as UNKNOWN_OUTCOME (R-SRC-3), one with another exit
    status as ERROR_RESULT; nothing else changes."""
    base = _explored_eligibility(tmp_path / "base", _candidate("Exit code: 0"))
    changed = _explored_eligibility(tmp_path / "changed", _candidate(first_line))
    assert upper_bound_eligible(base) > 0
    assert excluded_by_reason(base)["UNKNOWN_OUTCOME"] == 0
    assert changed["occurrences"] == base["occurrences"]
    before, after = excluded_by_reason(base), excluded_by_reason(changed)
    if reason is None:
        assert (upper_bound_eligible(changed), after) == (upper_bound_eligible(base), before)
        return
    moved = upper_bound_eligible(base) - upper_bound_eligible(changed)
    assert moved == upper_bound_eligible(base)  # the candidate was the only clearable result
    assert after[reason] - before[reason] >= moved
    others = {k for k in after if k != reason and not k.startswith("PROTECTED")}
    assert {k: after[k] for k in others} == {k: before[k] for k in others}


def test_refused_rollouts_are_skipped_with_their_detail(tmp_path: Path) -> None:
    """A compressed rollout is INVALID COMPRESSED, another provider's INVALID
    UNSUPPORTED_PROVIDER, the pre-envelope format UNSUPPORTED_VERSION."""
    routes = load_routes(_routes(tmp_path))
    zst = tmp_path / "rollout.jsonl.zst"
    zst.write_bytes(b"\x28\xb5\x2f\xfd" + b"\x00" * 64)
    other = tmp_path / "other.jsonl"
    other.write_text(Rollout(provider="azure").prompt().request(5).text())
    old = tmp_path / "old.jsonl"
    old.write_text(
        json.dumps({"id": "x", "timestamp": "2025-04-01T00:00:00Z", "instructions": ""}) + "\n"
    )
    assert replay_history(zst, routes) == SkippedJournal(JournalSkipReason.INVALID, "COMPRESSED")
    assert replay_history(other, routes) == SkippedJournal(
        JournalSkipReason.INVALID, "UNSUPPORTED_PROVIDER"
    )
    assert replay_history(old, routes) == SkippedJournal(
        JournalSkipReason.UNSUPPORTED_VERSION, None
    )


def test_explore_reads_rollouts_mixed_with_pi_sessions(tmp_path: Path) -> None:
    """A selection of a pi session and two rollouts (one a copy of the other, a DUPLICATE)
    is read whole: each API's requests are its own format's, counted once."""
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    pi = Session(session_id="pi-1")
    pi.turn(["read"], text="hello")
    pi.write(sessions / "pi.jsonl")
    text = _session(Rollout()).text()
    (sessions / "rollout-a.jsonl").write_text(text)
    (sessions / "rollout-b.jsonl").write_text(text)
    out = tmp_path / "report.json"
    done = run_cli(
        [
            "explore",
            "--sessions",
            str(sessions),
            "--routes",
            str(_routes(tmp_path)),
            "--out",
            str(out),
        ]
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_bytes())
    assert report["sessions"]["sessionsRead"] == 2
    assert report["sessions"]["skippedSessions"]["DUPLICATE"] == 1
    usage = {api: body["usage"]["observedRequests"] for api, body in report["perApi"].items()}
    assert usage["openai-codex-responses"] == 6
    assert usage["anthropic-messages"] == 2  # the pi turn: its tool call, then its reply


def _planted(c: Canaries) -> Rollout:
    """A rollout with a distinct canary in every string it holds: thread id, cwd, prompts,
    replies, outputs, call ids, turn ids, the MCP server's and tool's names, the model."""
    rollout = Rollout()
    rollout.lines[0]["payload"].update({"id": c("thread"), "cwd": f"/home/{c('cwd')}"})
    server, tool = c("mcp.server"), c("mcp.tool")
    for turn in range(2):
        rollout.prompt(f"{c(f'prompt.{turn}')} /home/{c(f'path.{turn}')}/a.py")
        rollout.lines[-1]["payload"].update(
            {"model": c(f"model.{turn}"), "turn_id": c(f"turn.{turn}")}
        )
        call, mcp = c(f"call.{turn}"), c(f"call.mcp.{turn}")
        rollout.call(call, "exec_command").call(mcp, f"mcp__{server}__{tool}")
        rollout.request(40_000 * (turn + 1), 20_000 * turn, 500, text=c(f"reply.{turn}"))
        rollout.output(call, f"Process exited with code 0\nOutput:\n{c(f'output.{turn}')}")
        rollout.output(mcp, json.dumps({"rows": [c(f"mcp.output.{turn}")]}))
        rollout.request(50_000 * (turn + 1), 30_000, 200, text=c(f"final.{turn}"))
    return rollout


def test_nothing_of_a_rollout_reaches_any_output(tmp_path: Path) -> None:
    """With a canary in every string of planted rollouts (a read one, its fork copy, one torn,
    one broken, one compressed, one of another provider) and in their paths, no fragment of
    any reaches stdout, stderr, the report, the log, the page or `show`, with 1 or 2
    workers."""
    c = Canaries(seed=20261203)
    folder = tmp_path / c("dir")
    folder.mkdir()
    good = _planted(c)
    (folder / f"rollout-{c('file.good')}.jsonl").write_text(good.text())
    fork = Rollout()
    fork.lines[0]["payload"]["id"] = c("fork.thread")
    fork.lines.extend(good.lines)
    fork.prompt(c("fork.prompt")).request(9_000, 0, 10, text=c("fork.reply")).request(9_500)
    (folder / f"rollout-{c('file.fork')}.jsonl").write_text(fork.text())
    torn = json.loads(json.dumps(good.lines))
    torn[0]["payload"]["id"] = c("torn.thread")
    torn_text = "".join(json.dumps(line) + "\n" for line in torn) + '{"' + c("torn")
    (folder / f"rollout-{c('file.torn')}.jsonl").write_text(torn_text)
    broken = good.text().splitlines(keepends=True)
    broken.insert(3, "{" + c("broken") + "\n")
    (folder / f"rollout-{c('file.broken')}.jsonl").write_text("".join(broken))
    # Walked by its own suffix: counted, not silently left out.
    zst = folder / f"rollout-{c('file.zst')}.jsonl.zst"
    zst.write_bytes(b"\x28\xb5\x2f\xfd" + c("zst").encode())
    other = Rollout(provider=c("provider")).prompt(c("other.prompt")).request(5)
    (folder / f"rollout-{c('file.other')}.jsonl").write_text(other.text())
    routes = _routes(tmp_path)
    for workers in ("1", "2"):
        out, log, page = (
            tmp_path / f"{c(f'{name}.{workers}')}.x" for name in ("out", "log", "page")
        )
        done = run_cli(
            [
                "explore",
                "--sessions",
                str(folder),
                "--routes",
                str(routes),
                "--workers",
                workers,
                "--out",
                str(out),
                "--log-file",
                str(log),
                "--html",
                str(page),
            ]
        )
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
        report = json.loads(out.read_bytes())
        sessions = report["sessions"]
        assert sessions["sessionsRead"] == 3  # good, fork, torn (its last line dropped)
        assert sessions["byFormat"]["CODEX"] == 3
        assert sessions["tornFinalLines"] == 1
        assert sessions["skippedSessions"]["INVALID"] == 3
        assert sessions["invalidSessionDetails"] == {
            "COMPRESSED": 1,
            "MALFORMED_JSON": 1,
            "UNSUPPORTED_PROVIDER": 1,
        }
        assert sessions["skippedSessions"]["DUPLICATE"] == 0
        usage = report["perApi"]["openai-codex-responses"]["usage"]
        assert usage["observedRequests"] == 10  # good 4, torn 4, the fork's own 2
        shown = [run_cli(["show", str(out), *d]).stdout for d in ([], ["--details"])]
        for blob in (out.read_bytes(), log.read_bytes(), page.read_bytes(), *shown):
            assert leaks(blob, c.values) == []
            assert str(tmp_path).encode() not in blob
