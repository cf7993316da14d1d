"""Every INPUT_INVALID detail of a named input or a configuration file, through the CLI.

Each case runs `clearing-analysis replay` (the console script's entry function, in this
process: these failures happen while the session opens, before any replay, log or output)
on a small synthetic corpus with one input replaced by a missing path, a directory or a
defective file, and asserts the exact stderr line of the remedy table and nothing else. The
defective files are the decoder tests' own (tests/inputs/test_configs_codes.py), one per detail.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from clearing_analysis.policy import limits
from clearing_analysis.synth import generate
from tests.cli._guarded import invoke
from tests.e2e._cli import fixed_line
from tests.inputs.test_configs_codes import CASES as DECODER_CASES

OPTIONS = {
    "SIDECAR": "--sidecar",
    "ROUTES": "--routes",
    "QUALIFICATION": "--qualification",
    "AGENT_CONFIG": "--agent-config",
    "APP_ALLOWLIST": "--app-allowlist",
}
CONFIGS = ("ROUTES", "AGENT_CONFIG", "APP_ALLOWLIST")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-conversation synthetic corpus with every input file (shared, never modified)."""
    root = tmp_path_factory.mktemp("failure-lines") / "corpus"
    generate(root, 3, conversations=1, size_mb=None, profile="mixed")
    (root / "qualification.json").write_bytes(b"{}")  # only its existence matters here
    return root


def _replay(corpus: Path, **replace: Path) -> list[str]:
    """A replay command line naming every input of `corpus`; `replace` swaps one by code."""
    paths = {
        "SIDECAR": corpus / "history.sqlite",
        "ROUTES": corpus / "routes.json",
        "QUALIFICATION": corpus / "qualification.json",
        "AGENT_CONFIG": corpus / "agent-config.json",
        "APP_ALLOWLIST": corpus / "app-allowlist.json",
    }
    paths.update(replace)
    args = ["replay", "--journals", str(corpus / "journals")]
    for code, path in paths.items():
        args += [OPTIONS[code], str(path)]
    return args


def _expect_line(
    args: list[str], detail: str, capsys: pytest.CaptureFixture[str], private: Path
) -> None:
    done = invoke(args, capsys)
    assert (done.status, done.stdout) == (2, "")
    assert done.stderr.encode() == fixed_line("INPUT_INVALID", detail)
    assert str(private) not in done.stderr


