"""The demo job: deterministic, and its counts agree with the generator's manifest."""

import json
from pathlib import Path

import pytest

from clearing_analysis.demo import DEMO_CONVERSATIONS, DEMO_PROFILE, DEMO_SEED, run_demo
from clearing_analysis.synth import generate
from tests.cli._guarded import invoke, usage_line


def test_demo_text_is_deterministic(tmp_path: Path) -> None:
    """Two demo runs with the embedded seed print the same text."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = run_demo(
        tmp_path / "a", seed=DEMO_SEED, conversations=DEMO_CONVERSATIONS, profile=DEMO_PROFILE
    )
    second = run_demo(
        tmp_path / "b", seed=DEMO_SEED, conversations=DEMO_CONVERSATIONS, profile=DEMO_PROFILE
    )
    assert first == second
    assert "Verdict per API" in first
    for api in ("anthropic-messages", "openai-responses", "openai-codex-responses"):
        assert f"{api}: " in first  # every API of the corpus has its section and verdict
    _analyzed, explored = first.split("clearing-analysis explore ", 1)
    assert "Exploration only: never a verdict." in explored  # the explore section follows
    assert "UPPER BOUND" in explored
    for word in ("BUILD", "DEFER", "STOP"):
        assert word not in explored


def test_demo_counts_every_journal_file(tmp_path: Path) -> None:
    """The summary's journal-file count equals what the generator wrote."""
    generate(tmp_path / "c", 7, conversations=4, size_mb=None, profile="mixed")
    manifest = json.loads((tmp_path / "c" / "ground-truth.json").read_text())
    (tmp_path / "d").mkdir()
    text = run_demo(tmp_path / "d", seed=7, conversations=4, profile="mixed")
    assert f"journal files: {manifest['journalFiles']:,}" in text


def test_demo_refuses_an_unknown_profile_as_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An unknown --profile is USAGE_ERROR BAD_VALUE naming --profile (exit 2), not an
    internal fault, and the unknown name is not echoed."""
    done = invoke(["demo", "--profile", "nopeprofile"], capsys)
    assert (done.status, done.stdout) == (2, "")
    assert done.stderr == usage_line("BAD_VALUE", "--profile")
    assert "nopeprofile" not in done.stderr
