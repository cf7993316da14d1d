"""The replay job end to end: qualification status is checked against what is installed."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clearing_analysis.cli import app
from clearing_analysis.qualify.record import QualificationRecord, encode_record
from clearing_analysis.synth import generate
from tests.synth.corpora import corpus_options

RUNNER = CliRunner()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("jobs") / "corpus"
    generate(root, 3, conversations=3, size_mb=None, profile="build")
    return root


def _replay(corpus: Path, *extra: str) -> dict[str, object]:
    result = RUNNER.invoke(
        app,
        [
            "replay",
            *corpus_options(corpus),
            "--agent-config",
            str(corpus / "agent-config.json"),
            *extra,
        ],
    )
    assert result.exit_code == 0, result.output
    summary: dict[str, object] = json.loads(result.stdout)
    return summary


def _statuses(summary: dict[str, object]) -> dict[str, tuple[str, str | None]]:
    qualification = summary["qualification"]
    assert isinstance(qualification, dict)
    return {api: (v["status"], v["detail"]) for api, v in qualification["perApi"].items()}


def test_without_qualification_every_api_is_unqualified_missing(corpus: Path) -> None:
    """No --qualification: PAYLOAD_UNQUALIFIED / MISSING for every routed API, exit 0."""
    statuses = _statuses(_replay(corpus))
    assert statuses
    assert set(statuses.values()) == {("PAYLOAD_UNQUALIFIED", "MISSING")}


@pytest.mark.node
def test_fresh_record_qualifies_and_stale_version_does_not(
    corpus: Path, tmp_path: Path, real_record: QualificationRecord
) -> None:
    """A record from the installed builders qualifies; an edited version is VERSION_MISMATCH."""
    fresh = tmp_path / "fresh.json"
    fresh.write_bytes(encode_record(real_record))
    summary = _replay(corpus, "--qualification", str(fresh))
    assert set(_statuses(summary).values()) == {("QUALIFIED", None)}
    qualification = summary["qualification"]
    assert isinstance(qualification, dict)
    assert qualification["piAiVersion"] == real_record.pi_ai.version
    assert real_record.source_digest.value not in json.dumps(summary)

    stale = json.loads(fresh.read_bytes())
    stale["piAi"]["version"] = "0.0.1"
    stale_path = tmp_path / "stale.json"
    stale_path.write_text(json.dumps(stale))
    statuses = _statuses(_replay(corpus, "--qualification", str(stale_path)))
    assert set(statuses.values()) == {("PAYLOAD_UNQUALIFIED", "VERSION_MISMATCH")}
