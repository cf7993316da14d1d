"""Claude Code transcript inputs for the canary test of `explore` (tests/e2e/test_canary.py).

Transcripts built with tests/histories/builder.py (prompts, split responses with thinking and
text, parallel calls of built-in and MCP tools with their results and an error, a compaction
with its summary, a `<persisted-output>` preview, meta lines, bookkeeping lines, a rewound
branch, an unknown entry type, a torn last line), then every string value replaced by a canary
(the same string by the same canary, so ids, parents and call ids still pair): text,
reasoning and signatures, tool arguments and results, `toolUseResult`, paths and `cwd`, the
session, message, request, agent and entry ids, model names, branches, versions, snapshots.
Only the format's own constants are kept (entry, block and role types, stop reasons, subtypes,
the compaction trigger, timestamps) and built-in tool names; an MCP tool's server and tool
parts are canaries. The files are named by canaries too, in a project folder named by one,
with a subagent in each layout and a refused file (a non-JSON line).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests._seed_route import SEED_ROUTE
from tests.e2e._canary import Canaries
from tests.histories.builder import Transcript, text, thinking, tool_use

# Values the format defines: kept as they are (they say nothing of the user).
_CONSTANT_KEYS = frozenset(
    {"type", "role", "subtype", "stop_reason", "trigger", "timestamp", "stop_sequence"}
)
_BUILTINS = frozenset({"Read", "Bash", "Grep", "Task"})


@dataclass(frozen=True)
class ClaudeCodeCanaryInputs:
    """The planted projects directory, its routes, and the canaries."""

    root: Path
    projects: Path
    routes: Path
    out_dir: Path
    canaries: dict[str, str]


class _Planter:
    def __init__(self, c: Canaries) -> None:
        self.c = c
        self.renamed: dict[str, str] = {}

    def string(self, value: str) -> str:
        if value not in self.renamed:
            self.renamed[value] = self.c(f"cc.value{len(self.renamed)}")
        return self.renamed[value]

    def tool_name(self, value: str) -> str:
        if value in _BUILTINS:
            return value
        _, server, tool = value.split("__")
        return f"mcp__{self.string(server)}__{self.string(tool)}"

    def walk(self, value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {k: self.walk(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.walk(v, key) for v in value]
        if not isinstance(value, str) or key in _CONSTANT_KEYS:
            return value
        if key == "name":
            return self.tool_name(value)
        return self.string(value)

    def lines(self, transcript: Transcript) -> str:
        return "".join(json.dumps(self.walk(line)) + "\n" for line in transcript.lines)


def _main(c: Canaries) -> Transcript:
    t = Transcript(session_id="session-main", cwd="/home/user/project")
    t.bookkeeping()
    t.prompt("caveat of a local command", meta=True)
    root = t.prompt("first prompt of the session")
    t.response([thinking("private reasoning"), text("I will look")], stop_reason=None)
    t.prompt("abandoned prompt")
    t.response([text("abandoned answer")])
    t.prompt("rewritten prompt", parent=root)
    calls = t.response(
        [
            tool_use("toolu_read", "Read", file_path="/home/user/project/secret.py"),
            tool_use("toolu_mcp", "mcp__privateserver__privatetool", query="private query"),
            tool_use("toolu_bash", "Bash", command="cat /etc/private"),
        ],
        stop_reason="tool_use",
    )
    t.results([("toolu_read", "private file body " * 40)], parent=calls[0])
    t.results([("toolu_mcp", "private app answer " * 40)], parent=calls[1])
    preview = "<persisted-output>private preview of a long output</persisted-output>"
    t.results([("toolu_bash", preview)], parent=calls[2], error=True)
    t.response([text("private summary of the results")], outputs=[1], stop_reason=None)
    t.compaction("auto", 150_000)
    t.prompt("prompt after the compaction")
    t.response([tool_use("toolu_task", "Task", prompt="private subtask")], stop_reason="tool_use")
    t.results([("toolu_task", "private subagent answer")])
    t.response([text("final private answer")])
    unknown = {"type": "private-unknown-kind", "uuid": "u-unknown", "parentUuid": t.last_uuid}
    t.add({**unknown, "payload": "private payload"})
    t.system("turn_duration")
    t.add({"type": "summary", "summary": "private title", "leafUuid": t.last_uuid or ""})
    return t


def _subagent(label: str) -> Transcript:
    t = Transcript(session_id="session-main", agent_id=f"agent-{label}", sidechain=True)
    t.prompt(f"private subtask {label}")
    t.response([tool_use(f"toolu_{label}", "Grep", pattern=f"private pattern {label}")])
    t.results([(f"toolu_{label}", f"private matches {label} " * 30)])
    t.response([text(f"private subagent result {label}")])
    return t


def make_claude_code_canary_inputs(root: Path, c: Canaries) -> ClaudeCodeCanaryInputs:
    """Write the planted transcripts under `root` (folders and files named by canaries)."""
    planter = _Planter(c)
    projects = root / c("cc.dir.projects")
    project = projects / f"-home-{c('cc.dir.user')}-{c('cc.dir.project')}"
    project.mkdir(parents=True)
    session = c("cc.file.session")
    (project / f"{session}.jsonl").write_text(
        planter.lines(_main(c)) + '{"type":"assistant","message":{"' + c("cc.torn") + '"'
    )
    subagents = project / session / "subagents"
    subagents.mkdir(parents=True)
    (subagents / f"agent-{c('cc.file.agentNew')}.jsonl").write_text(planter.lines(_subagent("new")))
    (project / f"agent-{c('cc.file.agentOld')}.jsonl").write_text(planter.lines(_subagent("old")))
    refused = Transcript(session_id="session-refused")
    refused.prompt("private prompt of a refused file")
    (project / f"{c('cc.file.refused')}.jsonl").write_text(
        planter.lines(refused) + '{"type":"user","message":"' + c("cc.broken") + "\n"
    )
    routes = root / f"{c('cc.file.routes')}.json"
    routes.write_text(json.dumps([SEED_ROUTE]))
    out_dir = root / c("cc.dir.out")
    out_dir.mkdir()
    return ClaudeCodeCanaryInputs(root, projects, routes, out_dir, dict(c.values))
