"""Tool calls and their results: arguments, heavy-tailed result sizes, pi's output caps.

Result sizes are lognormal per tool (median and spread from the profile), scaled by it, then
cut the way pi's tools cut output: at 2,000 lines or 50 KB, whichever comes first, with pi's
continuation notice appended (docs/synthetic-corpus.md cites the constants). App (MCP) tools
come from a small fixed inventory of servers; whether their origin is captured, allowlisted,
repointed or destructive is decided per call from the profile.
"""

from __future__ import annotations

import base64
import hashlib
import math
import random
import string
from typing import Any

import msgspec

from clearing_analysis.synth.textpool import TextPools, slice_lines, slice_words

MAX_RESULT_LINES = 2_000  # pi coding-agent truncate.ts DEFAULT_MAX_LINES
MAX_RESULT_BYTES = 50 * 1024  # pi coding-agent truncate.ts DEFAULT_MAX_BYTES

READ_ONLY_BUILTINS = ("read", "grep", "find", "ls", "web_fetch")
EFFECTFUL_BUILTINS = ("bash", "edit", "write")
WEB_TOOLS = frozenset({"web_fetch", "web_search"})  # their results are JSON web envelopes


class AppTool(msgspec.Struct, frozen=True):
    """One MCP tool of the fixed synthetic inventory."""

    server: str
    tool: str
    read_only: bool
    destructive: bool
    allowlisted: bool

    def digest(self, repointed: bool = False) -> str:
        """SHA-256 of the server identity; a repointed server has a different one."""
        version = "v2" if repointed else "v1"
        return hashlib.sha256(f"mcp-server:{self.server}:{version}".encode()).hexdigest()


APP_TOOLS: tuple[AppTool, ...] = (
    AppTool("docs", "docs_search", True, False, True),
    AppTool("tracker", "issue_get", True, False, True),
    AppTool("websearch", "web_search", True, False, True),
    AppTool("warehouse", "db_query", True, False, True),
    AppTool("warehouse", "db_drop_table", False, True, False),
    AppTool("notes", "notes_append", False, False, False),
)
APP_BY_NAME: dict[str, AppTool] = {tool.tool: tool for tool in APP_TOOLS}


class ToolOutcome(msgspec.Struct):
    """What one executed call produced."""

    name: str
    arguments: dict[str, Any]
    content: list[dict[str, Any]]
    is_error: bool
    origin: dict[str, Any] | None
    app: AppTool | None
    repointed: bool
    credential: bool = False  # the envelope holds a (fake) credential


def fake_credential(rng: random.Random) -> str:
    """A credential-shaped line a fetched page might show: an AWS access key id, a bearer
    header or a private-key block. Clearly fake ("FAKE" / "fake" and random filler) and built
    at run time, so no credential-shaped literal sits in the source."""
    kind = rng.randrange(3)
    if kind == 0:
        tail = "".join(rng.choices(string.ascii_uppercase + string.digits, k=12))
        return f"aws_access_key_id = AKIAFAKE{tail}"
    if kind == 1:
        digits = "".join(rng.choices(string.digits, k=4))
        tail = "".join(rng.choices(string.ascii_letters + string.digits, k=24))
        return f"Authorization: Bearer fake{digits}{tail}"
    body = base64.b64encode(b"synthetic fake key material " + rng.randbytes(48)).decode()
    label = "PRIVATE" + " KEY"
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"


def _size(
    rng: random.Random, sizes: dict[str, tuple[float, float]], tool: str, scale: float
) -> int:
    median, sigma = sizes[tool]
    return max(8, int(rng.lognormvariate(math.log(median * scale), sigma)))


def cap_output(text: str) -> str:
    """Cut `text` as pi's tools do (2,000 lines / 50 KB) and append the notice."""
    lines = text.count("\n") + 1
    if lines <= MAX_RESULT_LINES and len(text) * 3 <= MAX_RESULT_BYTES:
        return text  # cheap bound: even all-3-byte characters fit
    if lines <= MAX_RESULT_LINES and len(text.encode()) <= MAX_RESULT_BYTES:
        return text
    kept = text
    if lines > MAX_RESULT_LINES:
        cut = 0
        for _ in range(MAX_RESULT_LINES):
            cut = kept.index("\n", cut) + 1
        kept = kept[: cut - 1]
    while (excess := len(kept.encode()) - MAX_RESULT_BYTES) > 0:
        cut = kept.rfind("\n", 0, len(kept) - excess)
        kept = kept[:cut] if cut > 0 else kept[: len(kept) - excess]
    shown = kept.count("\n") + 1
    return f"{kept}\n\n[Showing lines 1-{shown} of {lines}. Use offset={shown + 1} to continue.]"


