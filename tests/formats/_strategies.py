"""Hypothesis strategies for valid journal v2 records and configuration files (wire form).

They follow docs/formats/*.md, not the structs, so that a drift between the documented format
and the decoder shows up as a failing property.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

UINT53_MAX = 2**53 - 1

uint53 = st.integers(min_value=0, max_value=UINT53_MAX)
# Token counts of a request, a checkpoint or a route: 0 to 10^9 (Numeric ranges).
TOKENS_MAX = 10**9
tokens = st.integers(min_value=0, max_value=TOKENS_MAX)
small_uint = tokens
ident = st.text(min_size=1, max_size=12)
text = st.text(max_size=40)
opt_text = st.none() | text
sha256_hex = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)
finite = st.floats(allow_nan=False, allow_infinity=False, width=64)

json_leaf = st.none() | st.booleans() | st.integers(-(2**60), 2**60) | finite | text
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=6,
)
json_object = st.dictionaries(text, json_value, max_size=3)


def _obj(required: dict[str, Any], optional: dict[str, Any] | None = None) -> Any:
    return st.fixed_dictionaries(required, optional=optional or {})


text_block = _obj({"type": st.just("text"), "text": text}, {"textSignature": opt_text})
image_block = _obj({"type": st.just("image"), "data": text, "mimeType": text})
thinking_block = _obj(
    {"type": st.just("thinking"), "thinking": text},
    {"thinkingSignature": opt_text, "redacted": st.none() | st.booleans()},
)
tool_call_block = _obj(
    {"type": st.just("toolCall"), "id": ident, "name": ident, "arguments": json_object},
    {"thoughtSignature": opt_text},
)
usage_cost = _obj(dict.fromkeys(("input", "output", "cacheRead", "cacheWrite", "total"), finite))
usage = _obj(
    dict.fromkeys(("input", "output", "cacheRead", "cacheWrite", "totalTokens"), small_uint),
    {"cost": st.none() | usage_cost},
)
user_message = _obj(
    {
        "role": st.just("user"),
        "content": text | st.lists(text_block | image_block, max_size=3),
        "timestamp": uint53,
    }
)
assistant_message = _obj(
    {
        "role": st.just("assistant"),
        "content": st.lists(text_block | thinking_block | tool_call_block, max_size=3),
        "api": ident,
        "provider": ident,
        "model": ident,
        "usage": usage,
        "stopReason": st.sampled_from(["stop", "length", "toolUse", "error", "aborted"]),
        "timestamp": uint53,
    },
    {"errorMessage": opt_text, "responseId": opt_text},
)
tool_result_message = _obj(
    {
        "role": st.just("toolResult"),
        "toolCallId": ident,
        "toolName": ident,
        "content": st.lists(text_block | image_block, max_size=3),
        "isError": st.booleans(),
        "timestamp": uint53,
    },
    {"details": json_value},
)
mcp_origin = _obj(
    {"server": ident, "tool": ident, "serverIdentityDigest": sha256_hex},
    {
        "annotations": _obj(
            {},
            {
                "readOnlyHint": st.none() | st.booleans(),
                "destructiveHint": st.none() | st.booleans(),
            },
        )
    },
)


def _record(kind: str, required: dict[str, Any], optional: dict[str, Any] | None = None) -> Any:
    return _obj({"seq": uint53, "kind": st.just(kind), **required}, optional)


header = _record(
    "header",
    {
        "format": st.just("pi-native-journal"),
        "version": st.just(2),
        "journalId": ident,
        "physicalConversationId": ident,
        "logicalConversationId": ident,
        "origin": st.sampled_from(["native", "imported", "inherited"]),
        "createdAt": uint53,
    },
)
body_records = st.one_of(
    _record("turn_start", {"hostTurnId": ident, "message": user_message}),
    _record(
        "run_start",
        {
            "hostTurnId": ident,
            "runId": ident,
            "owner": st.none() | ident,
            "reason": st.sampled_from(["prompt", "retry", "reprompt", "continue"]),
            "timestamp": uint53,
        },
        {"toolsetFingerprint": st.none() | ident},
    ),
    _record(
        "message",
        {"runId": ident, "message": user_message | assistant_message | tool_result_message},
    ),
    _record(
        "tool_call_start",
        {
            "runId": ident,
            "callId": ident,
            "toolName": ident,
            "arguments": json_object,
            "timestamp": uint53,
        },
        {"payload": st.none() | _obj({}, {"origin": st.none() | mcp_origin})},
    ),
    _record(
        "tool_call_end",
        {
            "runId": ident,
            "callId": ident,
            "status": st.sampled_from(["success", "error", "aborted", "denied"]),
            "returned": st.booleans(),
            "placed": st.booleans(),
            "timestamp": uint53,
        },
    ),
    _record(
        "run_end",
        {
            "runId": ident,
            "status": st.sampled_from(["completed", "aborted", "failed", "interrupted"]),
            "timestamp": uint53,
        },
    ),
    _record(
        "checkpoint",
        {
            "trigger": st.sampled_from(["threshold", "overflow", "manual"]),
            "tokensBefore": tokens,
            "tokensAfter": tokens,
            "summary": text,
            "firstKeptSeq": st.none() | uint53,
            "timestamp": uint53,
        },
    ),
    _record(
        "redaction",
        {
            "targetSeq": uint53,
            "scope": st.sampled_from(["web_envelope", "text"]),
            "format": st.sampled_from(["json", "text"]),
        },
    ),
)
close = _record("close", {"timestamp": uint53})
any_record = header | body_records | close

# Configuration files.
# A weight is 0 or from 10^-12 to 10^12 (routes.md, Numeric ranges): its edges included.
weight = (
    st.just(0)
    | st.integers(1, 10**12)
    | st.floats(1e-12, 1e12)
    | st.sampled_from([0.0, -0.0, 1e-12, 1e12])
)
weights = _obj(dict.fromkeys(("input", "cacheRead", "cacheWrite", "output"), weight))
durations = st.integers(0, 10**12)
API_NAMES = [
    "anthropic-messages",
    "openai-responses",
    "openai-codex-responses",
    "openai-completions",
]


def _route(api: str) -> Any:
    return _obj(
        {
            "api": st.just(api),
            "triggerTokens": st.integers(1, TOKENS_MAX),
            "drainTokens": tokens,
            "summaryInputTokens": tokens,
            "summaryOutputTokens": tokens,
            "cacheLifetimeMs": durations | st.just("unknown"),
            "cacheMarginMs": durations,
            "prices": weights,
            "quota": weights,
            "quotaBudget": st.integers(1, 10**18) | st.floats(1e-12, 1e18),
        }
    )


routes = st.lists(st.sampled_from(API_NAMES), min_size=1, max_size=4, unique=True).flatmap(
    lambda apis: st.tuples(*(_route(api) for api in apis)).map(list)
)
_inventory = {
    "builtins": st.lists(ident, max_size=4),
    "mcpTools": st.just("none") | st.lists(_obj({"exposedName": ident}), max_size=3),
}
attestation = _obj(_inventory)
# Unique (conversation, run) pairs; a small conversation pool makes a run id shared by two
# conversations, and two runs of one conversation, common.
per_run_proofs = st.lists(
    st.tuples(st.sampled_from(["conv-a", "conv-b"]) | ident, ident),
    min_size=1,
    max_size=4,
    unique=True,
).flatmap(
    lambda pairs: st.tuples(
        *(
            _obj({"physicalConversationId": st.just(c), "runId": st.just(r), **_inventory})
            for c, r in pairs
        )
    ).map(list)
)
agent_config = attestation | per_run_proofs
allowlist = st.lists(
    _obj(
        {
            "server": ident,
            "tool": ident,
            "serverIdentityDigest": sha256_hex,
            "readOnly": st.just(True),
        }
    ),
    max_size=4,
    unique_by=lambda e: (e["server"], e["tool"], e["serverIdentityDigest"]),
)


@st.composite
def mutated(draw: st.DrawFn, base: Any) -> Any:
    """A copy of a drawn value with one edit: drop a key, add a key, or replace a value."""
    value = draw(base)
    paths: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key in list(node):
                paths.append((node, key))
                walk(node[key])
        elif isinstance(node, list):
            for index in range(len(node)):
                paths.append((node, index))
                walk(node[index])

    walk(value)
    containers = [node for node, _ in paths if isinstance(node, dict)] or [value]
    action = draw(st.sampled_from(["drop", "add", "replace"]))
    if action == "add" and isinstance(containers[0], dict):
        target = draw(st.sampled_from(containers))
        target[draw(st.sampled_from(["extra", "Seq", "text_signature", "kind"]))] = draw(json_value)
    elif paths:
        node, key = draw(st.sampled_from(paths))
        if action == "drop" and isinstance(node, dict):
            del node[key]
        else:
            node[key] = draw(json_value)
    return value
