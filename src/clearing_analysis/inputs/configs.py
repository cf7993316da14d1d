"""Strict decoders for routes.json, --agent-config and --app-allowlist (R-CLI-1, R-EL-3, R-EL-5).

Each file decodes whole into frozen typed objects or raises `InputInvalidError` with a fixed
detail code; no value from the file is ever echoed. Formats: docs/formats/routes.md,
docs/formats/agent-config.md, docs/formats/app-allowlist.md; schemas in policy/schemas/.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from clearing_analysis import ranges, strictjson
from clearing_analysis.codes.errors import InputInvalidDetail, InputInvalidError
from clearing_analysis.policy import limits


class Api(enum.StrEnum):
    """The four supported provider APIs (seed, "Input contracts")."""

    ANTHROPIC_MESSAGES = "anthropic-messages"
    OPENAI_RESPONSES = "openai-responses"
    OPENAI_CODEX_RESPONSES = "openai-codex-responses"
    OPENAI_COMPLETIONS = "openai-completions"


# The stated ranges of routes.json's numbers (clearing_analysis.ranges, docs/formats/routes.md).
RouteTokens = Annotated[int, msgspec.Meta(ge=0, le=ranges.MAX_TOKENS)]
TriggerTokens = Annotated[int, msgspec.Meta(ge=1, le=ranges.MAX_TOKENS)]
DurationMs = Annotated[int, msgspec.Meta(ge=0, le=ranges.MAX_DURATION_MS)]
# A weight is 0 or at least MIN_POSITIVE_WEIGHT: the floor is checked by TokenWeights itself.
Weight = Annotated[float, msgspec.Meta(ge=0, le=ranges.MAX_WEIGHT)]
QuotaBudget = Annotated[float, msgspec.Meta(ge=ranges.MIN_QUOTA_BUDGET, le=ranges.MAX_QUOTA_BUDGET)]
NonEmptyStr = Annotated[str, msgspec.Meta(min_length=1)]
# Lengths pinned too: Python's `$` also matches before a final newline.
Sha256Hex = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$", min_length=64, max_length=64)]


# The configuration files, by the prefix of their detail codes (InputInvalidDetail).
FILE_CODES = ("ROUTES", "AGENT_CONFIG", "APP_ALLOWLIST")
# Reading, JSON and shape codes every file has under its own prefix (`<FILE>_<SUFFIX>`).
SHARED_SUFFIXES = (
    "UNREADABLE",
    "TOO_LARGE",
    "INVALID_UTF8",
    "MALFORMED_JSON",
    "DUPLICATE_KEY",
    "NON_FINITE_NUMBER",
    "NUMBER_OUT_OF_RANGE",
    "NESTING_TOO_DEEP",
    "WRONG_SHAPE",
)


def _reason(file_code: str, suffix: str) -> InputInvalidDetail:
    """The fixed code `<FILE>_<SUFFIX>`; a combination outside the enum is a programming error."""
    return InputInvalidDetail(f"{file_code}_{suffix}")


def _rejection(file_code: str, reason: str) -> InputInvalidDetail:
    """The detail of a strict-JSON or typed-conversion refusal of a file. Only routes.json
    holds numbers with a stated range; a file without one has no VALUE_OUT_OF_RANGE code (its
    shape has no number at all), so such a refusal there is its WRONG_SHAPE."""
    if reason == strictjson.VALUE_OUT_OF_RANGE and file_code != "ROUTES":
        return _reason(file_code, strictjson.WRONG_SHAPE)
    return _reason(file_code, reason)


# Every INPUT_INVALID detail of a configuration file (docs/formats/reason-codes.md): the shared
# codes of each file plus the rules a JSON Schema cannot state (emptiness, uniqueness, ids).
CONFIG_DETAILS: frozenset[InputInvalidDetail] = frozenset(
    {_reason(file_code, suffix) for file_code in FILE_CODES for suffix in SHARED_SUFFIXES}
    | {
        InputInvalidDetail.ROUTES_VALUE_OUT_OF_RANGE,
        InputInvalidDetail.ROUTES_EMPTY,
        InputInvalidDetail.ROUTES_DUPLICATE_API,
        InputInvalidDetail.AGENT_CONFIG_EMPTY,
        InputInvalidDetail.AGENT_CONFIG_RUN_ID_MISSING,
        InputInvalidDetail.AGENT_CONFIG_RUN_ID_DUPLICATE,
        InputInvalidDetail.AGENT_CONFIG_CONVERSATION_ID_MISSING,
        InputInvalidDetail.APP_ALLOWLIST_DUPLICATE,
    }
)


class _Strict(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    """Immutable, no unknown fields, camelCase on the wire."""


class TokenWeights(_Strict, frozen=True):
    """Per-token-type weights: prices per million tokens, or quota units per token; each 0 or
    within [MIN_POSITIVE_WEIGHT, MAX_WEIGHT] (clearing_analysis.ranges)."""

    input: Weight
    cache_read: Weight
    cache_write: Weight
    output: Weight

    def __post_init__(self) -> None:
        # A rule no Meta bound states (0, or at least the floor); msgspec turns the ValueError
        # into a validation error whose message `strictjson.shape_reason` reads as a range.
        weights = (self.input, self.cache_read, self.cache_write, self.output)
        if not all(ranges.weight_in_range(weight) for weight in weights):
            raise ValueError(strictjson.VALUE_OUT_OF_RANGE)


class Route(_Strict, frozen=True):
    """One entry of routes.json: homogeneous modeling assumptions for one API's history."""

    api: Api
    trigger_tokens: TriggerTokens
    drain_tokens: RouteTokens
    summary_input_tokens: RouteTokens
    summary_output_tokens: RouteTokens
    cache_lifetime_ms: DurationMs | Literal["unknown"]
    cache_margin_ms: DurationMs
    prices: TokenWeights
    quota: TokenWeights
    quota_budget: QuotaBudget


