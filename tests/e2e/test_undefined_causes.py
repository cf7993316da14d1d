"""Every undefined model figure says which cause holds (docs/model.md, section 8: NO_GROWTH,
TRIGGER_NOT_ABOVE_DRAIN): the pressure part, the cost part and each what-if row of the report,
and the views that print them."""

from __future__ import annotations

import json
from pathlib import Path

from clearing_analysis.inputs.requests import ExploreRequest
from clearing_analysis.pipeline.jobs import explore_job
from clearing_analysis.report.encode import decode_report
from clearing_analysis.report.formats import ReportFormat, render
from clearing_analysis.report.text.view import render_text
from tests._seed_route import SEED_ROUTE
from tests.pisession.builder import Session


def test_a_single_boundary_says_no_growth(tmp_path: Path) -> None:
    """One prompt turn: one counted boundary and no compaction, so G = 0. The report names
    NO_GROWTH wherever a figure is undefined (before, only `defined: false`); the terminal
    view and the page say it too."""
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    session = Session()
    session.turn(["read"])
    session.write(sessions / "one.jsonl")
    routes = tmp_path / "routes.json"
    routes.write_text(json.dumps([SEED_ROUTE]))
    data = explore_job(ExploreRequest(sessions=(sessions,), routes=routes)).data
    part = json.loads(data)["perApi"][SEED_ROUTE["api"]]
    assert part["pressure"]["defined"] is False
    assert part["pressure"]["undefinedCauses"] == ["NO_GROWTH"]
    assert part["cost"]["undefinedCauses"] == ["NO_GROWTH"]
    rows = json.loads(data)["whatIfsInformational"]["perApi"][SEED_ROUTE["api"]]
    assert rows and all(row["undefinedCauses"] == ["NO_GROWTH"] for row in rows)
    report = decode_report(data)
    text = " ".join(render_text(report, details=True).split())
    assert "pressure and cost models undefined (NO_GROWTH: no native growth G)" in text
    assert "Cost model: undefined with the pressure model (NO_GROWTH: no native growth G)" in text
    assert b"PRESSURE_MODEL_UNDEFINED (NO_GROWTH)" in render(report, ReportFormat.HTML)
