"""Fixed statements (R-OUT-5): both report kinds and their human views say that the default 5%
retrieval rate is pending lookup-pilot evidence, whatever rate was supplied."""

from __future__ import annotations

from pathlib import Path

import pytest

from clearing_analysis.inputs.requests import AnalyzeRequest, ExploreRequest, parse_retrieval_rate
from clearing_analysis.pipeline.jobs import analyze_job, explore_job
from clearing_analysis.report.explore_model import ExploreStatement
from clearing_analysis.report.model import Statement
from clearing_analysis.report.text.view import render_text
from clearing_analysis.synth import generate
from clearing_analysis.synth.pi_export import export_sessions

PENDING = "pending lookup-pilot evidence"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small synthetic corpus."""
    out = tmp_path_factory.mktemp("statements") / "corpus"
    generate(out, 3, conversations=2, profile="build")
    return out


def test_analysis_report_states_the_default_rate_is_pending(corpus: Path) -> None:
    """With a supplied 20% rate the report still carries DEFAULT_RETRIEVAL_RATE_PENDING, and
    the human view's details print it."""
    job = analyze_job(
        AnalyzeRequest(
            journals=(corpus / "journals",),
            sidecar=corpus / "history.sqlite",
            routes=corpus / "routes.json",
            retrieval_rate=parse_retrieval_rate(0.2),
        )
    )
    assert Statement.DEFAULT_RETRIEVAL_RATE_PENDING in job.report.statements
    assert PENDING in render_text(job.report, details=True)


def test_explore_report_states_the_default_rate_is_pending(corpus: Path, tmp_path: Path) -> None:
    """The explore report and its human view make the same statement."""
    sessions = tmp_path / "sessions"
    export_sessions(sorted((corpus / "journals").glob("*.jsonl")), sessions)
    job = explore_job(ExploreRequest(sessions=(sessions,), routes=corpus / "routes.json"))
    assert ExploreStatement.DEFAULT_RETRIEVAL_RATE_PENDING in job.report.statements
    assert PENDING in render_text(job.report, details=True)
