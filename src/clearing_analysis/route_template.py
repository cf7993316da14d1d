"""The routes.json entry `routes init` writes: catalog facts plus an agent's compaction defaults.

A template for a user to review, never the truth about their agent: docs/formats/routes.md
("Generating a route: routes init") gives every value's source. With the model's catalog entry
(policy/pi-ai-models.json, generated from the pinned pi-ai) and the assumptions of
policy/route-template.json (reserve R = 16,384, kept K = 20,000, summary budget 80%, tool share
80%):

    triggerTokens        T = contextWindow - R                (pi: compact when context > T)
    summaryOutputTokens  O = floor(R * 80 / 100)              (pi's summarizer maxTokens)
    drainTokens          P = K + O                            (kept messages + the summary)
    summaryInputTokens   I = floor((T - K) * (200 - 80) / 200)
    cacheLifetimeMs      the provider's documented lifetime, else "unknown" (or the user's
                         `--cache-lifetime-ms PROVIDER/ID=MS` for that model); margin 30,000 ms
    prices               the catalog's cost per million tokens
    quota, quotaBudget   the prices over 1,000,000: the quota-share view equals the list view

With `--agent claude-code` (route-template.json `claudeCode`, read from Claude Code 2.0.72 and
2.1.16: window W = 200,000, output reserve R = 32,000, buffer B = 13,000, summary budget 20,000)
the model must be of anthropic-messages, and

    triggerTokens        T = min(contextWindow, W) - min(R, maxTokens) - B   (auto-compaction)
    summaryOutputTokens  O = 20,000                                 (the compact request's cap)
    drainTokens          P = O                    (Claude Code keeps no messages, the summary)
    summaryInputTokens   I = T - P                     (the conversation since the last summary)
    cacheLifetimeMs      300,000 for provider anthropic (no ttl: 5 minutes), else "unknown"

With `--agent codex` (route-template.json `codex`, read from openai/codex: the auto-compaction
limit is 90% of the model's context window, `auto_compact_token_limit`; a compaction keeps the
newest user messages up to 20,000 tokens, `COMPACT_USER_MESSAGE_MAX_TOKENS`, and the summary)
the model must be of openai-codex-responses or openai-responses, and

    triggerTokens        T = contextWindow * 90 // 100              (Codex's auto-compaction)
    summaryOutputTokens  O = floor(R * 80 / 100) = 13,107      (Codex caps none: pi's budget)
    drainTokens          P = 20,000 + O               (the kept user messages and the summary)
    summaryInputTokens   I = T - P                      (as for Claude Code: a stated estimate)
    cacheLifetimeMs      the provider's documented lifetime, as for pi

For pi, I is the midpoint between what pi's summarizer would read if its 2,000-character cut of each
serialized tool result removed nothing, T - K, and the least it can read when the cut removes
nearly all of the tool output in that span, (T - K) * (1 - 0.8). Integer arithmetic only, so
the template is the same on every machine.

Guarantees:
- The only inputs are the two reviewed policy files and the typed API and PROVIDER/ID; nothing
  else is read, nothing written here.
- A PROVIDER/ID the catalog does not have, a model of another API (than `--api`, than
  anthropic-messages for Claude Code, or than the two OpenAI Responses APIs for Codex), a
  model without a price and a model whose window cannot hold the agent's default compaction
  are each a fixed USAGE_ERROR detail (the typed value is never kept); so are a
  `--cache-lifetime-ms` value that is not PROVIDER/ID=MS with MS a whole number of
  milliseconds, one that names no `--model` given and two for one model; every template this
  returns decodes with `inputs.configs.parse_routes`.
- Each route whose cacheLifetimeMs stays "unknown" is named by its API (`unknown_lifetimes`)
  so that the command says so, with the remedy, when it writes the file: an unknown lifetime
  makes every gap warm, hence criterion 2 impossible.
"""

from __future__ import annotations

import enum
from typing import Literal

import msgspec

from clearing_analysis.codes.errors import UsageDetail, UsageError
from clearing_analysis.inputs.configs import Api, Route, TokenWeights
from clearing_analysis.policy import (
    CatalogModel,
    ModelCost,
    RouteTemplatePolicy,
    pi_ai_catalog,
    route_template_policy,
)