def _image_block(rng: random.Random) -> dict[str, Any]:
    raw = rng.randbytes(rng.randint(1_200, 4_800))
    return {"type": "image", "data": base64.b64encode(raw).decode(), "mimeType": "image/png"}


def _path(rng: random.Random, pools: TextPools) -> str:
    return slice_lines(pools.paths, rng, 1).split("\n", 1)[0]


# The tools whose repeated call is a re-fetch (policy/refetch.json's NATIVE and PI_FAMILY).
FETCHING_TOOLS = frozenset({"read", "grep", "find", "ls", "web_fetch"})


def _fresh(name: str, args: dict[str, Any], ordinal: int) -> dict[str, Any]:
    """`args` made unlike every earlier call of `name` (a chance repeat is not a habit): a
    numbered directory in the path, a numbered query in the URL or pattern."""
    fresh = dict(args)
    if name == "web_fetch":
        fresh["url"] = f"{args['url']}?v={ordinal}"
    elif name == "grep":
        fresh["pattern"] = f"{args['pattern']} v{ordinal}"
    else:
        head, _, tail = str(args["path"]).rpartition("/")
        fresh["path"] = f"{head}/v{ordinal}/{tail}" if head else f"v{ordinal}/{tail}"
    return fresh


class ToolMix(msgspec.Struct, frozen=True):
    """Tool names and their cumulative weights, ready for `random.choices`."""

    names: tuple[str, ...]
    cumulative: tuple[float, ...]

    @classmethod
    def of(cls, weights: dict[str, float]) -> ToolMix:
        """The mix of a profile's (or a phase's) tool weights."""
        return cls(tuple(weights), tuple(_cumulative(weights.values())))


