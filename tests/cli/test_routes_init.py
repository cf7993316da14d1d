"""`routes init`: a routes.json template from the pinned pi-ai catalog, or the catalog's names.

The expected routes are computed by hand from the catalog entries and pi's compaction defaults
(docs/formats/routes.md, "Generating a route: routes init"):

    T = contextWindow - 16,384; O = floor(16,384 * 0.8) = 13,107; P = 20,000 + O = 33,107;
    I = floor((T - 20,000) * 0.6); lifetime by provider; margin 30,000; quota = prices / 10^6.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest

from clearing_analysis.codes.errors import UsageError
from clearing_analysis.inputs.configs import Api, load_routes, parse_routes
from clearing_analysis.models.route_check import check_trigger
from clearing_analysis.policy import load_policy_json, pi_ai_catalog
from clearing_analysis.route_template import Agent, encode_routes, find_model, template_route
from tests._public_data import public_folder
from tests.cli._guarded import Done, invoke

ANTHROPIC = ["--api", "anthropic-messages", "--model", "anthropic/claude-sonnet-4-5"]
OPENAI = ["--api", "openai-responses", "--model", "openai/gpt-5.1"]

# claude-sonnet-4-5: window 200,000; $3 / $0.30 / $3.75 / $15 per million tokens.
# T = 183,616; I = floor(163,616 * 0.6) = floor(98,169.6) = 98,169; Anthropic's 5 minutes.
SONNET_PRICES = {"input": 3, "cacheRead": 0.3, "cacheWrite": 3.75, "output": 15}
SONNET_ROUTE = {
    "api": "anthropic-messages",
    "triggerTokens": 183616,
    "drainTokens": 33107,
    "summaryInputTokens": 98169,
    "summaryOutputTokens": 13107,
    "cacheLifetimeMs": 300000,
    "cacheMarginMs": 30000,
    "prices": SONNET_PRICES,
    "quota": SONNET_PRICES,
    "quotaBudget": 1000000,
}
# gpt-5.1 (openai-responses): window 400,000; $1.25 / $0.13 / $0 / $10 per million tokens.
# T = 383,616; I = floor(363,616 * 0.6) = floor(218,169.6) = 218,169; OpenAI's 24 hours.
GPT_PRICES = {"input": 1.25, "cacheRead": 0.13, "cacheWrite": 0, "output": 10}
GPT_ROUTE = {
    "api": "openai-responses",
    "triggerTokens": 383616,
    "drainTokens": 33107,
    "summaryInputTokens": 218169,
    "summaryOutputTokens": 13107,
    "cacheLifetimeMs": 86400000,
    "cacheMarginMs": 30000,
    "prices": GPT_PRICES,
    "quota": GPT_PRICES,
    "quotaBudget": 1000000,
}


def test_one_file_for_several_apis(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Repeated --model values (no --api: each model's API comes from the catalog) give one
    routes file with one hand-computed route per API, in the order given, that loads."""
    out = tmp_path / "routes.json"
    args = ["--model", "openai/gpt-5.1", "--model", "anthropic/claude-sonnet-4-5"]
    done = _init([*args, "--out", str(out)], capsys)
    assert (done.status, done.stdout, done.stderr) == (0, "", "")
    assert _written(out) == [GPT_ROUTE, SONNET_ROUTE]
    assert sorted(load_routes(out).by_api) == [Api.ANTHROPIC_MESSAGES, Api.OPENAI_RESPONSES]


def _init(args: list[str], capsys: pytest.CaptureFixture[str]) -> Done:
    return invoke(["routes", "init", *args], capsys)


def _written(path: Path) -> Any:
    return json.loads(path.read_bytes())


