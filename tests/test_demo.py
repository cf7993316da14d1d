"""The demo job: deterministic, short, its first part DEFERs and its second shows clearing at
work up to a BUILD on sufficient evidence; with details, its counts agree with the generator."""

import json
import time
from pathlib import Path

import pytest

from clearing_analysis.gate import Verdict
from clearing_analysis.inputs.requests import DemoRequest
from clearing_analysis.pipeline.demo import (
    BUILD_CONVERSATIONS,
    BUILD_PROFILE,
    BUILD_SEED,
    CLEARING,
    DEMO_CONVERSATIONS,
    DEMO_PROFILE,
    DEMO_SEED,
    analyze_part,
    run_demo,
)
from clearing_analysis.report.text.usage import UsageBy
from clearing_analysis.synth import generate
from tests.cli._guarded import invoke, usage_line

MAX_LINES = 80
WIDTH = 80


def _lines_fit(text: str, width: int) -> None:
    lines = text.splitlines()
    assert "…" not in text
    assert max(len(line) for line in lines) <= width


def test_demo_text_is_deterministic_short_and_in_two_parts(tmp_path: Path) -> None:
    """Two demo runs with the embedded seeds print the same text, in under a minute each: at
    most 80 lines of at most 80 columns, never an ellipsis; part 1 DEFERs on too little
    evidence and says which criteria would STOP, part 2 BUILDs and shows what was cleared,
    the pressure model and the cost waterfall, and says which history it stands for."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    started = time.monotonic()
    first = run_demo(
        tmp_path / "a",
        DemoRequest(seed=DEMO_SEED, conversations=DEMO_CONVERSATIONS, profile=DEMO_PROFILE),
    )
    assert time.monotonic() - started < 60
    second = run_demo(
        tmp_path / "b",
        DemoRequest(seed=DEMO_SEED, conversations=DEMO_CONVERSATIONS, profile=DEMO_PROFILE),
    )
    assert first == second
    assert len(first.splitlines()) <= MAX_LINES
    _lines_fit(first, WIDTH)
    realistic, clearing = first.split("Part 2 of 2: clearing at work", 1)
    assert "Part 1 of 2: a realistic mix" in realistic
    assert "Overall: DEFER" in realistic
    for api in ("anthropic-messages", "openai-responses", "openai-codex-responses"):
        assert f"{api}: DEFER on " in realistic  # every API has its verdict line
    assert "DEFER takes precedence over STOP" in realistic
    assert "Overall: BUILD" in clearing
    assert "openai-responses: BUILD, all six criteria pass" in clearing
    assert "It stands for long sessions that read the large files" in " ".join(clearing.split())
    for shown in ("results cleared", "Pressure model", "Cost waterfall", "- removed (observed)"):
        assert shown in clearing
    assert "explore" not in realistic.lower().split("next:")[0]  # explore only with details


def test_demo_second_part_builds_with_clearing_visibly_at_work(tmp_path: Path) -> None:
    """The second part's corpus reaches BUILD with no DEFER reason (sufficient evidence and a
    valid qualification), clears results at several boundaries, lowers the modeled pressure by
    at least 15% and has every cost component nonzero in both views."""
    assert (
        CLEARING.profile,
        CLEARING.seed,
        CLEARING.conversations,
    ) == (BUILD_PROFILE, BUILD_SEED, BUILD_CONVERSATIONS)
    from clearing_analysis.qualify.record import encode_record
    from clearing_analysis.qualify.runner import qualify

    record = tmp_path / "qualification.json"
    record.write_bytes(encode_record(qualify()))
    report = analyze_part(tmp_path, CLEARING, record).report
    assert report.verdict is Verdict.BUILD
    (part,) = report.per_api.values()
    assert part.gate.defer_reasons == part.gate.stop_reasons == ()
    assert part.qualification.status.value == "QUALIFIED"
    assert part.simulation.clearing_points >= 10
    assert part.simulation.cleared_results > 0
    at = next(a for a in part.pressure.sensitivities if a.rate == part.pressure.gated_rate)
    assert at.reduction >= 0.15
    # Above rate 0 (where nothing is retrieved), in both views.
    sensitivities = part.cost.sensitivities[1:]
    deltas = [
        *(at.list_delta for at in sensitivities),
        *(at.quota_share_delta for at in sensitivities),
    ]
    for delta in deltas:
        components = (
            delta.retained,
            delta.removed.observed,
            delta.removed.extension,
            delta.summary.cycle_change,
            delta.summary.enlarged_summaries,
            delta.retrieval.round_trips,
            delta.retrieval.returned_history,
        )
        assert all(component != 0 for component in components)


def test_demo_details_add_every_table_and_explore(tmp_path: Path) -> None:
    """With details the demo adds both corpora's decoding summaries, every table of both
    analyses and the first corpus explored as pi sessions (never a verdict word there), still
    within 80 columns and without an ellipsis."""
    text = run_demo(
        tmp_path,
        DemoRequest(
            seed=DEMO_SEED, conversations=DEMO_CONVERSATIONS, profile=DEMO_PROFILE, details=True
        ),
    )
    _lines_fit(text, WIDTH)
    assert text.count("Corpus summary") == 2
    assert text.count("Details") >= 2
    _analyzed, rest = text.split("The same history as pi session files", 1)
    explored = rest.split("Part 2 of 2", 1)[0]
    assert "Exploration only: never a verdict." in explored
    assert "UPPER BOUND" in explored
    for word in ("BUILD", "DEFER", "STOP"):
        assert word not in explored


def test_demo_counts_every_journal_file(tmp_path: Path) -> None:
    """The detailed demo's corpus summary counts what the generator wrote."""
    generate(tmp_path / "c", 7, conversations=4, size_mb=None, profile="mixed")
    manifest = json.loads((tmp_path / "c" / "ground-truth.json").read_text())
    (tmp_path / "d").mkdir()
    text = run_demo(
        tmp_path / "d", DemoRequest(seed=7, conversations=4, profile="mixed", details=True)
    )
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


@pytest.mark.parametrize(
    ("by", "title"),
    [
        ("session", "Recorded usage by session"),
        ("day", "Recorded usage by UTC day"),
        ("model", "Recorded usage by model"),
    ],
)
def test_demo_by_adds_each_parts_usage_table(tmp_path: Path, by: UsageBy, title: str) -> None:
    """demo --by adds the named usage table to each part, with its total row, within 80
    columns; the rest of the text is the plain demo's."""
    (tmp_path / "a").mkdir()
    text = run_demo(
        tmp_path / "a",
        DemoRequest(seed=DEMO_SEED, conversations=DEMO_CONVERSATIONS, profile=DEMO_PROFILE, by=by),
    )
    _lines_fit(text, WIDTH)
    realistic, clearing = text.split("Part 2 of 2: clearing at work", 1)
    for part in (realistic, clearing):
        assert part.count(title) == 1
        assert any(line.startswith("total ") for line in part[part.index(title) :].splitlines())
    assert "Overall: DEFER" in realistic and "openai-responses: BUILD" in clearing