MODEL_OPTION = "--model"
API_OPTION = "--api"
AGENT_OPTION = "--agent"
LIFETIME_OPTION = "--cache-lifetime-ms"
MAX_LIFETIME_MS = 2**53 - 1  # a JSON integer every reader holds exactly
UNKNOWN_LIFETIME: Literal["unknown"] = "unknown"


class Agent(enum.StrEnum):
    """Whose compaction the route's trigger, drain and summary sizes describe."""

    PI = "pi"
    CLAUDE_CODE = "claude-code"
    CODEX = "codex"


# Claude Code speaks the Anthropic Messages API only (R-SRC-2); Codex OpenAI's Responses API,
# signed in with ChatGPT or with an API key (R-SRC-3, docs/formats/codex.md).
_CLAUDE_CODE_API = Api.ANTHROPIC_MESSAGES
_CODEX_APIS = frozenset({Api.OPENAI_CODEX_RESPONSES.value, Api.OPENAI_RESPONSES.value})


def model_names(api: Api) -> list[str]:
    """PROVIDER/ID of every catalog model of `api`, in catalog order (catalog data only)."""
    return [f"{m.provider}/{m.id}" for m in pi_ai_catalog().models if m.api == api.value]


def find_model(api: Api | None, name: str) -> CatalogModel:
    """The catalog model `name` (PROVIDER/ID, split at the first slash), of `api` if given."""
    provider, slash, model_id = name.partition("/")
    model = pi_ai_catalog().find(provider, model_id) if slash else None
    if model is None:
        raise UsageError(UsageDetail.MODEL_UNKNOWN, (MODEL_OPTION,))
    if api is not None and model.api != api.value:
        raise UsageError(UsageDetail.MODEL_API_MISMATCH, (API_OPTION,))
    return model


def _number(value: float) -> int | float:
    """A price as the catalog wrote it: 3, not 3.0 (the JSON stays as readable as the source)."""
    return int(value) if value.is_integer() else value


def _weights(cost: ModelCost) -> TokenWeights:
    return TokenWeights(
        input=_number(cost.input),
        cache_read=_number(cost.cache_read),
        cache_write=_number(cost.cache_write),
        output=_number(cost.output),
    )


def parse_lifetimes(values: list[str], names: list[str]) -> dict[str, int]:
    """`--cache-lifetime-ms PROVIDER/ID=MS` values by model name; each must name one of
    `names` (the `--model` values as typed) once, with MS a whole number of milliseconds."""
    lifetimes: dict[str, int] = {}
    for value in values:
        name, equals, millis = value.rpartition("=")
        if not equals or not name or not millis.isascii() or not millis.isdigit():
            raise UsageError(UsageDetail.CACHE_LIFETIME_INVALID, (LIFETIME_OPTION,))
        if int(millis) > MAX_LIFETIME_MS:
            raise UsageError(UsageDetail.CACHE_LIFETIME_INVALID, (LIFETIME_OPTION,))
        if name not in names:
            raise UsageError(UsageDetail.CACHE_LIFETIME_MODEL_NOT_GIVEN, (LIFETIME_OPTION,))
        if name in lifetimes:
            raise UsageError(UsageDetail.CACHE_LIFETIME_REPEATED, (LIFETIME_OPTION,))
        lifetimes[name] = int(millis)
    return lifetimes


def _compaction(
    model: CatalogModel, policy: RouteTemplatePolicy, agent: Agent
) -> tuple[int, int, int, int]:
    """(T, P, I, O) of `agent`'s compaction for `model` (the module docstring's formulas)."""
    if agent is Agent.CLAUDE_CODE:
        claude = policy.claude_code
        if model.api != _CLAUDE_CODE_API.value:
            raise UsageError(UsageDetail.MODEL_AGENT_MISMATCH, (MODEL_OPTION,))
        window = min(model.context_window, claude.context_window_tokens)
        reserve = min(claude.output_reserve_tokens, model.max_tokens)
        trigger = window - reserve - claude.auto_compact_buffer_tokens
        summary_output = claude.summary_output_tokens
        drain = summary_output
        return trigger, drain, trigger - drain, summary_output
    summary_output = policy.reserve_tokens * policy.summary_budget_percent // 100
    if agent is Agent.CODEX:
        codex = policy.codex
        if model.api not in _CODEX_APIS:
            raise UsageError(UsageDetail.MODEL_CODEX_MISMATCH, (MODEL_OPTION,))
        trigger = model.context_window * codex.auto_compact_percent // 100
        drain = codex.kept_user_message_tokens + summary_output
        return trigger, drain, trigger - drain, summary_output
    trigger = model.context_window - policy.reserve_tokens
    drain = policy.keep_recent_tokens + summary_output
    summarized = trigger - policy.keep_recent_tokens
    summary_input = summarized * (200 - policy.tool_result_share_percent) // 200
    return trigger, drain, summary_input, summary_output