@pytest.mark.parametrize(
    ("args", "expected"),
    [(ANTHROPIC, SONNET_ROUTE), (OPENAI, GPT_ROUTE)],
    ids=["anthropic", "openai"],
)
def test_template_equals_the_hand_computed_route(
    args: list[str], expected: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`routes init --out F` creates F holding exactly one route, the hand-computed one, and
    prints nothing."""
    out = tmp_path / "routes.json"
    done = _init([*args, "--out", str(out)], capsys)
    assert (done.status, done.stdout, done.stderr) == (0, "", "")
    assert _written(out) == [expected]


@pytest.mark.parametrize("args", [ANTHROPIC, OPENAI], ids=["anthropic", "openai"])
def test_template_is_a_valid_routes_file(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The file decodes with the analyzer's own routes decoder and validates against the
    routes schema, so it can be passed to --routes as it is."""
    out = tmp_path / "routes.json"
    assert _init([*args, "--out", str(out)], capsys).status == 0
    routes = load_routes(out)
    assert list(routes.by_api) == [Api(args[1])]
    jsonschema.validate(_written(out), load_policy_json("schemas/routes.schema.json"))


def test_stdout_holds_the_same_bytes_as_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --out the same document goes to stdout, and nothing is created."""
    out = tmp_path / "routes.json"
    assert _init([*ANTHROPIC, "--out", str(out)], capsys).status == 0
    done = _init(ANTHROPIC, capsys)
    assert (done.status, done.stderr) == (0, "")
    assert done.stdout.encode() == out.read_bytes()
    assert json.loads(done.stdout) == [SONNET_ROUTE]


def test_existing_out_is_refused_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An existing --out is OUTPUT_REFUSED OUTPUT_EXISTS, exit 2, its content untouched, as for
    every --out of this CLI."""
    out = tmp_path / "routes.json"
    out.write_bytes(b"mine\n")
    done = _init([*ANTHROPIC, "--out", str(out)], capsys)
    assert (done.status, done.stdout) == (2, "")
    assert done.stderr.startswith("clearing-analysis: OUTPUT_REFUSED OUTPUT_EXISTS: ")
    assert out.read_bytes() == b"mine\n"
    assert sorted(tmp_path.iterdir()) == [out]


@pytest.mark.parametrize(
    "model",
    ["anthropic/no-such-model", "openai/gpt-5.1", "no-slash"],
    ids=["unknown", "other-api", "no-slash"],
)
def test_refused_model_creates_nothing(
    model: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A --model the catalog refuses for --api is a USAGE_ERROR line that does not repeat it,
    and --out is not created."""
    out = tmp_path / "routes.json"
    done = _init(["--api", "anthropic-messages", "--model", model, "--out", str(out)], capsys)
    assert (done.status, done.stdout) == (2, "")
    assert done.stderr.startswith("clearing-analysis: USAGE_ERROR MODEL_")
    assert model not in done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("api", list(Api), ids=[api.value for api in Api])
def test_list_prints_only_the_catalog_names_of_the_api(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--list` prints one PROVIDER/ID per line: every catalog model of that API, in catalog
    order, and nothing else; with --out the same bytes go to the new file."""
    expected = [f"{m.provider}/{m.id}" for m in pi_ai_catalog().models if m.api == api.value]
    done = _init(["--api", api.value, "--list"], capsys)
    assert (done.status, done.stderr) == (0, "")
    assert done.stdout.splitlines() == expected
    assert done.stdout.endswith("\n")
    out = tmp_path / "models.txt"
    assert _init(["--api", api.value, "--list", "--out", str(out)], capsys).status == 0
    assert out.read_text(encoding="utf-8") == done.stdout


def test_every_catalog_model_is_templated_or_refused_with_a_reason() -> None:
    """Across the whole catalog, a model either gives a route the decoder accepts, with T > P
    and a summary input below T, or is refused as unpriced or too small for pi's compaction."""
    refused: dict[str, int] = {}
    for model in pi_ai_catalog().models:
        try:
            route = template_route(find_model(Api(model.api), f"{model.provider}/{model.id}"))
        except UsageError as error:
            refused[error.detail.value] = refused.get(error.detail.value, 0) + 1
            continue
        assert route.trigger_tokens > route.drain_tokens
        assert 0 < route.summary_input_tokens < route.trigger_tokens
        assert route.prices == route.quota
        parse_routes(json.loads(encode_routes([route])))
    assert set(refused) <= {"MODEL_UNPRICED", "MODEL_WINDOW_TOO_SMALL"}


def test_cache_lifetime_is_unknown_without_a_documented_provider_default() -> None:
    """A provider the template documents no lifetime for gets "unknown" (never cold)."""
    model = find_model(Api.OPENAI_COMPLETIONS, "deepseek/deepseek-v4-pro")
    assert template_route(model).cache_lifetime_ms == "unknown"


UNKNOWN_LINE = (
    "clearing-analysis: CACHE_LIFETIME_UNKNOWN {api}: the route's cacheLifetimeMs is unknown,"
    " so no gap can be cold and criterion 2 (COLD_EVIDENCE_LOW) cannot pass: set"
    " cacheLifetimeMs from the provider's documentation, or give --cache-lifetime-ms"
    " PROVIDER/ID=MS for the model (docs/formats/routes.md)\n"
)
DEEPSEEK, CODEX = "deepseek/deepseek-v4-pro", "openai-codex/gpt-5.5"


def test_an_unknown_cache_lifetime_is_said_when_the_file_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Models whose catalog provider documents no cache lifetime (deepseek-v4-pro over
    openai-completions, gpt-5.5 over openai-codex-responses) still get their file, exit 0,
    with one fixed line per such route on stderr naming its API and the remedy; before, the
    file said "unknown" silently, which makes every cold boundary impossible."""
    out = tmp_path / "routes.json"
    done = _init(["--model", DEEPSEEK, "--model", CODEX, "--out", str(out)], capsys)
    assert (done.status, done.stdout) == (0, "")
    assert done.stderr == UNKNOWN_LINE.format(api="openai-completions") + UNKNOWN_LINE.format(
        api="openai-codex-responses"
    )
    assert [route["cacheLifetimeMs"] for route in _written(out)] == ["unknown", "unknown"]
    for name in ("deepseek", "gpt-5.5"):
        assert name not in done.stderr  # nothing typed is printed


def test_a_cache_lifetime_per_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--cache-lifetime-ms PROVIDER/ID=MS writes MS for that model alone (it also replaces a
    documented lifetime); the route left unknown is still said."""
    out = tmp_path / "routes.json"
    lifetimes = ["--cache-lifetime-ms", f"{DEEPSEEK}=300000"]
    lifetimes += ["--cache-lifetime-ms", "anthropic/claude-sonnet-4-5=3600000"]
    models = ["--model", DEEPSEEK, "--model", CODEX, "--model", "anthropic/claude-sonnet-4-5"]
    done = _init([*models, *lifetimes, "--out", str(out)], capsys)
    assert (done.status, done.stderr) == (0, UNKNOWN_LINE.format(api="openai-codex-responses"))
    assert [route["cacheLifetimeMs"] for route in _written(out)] == [300_000, "unknown", 3_600_000]
    assert load_routes(out).by_api[Api.OPENAI_COMPLETIONS].cache_lifetime_ms == 300_000


# `--agent claude-code` (docs/formats/routes.md, "Claude Code routes"): Claude Code's own
# auto-compaction threshold, T = min(window, 200,000) - min(32,000, maxTokens) - 13,000;
# O = P = 20,000 (the compact request's cap, no message kept); I = T - P; 5 minutes.
# claude-sonnet-4-5: 200,000 - 32,000 - 13,000 = 155,000; I = 135,000.
CLAUDE_CODE_SONNET = {
    **SONNET_ROUTE,
    "triggerTokens": 155000,
    "drainTokens": 20000,
    "summaryInputTokens": 135000,
    "summaryOutputTokens": 20000,
}


def test_a_claude_code_route_equals_the_hand_computed_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--agent claude-code` writes Claude Code's trigger, drain and summary sizes for the
    model, with the catalog's prices and the 5-minute lifetime, and the file loads."""
    out = tmp_path / "routes.json"
    done = _init([*ANTHROPIC, "--agent", "claude-code", "--out", str(out)], capsys)
    assert (done.status, done.stdout, done.stderr) == (0, "", "")
    assert _written(out) == [CLAUDE_CODE_SONNET]
    assert load_routes(out).by_api[Api.ANTHROPIC_MESSAGES].trigger_tokens == 155_000


@pytest.mark.parametrize(
    ("model", "trigger"),
    [
        # maxTokens 8,192 < 32,000: the reserve is the model's output limit.
        ("anthropic/claude-3-5-haiku-20241022", 200_000 - 8_192 - 13_000),
        # maxTokens 32,000: the reserve is 32,000 either way.
        ("anthropic/claude-opus-4-1", 155_000),
        # The catalog's 1,000,000-token window: Claude Code 2.0.72 to 2.1.16 holds it to
        # 200,000 unless the session runs the 1M variant (then edit T by hand).
        ("anthropic/claude-opus-4-6", 155_000),
    ],
)
def test_the_claude_code_trigger_takes_the_smaller_window_and_reserve(
    model: str, trigger: int
) -> None:
    """The reserve is the smaller of 32,000 and the model's output limit; the window the
    smaller of 200,000 and the catalog's."""
    route = template_route(find_model(Api.ANTHROPIC_MESSAGES, model), agent=Agent.CLAUDE_CODE)
    assert (route.trigger_tokens, route.drain_tokens) == (trigger, 20_000)
    assert route.summary_input_tokens == trigger - 20_000


def test_a_claude_code_route_over_a_gateway_has_an_unknown_lifetime() -> None:
    """Claude Code's 5 minutes hold where the provider's cache is Anthropic's own; a gateway
    (cloudflare-ai-gateway) documents none, so the lifetime stays unknown, as for pi."""
    gateway = find_model(Api.ANTHROPIC_MESSAGES, "cloudflare-ai-gateway/claude-sonnet-4-5")
    assert template_route(gateway, agent=Agent.CLAUDE_CODE).cache_lifetime_ms == "unknown"
    direct = find_model(Api.ANTHROPIC_MESSAGES, "anthropic/claude-sonnet-4-5")
    assert template_route(direct, agent=Agent.CLAUDE_CODE).cache_lifetime_ms == 300_000


def test_a_claude_code_route_for_another_api_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Claude Code speaks anthropic-messages only: a model of another API is MODEL_AGENT_MISMATCH,
    the model is not repeated and nothing is created."""
    out = tmp_path / "routes.json"
    done = _init(["--model", "openai/gpt-5.1", "--agent", "claude-code", "--out", str(out)], capsys)
    assert (done.status, done.stdout) == (2, "")
    assert done.stderr == (
        "clearing-analysis: USAGE_ERROR MODEL_AGENT_MISMATCH: give --model an anthropic-messages"
        " model (routes init --api anthropic-messages --list)\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_the_default_agent_is_pi() -> None:
    """Without --agent the template is pi's, as before."""
    model = find_model(Api.ANTHROPIC_MESSAGES, "anthropic/claude-sonnet-4-5")
    assert template_route(model) == template_route(model, agent=Agent.PI)
    assert msgspec.to_builtins(template_route(model)) == SONNET_ROUTE


def _public_compactions() -> list[tuple[str, int]]:
    """(trigger, preTokens) of every compact_boundary in the public Claude Code transcripts."""
    found: list[tuple[str, int]] = []
    for path in sorted(public_folder("claude-code").rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue  # one file has lines its owner's redactor broke
            if entry.get("subtype") == "compact_boundary":
                meta = entry["compactMetadata"]
                found.append((meta["trigger"], meta["preTokens"]))
    return found


def test_the_public_auto_compaction_agrees_with_the_claude_code_trigger() -> None:
    """The one public compaction (Claude Code 2.1.5, claude-sonnet-4-5) fired automatically at
    155,554 tokens: just past the template's 155,000, so the route check finds no
    contradiction with an overshoot of one turn's growth (a few thousand tokens)."""
    assert _public_compactions() == [("auto", 155_554)]
    model = find_model(Api.ANTHROPIC_MESSAGES, "anthropic/claude-sonnet-4-5-20250929")
    trigger = template_route(model, agent=Agent.CLAUDE_CODE).trigger_tokens
    assert trigger == 155_000
    assert not check_trigger(trigger, [155_554], overshoot=1_000).contradicted
