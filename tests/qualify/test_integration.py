"""The real qualifier: installed pi-ai builders, all four APIs, faithful clearing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from clearing_analysis.inputs.configs import Api
from clearing_analysis.policy import load_policy_json
from clearing_analysis.qualify import check_qualification
from clearing_analysis.qualify.harness import harness_dir, installed_pi_ai, source_digest
from clearing_analysis.qualify.record import (
    DifferenceCategory,
    QualificationRecord,
    decode_record,
    encode_record,
)

pytestmark = pytest.mark.node


def test_zero_unintended_differences_for_every_api(real_record: QualificationRecord) -> None:
    """With the pinned pi-ai, clearing changes only the targeted leaves, for all four APIs."""
    assert set(real_record.apis) == set(Api)
    for summary in real_record.apis.values():
        assert summary.unintended_differences == 0
        assert all(count == 0 for count in summary.by_category.values())


def test_every_api_ran_cases_and_checked_targets(real_record: QualificationRecord) -> None:
    """Each API ran several fixture cases, each with targeted leaves that did change."""
    for summary in real_record.apis.values():
        assert summary.cases >= 8
        assert summary.targeted_leaves >= 2 * summary.cases


def test_record_names_installed_pi_ai_and_current_digest(real_record: QualificationRecord) -> None:
    """The record carries the installed package/version and the digest of the live sources."""
    installed = installed_pi_ai()
    assert (real_record.pi_ai.package, real_record.pi_ai.version) == (
        installed.package,
        installed.version,
    )
    assert real_record.pi_ai.version == "0.73.1"
    assert real_record.source_digest.value == source_digest()


def test_record_matches_schema_and_round_trips(real_record: QualificationRecord) -> None:
    """The encoded record validates against the schema and decodes back to the same value."""
    data = encode_record(real_record)
    schema = load_policy_json("schemas/qualification.schema.json")
    jsonschema.validate(json.loads(data), schema)
    assert decode_record(data) == real_record
    assert encode_record(decode_record(data)) == data


def test_fresh_real_record_is_qualified(real_record: QualificationRecord, tmp_path: Path) -> None:
    """A record just produced by the qualifier verifies as qualified for every API."""
    path = tmp_path / "qualification.json"
    path.write_bytes(encode_record(real_record))
    status = check_qualification(path)
    assert status.pi_ai_version == "0.73.1"
    for api in Api:
        assert status.apis[api].qualified
        assert status.apis[api].unintended_differences == 0


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    command = [sys.executable, "-c", "from clearing_analysis.cli import main; main()", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, check=False)


def test_cli_writes_record_to_stdout_and_creates_out(tmp_path: Path) -> None:
    """`qualify` prints the record; `qualify --out F` creates F with the same record."""
    printed = _cli("qualify", cwd=tmp_path)
    assert printed.returncode == 0, printed.stderr
    assert printed.stderr == b""
    out = tmp_path / "q.json"
    written = _cli("qualify", "--out", str(out), cwd=tmp_path)
    assert written.returncode == 0
    assert written.stdout == b""
    assert out.read_bytes() == printed.stdout
    assert decode_record(out.read_bytes()).apis.keys() == set(Api)


def test_cli_refuses_existing_out_and_harness_directory(tmp_path: Path) -> None:
    """--out never overwrites and never writes into the harness it certifies (R-FS)."""
    existing = tmp_path / "exists.json"
    existing.write_bytes(b"keep")
    refused = _cli("qualify", "--out", str(existing), cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr == (
        b"clearing-analysis: OUTPUT_REFUSED OUTPUT_EXISTS:"
        b" choose a new file name in a directory that is not an input directory\n"
    )
    assert existing.read_bytes() == b"keep"
    inside = harness_dir() / "record.json"
    refused_inside = _cli("qualify", "--out", str(inside), cwd=tmp_path)
    assert refused_inside.returncode == 2
    assert not inside.exists()


def test_categories_are_the_harness_categories() -> None:
    """The Python category enum and diff.mjs's CATEGORIES list name the same codes."""
    source = (harness_dir() / "diff.mjs").read_text(encoding="utf-8")
    block = source.split("export const CATEGORIES = [", 1)[1].split("];", 1)[0]
    listed = [item.strip().strip('"') for item in block.split(",") if item.strip()]
    assert listed == [category.value for category in DifferenceCategory]