class Routes(msgspec.Struct, frozen=True):
    """The decoded routes file: at most one route per API."""

    by_api: Mapping[Api, Route]


class McpTool(_Strict, frozen=True):
    """One tool name exposed by a configured MCP server."""

    exposed_name: NonEmptyStr


class Attestation(_Strict, frozen=True):
    """Owner attestation of the enabled built-ins and the complete MCP inventory."""

    builtins: list[NonEmptyStr]
    mcp_tools: Literal["none"] | list[McpTool]

    def proves_builtin(self, tool_name: str) -> bool:
        """A built-in is proven when enabled and no MCP tool is exposed under its name."""
        if tool_name not in self.builtins:
            return False
        if self.mcp_tools == "none":
            return True
        return all(tool.exposed_name != tool_name for tool in self.mcp_tools)


class RunProof(_Strict, frozen=True):
    """An attestation for exactly one run of one physical conversation (fields in the order
    docs/formats/agent-config.md writes them).

    Run ids are unique within a journal only, so the run id alone would prove every
    conversation that reuses it; the journal header's physical conversation id pins the run.
    """

    physical_conversation_id: NonEmptyStr
    run_id: NonEmptyStr
    builtins: list[NonEmptyStr]
    mcp_tools: Literal["none"] | list[McpTool]


class AgentConfig(msgspec.Struct, frozen=True):
    """Either one attestation for the whole period or per-run proofs, by physical
    conversation id, then run id."""

    period: Attestation | None
    per_run: Mapping[str, Mapping[str, Attestation]] | None

    def attestation_for(self, physical_conversation_id: str, run_id: str) -> Attestation | None:
        """The proof that covers this run of this conversation, if any (missing inventory is
        not proof)."""
        if self.per_run is not None:
            return self.per_run.get(physical_conversation_id, {}).get(run_id)
        return self.period

    def restricted_to(self, physical_conversation_ids: Iterable[str]) -> AgentConfig:
        """The same config for runs of these conversations only (what a unit of journals can
        ask about: units.py), so a worker holds its unit's proofs, not the whole history's."""
        if self.per_run is None:
            return self
        per_run = self.per_run
        return AgentConfig(
            period=None,
            per_run={p: per_run[p] for p in sorted(physical_conversation_ids) if p in per_run},
        )


class AllowlistEntry(_Strict, frozen=True):
    """A reviewed read-only MCP app tool, pinned to its server identity digest."""

    server: NonEmptyStr
    tool: NonEmptyStr
    server_identity_digest: Sha256Hex
    read_only: Literal[True]


