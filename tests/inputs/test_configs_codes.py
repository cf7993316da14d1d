"""Config decoders: every config detail code from one small file, plus the documented semantics.

Parametrized over (case, bytes, expected detail code); assertions are on codes, never wording
(docs/formats/reason-codes.md, routes.md, agent-config.md, app-allowlist.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from clearing_analysis import strictjson
from clearing_analysis.codes.errors import EXIT_INCOMPLETE, InputInvalidDetail, InputInvalidError
from clearing_analysis.inputs import configs
from clearing_analysis.inputs.configs import (
    CONFIG_DETAILS,
    AgentConfig,
    Api,
    load_agent_config,
    load_app_allowlist,
    load_routes,
)
from clearing_analysis.policy import limits

C = InputInvalidDetail
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "formats" / "examples"
ROUTE: dict[str, Any] = json.loads((EXAMPLES / "routes.example.json").read_text())[0]
DIGEST = "ab" * 32
ENTRY = {"server": "s", "tool": "t", "serverIdentityDigest": DIGEST, "readOnly": True}
ATTEST = {"builtins": ["read"], "mcpTools": "none"}
# A per-run proof without its run id: every per-run case below adds the ids it is about.
IN_C1 = {**ATTEST, "physicalConversationId": "c1"}
LOADERS: dict[str, Callable[[Path], object]] = {
    "ROUTES": load_routes,
    "AGENT_CONFIG": load_agent_config,
    "APP_ALLOWLIST": load_app_allowlist,
}
VALID: dict[str, Any] = {"ROUTES": [ROUTE], "AGENT_CONFIG": ATTEST, "APP_ALLOWLIST": [ENTRY]}


def j(value: Any) -> bytes:
    return json.dumps(value).encode()


def route(**changes: Any) -> bytes:
    """The example route with fields replaced (a value of ... removes the field)."""
    changed = {k: v for k, v in {**ROUTE, **changes}.items() if v is not ...}
    return j([changed])


# Reading / JSON codes, the same for every file: (suffix, bytes) with the file's valid value
# spliced in where it matters.
def _json_defects(valid: Any) -> list[tuple[str, bytes]]:
    text = json.dumps(valid)
    return [
        ("INVALID_UTF8", text.encode()[:-1] + b"\xff" + text.encode()[-1:]),
        ("INVALID_UTF8", b'"\\ud800"'),
        ("MALFORMED_JSON", text.encode()[:-1]),
        ("MALFORMED_JSON", b"\xef\xbb\xbf" + text.encode()),
        ("MALFORMED_JSON", b""),
        ("DUPLICATE_KEY", b'[{"a":{"b":1,"b":2}}]'),
        ("NON_FINITE_NUMBER", b"[NaN]"),
        ("NON_FINITE_NUMBER", b"[1e400]"),
        ("NUMBER_OUT_OF_RANGE", b"[" + b"7" * 5000 + b"]"),
        ("NESTING_TOO_DEEP", b"[" * 65 + b"]" * 65),
        ("NESTING_TOO_DEEP", b"[" * 100_000 + b"]" * 100_000),
        ("WRONG_SHAPE", b'"text"'),
    ]


CASES: list[tuple[str, str, bytes, InputInvalidDetail]] = []
for file_code, valid in VALID.items():
    for index, (suffix, data) in enumerate(_json_defects(valid)):
        CASES.append((file_code, f"{file_code} {suffix} {index}", data, C(f"{file_code}_{suffix}")))

CASES += [
    ("ROUTES", "empty array", b"[]", C.ROUTES_EMPTY),
    (
        "ROUTES",
        "duplicate api",
        j([ROUTE, {**ROUTE, "triggerTokens": 1000}]),
        C.ROUTES_DUPLICATE_API,
    ),
    ("ROUTES", "object, not array", j(ROUTE), C.ROUTES_WRONG_SHAPE),
    ("ROUTES", "unknown field", route(label="my-cohort"), C.ROUTES_WRONG_SHAPE),
    ("ROUTES", "missing field", route(cacheMarginMs=...), C.ROUTES_WRONG_SHAPE),
    ("ROUTES", "unsupported api", route(api="google-generative-ai"), C.ROUTES_WRONG_SHAPE),
    ("ROUTES", "api case differs", route(api="Anthropic-Messages"), C.ROUTES_WRONG_SHAPE),
    ("ROUTES", "lifetime UNKNOWN", route(cacheLifetimeMs="UNKNOWN"), C.ROUTES_WRONG_SHAPE),
    ("ROUTES", "lifetime null", route(cacheLifetimeMs=None), C.ROUTES_WRONG_SHAPE),
    ("ROUTES", "lifetime negative", route(cacheLifetimeMs=-1), C.ROUTES_VALUE_OUT_OF_RANGE),
    ("ROUTES", "float for int", route(triggerTokens=200000.0), C.ROUTES_WRONG_SHAPE),
    ("ROUTES", "string for int", route(drainTokens="40000"), C.ROUTES_WRONG_SHAPE),
    ("ROUTES", "trigger zero", route(triggerTokens=0), C.ROUTES_VALUE_OUT_OF_RANGE),
    ("ROUTES", "negative drain", route(drainTokens=-1), C.ROUTES_VALUE_OUT_OF_RANGE),
    ("ROUTES", "int above 2^53-1", route(cacheMarginMs=2**53), C.ROUTES_VALUE_OUT_OF_RANGE),
    ("ROUTES", "quota budget zero", route(quotaBudget=0), C.ROUTES_VALUE_OUT_OF_RANGE),
    (
        "ROUTES",
        "negative price",
        route(prices={**ROUTE["prices"], "input": -1}),
        C.ROUTES_VALUE_OUT_OF_RANGE,
    ),
    (
        "ROUTES",
        "bool price",
        route(prices={**ROUTE["prices"], "output": True}),
        C.ROUTES_WRONG_SHAPE,
    ),
    ("ROUTES", "price huge int", route(quotaBudget=10**400), C.ROUTES_VALUE_OUT_OF_RANGE),
    # The stated ranges (docs/formats/routes.md, Numeric ranges), each just past its edge.
    *(
        ("ROUTES", f"{field} above 10^9", route(**{field: 10**9 + 1}), C.ROUTES_VALUE_OUT_OF_RANGE)
        for field in ("triggerTokens", "drainTokens", "summaryInputTokens", "summaryOutputTokens")
    ),
    (
        "ROUTES",
        "summaryInputTokens 2^53-1 (its doubled figure made a report show refused)",
        route(summaryInputTokens=2**53 - 1),
        C.ROUTES_VALUE_OUT_OF_RANGE,
    ),
    *(
        (
            "ROUTES",
            f"{field} above 10^12 ms",
            route(**{field: 10**12 + 1}),
            C.ROUTES_VALUE_OUT_OF_RANGE,
        )
        for field in ("cacheLifetimeMs", "cacheMarginMs")
    ),
    *(
        (
            "ROUTES",
            f"{view}.{key} {value!r}",
            route(**{view: {**ROUTE[view], key: value}}),
            C.ROUTES_VALUE_OUT_OF_RANGE,
        )
        for view in ("prices", "quota")
        for key in ("input", "cacheRead", "cacheWrite", "output")
        for value in (1e308, 1.000001e12, 9.99e-13, 5e-324)
    ),
    ("ROUTES", "quota budget 1e308", route(quotaBudget=1e308), C.ROUTES_VALUE_OUT_OF_RANGE),
    ("ROUTES", "quota budget below 1e-12", route(quotaBudget=9e-13), C.ROUTES_VALUE_OUT_OF_RANGE),
    ("ROUTES", "weights missing key", route(quota={"input": 1}), C.ROUTES_WRONG_SHAPE),
    ("AGENT_CONFIG", "empty proof array", b"[]", C.AGENT_CONFIG_EMPTY),
    ("AGENT_CONFIG", "runId missing", j([IN_C1]), C.AGENT_CONFIG_RUN_ID_MISSING),
    ("AGENT_CONFIG", "runId empty", j([{**IN_C1, "runId": ""}]), C.AGENT_CONFIG_RUN_ID_MISSING),
    ("AGENT_CONFIG", "runId null", j([{**IN_C1, "runId": None}]), C.AGENT_CONFIG_RUN_ID_MISSING),
    (
        "AGENT_CONFIG",
        "one of two lacks runId",
        j([{**IN_C1, "runId": "r1"}, IN_C1]),
        C.AGENT_CONFIG_RUN_ID_MISSING,
    ),
    (
        "AGENT_CONFIG",
        "entry not an object",
        j([{**IN_C1, "runId": "r1"}, "r2"]),
        C.AGENT_CONFIG_RUN_ID_MISSING,
    ),
    (
        "AGENT_CONFIG",
        "runId and conversation missing",
        j([ATTEST]),
        C.AGENT_CONFIG_RUN_ID_MISSING,
    ),
    (
        "AGENT_CONFIG",
        "conversation missing",
        j([{**ATTEST, "runId": "r1"}]),
        C.AGENT_CONFIG_CONVERSATION_ID_MISSING,
    ),
    (
        "AGENT_CONFIG",
        "conversation empty",
        j([{**ATTEST, "runId": "r1", "physicalConversationId": ""}]),
        C.AGENT_CONFIG_CONVERSATION_ID_MISSING,
    ),
    (
        "AGENT_CONFIG",
        "conversation null",
        j([{**ATTEST, "runId": "r1", "physicalConversationId": None}]),
        C.AGENT_CONFIG_CONVERSATION_ID_MISSING,
    ),
    (
        "AGENT_CONFIG",
        "one of two lacks conversation",
        j([{**IN_C1, "runId": "r1"}, {**ATTEST, "runId": "r2"}]),
        C.AGENT_CONFIG_CONVERSATION_ID_MISSING,
    ),
    (
        "AGENT_CONFIG",
        "conversation not a string",
        j([{**ATTEST, "runId": "r1", "physicalConversationId": 5}]),
        C.AGENT_CONFIG_WRONG_SHAPE,
    ),
    (
        "AGENT_CONFIG",
        "runId duplicate",
        j([{**IN_C1, "runId": "r1"}] * 2),
        C.AGENT_CONFIG_RUN_ID_DUPLICATE,
    ),
    (
        "AGENT_CONFIG",
        "contradictory duplicate",
        j(
            [
                {**IN_C1, "runId": "r1"},
                {"physicalConversationId": "c1", "runId": "r1", "builtins": [], "mcpTools": "none"},
            ]
        ),
        C.AGENT_CONFIG_RUN_ID_DUPLICATE,
    ),
    ("AGENT_CONFIG", "runId not a string", j([{**IN_C1, "runId": 5}]), C.AGENT_CONFIG_WRONG_SHAPE),
    (
        "AGENT_CONFIG",
        "runId in period form",
        j({**ATTEST, "runId": "r1"}),
        C.AGENT_CONFIG_WRONG_SHAPE,
    ),
    (
        "AGENT_CONFIG",
        "conversation in period form",
        j(IN_C1),
        C.AGENT_CONFIG_WRONG_SHAPE,
    ),
    ("AGENT_CONFIG", "number", b"5", C.AGENT_CONFIG_WRONG_SHAPE),
    (
        "AGENT_CONFIG",
        "mcpTools None (case)",
        j({**ATTEST, "mcpTools": "None"}),
        C.AGENT_CONFIG_WRONG_SHAPE,
    ),
    ("AGENT_CONFIG", "mcpTools missing", j({"builtins": ["read"]}), C.AGENT_CONFIG_WRONG_SHAPE),
    (
        "AGENT_CONFIG",
        "mcpTools names only",
        j({**ATTEST, "mcpTools": ["lookup"]}),
        C.AGENT_CONFIG_WRONG_SHAPE,
    ),
    (
        "AGENT_CONFIG",
        "exposedName empty",
        j({**ATTEST, "mcpTools": [{"exposedName": ""}]}),
        C.AGENT_CONFIG_WRONG_SHAPE,
    ),
    (
        "AGENT_CONFIG",
        "builtins a string",
        j({**ATTEST, "builtins": "read"}),
        C.AGENT_CONFIG_WRONG_SHAPE,
    ),
    (
        "AGENT_CONFIG",
        "builtin empty name",
        j({**ATTEST, "builtins": [""]}),
        C.AGENT_CONFIG_WRONG_SHAPE,
    ),
    ("AGENT_CONFIG", "unknown field", j({**ATTEST, "period": "2026"}), C.AGENT_CONFIG_WRONG_SHAPE),
    ("APP_ALLOWLIST", "duplicate entry", j([ENTRY, ENTRY]), C.APP_ALLOWLIST_DUPLICATE),
    (
        "APP_ALLOWLIST",
        "readOnly false",
        j([{**ENTRY, "readOnly": False}]),
        C.APP_ALLOWLIST_WRONG_SHAPE,
    ),
    (
        "APP_ALLOWLIST",
        "readOnly missing",
        j([{k: v for k, v in ENTRY.items() if k != "readOnly"}]),
        C.APP_ALLOWLIST_WRONG_SHAPE,
    ),
    (
        "APP_ALLOWLIST",
        "readOnly string",
        j([{**ENTRY, "readOnly": "true"}]),
        C.APP_ALLOWLIST_WRONG_SHAPE,
    ),
    (
        "APP_ALLOWLIST",
        "digest uppercase",
        j([{**ENTRY, "serverIdentityDigest": DIGEST.upper()}]),
        C.APP_ALLOWLIST_WRONG_SHAPE,
    ),
    (
        "APP_ALLOWLIST",
        "digest too short",
        j([{**ENTRY, "serverIdentityDigest": DIGEST[:-1]}]),
        C.APP_ALLOWLIST_WRONG_SHAPE,
    ),
    (
        "APP_ALLOWLIST",
        "digest trailing newline",
        j([{**ENTRY, "serverIdentityDigest": DIGEST + "\n"}]),
        C.APP_ALLOWLIST_WRONG_SHAPE,
    ),
    (
        "APP_ALLOWLIST",
        "digest not hex",
        j([{**ENTRY, "serverIdentityDigest": "g" * 64}]),
        C.APP_ALLOWLIST_WRONG_SHAPE,
    ),
    ("APP_ALLOWLIST", "empty server", j([{**ENTRY, "server": ""}]), C.APP_ALLOWLIST_WRONG_SHAPE),
    (
        "APP_ALLOWLIST",
        "unknown field",
        j([{**ENTRY, "destructiveHint": False}]),
        C.APP_ALLOWLIST_WRONG_SHAPE,
    ),
    ("APP_ALLOWLIST", "object, not array", j(ENTRY), C.APP_ALLOWLIST_WRONG_SHAPE),
]


@pytest.mark.parametrize(
    ("file_code", "data", "code"),
    [(c[0], c[2], c[3]) for c in CASES],
    ids=[c[1] for c in CASES],
)
def test_defect_yields_its_code(
    tmp_path: Path, file_code: str, data: bytes, code: InputInvalidDetail
) -> None:
    """Each defective file is INPUT_INVALID (exit 2) with exactly its detail code."""
    path = tmp_path / "config.json"
    path.write_bytes(data)
    with pytest.raises(InputInvalidError) as caught:
        LOADERS[file_code](path)
    assert caught.value.detail == code
    assert caught.value.code == "INPUT_INVALID"
    assert caught.value.exit_status == EXIT_INCOMPLETE


@pytest.mark.parametrize("file_code", list(LOADERS))
def test_unreadable(tmp_path: Path, file_code: str) -> None:
    """A missing file or a directory is <FILE>_UNREADABLE."""
    for path in (tmp_path / "absent.json", tmp_path):
        with pytest.raises(InputInvalidError) as caught:
            LOADERS[file_code](path)
        assert caught.value.detail == C(f"{file_code}_UNREADABLE")


@pytest.mark.parametrize("file_code", list(LOADERS))
def test_too_large(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, file_code: str) -> None:
    """A file above maxConfigFileBytes is <FILE>_TOO_LARGE; exactly at the limit is read."""
    data = j(VALID[file_code])
    small = msgspec.structs.replace(limits(), max_config_file_bytes=len(data))
    monkeypatch.setattr(configs, "limits", lambda: small)
    path = tmp_path / "config.json"
    path.write_bytes(data)
    LOADERS[file_code](path)
    path.write_bytes(data + b" ")
    with pytest.raises(InputInvalidError) as caught:
        LOADERS[file_code](path)
    assert caught.value.detail == C(f"{file_code}_TOO_LARGE")


# Every routes number at each edge of its stated range, accepted (routes.md, Numeric ranges).
_EDGES: list[tuple[str, dict[str, Any]]] = [
    *((f"{f}={v}", {f: v}) for f in ("drainTokens", "summaryInputTokens") for v in (0, 10**9)),
    *((f"summaryOutputTokens={v}", {"summaryOutputTokens": v}) for v in (0, 10**9)),
    *((f"triggerTokens={v}", {"triggerTokens": v}) for v in (1, 10**9)),
    *((f"{f}={v}", {f: v}) for f in ("cacheLifetimeMs", "cacheMarginMs") for v in (0, 10**12)),
    *(
        (f"{view}={v!r}", {view: dict.fromkeys(ROUTE[view], v)})
        for view in ("prices", "quota")
        for v in (0, -0.0, 1e-12, 1e12, 10**12)
    ),
    *((f"quotaBudget={v!r}", {"quotaBudget": v}) for v in (1e-12, 1e18, 10**18)),
]


@pytest.mark.parametrize(("case", "changes"), _EDGES, ids=[case for case, _ in _EDGES])
def test_route_at_an_edge_of_its_ranges_is_accepted(case: str, changes: dict[str, Any]) -> None:
    """A value at either edge of its stated range decodes (the ranges include their edges)."""
    assert case
    configs.decode_routes(route(**changes))


def test_every_config_reason_has_a_case() -> None:
    """Each config detail is produced by a case above (UNREADABLE / TOO_LARGE by their tests),
    except the reserved ones no decoder rule raises yet."""
    covered = {c[3] for c in CASES}
    covered |= {C(f"{f}_{s}") for f in LOADERS for s in ("UNREADABLE", "TOO_LARGE")}
    assert covered == CONFIG_DETAILS


def _load(tmp_path: Path, loader: Callable[[Path], Any], value: Any) -> Any:
    path = tmp_path / "config.json"
    path.write_bytes(j(value))
    return loader(path)


class TestRoutes:
    """Accepted routes and what they decode to."""

    def test_examples_decode(self) -> None:
        """The documented example decodes with both APIs and the 'unknown' lifetime."""
        routes = load_routes(EXAMPLES / "routes.example.json")
        assert set(routes.by_api) == {Api.ANTHROPIC_MESSAGES, Api.OPENAI_COMPLETIONS}
        assert routes.by_api[Api.OPENAI_COMPLETIONS].cache_lifetime_ms == "unknown"
        assert routes.by_api[Api.ANTHROPIC_MESSAGES].cache_lifetime_ms == 300000

    def test_all_four_apis(self, tmp_path: Path) -> None:
        """One entry for each of the four supported APIs is accepted."""
        value = [{**ROUTE, "api": api.value} for api in Api]
        assert set(_load(tmp_path, load_routes, value).by_api) == set(Api)

    def test_integer_and_float_weights(self, tmp_path: Path) -> None:
        """Weights and budget accept integers and decimals; zero weights are allowed."""
        value = [{**ROUTE, "prices": {**ROUTE["prices"], "input": 0}, "quotaBudget": 0.5}]
        route_ = _load(tmp_path, load_routes, value).by_api[Api.ANTHROPIC_MESSAGES]
        assert route_.prices.input == 0
        assert route_.quota_budget == 0.5


class TestAgentConfig:
    """Identity proof semantics (R-EL-3)."""

    def test_period_attestation(self, tmp_path: Path) -> None:
        """The period form covers every run; a built-in is proven only when enabled."""
        config = _load(
            tmp_path, load_agent_config, {"builtins": ["read", "grep"], "mcpTools": "none"}
        )
        assert isinstance(config, AgentConfig)
        attestation = config.attestation_for("any-conversation", "any-run")
        assert attestation is not None
        assert attestation.proves_builtin("read")
        assert not attestation.proves_builtin("find")

    def test_names_match_case_sensitively(self, tmp_path: Path) -> None:
        """Tool names match exactly: "Read" in the config does not prove the tool "read"."""
        config = _load(tmp_path, load_agent_config, {"builtins": ["Read"], "mcpTools": "none"})
        attestation = config.attestation_for("c", "r")
        assert not attestation.proves_builtin("read")
        assert attestation.proves_builtin("Read")

    def test_mcp_collision_unproves_builtin(self, tmp_path: Path) -> None:
        """A built-in whose name an MCP server also exposes is not proven."""
        value = {"builtins": ["read", "grep"], "mcpTools": [{"exposedName": "read"}]}
        attestation = _load(tmp_path, load_agent_config, value).attestation_for("c", "r")
        assert not attestation.proves_builtin("read")
        assert attestation.proves_builtin("grep")

    def test_per_run_proofs(self, tmp_path: Path) -> None:
        """Per-run proofs cover only their run of their conversation; others are unproven."""
        config = load_agent_config(EXAMPLES / "agent-config.per-run.example.json")
        assert config.period is None
        assert config.attestation_for("conv-0192", "run-1").proves_builtin("ls")
        assert not config.attestation_for("conv-0192", "run-2").proves_builtin("ls")
        assert config.attestation_for("conv-0192", "run-9") is None
        assert config.attestation_for("conv-other", "run-1") is None

    def test_same_run_id_in_two_conversations(self, tmp_path: Path) -> None:
        """One run id in two conversations is two proofs, each for its own conversation."""
        value = [
            {"physicalConversationId": "ca", "runId": "run-1", "builtins": ["ls"], "mcpTools": []},
            {"physicalConversationId": "cb", "runId": "run-1", "builtins": [], "mcpTools": []},
        ]
        config = _load(tmp_path, load_agent_config, value)
        assert config.attestation_for("ca", "run-1").proves_builtin("ls")
        assert not config.attestation_for("cb", "run-1").proves_builtin("ls")
        assert config.attestation_for("cc", "run-1") is None

    def test_canonical_per_run_file_decodes_as_the_strict_parse(self, tmp_path: Path) -> None:
        """A compact per-run array in the documented field order takes the direct typed
        decoding (strictjson.canonical) and gives what the strict parse gives; its own
        refusals (a repeated pair, an empty array) are the same codes."""
        proofs = [
            {"physicalConversationId": "ca", "runId": f"r{i}", "builtins": ["ls"], "mcpTools": []}
            for i in range(3)
        ]
        raw = json.dumps(proofs, separators=(",", ":")).encode() + b"\n"
        assert strictjson.canonical(raw, list[configs.RunProof]) is not None
        path = tmp_path / "config.json"
        path.write_bytes(raw)
        assert load_agent_config(path) == configs.parse_agent_config(json.loads(raw))
        for value, code in (
            ([*proofs, proofs[0]], C.AGENT_CONFIG_RUN_ID_DUPLICATE),
            ([], C.AGENT_CONFIG_EMPTY),
        ):
            path.write_bytes(json.dumps(value, separators=(",", ":")).encode())
            with pytest.raises(InputInvalidError) as caught:
                load_agent_config(path)
            assert caught.value.detail is code

    def test_restricted_config_answers_alike_for_its_conversations(self, tmp_path: Path) -> None:
        """A config restricted to some conversations (what a unit's worker gets) answers as
        the whole config for them and holds no proof of any other; a period config is kept."""
        config = load_agent_config(EXAMPLES / "agent-config.per-run.example.json")
        assert config.per_run is not None
        restricted = config.restricted_to(["conv-0192", "conv-absent"])
        assert restricted.per_run is not None
        assert set(restricted.per_run) == {"conv-0192"} & set(config.per_run)
        for run in ("run-1", "run-2", "run-9"):
            assert restricted.attestation_for("conv-0192", run) == config.attestation_for(
                "conv-0192", run
            )
        assert config.restricted_to([]).attestation_for("conv-0192", "run-1") is None
        period = _load(tmp_path, load_agent_config, ATTEST)
        assert period.restricted_to([]) is period

    def test_empty_inventory_is_complete(self, tmp_path: Path) -> None:
        """An empty mcpTools array is a complete (empty) inventory, like "none"."""
        attestation = _load(
            tmp_path, load_agent_config, {"builtins": ["ls"], "mcpTools": []}
        ).period
        assert attestation.proves_builtin("ls")


class TestAppAllowlist:
    """Exact matching of reviewed MCP tools (R-EL-5)."""

    def test_example_allows_exact_triple_only(self) -> None:
        """Only the exact (server, tool, digest) matches; a repointed digest does not."""
        allowlist = load_app_allowlist(EXAMPLES / "app-allowlist.example.json")
        digest = "6c8d47aa40f17a3db448d644a269c92828f7c42bf79d4e8154f07ab9804e4ca4"
        assert allowlist.allows("issue-tracker", "lookup_issue", digest)
        assert not allowlist.allows("issue-tracker", "Lookup_Issue", digest)
        assert not allowlist.allows("issue-tracker", "lookup_issue", "0" * 64)
        assert not allowlist.allows("other", "lookup_issue", digest)

    def test_empty_allowlist_allows_nothing(self, tmp_path: Path) -> None:
        """An empty array is valid and allows no app tool."""
        assert _load(tmp_path, load_app_allowlist, []).entries == frozenset()

    def test_same_tool_two_digests(self, tmp_path: Path) -> None:
        """Two reviewed identities of one tool are two entries, not a duplicate."""
        value = [ENTRY, {**ENTRY, "serverIdentityDigest": "cd" * 32}]
        assert len(_load(tmp_path, load_app_allowlist, value).entries) == 2


def test_errors_carry_no_input(tmp_path: Path) -> None:
    """The error text is the fixed code and detail only, never a value from the file."""
    path = tmp_path / "config.json"
    path.write_bytes(j([{**ROUTE, "api": "CANARY-7f1c"}]))
    with pytest.raises(InputInvalidError) as caught:
        load_routes(path)
    assert str(caught.value) == "INPUT_INVALID:ROUTES_WRONG_SHAPE"