@pytest.mark.parametrize("code", sorted(OPTIONS))
def test_missing_named_input(
    code: str, corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A named input that does not exist: <CODE>_MISSING."""
    missing = tmp_path / "absent-input-name"
    _expect_line(_replay(corpus, **{code: missing}), f"{code}_MISSING", capsys, missing)


@pytest.mark.parametrize("code", sorted(OPTIONS))
def test_named_input_that_is_a_directory(
    code: str, corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A named input that is a directory: <CODE>_NOT_FILE."""
    directory = tmp_path / "a-directory-name"
    directory.mkdir()
    _expect_line(_replay(corpus, **{code: directory}), f"{code}_NOT_FILE", capsys, directory)


# One decoder case per configuration detail (the first one listed for it).
FIRST_CASE: dict[str, tuple[str, bytes]] = {}
for _file_code, _case_id, _data, _detail in DECODER_CASES:
    FIRST_CASE.setdefault(_detail.value, (_file_code, _data))


@pytest.mark.parametrize("detail", sorted(FIRST_CASE))
def test_defective_configuration_file(
    detail: str, corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each defective configuration file is INPUT_INVALID with its own detail and remedy."""
    file_code, data = FIRST_CASE[detail]
    defective = tmp_path / "defective-config.json"
    defective.write_bytes(data)
    _expect_line(_replay(corpus, **{file_code: defective}), detail, capsys, defective)


@pytest.mark.parametrize("file_code", CONFIGS)
def test_configuration_file_too_large(
    file_code: str, corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A configuration file one byte above maxConfigFileBytes: <FILE>_TOO_LARGE."""
    large = tmp_path / "large-config.json"
    large.write_bytes(b" " * (limits().max_config_file_bytes + 1))
    _expect_line(_replay(corpus, **{file_code: large}), f"{file_code}_TOO_LARGE", capsys, large)


def _analyze(corpus: Path, *extra: str) -> list[str]:
    args = _replay(corpus)
    return ["analyze", *args[1:], *extra]


@pytest.mark.parametrize("rate", ["2", "-0.01", "nan", "inf", "1.0000001"])
def test_retrieval_rate_outside_zero_to_one(
    rate: str, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--retrieval-rate must be a finite number in [0, 1] (R-CLI-4); the value is not echoed."""
    done = invoke(_analyze(corpus, "--retrieval-rate", rate), capsys)
    assert (done.status, done.stdout) == (2, "")
    assert done.stderr.encode() == fixed_line("INPUT_INVALID", "RETRIEVAL_RATE_OUT_OF_RANGE")


@pytest.mark.parametrize(
    ("period", "detail"),
    [
        (["--since", "canary-private-week"], "PERIOD_NOT_A_DATE"),
        (["--until", "2026-02-30"], "PERIOD_NOT_A_DATE"),
        (["--since", "2026-06-02", "--until", "2026-06-01"], "PERIOD_EMPTY"),
    ],
    ids=["not a date", "no such day", "empty"],
)
def test_a_bad_period(
    period: list[str], detail: str, corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--since / --until must name ISO dates of a period that holds an instant; the value is
    not echoed, nothing is written."""
    done = invoke(_analyze(corpus, *period), capsys)
    assert (done.status, done.stdout) == (2, "")
    assert done.stderr.encode() == fixed_line("INPUT_INVALID", detail)


def _show(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    done = invoke(["show", str(path)], capsys)
    return done.status, done.stdout, done.stderr


@pytest.mark.parametrize(
    ("content", "detail"),
    [
        (None, "REPORT_MISSING"),
        (b"{not json", "REPORT_MALFORMED"),
        (b"\xff\xfe", "REPORT_MALFORMED"),
        (b'{"format": "clearing-analysis-report", "version": 1}', "REPORT_NOT_A_REPORT"),
        (b"[]", "REPORT_NOT_A_REPORT"),
        (b" " * (limits().max_config_file_bytes + 1), "REPORT_TOO_LARGE"),
    ],
    ids=["missing", "not json", "not utf-8", "other version", "not an object", "too large"],
)
def test_show_refuses_what_is_not_a_report(
    content: bytes | None, detail: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`show` reads a saved report strictly: each defect is its own INPUT_INVALID detail."""
    path = tmp_path / "private-report-name.json"
    if content is not None:
        path.write_bytes(content)
    status, stdout, stderr = _show(path, capsys)
    assert (status, stdout) == (2, "")
    assert stderr.encode() == fixed_line("INPUT_INVALID", detail)
    assert "private-report-name" not in stderr


COVERED: frozenset[tuple[str, str]] = frozenset(
    {
        ("INPUT_INVALID", f"{code}_{suffix}")
        for code in OPTIONS
        for suffix in ("MISSING", "NOT_FILE")
    }
    | {("INPUT_INVALID", detail) for detail in FIRST_CASE}
    | {("INPUT_INVALID", f"{code}_TOO_LARGE") for code in CONFIGS}
    | {
        ("INPUT_INVALID", detail)
        for detail in (
            "RETRIEVAL_RATE_OUT_OF_RANGE",
            "PERIOD_NOT_A_DATE",
            "PERIOD_EMPTY",
            "REPORT_MISSING",
            "REPORT_MALFORMED",
            "REPORT_NOT_A_REPORT",
            "REPORT_TOO_LARGE",
        )
    }
)
"""The (code, detail) pairs this module asserts through the CLI."""