class AppAllowlist(msgspec.Struct, frozen=True):
    """The decoded allowlist: exact (server, tool, digest) triples."""

    entries: frozenset[tuple[str, str, str]]

    def allows(self, server: str, tool: str, digest: str) -> bool:
        """Exact match on all three parts; a repointed digest no longer matches."""
        return (server, tool, digest) in self.entries


def _read_bytes(path: Path, file_code: str) -> bytes:
    max_bytes = limits().max_config_file_bytes
    try:
        with path.open("rb") as stream:
            raw = stream.read(max_bytes + 1)
    except OSError:
        raise InputInvalidError(_reason(file_code, "UNREADABLE")) from None
    if len(raw) > max_bytes:
        raise InputInvalidError(_reason(file_code, "TOO_LARGE"))
    return raw


def _loads(raw: bytes, file_code: str) -> Any:
    try:
        return strictjson.loads(raw, max_depth=limits().max_nesting_depth)
    except strictjson.JsonRejected as rejected:
        raise InputInvalidError(_rejection(file_code, rejected.reason)) from None


def _convert(value: Any, type_: Any, file_code: str) -> Any:
    try:
        return strictjson.to_struct(value, type_)
    except strictjson.JsonRejected as rejected:
        raise InputInvalidError(_rejection(file_code, rejected.reason)) from None


def parse_routes(value: Any) -> Routes:
    """Routes from parsed JSON: a non-empty array, one entry per API, exactly the seed's fields."""
    routes: list[Route] = _convert(value, list[Route], "ROUTES")
    if not routes:
        raise InputInvalidError(InputInvalidDetail.ROUTES_EMPTY)
    by_api: dict[Api, Route] = {}
    for route in routes:
        if route.api in by_api:
            raise InputInvalidError(InputInvalidDetail.ROUTES_DUPLICATE_API)
        by_api[route.api] = route
    return Routes(by_api=by_api)


def decode_routes(raw: bytes) -> Routes:
    """Decode the bytes of a routes.json file (what `load_routes` read)."""
    if len(raw) > limits().max_config_file_bytes:
        raise InputInvalidError(InputInvalidDetail.ROUTES_TOO_LARGE)
    return parse_routes(_loads(raw, "ROUTES"))


def load_routes(path: Path) -> Routes:
    """Decode routes.json."""
    return decode_routes(_read_bytes(path, "ROUTES"))


def parse_agent_config(value: Any) -> AgentConfig:
    """An attestation object, or a per-run proof array: each entry names a nonempty run id and
    physical conversation id, and no (conversation, run) pair is named twice."""
    if isinstance(value, dict):
        period: Attestation = _convert(value, Attestation, "AGENT_CONFIG")
        return AgentConfig(period=period, per_run=None)
    if isinstance(value, list):
        if not value:
            raise InputInvalidError(InputInvalidDetail.AGENT_CONFIG_EMPTY)
        if any(not isinstance(entry, dict) or not entry.get("runId") for entry in value):
            # Contradictory or missing ids invalidate the input rather than pick a first match.
            raise InputInvalidError(InputInvalidDetail.AGENT_CONFIG_RUN_ID_MISSING)
        if any(not entry.get("physicalConversationId") for entry in value):
            # Same reason: a proof without its conversation would otherwise be matched by
            # whichever conversation reuses the run id.
            raise InputInvalidError(InputInvalidDetail.AGENT_CONFIG_CONVERSATION_ID_MISSING)
        proofs: list[RunProof] = _convert(value, list[RunProof], "AGENT_CONFIG")
        config = _per_run(proofs)
        if config is None:  # every proof was decoded
            raise RuntimeError("a decoded proof is never None")
        return config
    raise InputInvalidError(InputInvalidDetail.AGENT_CONFIG_WRONG_SHAPE)