class ToolRunner:
    """Chooses tools and fabricates their arguments and results."""

    def __init__(
        self,
        rng: random.Random,
        pools: TextPools,
        *,
        weights: dict[str, float],
        sizes: dict[str, tuple[float, float]],
        scale: float,
        error_rate: float,
        image_rate: float,
        origin_rate: float,
        repointed_rate: float,
        shape_rng: random.Random,
        reread_rate: float = 0.0,
        habit_rng: random.Random | None = None,
    ) -> None:
        self._rng = rng
        self._pools = pools
        self._default = ToolMix.of(weights)
        self._sizes = sizes
        self._scale = scale
        self._error_rate = error_rate
        self._image_rate = image_rate
        self._origin_rate = origin_rate
        self._repointed_rate = repointed_rate
        self._shape_rng = shape_rng
        self._encoder = msgspec.json.Encoder()
        self._reread_rate = reread_rate
        self._habit_rng = habit_rng
        # The session's fetching calls so far, per tool: what a re-read repeats.
        self._fetched: dict[str, list[dict[str, Any]]] = {}

    def begin_session(self) -> None:
        """A new session: re-reads repeat only its own calls."""
        self._fetched = {}

    def choose(self, mix: ToolMix | None = None) -> str:
        """A tool name by the profile's weights, or by `mix` (a phase's, `Profile.phases`);
        an app tool is drawn from the inventory."""
        chosen = mix or self._default
        name = self._rng.choices(chosen.names, cum_weights=chosen.cumulative)[0]
        if name == "app":
            return self._rng.choice(APP_TOOLS).tool
        return name

    def arguments(self, name: str) -> dict[str, Any]:
        """Plausible arguments for `name`; a fetching call repeats an earlier one of the
        session at the profile's re-read rate and never by chance otherwise."""
        args = self._draw_arguments(name)
        habit = self._habit_rng
        if habit is None or name not in FETCHING_TOOLS:
            return args
        earlier = self._fetched.setdefault(name, [])
        if earlier and habit.random() < self._reread_rate:
            return dict(habit.choice(earlier))
        repeats = sum(1 for other in earlier if other == args)
        if repeats:
            args = _fresh(name, args, len(earlier))
        earlier.append(args)
        return args

    def _draw_arguments(self, name: str) -> dict[str, Any]:
        rng, pools = self._rng, self._pools
        if name == "read":
            args: dict[str, Any] = {"path": _path(rng, pools)}
            if rng.random() < 0.2:
                args["offset"] = rng.randint(1, 900)
                args["limit"] = rng.choice((100, 200, 400))
            return args
        if name == "grep":
            return {"pattern": slice_words(pools.prose, rng, 6), "path": "src", "ignoreCase": True}
        if name in ("find", "ls"):
            return {"path": _path(rng, pools).rsplit("/", 1)[0], "pattern": "*"}
        if name == "bash":
            return {"command": f"cd repo && {slice_lines(pools.shell, rng, 30)[:120]}"}
        if name == "edit":
            old = slice_lines(pools.code, rng, int(rng.lognormvariate(math.log(300), 0.8)))
            new = slice_lines(pools.code, rng, int(rng.lognormvariate(math.log(360), 0.8)))
            return {"path": _path(rng, pools), "oldText": old, "newText": new}
        if name == "write":
            body = slice_lines(pools.code, rng, int(rng.lognormvariate(math.log(1_800), 0.9)))
            return {"path": _path(rng, pools), "content": body}
        if name == "web_fetch":
            return {"url": f"https://docs.example.org/{slice_words(pools.prose, rng, 8)}"}
        return {"query": slice_words(pools.prose, rng, 24), "limit": 10}

    def run(self, name: str, args: dict[str, Any], *, credential: bool = False) -> ToolOutcome:
        """Execute `name` (fictionally): its result content, error flag and origin.

        `credential`: a successful web envelope starts its content with a fake credential.
        """
        rng = self._rng
        app = APP_BY_NAME.get(name)
        origin: dict[str, Any] | None = None
        repointed = False
        if app is not None and rng.random() < self._origin_rate:
            repointed = app.allowlisted and rng.random() < self._repointed_rate
            annotations: dict[str, Any] = {"readOnlyHint": app.read_only}
            if app.destructive:
                annotations["destructiveHint"] = True
            origin = {
                "server": app.server,
                "tool": app.tool,
                "serverIdentityDigest": app.digest(repointed),
                "annotations": annotations,
            }
        if rng.random() < self._error_rate:
            text = self._error_text(name)
            return ToolOutcome(name, args, [_text(text)], True, origin, app, repointed)
        if name == "read" and rng.random() < self._image_rate:
            content = [_text("Read image file [image/png]"), _image_block(rng)]
            return ToolOutcome(name, args, content, False, origin, app, repointed)
        credential = credential and name in WEB_TOOLS
        text = self._text(name, args, credential)
        return ToolOutcome(name, args, [_text(text)], False, origin, app, repointed, credential)

    def _error_text(self, name: str) -> str:
        rng = self._rng
        if name == "bash":
            lines = _size(rng, self._sizes, "bash", 0.5)
            tail = cap_output(slice_lines(self._pools.shell, rng, lines))
            return f"{tail}\n\nCommand exited with code {rng.choice((1, 2, 127))}"
        if name == "edit":
            return "Could not find the exact text in the file. The old text must match exactly."
        return (
            f"Error: ENOENT: no such file or directory, {slice_words(self._pools.prose, rng, 20)}"
        )

    def _text(self, name: str, args: dict[str, Any], credential: bool) -> str:
        rng, pools, sizes, scale = self._rng, self._pools, self._sizes, self._scale
        if name == "read":
            return cap_output(slice_lines(pools.code, rng, _size(rng, sizes, name, scale)))
        if name in {"grep", "db_query"}:
            return cap_output(slice_lines(pools.grep, rng, _size(rng, sizes, name, scale)))
        if name in ("find", "ls"):
            return cap_output(slice_lines(pools.paths, rng, _size(rng, sizes, name, scale)))
        if name == "bash":
            return cap_output(slice_lines(pools.shell, rng, _size(rng, sizes, name, scale)))
        if name == "edit":
            return f"Successfully replaced text in {args['path']}."
        if name == "write":
            return f"Successfully wrote {len(args['content'].encode())} bytes to {args['path']}"
        if name in ("web_fetch", "web_search"):
            envelope = {
                "url": args.get("url", "https://search.example.org/q"),
                "status": 200,
                "contentType": "text/html; charset=utf-8",
                "title": slice_words(pools.prose, rng, 30),
                "content": slice_words(pools.prose, rng, _size(rng, sizes, name, scale)),
            }
            if credential:
                # At the start, so pi's output cap (which keeps the head) never cuts it.
                envelope["content"] = f"{fake_credential(self._shape_rng)}\n{envelope['content']}"
            return cap_output(self._encoder.encode(envelope).decode())
        if name == "db_drop_table":
            return "Dropped table staging_events (0 rows remain)."
        if name == "notes_append":
            return "Appended 1 note."
        return cap_output(slice_words(pools.prose, rng, _size(rng, sizes, name, scale)))


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _cumulative(weights: Any) -> Any:
    total = 0.0
    for weight in weights:
        total += weight
        yield total
