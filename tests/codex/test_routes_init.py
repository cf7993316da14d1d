"""`routes init --agent codex` (docs/formats/routes.md, "Codex routes"): Codex's own
auto-compaction limit, 90% of the model's window, and its drain; models of other APIs refused
by a fixed line, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clearing_analysis.codex import ReadRollout, read_rollout
from clearing_analysis.codex.read import Compaction
from clearing_analysis.inputs.configs import Api, load_routes
from tests._public_data import public_folder
from tests.cli._guarded import Done, invoke


def _init(args: list[str], capsys: pytest.CaptureFixture[str]) -> Done:
    return invoke(["routes", "init", *args], capsys)


def test_codex_route_from_its_auto_compaction_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """gpt-5.3-codex (window 272,000): T = 272,000 * 90 // 100 = 244,800; P = 20,000 kept user
    messages + the 13,107 summary; I = T - P = 211,693 (a stated estimate, as for Claude
    Code); an
    openai-responses model (API key) gets the same rule from its own window; the file loads."""
    out = tmp_path / "routes.json"
    args = [
        "--agent",
        "codex",
        "--model",
        "openai-codex/gpt-5.3-codex",
        "--model",
        "openai/gpt-5.1",
    ]
    done = _init([*args, "--out", str(out)], capsys)
    assert (done.status, done.stdout) == (0, "")
    codex, api_key = json.loads(out.read_bytes())
    assert (codex["api"], codex["triggerTokens"], codex["drainTokens"]) == (
        "openai-codex-responses",
        244_800,
        33_107,
    )
    assert (codex["summaryInputTokens"], codex["summaryOutputTokens"]) == (211_693, 13_107)
    # gpt-5.1: window 400,000.
    assert (api_key["api"], api_key["triggerTokens"]) == ("openai-responses", 360_000)
    assert sorted(load_routes(out).by_api) == [Api.OPENAI_CODEX_RESPONSES, Api.OPENAI_RESPONSES]


def test_codex_refuses_other_apis(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Codex speaks the OpenAI Responses APIs only: an anthropic-messages model is
    MODEL_CODEX_MISMATCH, nothing of the model is repeated and nothing is created."""
    out = tmp_path / "routes.json"
    args = ["--agent", "codex", "--model", "anthropic/claude-sonnet-4-5", "--out", str(out)]
    done = _init(args, capsys)
    assert (done.status, done.stdout) == (2, "")
    assert done.stderr == (
        "clearing-analysis: USAGE_ERROR MODEL_CODEX_MISMATCH: give --model a model of"
        " openai-codex-responses or openai-responses (routes init --list)\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_the_public_compaction_lies_below_the_codex_limit() -> None:
    """The one public compaction (mid-turn, so automatic) held 212,134 tokens, below the 90%
    default for its model (244,800): a lower limit from the model's metadata, which a rollout
    does not record (docs/formats/routes.md, "Codex routes")."""
    path = next(public_folder("codex").rglob("rollout-2026-02-23T12-54-34-*.jsonl"))
    read = read_rollout(path)
    assert isinstance(read, ReadRollout)
    (compaction,) = (c for c in read.items if isinstance(c, Compaction))
    assert compaction.tokens_before < 272_000 * 90 // 100
