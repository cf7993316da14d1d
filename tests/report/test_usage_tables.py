"""The usage tables of `--by session|day|model`: hand-built sessions give the hand numbers,
every table adds up to the per-API usage, the tables are stored only with `--by`, and the
view never names a session by its id or path nor a model the catalog does not list."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from clearing_analysis.codes.errors import InputInvalidDetail, InputInvalidError
from clearing_analysis.inputs.requests import AnalyzeRequest, ExploreRequest
from clearing_analysis.pipeline.jobs import analyze_job, explore_job
from clearing_analysis.report.encode import decode_report
from clearing_analysis.report.text.view import render_text
from tests._seed_route import SEED_ROUTE

API = "openai-completions"
CATALOG_MODEL = ("cerebras", "gpt-oss-120b")  # a pinned pi-ai catalog model of API
PRIVATE_MODEL = ("acme-private", "secret-model-canary-7f3a")  # not in the catalog
SESSION_ID_A = "0f0f0f0f-aaaa-7000-8000-c0ffee000001"
SESSION_ID_B = "0f0f0f0f-bbbb-7000-8000-c0ffee000002"
CLI = Path(sys.executable).parent / "clearing-analysis"


def _ms(stamp: str) -> int:
    return int(datetime.fromisoformat(stamp).replace(tzinfo=UTC).timestamp() * 1000)


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _session(
    session_id: str, model: tuple[str, str], turns: list[tuple[str, dict[str, int]]]
) -> str:
    """A pi session file (format version 3): one prompt turn per (time, usage), each one user
    message and one assistant reply that stops."""
    first = _ms(turns[0][0]) - 1000
    lines: list[dict[str, Any]] = [
        {
            "type": "session",
            "version": 3,
            "id": session_id,
            "timestamp": _iso(first),
            "cwd": "/home/someone/private-project-canary",
        }
    ]
    parent = None
    for index, (stamp, usage) in enumerate(turns):
        at = _ms(stamp)
        user = {"role": "user", "content": [{"type": "text", "text": f"q{index}"}], "timestamp": at}
        reply = {
            "role": "assistant",
            "content": [{"type": "text", "text": f"a{index}"}],
            "api": API,
            "provider": model[0],
            "model": model[1],
            "usage": {
                **usage,
                "totalTokens": sum(usage.values()),
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
            },
            "stopReason": "stop",
            "timestamp": at + 500,
        }
        for offset, message in ((0, user), (500, reply)):
            entry_id = f"{index:04d}{offset:04d}"
            lines.append(
                {
                    "type": "message",
                    "id": entry_id,
                    "parentId": parent,
                    "timestamp": _iso(at + offset),
                    "message": message,
                }
            )
            parent = entry_id
    return "".join(json.dumps(line) + "\n" for line in lines)


def _usage(prompt: int, read: int, write: int, output: int) -> dict[str, int]:
    return {"input": prompt, "cacheRead": read, "cacheWrite": write, "output": output}


# Session a: two turns on 2026-11-30, a catalog model. Session b: one turn late on
# 2026-11-30 and one just after midnight UTC, on 2026-12-01, a model the catalog lacks.
SESSION_A = [
    ("2026-11-30T09:00:00", _usage(1000, 0, 200, 50)),
    ("2026-11-30T09:10:00", _usage(30, 1200, 0, 40)),
]
SESSION_B = [
    ("2026-11-30T23:58:00", _usage(700, 0, 100, 20)),
    ("2026-12-01T00:05:00", _usage(10, 800, 5, 30)),
]


def _cost(prompt: int, read: int, write: int, output: int) -> float:
    """The seed route's list prices per million tokens, worked by hand."""
    prices = SEED_ROUTE["prices"]
    return (
        prompt * prices["input"]
        + read * prices["cacheRead"]
        + write * prices["cacheWrite"]
        + output * prices["output"]
    ) / 1_000_000


def _row(requests: int, prompt: int, read: int, write: int, output: int) -> dict[str, Any]:
    return {
        "requests": requests,
        "input": prompt,
        "cacheRead": read,
        "cacheWrite": write,
        "output": output,
        "listPriceCost": pytest.approx(_cost(prompt, read, write, output), rel=1e-9),
    }


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    scratch = tmp_path_factory.mktemp("usage-tables")
    sessions = scratch / "sessions-canary-dir"
    sessions.mkdir()
    (sessions / "a.jsonl").write_text(_session(SESSION_ID_A, CATALOG_MODEL, SESSION_A))
    (sessions / "b.jsonl").write_text(_session(SESSION_ID_B, PRIVATE_MODEL, SESSION_B))
    routes = scratch / "routes.json"
    routes.write_text(json.dumps([{**SEED_ROUTE, "api": API}]))
    return sessions, routes


