"""pi session inputs for the canary test of `explore` (tests/e2e/test_canary.py).

Every free-text and identifier position explore reads or skips holds a unique canary: the
session and entry ids, `parentId`s, `cwd`, `parentSession`, prompts, assistant text and
thinking, tool-call ids, tool names (an app tool), tool arguments and results, provider and
model names, compaction and branch summaries, a `!` command and its output, custom entries,
an unknown entry type and an unknown role, a line of a refused file, and the names of every
file and directory. The sessions hold a branch (the abandoned one full of canaries too), a
fork of the first session, and files refused as INVALID, OPEN and UNSUPPORTED_VERSION.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests._seed_route import SEED_ROUTE
from tests.e2e._canary import Canaries
from tests.pisession.builder import Session

APP_TOOL_SUFFIX = "Lookup"


@dataclass(frozen=True)
class PiCanaryInputs:
    """The planted sessions directory, its routes, and the canaries."""

    root: Path
    sessions: Path
    routes: Path
    out_dir: Path
    canaries: dict[str, str]


def _rich(c: Canaries, label: str) -> Session:
    session = Session(version=3, session_id=c(f"{label}.sessionId"))
    session.lines[0]["cwd"] = f"/home/{c(f'{label}.cwdUser')}/{c(f'{label}.cwdProject')}"
    session.entry(
        "model_change", provider=c(f"{label}.changeProvider"), modelId=c(f"{label}.changeModel")
    )
    session.entry("thinking_level_change", thinkingLevel=c(f"{label}.thinkingLevel"))
    app_tool = f"{c(f'{label}.appTool')}{APP_TOOL_SUFFIX}"
    for turn in range(6):
        session.user(c(f"{label}.prompt{turn}"))
        tools = ["read", app_tool, "bash"]
        ids = session.assistant(tools, thinking=True)
        message = session.lines[-1]["message"]
        message["provider"] = c(f"{label}.provider{turn}")
        message["model"] = c(f"{label}.model{turn}")
        message["content"][0]["thinking"] = c(f"{label}.thinking{turn}")
        call_ids = [c(f"{label}.callId{turn}.{index}") for index in range(len(tools))]
        for index, block in enumerate(message["content"][1:]):
            block["id"] = call_ids[index]
            # Every argument a canary; the read's path and range repeat across turns, so
            # that the re-fetch measure compares their digests (policy/refetch.json).
            shared = c.values.get(f"{label}.sharedPath") or c(f"{label}.sharedPath")
            block["arguments"] = {
                "path": shared if index == 0 else c(f"{label}.argPath{turn}.{index}"),
                "offset": 1,
                "pattern": c(f"{label}.argPattern{turn}.{index}"),
                "command": c(f"{label}.argCommand{turn}.{index}"),
                c(f"{label}.argKey{turn}.{index}"): c(f"{label}.argValue{turn}.{index}"),
            }
        for index, (call, name) in enumerate(zip(ids, tools, strict=True)):
            session.result(call, name, text=c(f"{label}.result{turn}.{index}") * 20)
            session.lines[-1]["message"]["toolCallId"] = call_ids[index]
        if turn == 2:
            # An orphan result, named by a canary: its call is in no assistant message.
            session.result(
                c(f"{label}.orphanCallId"),
                c(f"{label}.orphanTool"),
                text=c(f"{label}.orphanResult"),
                error=True,
            )
        session.assistant()
        session.lines[-1]["message"]["content"][0]["text"] = c(f"{label}.answer{turn}")
        if turn == 3:
            kept = session.lines[-3].get("id")
            session.entry(
                "compaction",
                summary=c(f"{label}.compactionSummary"),
                tokensBefore=150_000,
                firstKeptEntryId=kept,
                details={"readFiles": [c(f"{label}.readFile")]},
            )
    bash: dict[str, Any] = {
        "role": "bashExecution",
        "command": c(f"{label}.bangCommand"),
        "output": c(f"{label}.bangOutput"),
        "exitCode": 0,
        "timestamp": session.tick(),
    }
    session.message(bash)
    session.entry(
        "branch_summary", summary=c(f"{label}.branchSummary"), fromId=c(f"{label}.fromId")
    )
    session.entry(
        "custom", customType=c(f"{label}.customType"), data={"k": c(f"{label}.customData")}
    )
    session.entry(
        "custom_message",
        customType=c(f"{label}.cmType"),
        content=c(f"{label}.cmText"),
        display=True,
    )
    session.entry("label", targetId=c(f"{label}.labelTarget"), label=c(f"{label}.labelText"))
    session.entry("session_info", name=c(f"{label}.sessionName"))
    session.entry(c(f"{label}.unknownType"), payload=c(f"{label}.unknownPayload"))
    session.message({"role": c(f"{label}.unknownRole"), "timestamp": session.tick()})
    return session


def _rename_ids(session: Session, c: Canaries, label: str) -> None:
    """Every entry id (and each parentId naming it) becomes a canary."""
    renamed: dict[str, str] = {}
    for index, line in enumerate(session.lines[1:]):
        if "id" in line:
            renamed[line["id"]] = c(f"{label}.entryId{index}")
    for line in session.lines[1:]:
        for key in ("id", "parentId", "firstKeptEntryId"):
            if line.get(key) in renamed:
                line[key] = renamed[line[key]]


def make_pi_canary_inputs(root: Path, c: Canaries) -> PiCanaryInputs:
    """Write the planted sessions under `root` (directories and files named by canaries)."""
    sessions = root / c("pi.dir.sessions") / f"--{c('pi.dir.cwd')}--"
    sessions.mkdir(parents=True)
    rich = _rich(c, "rich")
    # An abandoned branch full of canaries, then the resumed branch from the first turn.
    fork_point = rich.lines[4].get("id")
    branched = _rich(c, "branch")
    _rename_ids(rich, c, "rich")
    rich_path = rich.write(sessions / f"{c('pi.file.rich')}.jsonl")
    branched.user(c("branch.resumedPrompt"), parent=fork_point)
    branched.assistant()
    _rename_ids(branched, c, "branch")
    branched.write(sessions / f"{c('pi.file.branch')}.jsonl")
    fork = Session(version=3, session_id=c("fork.sessionId"))
    fork.lines = [
        {**fork.lines[0], "parentSession": str(rich_path), "cwd": c("fork.cwd")},
        *rich.lines[1:],
    ]
    fork.write(sessions / f"{c('pi.file.fork')}.jsonl")
    v1 = Session(version=None, session_id=c("v1.sessionId"))
    v1.lines[0]["cwd"] = c("v1.cwd")
    v1.lines[0]["provider"] = c("v1.provider")
    v1.turn(["read"], text=c("v1.prompt"))
    v1.write(sessions / f"{c('pi.file.v1')}.jsonl")
    nested = sessions / c("pi.dir.nested")
    nested.mkdir()
    invalid = Session(session_id=c("invalid.sessionId"))
    invalid.user(c("invalid.prompt"))
    (nested / f"{c('pi.file.invalid')}.jsonl").write_text(
        invalid.text() + '{"type": "' + c("invalid.brokenLine") + '", oops}\n'
    )
    open_file = Session(session_id=c("open.sessionId"))
    open_file.user(c("open.prompt"))
    (nested / f"{c('pi.file.open')}.jsonl").write_text(
        open_file.text() + json.dumps({"type": "label", "label": c("open.partial")})
    )
    later = Session(version=9, session_id=c("later.sessionId"))
    later.user(c("later.prompt"))
    later.write(nested / f"{c('pi.file.later')}.jsonl")
    routes = root / f"{c('pi.file.routes')}.json"
    routes.write_text(json.dumps([SEED_ROUTE]))
    out_dir = root / c("pi.dir.out")
    out_dir.mkdir()
    return PiCanaryInputs(root, sessions.parent, routes, out_dir, dict(c.values))
