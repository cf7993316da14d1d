"""`analyze --fail-on stop|defer`: the exit status CI gates on, through the CLI (R-CLI-3).

Three hand-written corpora (tests/analyze/scenario.py) reach the three overall verdicts: the
base corpus with a faithful qualification record BUILDs, the same without a record DEFERs
(PAYLOAD_UNQUALIFIED) and with a record counting unintended payload differences STOPs. Each runs
through the console script's entry function with no `--fail-on`, `--fail-on stop` and
`--fail-on defer`: the status is 0, except 4 for STOP under either and 3 for DEFER under
`defer` (docs/exit-codes.md); the report is written whole every time, the same bytes whatever
the flag, and nothing is printed on stderr, since the run is complete.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clearing_analysis.cli._exit import EXIT_DEFER, EXIT_STOP, FailOn, verdict_status
from clearing_analysis.gate import Verdict
from clearing_analysis.qualify.record import QualificationRecord
from tests.analyze.scenario import Scenario, write
from tests.analyze.test_verdicts import _record
from tests.cli._guarded import invoke

# fail-on -> expected status per overall verdict
EXPECTED: dict[str | None, dict[str, int]] = {
    None: {"BUILD": 0, "DEFER": 0, "STOP": 0},
    "stop": {"BUILD": 0, "DEFER": 0, "STOP": 4},
    "defer": {"BUILD": 0, "DEFER": 3, "STOP": 4},
}


def _arguments(tmp_path: Path, verdict: str, record: QualificationRecord) -> list[str]:
    """An analyze command line whose corpus reaches `verdict` overall."""
    paths = write(Scenario(), tmp_path / "corpus")
    args = [
        "analyze",
        "--journals",
        str(paths["journals"]),
        "--sidecar",
        str(paths["sidecar"]),
        "--routes",
        str(paths["routes"]),
        "--agent-config",
        str(paths["agent_config"]),
        "--workers",
        "1",
    ]
    if verdict != "DEFER":
        differences = 2 if verdict == "STOP" else 0
        args += ["--qualification", str(_record(tmp_path, record, differences))]
    return args


@pytest.mark.node
@pytest.mark.parametrize("verdict", ["BUILD", "DEFER", "STOP"])
def test_fail_on_sets_the_status_after_writing_the_report(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    real_record: QualificationRecord,
    verdict: str,
) -> None:
    """Each verdict under each choice exits as the table says, with the report written."""
    args = _arguments(tmp_path, verdict, real_record)
    written: dict[str | None, bytes] = {}
    for fail_on, statuses in EXPECTED.items():
        out = tmp_path / f"report-{fail_on}.json"
        flag = [] if fail_on is None else ["--fail-on", fail_on]
        done = invoke([*args, "--out", str(out), *flag], capsys)
        assert (done.status, done.stdout, done.stderr) == (statuses[verdict], "", ""), fail_on
        written[fail_on] = out.read_bytes()
        assert json.loads(written[fail_on])["verdict"] == verdict
    assert len(set(written.values())) == 1  # the flag changes the status, never the report


def test_statuses_are_distinct_from_every_other_exit_status() -> None:
    """3 and 4 are neither 0 (complete), 1 (fault), 2 (refusal) nor 130 (interrupt), and
    below the statuses shells give meanings of their own (126 and up)."""
    assert (EXIT_DEFER, EXIT_STOP) == (3, 4)
    assert {EXIT_DEFER, EXIT_STOP}.isdisjoint({0, 1, 2, 130})
    assert max(EXIT_DEFER, EXIT_STOP) < 126


@pytest.mark.parametrize("fail_on", [None, *FailOn])
def test_build_never_fails(fail_on: FailOn | None) -> None:
    """BUILD exits 0 under every choice; STOP ranks past DEFER (the overall verdict's order)."""
    assert verdict_status(Verdict.BUILD, fail_on) == 0
    assert verdict_status(Verdict.STOP, fail_on) == (0 if fail_on is None else EXIT_STOP)
    expected_defer = EXIT_DEFER if fail_on is FailOn.DEFER else 0
    assert verdict_status(Verdict.DEFER, fail_on) == expected_defer