@pytest.fixture(scope="module")
def explored(corpus: tuple[Path, Path]) -> bytes:
    sessions, routes = corpus
    return explore_job(
        ExploreRequest(sessions=(sessions,), routes=routes, workers=1, usage_by=True)
    ).data


def test_hand_built_sessions_give_the_hand_numbers(explored: bytes) -> None:
    """Two sessions over two UTC days and two models: every row of the three tables is the
    sum worked by hand, sessions numbered in file order, days ascending, the model the
    catalog lacks in one row without its name."""
    tables = json.loads(explored)["usageBy"]
    assert tables["bySession"] == [
        {"session": 1, **_row(2, 1030, 1200, 200, 90)},
        {"session": 2, **_row(2, 710, 800, 105, 50)},
    ]
    assert tables["byDay"] == [
        {"day": "2026-11-30", **_row(3, 1730, 1200, 300, 110)},
        {"day": "2026-12-01", **_row(1, 10, 800, 5, 30)},
    ]
    assert tables["byModel"] == [
        {"model": "cerebras/gpt-oss-120b", **_row(2, 1030, 1200, 200, 90)},
        {"model": None, **_row(2, 710, 800, 105, 50)},
    ]


def _sum(rows: list[dict[str, Any]], field: str) -> Any:
    return sum(row[field] for row in rows)


def _assert_tables_add_up(report: dict[str, Any]) -> None:
    usages = [part["usage"] for part in report["perApi"].values()]
    requests = sum(part["requests"]["requests"] for part in report["perApi"].values())
    for rows in report["usageBy"].values():
        assert rows
        assert _sum(rows, "requests") == requests
        for field in ("input", "cacheRead", "cacheWrite", "output"):
            assert _sum(rows, field) == _sum(usages, field)
        assert _sum(rows, "listPriceCost") == pytest.approx(_sum(usages, "listPriceCost"))