def _lifetime(
    model: CatalogModel, policy: RouteTemplatePolicy, agent: Agent
) -> int | Literal["unknown"]:
    """The provider's documented lifetime; Claude Code's own request where the provider is one
    whose lifetime is documented (its breakpoints carry no ttl: Anthropic's default)."""
    documented = policy.cache_lifetime_ms_by_provider.get(model.provider)
    if documented is None:
        return UNKNOWN_LIFETIME
    return policy.claude_code.cache_lifetime_ms if agent is Agent.CLAUDE_CODE else documented


def template_route(
    model: CatalogModel,
    policy: RouteTemplatePolicy | None = None,
    lifetime_ms: int | None = None,
    agent: Agent = Agent.PI,
) -> Route:
    """The route template for `model` under `agent`'s compaction (formulas in the module
    docstring); `lifetime_ms`, when given, is the cache lifetime the user states for it."""
    policy = route_template_policy() if policy is None else policy
    cost = model.cost
    trigger, drain, summary_input, summary_output = _compaction(model, policy, agent)
    # A model with neither an input nor an output price would make both cost views zero, so
    # the cost criterion would pass whatever clearing did: refuse rather than template it.
    if cost is None or (cost.input == 0 and cost.output == 0):
        raise UsageError(UsageDetail.MODEL_UNPRICED)
    # T <= P leaves no growth between compactions: the pressure model is undefined there.
    if trigger <= drain:
        raise UsageError(UsageDetail.MODEL_WINDOW_TOO_SMALL)
    lifetime = _lifetime(model, policy, agent) if lifetime_ms is None else lifetime_ms
    weights = _weights(cost)
    return Route(
        api=Api(model.api),
        trigger_tokens=trigger,
        drain_tokens=drain,
        summary_input_tokens=summary_input,
        summary_output_tokens=summary_output,
        cache_lifetime_ms=lifetime,
        cache_margin_ms=policy.cache_margin_ms,
        prices=weights,
        quota=weights,
        quota_budget=policy.quota_budget,
    )


def template_routes(
    names: list[str],
    api: Api | None = None,
    lifetimes: list[str] | None = None,
    agent: Agent = Agent.PI,
) -> list[Route]:
    """One template per named model, in the order given; a routes file holds one route per
    API, so two models of one API are refused (MODEL_API_REPEATED). `lifetimes` are the
    `--cache-lifetime-ms` values (`parse_lifetimes`); `agent` whose compaction the routes
    describe."""
    models = [find_model(api, name) for name in names]
    if len({model.api for model in models}) != len(models):
        raise UsageError(UsageDetail.MODEL_API_REPEATED, (MODEL_OPTION,))
    stated = parse_lifetimes(lifetimes or [], names)
    return [
        template_route(model, lifetime_ms=stated.get(name), agent=agent)
        for model, name in zip(models, names, strict=True)
    ]


def unknown_lifetimes(routes: list[Route]) -> list[Api]:
    """The APIs whose route has cacheLifetimeMs "unknown", in the file's order."""
    return [route.api for route in routes if route.cache_lifetime_ms == UNKNOWN_LIFETIME]


def encode_routes(routes: list[Route]) -> bytes:
    """A routes.json document: the array, two-space indented, one trailing newline."""
    return msgspec.json.format(msgspec.json.encode(routes), indent=2) + b"\n"


def encode_names(names: list[str]) -> bytes:
    """One catalog name per line (what `routes init --list` prints)."""
    return "".join(f"{name}\n" for name in names).encode("utf-8")
