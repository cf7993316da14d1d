"""`explain`: every code the views and failure lines print has its meaning and what to do.

The explanations come from the one table of codes (clearing_analysis.codes.table); the word
looked up is never printed, only the table's own text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from clearing_analysis.cli._exit import EXIT_INTERRUPTED
from clearing_analysis.codes.errors import AnalysisError
from clearing_analysis.codes.table import MEANINGS, REMEDIES, REPORT_CODES, TABLE
from clearing_analysis.explain import lookup, render
from clearing_analysis.report.encode import decode_report
from clearing_analysis.report.text.view import render_text
from tests.cli._guarded import invoke, usage_line
from tests.e2e._canary import Canaries, leaks

GOLDEN = Path(__file__).resolve().parent / "golden"
# A code as the views print it: upper case words joined by underscores, or one of the
# single-word codes (verdicts, rate labels, tool class APP, skip reasons).
SINGLE_WORD_CODES = {code for (_kind, code) in REPORT_CODES if "_" not in code}
CODE = re.compile(r"(?<![A-Za-z0-9_])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![A-Za-z0-9_])")


def _codes_in(text: str) -> set[str]:
    words = set(re.findall(r"[A-Za-z0-9_]+", text))
    return set(CODE.findall(text)) | (words & SINGLE_WORD_CODES)


@pytest.mark.parametrize("name", ["report-mixed.json", "report-build.json"])
def test_every_code_a_view_prints_is_explained(name: str) -> None:
    """Each code in a golden report's whole human view (summary and details) has at least
    one explanation, and every explanation has a meaning and a thing to do."""
    report = decode_report((GOLDEN / name).read_bytes())
    codes = _codes_in(render_text(report, details=True))
    assert {"DEFER", "PAYLOAD_UNQUALIFIED", "READ_ONLY_BUILTIN", "DEFAULT"} <= codes
    for code in sorted(codes):
        found = lookup([code])
        assert found, code
        assert all(entry.meaning and (entry.remedy or entry.details) for entry in found), code


def test_a_refusal_is_explained_with_its_meaning_and_remedy() -> None:
    """A failure line's code and detail give one entry: the detail's meaning and the remedy
    the line prints, code spans shown as plain words; the detail alone finds it too."""
    (entry,) = lookup(["INPUT_INVALID", "routes_wrong_shape"])
    assert entry.name == "INPUT_INVALID ROUTES_WRONG_SHAPE"
    assert entry.kind == "refusal, exit 2"
    assert entry.meaning == MEANINGS[("INPUT_INVALID", "ROUTES_WRONG_SHAPE")]
    assert entry.remedy == REMEDIES[("INPUT_INVALID", "ROUTES_WRONG_SHAPE")]
    assert lookup(["ROUTES_WRONG_SHAPE"]) == [entry]
    text = render([entry], 80)
    assert "`" not in text
    assert "the --routes file does not have the documented shape" in text


def test_a_code_with_several_meanings_gives_each() -> None:
    """DUPLICATE is a skipped journal, boundary, session and session boundary: four entries;
    REPORT_MISSING is a detail of two refusal codes: two entries."""
    kinds = [entry.kind for entry in lookup(["DUPLICATE"])]
    assert kinds == [
        "skipped journal",
        "skipped boundary",
        "skipped session",
        "skipped session boundary",
    ]
    names = [entry.name for entry in lookup(["REPORT_MISSING"])]
    assert names == ["INPUT_INVALID REPORT_MISSING", "VERIFY_FAILED REPORT_MISSING"]


def test_a_refusal_code_lists_its_details() -> None:
    """A code alone gives its meaning, its exit status and its details to explain in turn."""
    (entry,) = lookup(["sidecar_not_offline"])
    assert entry.details == ("COMPANION_PRESENT", "WAL_MODE")
    assert entry.remedy is None


def test_every_entry_has_text_and_unique_placement() -> None:
    """No entry is empty, and no (name, kind) pair is listed twice."""
    seen = set()
    for entry in TABLE:
        assert entry.meaning.strip()
        assert (entry.name, entry.kind) not in seen
        seen.add((entry.name, entry.kind))


def test_explain_command_prints_only_table_text(capsys: pytest.CaptureFixture[str]) -> None:
    """Through the CLI: a known code prints its explanation (exit 0), case-insensitively; an
    unknown word is USAGE_ERROR UNKNOWN_CODE and is never echoed; no word lists every code."""
    done = invoke(["explain", "cold_evidence_low"], capsys)
    assert (done.status, done.stderr) == (0, "")
    assert done.stdout.startswith("COLD_EVIDENCE_LOW (DEFER reason)\n  Meaning: criterion 2 fails")
    assert "What to do: " in done.stdout
    canary = Canaries(seed=20261201)
    word = canary("explain.word")
    done = invoke(["explain", word], capsys)
    assert (done.status, done.stdout) == (2, "")
    assert done.stderr == usage_line("UNKNOWN_CODE", None)
    assert leaks(done.stderr.encode(), canary.values) == []
    listed = invoke(["explain"], capsys)
    assert listed.status == 0
    assert len(listed.stdout.splitlines()) == 2 + len(TABLE)


def test_interrupted_is_explained_as_the_ctrl_c_line_first() -> None:
    """`explain INTERRUPTED` first describes the line a run stopped with Ctrl-C or SIGTERM
    prints (exit 130, the status the CLI exits with), then the journal skip reason."""
    run_line, skip = lookup(["interrupted"])
    assert run_line.kind == f"interrupted run, exit {EXIT_INTERRUPTED}"
    assert "Ctrl-C" in run_line.meaning and "SIGTERM" in run_line.meaning
    assert run_line.remedy
    assert skip.kind == "skipped journal"
    assert "Ctrl-C (SIGINT) or SIGTERM" in render([run_line], 80)


SCHEMAS = Path(__file__).resolve().parents[1] / "policy" / "schemas"
# A fixed code in a schema: upper snake case (API names, format tags and journal fields are
# lower case and are no codes).
UPPER_SNAKE = re.compile(r"[A-Z][A-Z0-9_]*")


def _schema_codes(node: object) -> set[str]:
    """Every upper-snake string an `enum` or `const` of the JSON Schema `node` admits."""
    found: set[str] = set()
    if isinstance(node, dict):
        values = list(node.get("enum", []))
        if "const" in node:
            values.append(node["const"])
        found |= {v for v in values if isinstance(v, str) and UPPER_SNAKE.fullmatch(v)}
        for child in node.values():
            found |= _schema_codes(child)
    elif isinstance(node, list):
        for child in node:
            found |= _schema_codes(child)
    return found


def _every_fixed_code() -> list[str]:
    """Each code a report (every schema's enums), a refusal (every error class's code and
    detail) or a run line can carry, once."""
    codes: set[str] = {"INTERRUPTED"}
    for schema in sorted(SCHEMAS.glob("*.schema.json")):
        codes |= _schema_codes(json.loads(schema.read_text(encoding="utf-8")))
    todo: list[type[AnalysisError]] = [AnalysisError]
    while todo:
        cls = todo.pop()
        codes.add(cls.code)
        codes |= {detail.value for detail in cls.detail_enum}
        todo.extend(cls.__subclasses__())
    return sorted(codes)


def test_the_schemas_hold_the_codes_an_explore_report_carries() -> None:
    """The walk finds the enums of both report schemas, the explore report's included, and
    the attestation's mount contract status: the set the next test explains is not empty."""
    codes = set(_every_fixed_code())
    assert {"NEVER_A_VERDICT", "UNKNOWN_TOOL", "PROTECTED_CURRENT_TURN", "NOT_CHECKED"} <= codes
    assert {"INPUT_INVALID", "ROUTES_WRONG_SHAPE", "ANALYZER_FAULT"} <= codes


@pytest.mark.parametrize("code", _every_fixed_code())
def test_every_fixed_code_is_explained(code: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Every code a schema's enum, the error hierarchy or a run line holds has an entry with
    a kind, a meaning and a remedy (a refusal code: its details), and `explain CODE` prints
    it with exit 0."""
    found = lookup([code])
    assert found, code
    for entry in found:
        assert entry.kind.strip() and entry.meaning.strip(), code
        assert (entry.remedy or "").strip() or entry.details, code
    done = invoke(["explain", code], capsys)
    assert (done.status, done.stderr) == (0, ""), code
    assert done.stdout.startswith(f"{found[0].name} ({found[0].kind})\n  Meaning: "), code