def test_each_table_adds_up_to_the_per_api_usage(explored: bytes) -> None:
    """Each table's rows sum to the per-API usage (requests, tokens, list-price cost)."""
    _assert_tables_add_up(json.loads(explored))


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small synthetic corpus of native journals over several APIs."""
    corpus = tmp_path_factory.mktemp("synthetic") / "corpus"
    subprocess.run(
        [CLI, "synth", "--out", corpus, "--seed", "7", "--conversations", "3"],
        check=True,
        capture_output=True,
    )
    return corpus


def _analyze(corpus: Path, workers: int) -> bytes:
    return analyze_job(
        AnalyzeRequest(
            journals=(corpus / "journals",),
            sidecar=corpus / "history.sqlite",
            routes=corpus / "routes.json",
            agent_config=corpus / "agent-config.json",
            app_allowlist=corpus / "app-allowlist.json",
            workers=workers,
            usage_by=True,
        )
    ).data


def test_analyze_tables_add_up_and_are_the_same_for_any_worker_count(synthetic: Path) -> None:
    """On a synthetic corpus of several APIs, analyze --by's tables add up to the per-API
    usage, and the report is byte-identical with 1 and 2 workers."""
    one = _analyze(synthetic, 1)
    report = json.loads(one)
    assert len(report["perApi"]) > 1
    assert len(report["usageBy"]["bySession"]) > 1
    _assert_tables_add_up(report)
    assert _analyze(synthetic, 2) == one


def test_analyze_details_show_each_apis_recorded_usage_at_its_route_prices(
    synthetic: Path,
) -> None:
    """analyze's per-API usage is priced at that API's route (routes.json, worked here), and
    --details prints each API's "Recorded usage" table with the report's figures."""
    data = _analyze(synthetic, 1)
    report = json.loads(data)
    prices = {
        route["api"]: route["prices"]
        for route in json.loads((synthetic / "routes.json").read_text())
    }
    text = render_text(decode_report(data), details=True)
    details = text[text.index("\nDetails") :]
    assert text.count("Recorded usage (tokens, as recorded)") == len(report["perApi"])
    for api, part in report["perApi"].items():
        usage = part["usage"]
        worked = (
            sum(
                usage[field] * prices[api][field]
                for field in ("input", "cacheRead", "cacheWrite", "output")
            )
            / 1_000_000
        )
        assert usage["listPriceCost"] == pytest.approx(worked, rel=1e-9)
        assert (
            usage["observedRequests"] == part["requests"]["requests"] - part["requests"]["fallback"]
        )
        section = details[details.index(f"\n{api}: ") :]
        table = section[section.index("Recorded usage") :]
        lines = {
            " ".join(line.split()[:-1]): line.split()[-1]
            for line in table.splitlines()[:9]
            if line.strip()
        }
        assert lines["cache read"] == f"{usage['cacheRead']:,}"
        cost = next(line for line in table.splitlines() if "list-price cost" in line)
        assert cost.split()[-2:] == [f"{usage['listPriceCost']:,.4f}", "USD"]


def test_the_tables_are_stored_only_with_by(corpus: tuple[Path, Path]) -> None:
    """Without --by the report has no usageBy member at all (not null)."""
    sessions, routes = corpus
    assert "usageBy" not in json.loads(
        explore_job(ExploreRequest(sessions=(sessions,), routes=routes, workers=1)).data
    )


def test_the_view_numbers_sessions_and_never_names_their_ids_paths_or_unlisted_models(
    explored: bytes, corpus: tuple[Path, Path]
) -> None:
    """Each --by table prints its rows and total; no session id, file name, directory, cwd
    or unlisted model name appears in the view or the report."""
    report = decode_report(explored)
    views = {by: render_text(report, details=True, by=by) for by in ("session", "day", "model")}
    assert "session 1" in views["session"] and "session 2" in views["session"]
    assert "2026-12-01" in views["day"]
    assert "cerebras/gpt-oss-120b" in views["model"] and "not in the catalog" in views["model"]
    total = next(line for line in views["day"].splitlines() if line.startswith("total"))
    assert total.split()[1:] == [
        "4",
        "1,740",
        "2,000",
        "305",
        "140",
        f"{_cost(1740, 2000, 305, 140):,.4f}",
    ]
    sessions, _ = corpus
    secrets = [SESSION_ID_A, SESSION_ID_B, "canary", "a.jsonl", "b.jsonl", str(sessions)]
    secrets += [PRIVATE_MODEL[0], PRIVATE_MODEL[1], "private-project"]
    for text in [*views.values(), explored.decode()]:
        assert not [secret for secret in secrets if secret in text]


def test_show_by_on_a_report_without_the_tables_says_so(corpus: tuple[Path, Path]) -> None:
    """A report saved without --by: show --by day prints the fixed sentence, exit 0."""
    sessions, routes = corpus
    data = explore_job(ExploreRequest(sessions=(sessions,), routes=routes, workers=1)).data
    text = render_text(decode_report(data), by="day")
    assert "This report holds no usage tables: they are stored when analyze or explore runs" in (
        " ".join(text.split())
    )


def test_show_by_reads_the_tables_of_a_saved_report(
    explored: bytes, corpus: tuple[Path, Path], tmp_path: Path
) -> None:
    """`show REPORT --by model` prints the saved model table; on a report saved without --by,
    `show --by day` prints the fixed sentence instead and exits 0."""
    sessions, routes = corpus
    saved, bare = tmp_path / "with.json", tmp_path / "without.json"
    saved.write_bytes(explored)
    bare.write_bytes(
        explore_job(ExploreRequest(sessions=(sessions,), routes=routes, workers=1)).data
    )
    shown = subprocess.run(
        [CLI, "show", saved, "--by", "model"], capture_output=True, text=True, check=False
    )
    assert shown.returncode == 0, shown.stderr
    assert "Recorded usage by model (pi-ai catalog id)" in shown.stdout
    assert "cerebras/gpt-oss-120b" in shown.stdout
    refused = subprocess.run(
        [CLI, "show", bare, "--by", "day"], capture_output=True, text=True, check=False
    )
    assert refused.returncode == 0, refused.stderr
    assert "This report holds no usage tables" in refused.stdout
    assert "Recorded usage by UTC day" not in refused.stdout


@pytest.mark.skipif(shutil.which("script") is None, reason="needs util-linux script")
@pytest.mark.parametrize("by", ["session", "day", "model"])
def test_each_table_fits_an_80_column_terminal(
    corpus: tuple[Path, Path], tmp_path: Path, by: str
) -> None:
    """explore --details --by in an 80x24 terminal: the table whole, no line wider than 80."""
    sessions, routes = corpus
    command = (
        f"stty cols 80 rows 24; {CLI} explore --sessions {sessions} --routes {routes}"
        f" --workers 1 --details --by {by}"
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
    assert "Recorded usage by " in text
    assert any(line.startswith("total") and "4" in line for line in text.splitlines())
    assert max(len(line) for line in text.splitlines()) <= 80


@pytest.mark.parametrize(
    ("table", "index", "field", "value"),
    [
        ("byModel", 1, "model", "acme-private/secret-model"),  # not a catalog model
        ("bySession", 1, "session", 7),  # sessions are numbered 1, 2, ...
        ("byDay", 1, "day", "2026-11-30"),  # a day twice
    ],
)
def test_a_saved_report_with_edited_tables_is_not_a_report(
    explored: bytes, table: str, index: int, field: str, value: object
) -> None:
    """show refuses (REPORT_NOT_A_REPORT) a report whose usage tables name a model the catalog
    does not list, skip a session ordinal or repeat a day: no text can ride in them."""
    report = json.loads(explored)
    report["usageBy"][table][index][field] = value
    with pytest.raises(InputInvalidError) as raised:
        decode_report(json.dumps(report).encode())
    assert raised.value.detail is InputInvalidDetail.REPORT_NOT_A_REPORT
