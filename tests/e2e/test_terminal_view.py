"""The human view on a real terminal, 80 and 200 columns wide (R-CLI-6).

Through a pseudo-terminal (tests/e2e/_terminal.py) `show` and `analyze` print the view laid
out for the terminal: never an ellipsis, no line wider than the terminal, the overall verdict
and every API's verdict within the first 24 lines, and the default view (the one-screen
summary) under 100 lines for a four-API report; `--details` adds every table after it under
the same rules. An explore report obeys the same rules. The four-API report is the golden
`mixed` report (no qualification record: every API also DEFERs on PAYLOAD_UNQUALIFIED, the
longest reason lines).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from clearing_analysis.inputs.configs import Api
from clearing_analysis.synth import generate
from clearing_analysis.synth.pi_export import export_sessions
from tests.e2e._cli import run_cli
from tests.e2e._terminal import run_on_terminal
from tests.synth.corpora import corpus_options

ROOT = Path(__file__).resolve().parents[2]
FOUR_APIS = ROOT / "tests" / "golden" / "report-mixed.json"
SCREEN = 24
MAX_DEFAULT_LINES = 100
WIDTHS = (80, 200)


def _fits(text: str, columns: int) -> list[str]:
    """The lines, after checking none is cut or wider than the terminal."""
    assert "…" not in text
    lines = text.splitlines()
    assert lines
    assert max(len(line) for line in lines) <= columns
    return lines


def _screen(lines: list[str]) -> list[str]:
    """The summary's lines before its closing what-if and re-fetch lines (informational,
    never gating), which follow the one screen and take at most three lines and one line at
    80 columns."""
    starts = [i for i, line in enumerate(lines) if line.startswith("What-ifs (informational")]
    assert len(starts) == 1
    assert lines[-1].startswith("Re-fetch share")
    assert len(lines) - starts[0] <= 4
    return lines[: starts[0]]


def _verdicts_on_first_screen(lines: list[str], apis: list[str]) -> None:
    first = lines[:SCREEN]
    assert any(line.startswith("Overall: ") for line in first)
    for api in apis:
        assert any(line.startswith(f"{api}: ") for line in first), api


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("terminal") / "corpus"
    generate(root, 20261129, conversations=6, profile="mixed")
    return root


@pytest.mark.parametrize("columns", WIDTHS)
def test_show_fits_the_terminal_and_leads_with_the_verdicts(columns: int) -> None:
    """`show` of a four-API report: verdicts on the first screen, no ellipsis, no line wider
    than the terminal, the default view under 100 lines (at 80 columns the summary fits one
    24-line screen, then its informational what-if line); `--details` starts with the same
    summary and keeps the same rules."""
    status, summary = run_on_terminal(["show", FOUR_APIS], columns=columns)
    assert status == 0
    lines = _fits(summary, columns)
    apis = [api.value for api in Api]
    _verdicts_on_first_screen(lines, apis)
    assert len(lines) <= MAX_DEFAULT_LINES
    if columns == 80:
        assert len(_screen(lines)) <= SCREEN
    # Listed in analyze's order (the seed's), not the saved file's sorted keys.
    heads = [line.split(":")[0] for line in lines if line.split(":")[0] in apis]
    assert heads == apis
    status, detailed = run_on_terminal(["show", FOUR_APIS, "--details"], columns=columns)
    assert status == 0
    assert detailed.startswith(summary)
    detail_lines = _fits(detailed, columns)
    assert len(detail_lines) > 4 * MAX_DEFAULT_LINES  # every table of every API is there
    for api in apis:
        assert f"\n{api}: " in detailed.split("Details", 1)[1]


@pytest.mark.parametrize("columns", WIDTHS)
def test_analyze_on_a_terminal_prints_the_same_view(corpus: Path, columns: int) -> None:
    """`analyze` with stdout on a terminal prints the human view under the same rules, the
    same text `show` prints for its saved report."""
    args = ["analyze", *corpus_options(corpus), "--agent-config", corpus / "agent-config.json"]
    status, view = run_on_terminal(args, columns=columns, stderr_on_terminal=False)
    assert status == 0
    lines = _fits(view, columns)
    apis = [line.split(":")[0] for line in lines if line.split(":")[0] in {a.value for a in Api}]
    assert len(apis) == 4
    _verdicts_on_first_screen(lines, apis)
    assert len(lines) <= MAX_DEFAULT_LINES
    saved = corpus.parent / f"report-{columns}.json"
    assert run_cli([*args, "--out", saved]).returncode == 0
    assert run_on_terminal(["show", saved], columns=columns) == (0, view)


@pytest.mark.parametrize("columns", WIDTHS)
def test_explore_report_fits_the_terminal(corpus: Path, columns: int) -> None:
    """An explore report's view (summary, then --details) under the same rules."""
    sessions = corpus.parent / f"sessions-{columns}"
    export_sessions(sorted((corpus / "journals").glob("*.jsonl")), sessions)
    saved = corpus.parent / f"explore-{columns}.json"
    made = run_cli(
        ["explore", "--sessions", sessions, "--routes", corpus / "routes.json", "--out", saved]
    )
    assert made.returncode == 0
    status, summary = run_on_terminal(["show", saved], columns=columns)
    assert status == 0
    lines = _fits(summary, columns)
    assert len(_screen(lines)) <= (SCREEN if columns == 80 else MAX_DEFAULT_LINES)
    assert lines[1].startswith("Exploration only: never a verdict.")
    status, detailed = run_on_terminal(["show", saved, "--details"], columns=columns)
    assert status == 0
    _fits(detailed, columns)
    assert "UPPER BOUND" in detailed
