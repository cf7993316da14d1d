"""A complete input set with a unique canary string in every free-text and identifier position.

R-OUT-3: inputs are seeded with unique canaries (tests/e2e/_canary.py); none may appear in
stdout, stderr, the report or a log.

`build_canary_inputs(root)` writes, with canary file and directory names throughout:
- journals: a rich closed native journal (thinking and signatures, images, tool calls with
  canary argument keys and values, built-in / app / effectful tools, captured MCP origins,
  error messages, steering input, a failed dispatch, a checkpoint summary, a redaction, a
  re-prompt, an owner-missing turn, an unsupported API label, toolset fingerprints, result
  details), a byte copy (DUPLICATE journal), a fork repeating a turn (DUPLICATE boundary), and
  one journal per skip outcome (OPEN, IMPORTED, INHERITED, UNSUPPORTED_VERSION, INTERRUPTED,
  INVALID by unknown field, malformed JSON, invalid UTF-8 and broken reference), nested in a
  canary subdirectory, beside a non-journal file;
- a sidecar whose ids, texts, digests, origins, policies, meta rows and an extra table carry
  canaries; routes, agent-config (canary built-ins and exposed names), an allowlist and a
  well-formed qualification record from a canary pi-ai package, version and digest.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clearing_analysis.identity import ToolIdentity, finalized_tool_id
from clearing_analysis.inputs.configs import Api
from clearing_analysis.qualify.record import DifferenceCategory, decode_record
from tests._seed_route import SEED_ROUTE
from tests.e2e._canary import Canaries, leaks
from tests.e2e._canary_journal import (
    ANTHROPIC,
    OPENAI,
    Journal,
    ToolUse,
    World,
    reads,
    text_block,
    tool_turn,
)
from tests.replay.builder import SidecarBuilder

ROUTE_FIELDS: dict[str, Any] = {k: v for k, v in SEED_ROUTE.items() if k != "api"}


@dataclass
class CanaryInputs:
    """Paths of the written input set and every canary planted in it."""

    root: Path
    journals: Path
    sidecar: Path
    routes: Path
    agent_config: Path
    app_allowlist: Path
    qualification: Path
    out_dir: Path
    canaries: dict[str, str] = field(default_factory=dict)

    def assert_private(self, blob: bytes, extra: dict[str, str] | None = None) -> None:
        """No canary (nor an 8-char fragment of one) and no input root path in `blob`."""
        assert leaks(blob, {**self.canaries, **(extra or {})}) == []
        assert str(self.root).encode() not in blob
        assert str(self.root.parent).encode() not in blob

    def args(self, **replace: Path) -> list[str]:
        """The replay arguments naming every input; `replace` swaps one by field name."""
        paths = {
            "journals": self.journals,
            "sidecar": self.sidecar,
            "routes": self.routes,
            "agent_config": self.agent_config,
            "app_allowlist": self.app_allowlist,
            "qualification": self.qualification,
        }
        paths.update(replace)
        out: list[str] = []
        for name, path in paths.items():
            out += ["--" + name.replace("_", "-"), str(path)]
        return out


def _rich_journal(c: Canaries, world: World, physical: str, logical: str) -> Journal:
    """The closed native journal carrying canaries in every position replay reads."""
    j = Journal(c, "rich", physical=physical, logical=logical)
    first = c("rich.turn1")
    app_text = j.name("appResult")
    other_text = j.name("unlistedResult")
    sidecar_text = j.name("sidecarOriginResult")
    uses = [
        *reads(j, first, 2),
        ToolUse(
            j.name("appCall"),
            world.app_tool,
            [{"type": "text", "text": app_text}],
            origin=world.origin(world.app_server, world.app_tool, world.app_digest),
            retained_text=app_text,
        ),
        ToolUse(
            j.name("unlistedCall"),
            world.other_tool,
            [{"type": "text", "text": other_text}],
            origin=world.origin(world.other_server, world.other_tool, world.other_digest),
            retained_text=other_text,
        ),
        ToolUse(
            j.name("sidecarOriginCall"),
            world.sidecar_tool,
            [{"type": "text", "text": sidecar_text}],
            retained_text=sidecar_text,
        ),
        ToolUse(
            j.name("bashCall"),
            "bash",
            text_block(j, "bashError"),
            status="error",
            is_error=True,
        ),
        ToolUse(
            j.name("imageCall"),
            "read",
            [
                {"type": "image", "data": j.name("imageData"), "mimeType": j.name("imageMime")},
                {"type": "text", "text": j.name("imageCaption"), "textSignature": j.name("sig")},
            ],
        ),
    ]
    tool_turn(j, world, first, uses, owner=j.name("owner1"))
    # A checkpoint keeping the latest messages, its summary a canary.
    j.add(
        "checkpoint",
        trigger="threshold",
        tokensBefore=180000,
        tokensAfter=30000,
        summary=j.name("checkpointSummary"),
        firstKeptSeq=len(j.records) - 3,
        timestamp=j.tick(),
    )
    unsupported = c("rich.turnUnsupported")
    tool_turn(j, world, unsupported, [], owner=j.name("owner2"), api=j.name("apiLabel"))
    ownerless = c("rich.turnOwnerless")
    tool_turn(j, world, ownerless, reads(j, ownerless, 1), owner=None)
    for n in range(5):
        turn_id = c(f"rich.turnFiller{n}")
        api = ANTHROPIC if n % 2 == 0 else OPENAI
        tool_turn(
            j,
            world,
            turn_id,
            reads(j, turn_id, 3),
            owner=j.name(f"ownerFiller{n}"),
            api=api,
            gap=400_000,
        )
    # A re-prompt continues the first turn's boundary (same host turn id, reason "reprompt").
    j.turn(first, blocks=True)
    reprompt_run = j.name("repromptRun")
    j.run(reprompt_run, first, j.name("repromptOwner"), reason="reprompt")
    j.assistant(reprompt_run, text_block(j, "repromptAnswer"), api=ANTHROPIC, stop="stop")
    j.run_end(reprompt_run)
    j.add("close", timestamp=j.tick())
    return j


def _small(c: Canaries, world: World, tag: str, *, close: bool = True, **header: Any) -> Journal:
    j = Journal(c, tag, physical=c(f"{tag}.physical"), logical=c(f"{tag}.logical"), **header)
    turn_id = c(f"{tag}.turn")
    tool_turn(j, world, turn_id, reads(j, turn_id, 1), owner=j.name("owner"))
    if close:
        j.add("close", timestamp=j.tick())
    return j


def _write(directory: Path, c: Canaries, label: str, data: bytes) -> Path:
    path = directory / f"{c(f'file.{label}')}.jsonl"
    path.write_bytes(data)
    return path


def _journals(root: Path, c: Canaries, world: World) -> Path:
    journals = root / c("dir.journals")
    nested = journals / c("dir.nested")
    nested.mkdir(parents=True)
    physical, logical = c("rich.physical"), c("rich.logical")
    rich = _rich_journal(c, world, physical, logical)
    _write(journals, c, "rich", rich.to_bytes())
    _write(nested, c, "richCopy", rich.to_bytes())  # same journalId: DUPLICATE journal
    fork = Journal(c, "fork", physical=physical, logical=logical)
    # A resumed copy: the rich journal's first turn copied exactly (a DUPLICATE boundary), then
    # a turn of its own.
    second_turn = [i for i, r in enumerate(rich.records) if r["kind"] == "turn_start"][1]
    for record in rich.records[1:second_turn]:
        fork.add(record["kind"], **{k: v for k, v in record.items() if k not in ("seq", "kind")})
    fork.clock = rich.clock
    own = fork.name("ownTurn")
    tool_turn(fork, world, own, reads(fork, own, 1), owner=fork.name("owner"))
    fork.add("close", timestamp=fork.tick())
    _write(nested, c, "fork", fork.to_bytes())

    # A conversation with no capture policy row: its boundary is OUTSIDE_CAPTURE_WINDOW.
    _write(nested, c, "uncaptured", _small(c, world, "uncaptured").to_bytes())
    _write(nested, c, "open", _small(c, world, "open", close=False).to_bytes())
    _write(nested, c, "imported", _small(c, world, "imported", origin="imported").to_bytes())
    _write(nested, c, "inherited", _small(c, world, "inherited", origin="inherited").to_bytes())
    _write(nested, c, "version", _small(c, world, "version", version=3).to_bytes())
    interrupted = _small(c, world, "interrupted", close=False)
    interrupted.records[-1]["status"] = "interrupted"
    interrupted.add("close", timestamp=interrupted.tick())
    _write(nested, c, "interrupted", interrupted.to_bytes())
    unknown = _small(c, world, "unknownField")
    unknown.records[2][c("unknownField.key")] = c("unknownField.value")
    _write(nested, c, "unknownField", unknown.to_bytes())
    malformed = _small(c, world, "malformed").to_bytes()
    _write(
        nested, c, "malformed", malformed + b'{"seq": 99, "kind": "' + c("malformed.tail").encode()
    )
    bad_utf8 = _small(c, world, "badUtf8").to_bytes()
    bad_utf8 = bad_utf8.replace(b'"content": "', b'"content": "\xff\xfe', 1)
    _write(nested, c, "badUtf8", bad_utf8)
    broken = _small(c, world, "broken", close=False)
    broken.add(
        "message",
        runId=c("broken.unknownRun"),
        message={"role": "user", "content": c("broken.text"), "timestamp": broken.tick()},
    )
    broken.add("close", timestamp=broken.tick())
    _write(nested, c, "broken", broken.to_bytes())
    (journals / f"{c('file.notJournal')}.txt").write_text(c("notJournal.text"))
    return journals


def _sidecar(root: Path, c: Canaries, world: World, physical: str) -> Path:
    directory = root / c("dir.sidecar")
    directory.mkdir()
    builder = SidecarBuilder(directory / f"{c('file.sidecar')}.sqlite")
    builder.policy(physical)
    builder.policy(c("sidecar.policyOther"))
    for identity, text, _origin in world.retained:
        origin = None
        if text.startswith(world.c.values["rich.sidecarOriginResult"]):
            origin = (world.sidecar_server, world.sidecar_tool, world.sidecar_digest, True, None)
        builder.retain(identity, text, origin=origin)
    unrelated = (c("row.physical"), c("row.turn"), c("row.run"), c("row.call"))
    builder.retain(
        unrelated,
        c("row.text"),
        digest=c("row.digestBytes", 32).encode(),
        origin=(c("row.server"), c("row.tool"), c.hex("row.digest"), True, False),
    )
    builder.retain(
        (c("tomb.physical"), c("tomb.turn"), c("tomb.run"), c("tomb.call")),
        c("tomb.text"),
        tombstone=True,
        indexed=False,
    )
    builder.db.execute("INSERT INTO sidecar_meta VALUES (?, ?)", (c("meta.key"), c("meta.value")))
    table = c("extra.table")
    builder.db.execute(f"CREATE TABLE {table} (v TEXT)")
    builder.db.execute(f"INSERT INTO {table} VALUES (?)", (c("extra.value"),))
    return builder.finish()


def _config(root: Path, c: Canaries, label: str, value: Any) -> Path:
    directory = root / c(f"dir.{label}")
    directory.mkdir()
    path = directory / f"{c(f'file.{label}')}.json"
    path.write_text(json.dumps(value))
    return path


def build_canary_inputs(root: Path) -> CanaryInputs:
    """Write the whole canary input set under `root` (see the module docstring)."""
    c = Canaries()
    world = World(c)
    journals = _journals(root, c, world)
    sidecar = _sidecar(root, c, world, c.values["rich.physical"])
    routes = _config(
        root, c, "routes", [{"api": api, **ROUTE_FIELDS} for api in (ANTHROPIC, OPENAI)]
    )
    agent_config = _config(
        root,
        c,
        "agentConfig",
        {
            "builtins": ["read", "grep", c("config.builtinA"), c("config.builtinB")],
            "mcpTools": [
                {"exposedName": world.app_tool},
                {"exposedName": c("config.exposedName")},
            ],
        },
    )
    allowlist = _config(
        root,
        c,
        "allowlist",
        [
            {
                "server": world.app_server,
                "tool": world.app_tool,
                "serverIdentityDigest": world.app_digest,
                "readOnly": True,
            },
            {
                "server": world.sidecar_server,
                "tool": world.sidecar_tool,
                "serverIdentityDigest": world.sidecar_digest,
                "readOnly": True,
            },
            {
                "server": c("allowlist.server"),
                "tool": c("allowlist.tool"),
                "serverIdentityDigest": c.hex("allowlist.digest"),
                "readOnly": True,
            },
        ],
    )
    # A well-formed record from a canary pi-ai package and version, with a canary digest: the
    # summary may show the installed version only, never the record's (R-Q-3).
    categories = dict.fromkeys(DifferenceCategory, 0)
    qualification = _config(
        root,
        c,
        "qualification",
        {
            "format": "clearing-analysis/qualification",
            "formatVersion": 1,
            "piAi": {"package": c("qualification.package"), "version": "9.8.7-" + c("q.version")},
            "sourceDigest": {"algorithm": "sha256", "value": c.hex("qualification.digest")},
            "apis": {
                api.value: {
                    "cases": 3,
                    "targetedLeaves": 5,
                    "unintendedDifferences": 0,
                    "byCategory": categories,
                }
                for api in Api
            },
        },
    )
    out_dir = root / c("dir.out")
    out_dir.mkdir()
    decode_record(qualification.read_bytes())  # well-formed: it reaches the version check
    # Digests and finalized ids the sidecar holds are identities too: never printed (R-OUT-1).
    for n, (identity, text, _origin) in enumerate(world.retained):
        c.values[f"digest.{n}"] = hashlib.sha256(text.encode()).hexdigest()
        c.values[f"finalizedId.{n}"] = finalized_tool_id(ToolIdentity(*identity))
    return CanaryInputs(
        root=root,
        journals=journals,
        sidecar=sidecar,
        routes=routes,
        agent_config=agent_config,
        app_allowlist=allowlist,
        qualification=qualification,
        out_dir=out_dir,
        canaries=dict(c.values),
    )
