"""Config schemas and config decoders agree, except for the documented decoder-only rules.

JSON Schema cannot say "one route per api" or "one proof per (conversation, run) pair"; those
two rules are checked by the decoder alone (ROUTES_DUPLICATE_API, AGENT_CONFIG_RUN_ID_DUPLICATE),
as the schemas' descriptions and docs/formats/*.md state. Everything else must be accepted or
refused by both.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clearing_analysis import strictjson
from clearing_analysis.codes.errors import InputInvalidDetail, InputInvalidError
from clearing_analysis.inputs.configs import (
    parse_agent_config,
    parse_app_allowlist,
    parse_routes,
)
from tests.formats import _strategies as gen
from tests.formats._schema import schema_accepts

PROPERTY = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

DECODER_ONLY = {
    InputInvalidDetail.ROUTES_DUPLICATE_API,
    InputInvalidDetail.AGENT_CONFIG_RUN_ID_DUPLICATE,
}

PARSERS: dict[str, Callable[[Any], object]] = {
    "routes": parse_routes,
    "agent-config": parse_agent_config,
    "app-allowlist": parse_app_allowlist,
}


def decoder_verdict(name: str, value: Any) -> str | None:
    """None when the decoder accepts `value` (after a strict JSON round trip), else the code."""
    try:
        parsed = strictjson.loads(json.dumps(value).encode(), max_depth=64)
        PARSERS[name](parsed)
    except InputInvalidError as error:
        return str(error.detail)
    return None


def assert_agree(name: str, value: Any) -> None:
    verdict = decoder_verdict(name, value)
    if verdict in DECODER_ONLY:
        return
    assert schema_accepts(name, value) == (verdict is None), verdict


@PROPERTY
@given(gen.routes)
def test_generated_routes_accepted_by_both(value: Any) -> None:
    """Routes built from docs/formats/routes.md pass the schema and the decoder."""
    assert schema_accepts("routes", value)
    assert decoder_verdict("routes", value) is None


@PROPERTY
@given(gen.agent_config)
def test_generated_agent_configs_accepted_by_both(value: Any) -> None:
    """Attestations and per-run proof arrays pass the schema and the decoder."""
    assert schema_accepts("agent-config", value)
    assert decoder_verdict("agent-config", value) is None


@PROPERTY
@given(gen.allowlist)
def test_generated_allowlists_accepted_by_both(value: Any) -> None:
    """Reviewed allowlists pass the schema and the decoder."""
    assert schema_accepts("app-allowlist", value)
    assert decoder_verdict("app-allowlist", value) is None


@PROPERTY
@given(
    st.one_of(
        gen.mutated(gen.routes).map(lambda v: ("routes", v)),
        gen.mutated(gen.agent_config).map(lambda v: ("agent-config", v)),
        gen.mutated(gen.allowlist).map(lambda v: ("app-allowlist", v)),
    )
)
def test_mutated_configs_schema_and_decoder_agree(case: tuple[str, Any]) -> None:
    """After one random edit, schema and decoder agree (decoder-only rules aside)."""
    assert_agree(*case)


@pytest.mark.parametrize(
    ("name", "value", "code"),
    [
        ("routes", [{"api": "openai-responses"}] * 2, InputInvalidDetail.ROUTES_WRONG_SHAPE),
        ("app-allowlist", [{"x": 1}], InputInvalidDetail.APP_ALLOWLIST_WRONG_SHAPE),
    ],
)
def test_shape_failures_are_schema_failures(name: str, value: Any, code: str) -> None:
    """A decoder WRONG_SHAPE refusal is a schema refusal too."""
    assert decoder_verdict(name, value) == code
    assert not schema_accepts(name, value)