def _per_run(proofs: Iterable[RunProof | None]) -> AgentConfig | None:
    """Per-run proofs keyed by (conversation, run); equal inventories share one object, so a
    long history's proofs take memory per run id, not per inventory. The proofs are taken one
    at a time, so none needs to outlive its entry; a None among them (an entry the canonical
    path could not vouch for) makes the whole answer None."""
    shared: dict[bytes, Attestation] = {}
    per_run: dict[str, dict[str, Attestation]] = {}
    for proof in proofs:
        if proof is None:
            return None
        runs = per_run.setdefault(proof.physical_conversation_id, {})
        if proof.run_id in runs:
            raise InputInvalidError(InputInvalidDetail.AGENT_CONFIG_RUN_ID_DUPLICATE)
        attestation = Attestation(builtins=proof.builtins, mcp_tools=proof.mcp_tools)
        runs[proof.run_id] = shared.setdefault(msgspec.json.encode(attestation), attestation)
    if not per_run:
        raise InputInvalidError(InputInvalidDetail.AGENT_CONFIG_EMPTY)
    return AgentConfig(period=None, per_run=per_run)


# A JSON array's elements, each kept as its own bytes (validated as JSON, not decoded).
_RAW_ARRAY = msgspec.json.Decoder(list[msgspec.Raw])


def _canonical_per_run(raw: bytes) -> AgentConfig | None:
    """A per-run array written exactly as the documented encoding, decoded one entry at a
    time (strictjson.canonical of each): the whole array's canonical form is `[` + the
    entries' canonical forms joined by `,` + `]`, which the lengths prove. None when the file
    is anything else (the strict path then decides). Decoding the entries one at a time keeps
    the peak memory of a long history's proofs near what the proofs keep, instead of every
    entry's decoded record at once (R-PERF-1, docs/performance.md)."""
    # The array without the whitespace around it, as a view: stripping would copy the file.
    start, end = 0, len(raw)
    while end > start and raw[end - 1] in strictjson.JSON_WHITESPACE:
        end -= 1
    while start < end and raw[start] in strictjson.JSON_WHITESPACE:
        start += 1
    body = memoryview(raw)[start:end]
    try:
        entries = _RAW_ARRAY.decode(body)
    except Exception:  # any failure (a nesting too deep included): the strict path decides
        return None
    if len(body) != 2 + sum(len(entry) for entry in entries) + max(0, len(entries) - 1):
        return None  # whitespace or something else between the entries
    return _per_run(strictjson.canonical(bytes(entry), RunProof) for entry in entries)


def load_agent_config(path: Path) -> AgentConfig:
    """Decode --agent-config (`decode_agent_config` of the file's bytes)."""
    return decode_agent_config(_read_bytes(path, "AGENT_CONFIG"))


def decode_agent_config(raw: bytes) -> AgentConfig:
    """Decode the bytes of an --agent-config file. A per-run array written exactly as the
    documented encoding (compact, fields in order) is decoded straight into its records, one
    entry at a time (`_canonical_per_run`); any other file goes through the strict parse
    first."""
    if len(raw) > limits().max_config_file_bytes:
        raise InputInvalidError(InputInvalidDetail.AGENT_CONFIG_TOO_LARGE)
    config = _canonical_per_run(raw)
    if config is not None:
        return config
    return parse_agent_config(_loads(raw, "AGENT_CONFIG"))


def parse_app_allowlist(value: Any) -> AppAllowlist:
    """A reviewed array of read-only declarations; duplicates are refused as contradictory."""
    entries: list[AllowlistEntry] = _convert(value, list[AllowlistEntry], "APP_ALLOWLIST")
    keys = [(e.server, e.tool, e.server_identity_digest) for e in entries]
    if len(set(keys)) != len(keys):
        raise InputInvalidError(InputInvalidDetail.APP_ALLOWLIST_DUPLICATE)
    return AppAllowlist(entries=frozenset(keys))


def decode_app_allowlist(raw: bytes) -> AppAllowlist:
    """Decode the bytes of an --app-allowlist file."""
    if len(raw) > limits().max_config_file_bytes:
        raise InputInvalidError(InputInvalidDetail.APP_ALLOWLIST_TOO_LARGE)
    return parse_app_allowlist(_loads(raw, "APP_ALLOWLIST"))


def load_app_allowlist(path: Path) -> AppAllowlist:
    """Decode --app-allowlist."""
    return decode_app_allowlist(_read_bytes(path, "APP_ALLOWLIST"))
