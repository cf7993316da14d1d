"""policy/pi-ai-models.json and policy/route-template.json decode strictly (no Node needed)."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from clearing_analysis.inputs.configs import Api
from clearing_analysis.policy import (
    PiAiCatalog,
    RouteTemplatePolicy,
    pi_ai_catalog,
    read_policy_bytes,
    route_template_policy,
)
from clearing_analysis.qualify.harness import pinned_package


def _catalog_json() -> dict[str, Any]:
    value = json.loads(read_policy_bytes("pi-ai-models.json"))
    assert isinstance(value, dict)
    return value


def _decode(value: object) -> PiAiCatalog:
    return msgspec.json.decode(json.dumps(value).encode(), type=PiAiCatalog)


def test_catalog_decodes_and_names_the_pinned_package() -> None:
    """The checked-in catalog decodes strictly and was generated from the pinned pi-ai."""
    catalog = pi_ai_catalog()
    assert (catalog.package, catalog.version) == pinned_package()
    assert "do not edit" in catalog.comment.lower()
    assert "qualify/catalog.mjs" in catalog.comment


def test_catalog_holds_only_supported_apis_and_every_one_of_them() -> None:
    """Every model uses one of the four supported APIs, and each API has models."""
    assert {model.api for model in pi_ai_catalog().models} == {api.value for api in Api}


def test_catalog_has_the_models_the_route_tests_use() -> None:
    """The catalog resolves provider/id pairs and refuses unknown ones."""
    catalog = pi_ai_catalog()
    sonnet = catalog.find("anthropic", "claude-sonnet-4-5")
    assert sonnet is not None
    assert (sonnet.api, sonnet.context_window) == ("anthropic-messages", 200000)
    assert catalog.find("anthropic", "no-such-model") is None


def test_catalog_refuses_unknown_fields() -> None:
    """A field the generator never writes (at the top or in a model) is a decode error."""
    top = _catalog_json()
    top["extra"] = 1
    with pytest.raises(msgspec.ValidationError):
        _decode(top)
    inner = _catalog_json()
    inner["models"][0]["baseUrl"] = "x"
    with pytest.raises(msgspec.ValidationError):
        _decode(inner)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("api", "google-generative-ai"),
        ("contextWindow", 0),
        ("provider", "a/b"),
        ("id", ""),
        ("cost", {"input": -1, "output": 1, "cacheRead": 0, "cacheWrite": 0}),
    ],
    ids=["unsupported-api", "zero-window", "slash-in-provider", "empty-id", "negative-price"],
)
def test_catalog_refuses_bad_values(field: str, value: object) -> None:
    """Unsupported APIs, empty names, a slash in a provider and negative prices are refused."""
    catalog = _catalog_json()
    catalog["models"][0][field] = value
    with pytest.raises(msgspec.ValidationError):
        _decode(catalog)


def test_catalog_refuses_unsorted_or_repeated_models() -> None:
    """A reordered or repeated model is refused (the generator writes them sorted, once)."""
    repeated = _catalog_json()
    repeated["models"].insert(1, repeated["models"][0])
    with pytest.raises(msgspec.ValidationError):
        _decode(repeated)
    swapped = _catalog_json()
    swapped["models"][0], swapped["models"][1] = swapped["models"][1], swapped["models"][0]
    with pytest.raises(msgspec.ValidationError):
        _decode(swapped)


def test_unpriced_models_are_null_not_a_sentinel() -> None:
    """pi-ai's negative 'price depends on routing' sentinel is written as a null cost."""
    auto = pi_ai_catalog().find("openrouter", "openrouter/auto")
    assert auto is not None
    assert auto.cost is None


def test_route_template_policy_decodes_strictly() -> None:
    """policy/route-template.json decodes; an unknown field is refused."""
    policy = route_template_policy()
    assert (policy.reserve_tokens, policy.keep_recent_tokens) == (16384, 20000)
    value = json.loads(read_policy_bytes("route-template.json"))
    value["extra"] = 1
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(json.dumps(value).encode(), type=RouteTemplatePolicy)
