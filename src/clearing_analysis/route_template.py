"""The routes.json entry `routes init` writes: catalog facts plus pi's compaction defaults.

A template for a user to review, never the truth about their agent: docs/formats/routes.md
("Generating a route: routes init") gives every value's source. With the model's catalog entry
(policy/pi-ai-models.json, generated from the pinned pi-ai) and the assumptions of
policy/route-template.json (reserve R = 16,384, kept K = 20,000, summary budget 80%, tool share
80%):

    triggerTokens        T = contextWindow - R                (pi: compact when context > T)
    summaryOutputTokens  O = floor(R * 80 / 100)              (pi's summarizer maxTokens)
    drainTokens          P = K + O                            (kept messages + the summary)
    summaryInputTokens   I = floor((T - K) * (200 - 80) / 200)
    cacheLifetimeMs      the provider's documented lifetime, else "unknown"; margin 30,000 ms
    prices               the catalog's cost per million tokens
    quota, quotaBudget   the prices over 1,000,000: the quota-share view equals the list view

I is the midpoint between what pi's summarizer would read if its 2,000-character cut of each
serialized tool result removed nothing, T - K, and the least it can read when the cut removes
nearly all of the tool output in that span, (T - K) * (1 - 0.8). Integer arithmetic only, so
the template is the same on every machine.

Guarantees:
- The only inputs are the two reviewed policy files and the typed API and PROVIDER/ID; nothing
  else is read, nothing written here.
- A PROVIDER/ID the catalog does not have, a model of another API, a model without a price and
  a model whose window cannot hold pi's default compaction are each a fixed USAGE_ERROR detail
  (the typed value is never kept); every template this returns decodes with
  `inputs.configs.parse_routes`.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from clearing_analysis.errors import UsageDetail, UsageError
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
UNKNOWN_LIFETIME: Literal["unknown"] = "unknown"


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


def template_route(model: CatalogModel, policy: RouteTemplatePolicy | None = None) -> Route:
    """The route template for `model` (formulas in the module docstring)."""
    policy = route_template_policy() if policy is None else policy
    cost = model.cost
    # A model with neither an input nor an output price would make both cost views zero, so
    # the cost criterion would pass whatever clearing did: refuse rather than template it.
    if cost is None or (cost.input == 0 and cost.output == 0):
        raise UsageError(UsageDetail.MODEL_UNPRICED)
    trigger = model.context_window - policy.reserve_tokens
    summary_output = policy.reserve_tokens * policy.summary_budget_percent // 100
    drain = policy.keep_recent_tokens + summary_output
    # T <= P leaves no growth between compactions: the pressure model is undefined there.
    if trigger <= drain:
        raise UsageError(UsageDetail.MODEL_WINDOW_TOO_SMALL)
    summarized = trigger - policy.keep_recent_tokens
    summary_input = summarized * (200 - policy.tool_result_share_percent) // 200
    lifetime: int | Literal["unknown"] = policy.cache_lifetime_ms_by_provider.get(
        model.provider, UNKNOWN_LIFETIME
    )
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


def template_routes(names: list[str], api: Api | None = None) -> list[Route]:
    """One template per named model, in the order given; a routes file holds one route per
    API, so two models of one API are refused (MODEL_API_REPEATED)."""
    models = [find_model(api, name) for name in names]
    if len({model.api for model in models}) != len(models):
        raise UsageError(UsageDetail.MODEL_API_REPEATED, (MODEL_OPTION,))
    return [template_route(model) for model in models]


def encode_routes(routes: list[Route]) -> bytes:
    """A routes.json document: the array, two-space indented, one trailing newline."""
    return msgspec.json.format(msgspec.json.encode(routes), indent=2) + b"\n"


def encode_names(names: list[str]) -> bytes:
    """One catalog name per line (what `routes init --list` prints)."""
    return "".join(f"{name}\n" for name in names).encode("utf-8")
