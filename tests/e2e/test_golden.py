"""Determinism and golden files for the replay summary and the report (R-OUT-4, R-PERF-3).

A small fixed synthetic corpus per profile (`synth`, fixed seed and size) is replayed and
analyzed three ways: the real CLI with 1 worker and with 2 workers (fresh interpreters), and
the library job in this process. All three must be byte-identical, and equal to the
checked-in golden files tests/golden/replay-summary-<profile>.json and
tests/golden/report-<profile>.json.

Regenerate the golden files after an intended change of the generator or the summary with

    CLEARING_UPDATE_GOLDEN=1 .venv/bin/pytest tests/e2e/test_golden.py

and review the diff (tests/golden/README.md). The summary also carries the installed pi-ai
version (qualification block), pinned by qualify/package-lock.json.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from clearing_analysis.inputs.requests import AnalyzeRequest, ReplayRequest
from clearing_analysis.pipeline.jobs import analyze_job, replay_job
from clearing_analysis.synth import generate
from tests.e2e._cli import run_cli
from tests.synth.corpora import corpus_options

GOLDEN_DIR = Path(__file__).resolve().parent.parent / "golden"
SEED = 20261129
CONVERSATIONS = 6
PROFILES = ("mixed", "build")
UPDATE = os.environ.get("CLEARING_UPDATE_GOLDEN") == "1"


def golden_path(profile: str, kind: str = "replay-summary") -> Path:
    """Where the golden summary (or report) of `profile` lives."""
    return GOLDEN_DIR / f"{kind}-{profile}.json"


@pytest.fixture(scope="module", params=PROFILES)
def corpus(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixed corpus of one profile (seed and size above)."""
    profile: str = request.param
    out = tmp_path_factory.mktemp(f"golden-{profile}") / profile
    generate(out, SEED, conversations=CONVERSATIONS, profile=profile)
    return out


def _args(corpus: Path) -> list[str]:
    return [
        *corpus_options(corpus),
        "--agent-config",
        str(corpus / "agent-config.json"),
        "--app-allowlist",
        str(corpus / "app-allowlist.json"),
    ]


def _library(corpus: Path) -> bytes:
    job = replay_job(
        ReplayRequest(
            journals=(corpus / "journals",),
            sidecar=corpus / "history.sqlite",
            routes=corpus / "routes.json",
            agent_config=corpus / "agent-config.json",
            app_allowlist=corpus / "app-allowlist.json",
        )
    )
    return job.data


def test_summary_is_deterministic_and_matches_golden(corpus: Path) -> None:
    """CLI with 1 and 2 workers and the in-process job give the same bytes, equal to golden."""
    one = run_cli(["replay", *_args(corpus), "--workers", "1"])
    two = run_cli(["replay", *_args(corpus), "--workers", "2"])
    assert (one.returncode, one.stderr, two.returncode, two.stderr) == (0, b"", 0, b"")
    assert one.stdout == two.stdout
    assert _library(corpus) == one.stdout
    summary = json.loads(one.stdout)
    manifest = json.loads((corpus / "ground-truth.json").read_bytes())
    assert summary["journalsReplayed"] == manifest["replayedJournals"]  # a real corpus
    golden = golden_path(corpus.name)
    if UPDATE:
        golden.write_bytes(one.stdout)
    assert golden.exists(), "no golden file: run with CLEARING_UPDATE_GOLDEN=1 and review"
    assert golden.read_bytes() == one.stdout, (
        "replay summary differs from tests/golden: if the change is intended, regenerate with "
        "CLEARING_UPDATE_GOLDEN=1 and review the diff"
    )


def test_golden_files_are_canonical_counts_only() -> None:
    """Each golden file is sorted-key compact JSON with one trailing newline and no string
    values other than fixed codes, enums and the pi-ai version (R-OUT-1)."""
    for profile in PROFILES:
        raw = golden_path(profile).read_bytes()
        value = json.loads(raw)
        assert raw == json.dumps(value, sort_keys=True, separators=(",", ":")).encode() + b"\n"
        strings: list[str] = []

        def walk(node: object) -> None:
            if isinstance(node, dict):
                for item in node.values():
                    walk(item)
            elif isinstance(node, list):
                for item in node:
                    walk(item)
            elif isinstance(node, str):
                strings.append(node)  # noqa: B023 - walk runs within this iteration

        walk(value)
        version = value["qualification"]["piAiVersion"]
        allowed_free = {"clearing-replay-summary", "result-boundary occurrence", version}
        for text in strings:
            assert text in allowed_free or text.replace("_", "").isupper(), text


def test_report_is_deterministic_and_matches_golden(corpus: Path) -> None:
    """`analyze` with 1 and 2 workers and the in-process job give the same report bytes,
    schema-valid, equal to the golden report (no wall-clock time in it)."""
    one = run_cli(["analyze", *_args(corpus), "--workers", "1"])
    two = run_cli(["analyze", *_args(corpus), "--workers", "2"])
    assert (one.returncode, one.stderr, two.returncode, two.stderr) == (0, b"", 0, b"")
    assert one.stdout == two.stdout
    library = analyze_job(
        AnalyzeRequest(
            journals=(corpus / "journals",),
            sidecar=corpus / "history.sqlite",
            routes=corpus / "routes.json",
            agent_config=corpus / "agent-config.json",
            app_allowlist=corpus / "app-allowlist.json",
        )
    )
    assert library.data == one.stdout
    golden = golden_path(corpus.name, "report")
    if UPDATE:
        golden.write_bytes(one.stdout)
    assert golden.exists(), "no golden report: run with CLEARING_UPDATE_GOLDEN=1 and review"
    assert golden.read_bytes() == one.stdout, (
        "report differs from tests/golden: if the change is intended, regenerate with "
        "CLEARING_UPDATE_GOLDEN=1 and review the diff"
    )
