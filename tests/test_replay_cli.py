"""`clearing-analysis replay` --out and --log-file: written only on success, never in inputs."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from clearing_analysis.logsink import ALLOWED_FIELDS
from clearing_analysis.synth import generate
from tests.synth.corpora import corpus_options


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli") / "corpus"
    generate(root, 5, conversations=2, size_mb=None, profile="mixed")
    return root


def _run(corpus: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    argv = [
        sys.executable,
        "-m",
        "clearing_analysis.cli",
        "replay",
        *corpus_options(corpus),
        *extra,
    ]
    return subprocess.run(argv, capture_output=True, text=True, check=False)


def test_log_file_holds_only_allowlisted_fields(corpus: Path, tmp_path: Path) -> None:
    """The log is JSON lines of allowlisted keys; stdout stays empty when --out is given."""
    out, log = tmp_path / "summary.json", tmp_path / "replay.log"
    done = _run(corpus, "--out", str(out), "--log-file", str(log))
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert done.stderr == ""
    assert json.loads(out.read_text())["format"] == "clearing-replay-summary"
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert {e["event"] for e in events} >= {"replay.started", "replay.finished"}
    for event in events:
        assert set(event) <= set(ALLOWED_FIELDS)


def test_log_file_inside_the_journals_directory_is_refused(corpus: Path, tmp_path: Path) -> None:
    """A --log-file inside an input directory: OUTPUT_REFUSED, exit 2, nothing created anywhere."""
    journals = corpus / "journals"
    before = sorted(journals.iterdir())
    out = tmp_path / "summary.json"
    done = _run(corpus, "--out", str(out), "--log-file", str(journals / "replay.log"))
    assert done.returncode == 2
    assert done.stderr == (
        "clearing-analysis: OUTPUT_REFUSED OUTPUT_INSIDE_INPUT:"
        " write outside the input directories (--journals, --sessions; for qualify, the harness"
        " and policy)\n"
    )
    assert sorted(journals.iterdir()) == before
    assert not out.exists()


def test_out_and_log_file_naming_the_same_file_is_refused(corpus: Path, tmp_path: Path) -> None:
    """The report and the log cannot share one path."""
    target = tmp_path / "both.json"
    done = _run(corpus, "--out", str(target), "--log-file", str(target))
    assert done.returncode == 2
    assert done.stderr == (
        "clearing-analysis: OUTPUT_REFUSED OUTPUT_SAME_AS_LOG:"
        " give --out and --log-file different names\n"
    )
    assert not target.exists()
