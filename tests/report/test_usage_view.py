"""The recorded usage per API in `--details`: the sums a usage tracker shows, recounted here
from the session file itself, and the 80-column view they sit in."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from clearing_analysis.inputs.requests import ExploreRequest
from clearing_analysis.pipeline.jobs import explore_job
from clearing_analysis.report.encode import decode_report
from clearing_analysis.report.text.view import render_text
from tests._seed_route import SEED_ROUTE

ROOT = Path(__file__).resolve().parents[2]
MAIN_SESSION = ROOT / "tests" / "data" / "pi-sessions" / "writer" / "main.jsonl"
API = "openai-completions"


def _corpus(directory: Path) -> Path:
    """One session of the writer with a distinct cache write on each request, so every usage
    field has a non-zero sum of its own."""
    directory.mkdir()
    lines = []
    for index, line in enumerate(MAIN_SESSION.read_text().splitlines()):
        entry = json.loads(line)
        message = entry.get("message") or {}
        if message.get("role") == "assistant":
            message["usage"]["cacheWrite"] = 7 * index
        lines.append(json.dumps(entry))
    (directory / "main.jsonl").write_text("\n".join(lines) + "\n")
    return directory


def _recount(directory: Path) -> dict[str, int]:
    """The usage fields summed over the assistant messages, independently of the library."""
    sums = {"requests": 0, "input": 0, "cacheRead": 0, "cacheWrite": 0, "output": 0}
    for line in (directory / "main.jsonl").read_text().splitlines():
        message = json.loads(line).get("message") or {}
        if message.get("role") == "assistant":
            sums["requests"] += 1
            for field in ("input", "cacheRead", "cacheWrite", "output"):
                sums[field] += message["usage"][field]
    return sums


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, bytes]:
    scratch = tmp_path_factory.mktemp("usage")
    sessions = _corpus(scratch / "sessions")
    routes = scratch / "routes.json"
    routes.write_text(json.dumps([{**SEED_ROUTE, "api": API}]))
    return (
        sessions,
        routes,
        explore_job(ExploreRequest(sessions=(sessions,), routes=routes, workers=1)).data,
    )


def _row(text: str, label: str) -> str:
    """The value of the first row whose label is exactly `label`."""
    rows = [line.strip().rsplit(None, 1) for line in text.splitlines() if line.strip()]
    return next(row[1] for row in rows if len(row) == 2 and row[0] == label)


def test_details_show_the_recorded_usage_summed_as_recorded(
    corpus: tuple[Path, Path, bytes],
) -> None:
    """--details prints requests, input, cache read, cache write and output of the API, each
    equal to the sum recounted from the session file."""
    sessions, _, data = corpus
    expected = _recount(sessions)
    assert expected["cacheWrite"] > 0
    text = render_text(decode_report(data), details=True)
    assert "Recorded usage (tokens, as recorded)" in text
    usage = text[text.index("Recorded usage") :]
    assert _row(usage, "requests") == f"{expected['requests']:,}"
    assert _row(usage, "requests with recorded usage") == f"{expected['requests']:,}"
    assert _row(usage, "input") == f"{expected['input']:,}"
    assert _row(usage, "cache read") == f"{expected['cacheRead']:,}"
    assert _row(usage, "cache write") == f"{expected['cacheWrite']:,}"
    assert _row(usage, "output") == f"{expected['output']:,}"


def test_the_summary_alone_has_no_usage_table(corpus: tuple[Path, Path, bytes]) -> None:
    """Without --details the one-screen summary stays as it was."""
    assert "Recorded usage" not in render_text(decode_report(corpus[2]))


@pytest.mark.skipif(shutil.which("script") is None, reason="needs util-linux script")
def test_the_usage_table_fits_an_80_column_terminal(
    corpus: tuple[Path, Path, bytes], tmp_path: Path
) -> None:
    """explore --details in an 80x24 terminal: no line wider than 80 and the table whole."""
    sessions, routes, _ = corpus
    cli = Path(sys.executable).parent / "clearing-analysis"
    command = (
        f"stty cols 80 rows 24; {cli} explore --sessions {sessions} --routes {routes}"
        f" --workers 1 --details"
    )
    env = {**os.environ, "NO_COLOR": "1", "TERM": "dumb"}
    done = subprocess.run(
        ["script", "-qec", command, "/dev/null"],
        capture_output=True,
        env=env,
        cwd=tmp_path,
        check=False,
        timeout=300,
    )
    text = done.stdout.decode("utf-8").replace("\r", "")
    assert done.returncode == 0, text[-400:]
    assert "Recorded usage (tokens, as recorded)" in text
    widest = max(len(line) for line in text.splitlines())
    assert widest <= 80


def test_the_list_price_cost_is_the_recorded_sums_at_the_route_prices(
    corpus: tuple[Path, Path, bytes],
) -> None:
    """usage.listPriceCost is input, cache read, cache write and output at the route's list
    prices per million tokens, and --details prints it to 4 decimals in USD."""
    sessions, _, data = corpus
    sums = _recount(sessions)
    prices = SEED_ROUTE["prices"]
    fields = ("input", "cacheRead", "cacheWrite", "output")
    expected = sum(Fraction(str(prices[f])) * sums[f] for f in fields) / 1_000_000
    usage = json.loads(data)["perApi"][API]["usage"]
    assert usage["listPriceCost"] == pytest.approx(float(expected), rel=1e-12)
    text = render_text(decode_report(data), details=True)
    (line,) = [line for line in text.splitlines() if "list-price cost (route's prices)" in line]
    shown = line.split("list-price cost (route's prices)")[1].strip()
    assert shown == f"{float(expected):,.4f} USD"


def test_a_report_saved_before_the_cost_field_still_shows(
    corpus: tuple[Path, Path, bytes],
) -> None:
    """An explore report written before usage.listPriceCost existed (same version) decodes,
    and its usage table says the cost is not in the report instead of inventing one."""
    report = json.loads(corpus[2])
    del report["perApi"][API]["usage"]["listPriceCost"]
    older = json.dumps(report, separators=(",", ":")).encode()
    text = render_text(decode_report(older), details=True)
    (line,) = [line for line in text.splitlines() if "list-price cost (route's prices)" in line]
    assert line.split("list-price cost (route's prices)")[1].strip() == "not in this report"
