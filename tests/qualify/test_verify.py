"""check_qualification: missing, malformed, stale or edited records are PAYLOAD_UNQUALIFIED.

These tests need no Node: they verify against a copy of the harness sources (conftest's
`harness_copy`) and records built in memory for it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clearing_analysis.inputs.configs import Api
from clearing_analysis.policy import limits
from clearing_analysis.qualify import (
    PAYLOAD_UNQUALIFIED,
    QualificationDetail,
    QualificationStatus,
    check_qualification,
)
from clearing_analysis.qualify.harness import placeholder_path, source_digest
from clearing_analysis.qualify.record import (
    ApiSummary,
    DifferenceCategory,
    PiAi,
    QualificationRecord,
    SourceDigest,
    encode_record,
)


def _record(harness: Path, *, version: str = "0.73.1", unintended: int = 0) -> QualificationRecord:
    counts = dict.fromkeys(DifferenceCategory, 0)
    counts[DifferenceCategory.SIGNATURE] = unintended
    summary = ApiSummary(
        cases=8, targeted_leaves=18, unintended_differences=unintended, by_category=counts
    )
    return QualificationRecord(
        format="clearing-analysis/qualification",
        format_version=1,
        pi_ai=PiAi(package="@mariozechner/pi-ai", version=version),
        source_digest=SourceDigest(algorithm="sha256", value=source_digest(harness)),
        apis=dict.fromkeys(Api, summary),
    )


def _write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "qualification.json"
    path.write_bytes(data)
    return path


def _assert_unqualified(status: QualificationStatus, detail: QualificationDetail) -> None:
    assert set(status.apis) == set(Api)
    for verdict in status.apis.values():
        assert not verdict.qualified
        assert verdict.code == PAYLOAD_UNQUALIFIED
        assert verdict.detail is detail
        assert verdict.unintended_differences is None


def test_fresh_record_is_qualified(harness_copy: Path, tmp_path: Path) -> None:
    """A record matching the installed version and the current sources qualifies every API."""
    path = _write(tmp_path, encode_record(_record(harness_copy)))
    status = check_qualification(path, harness=harness_copy)
    assert status.pi_ai_version == "0.73.1"
    for verdict in status.apis.values():
        assert verdict.qualified
        assert verdict.code is None
        assert verdict.detail is None
        assert verdict.cases == 8
        assert verdict.unintended_differences == 0


def test_unintended_differences_are_reported_as_a_count(harness_copy: Path, tmp_path: Path) -> None:
    """A valid record with differences stays qualified; its count goes to the gate (STOP)."""
    path = _write(tmp_path, encode_record(_record(harness_copy, unintended=3)))
    status = check_qualification(path, harness=harness_copy)
    for verdict in status.apis.values():
        assert verdict.qualified
        assert verdict.unintended_differences == 3


def test_no_record_given_is_missing(harness_copy: Path) -> None:
    """No --qualification at all: PAYLOAD_UNQUALIFIED / MISSING, version still known."""
    status = check_qualification(None, harness=harness_copy)
    _assert_unqualified(status, QualificationDetail.MISSING)
    assert status.pi_ai_version == "0.73.1"


def test_nonexistent_record_is_missing(harness_copy: Path, tmp_path: Path) -> None:
    """A path that does not exist: MISSING, never a crash."""
    status = check_qualification(tmp_path / "absent.json", harness=harness_copy)
    _assert_unqualified(status, QualificationDetail.MISSING)


@pytest.mark.parametrize(
    "mutate",
    [
        pytest.param(lambda d: b"{not json", id="not-json"),
        pytest.param(
            lambda d: d.replace(b'"cases": 8', b'"cases": 8, "cases": 8', 1), id="dup-key"
        ),
        pytest.param(lambda d: b"\xef\xbb\xbf" + d, id="bom"),
        pytest.param(
            lambda d: d.replace(b'"formatVersion": 1', b'"formatVersion": 2'), id="version"
        ),
        pytest.param(lambda d: d.replace(b'"cases": 8', b'"cases": 0', 1), id="zero-cases"),
        pytest.param(
            lambda d: d.replace(b'"cases": 8', b'"cases": 9007199254740992', 1), id="cases-2^53"
        ),
        pytest.param(lambda d: d.replace(b'"ORDERING": 0', b'"ORDERING": -1', 1), id="negative"),
        pytest.param(
            lambda d: d.replace(b'"unintendedDifferences": 0', b'"unintendedDifferences": 1', 1),
            id="inconsistent-sum",
        ),
        pytest.param(lambda d: d.replace(b'"ORDERING": 0,', b"", 1), id="category-missing"),
        pytest.param(lambda d: d.replace(b'"piAi": {', b'"extra": 1, "piAi": {', 1), id="unknown"),
        pytest.param(lambda d: d.replace(b'"sha256"', b'"md5"', 1), id="algorithm"),
    ],
)
def test_malformed_record(harness_copy: Path, tmp_path: Path, mutate: object) -> None:
    """Any deviation from the strict record shape is MALFORMED."""
    data = encode_record(_record(harness_copy))
    assert callable(mutate)
    broken = mutate(data)
    assert broken != data
    status = check_qualification(_write(tmp_path, broken), harness=harness_copy)
    _assert_unqualified(status, QualificationDetail.MALFORMED)


def test_record_missing_an_api_is_malformed(harness_copy: Path, tmp_path: Path) -> None:
    """A record that does not cover all four APIs is MALFORMED."""
    value = json.loads(encode_record(_record(harness_copy)))
    del value["apis"]["openai-codex-responses"]
    path = _write(tmp_path, json.dumps(value).encode())
    _assert_unqualified(
        check_qualification(path, harness=harness_copy), QualificationDetail.MALFORMED
    )


def test_oversized_record_is_malformed(harness_copy: Path, tmp_path: Path) -> None:
    """A record above maxQualificationFileBytes is refused before parsing."""
    data = encode_record(_record(harness_copy))
    padded = data + b" " * (limits().max_qualification_file_bytes + 1 - len(data))
    status = check_qualification(_write(tmp_path, padded), harness=harness_copy)
    _assert_unqualified(status, QualificationDetail.MALFORMED)


def test_directory_as_record_is_malformed(harness_copy: Path, tmp_path: Path) -> None:
    """A directory given as the record is not a regular file: MALFORMED."""
    status = check_qualification(tmp_path, harness=harness_copy)
    _assert_unqualified(status, QualificationDetail.MALFORMED)


def test_stale_version_is_version_mismatch(harness_copy: Path, tmp_path: Path) -> None:
    """A record made with another pi-ai version than the installed one: VERSION_MISMATCH."""
    path = _write(tmp_path, encode_record(_record(harness_copy, version="0.73.0")))
    status = check_qualification(path, harness=harness_copy)
    _assert_unqualified(status, QualificationDetail.VERSION_MISMATCH)
    assert status.pi_ai_version == "0.73.1"


def test_upgraded_install_is_version_mismatch(harness_copy: Path, tmp_path: Path) -> None:
    """Reinstalling another pi-ai version after qualifying makes the record stale."""
    path = _write(tmp_path, encode_record(_record(harness_copy)))
    manifest = harness_copy / "node_modules" / "@mariozechner" / "pi-ai" / "package.json"
    value = json.loads(manifest.read_bytes())
    value["version"] = "0.74.0"
    manifest.write_text(json.dumps(value))
    status = check_qualification(path, harness=harness_copy)
    _assert_unqualified(status, QualificationDetail.VERSION_MISMATCH)
    assert status.pi_ai_version == "0.74.0"


@pytest.mark.parametrize("name", ["fixtures.mjs", "reference.mjs", "diff.mjs", "capture.mjs"])
def test_edited_source_is_digest_mismatch(harness_copy: Path, tmp_path: Path, name: str) -> None:
    """Editing any byte of a harness source after qualifying: DIGEST_MISMATCH."""
    path = _write(tmp_path, encode_record(_record(harness_copy)))
    with (harness_copy / name).open("ab") as source:
        source.write(b"\n")
    status = check_qualification(path, harness=harness_copy)
    _assert_unqualified(status, QualificationDetail.DIGEST_MISMATCH)


def test_edited_placeholder_is_digest_mismatch(harness_copy: Path, tmp_path: Path) -> None:
    """The placeholder text is covered by the digest too."""
    path = _write(tmp_path, encode_record(_record(harness_copy)))
    edited = tmp_path / "placeholder.txt"
    edited.write_bytes(placeholder_path().read_bytes() + b"x")
    status = check_qualification(path, harness=harness_copy, placeholder=edited)
    _assert_unqualified(status, QualificationDetail.DIGEST_MISMATCH)


def test_missing_install_is_harness_unavailable(harness_copy: Path, tmp_path: Path) -> None:
    """Without the installed pi-ai the version cannot be recomputed: HARNESS_UNAVAILABLE."""
    path = _write(tmp_path, encode_record(_record(harness_copy)))
    (harness_copy / "node_modules" / "@mariozechner" / "pi-ai" / "package.json").unlink()
    status = check_qualification(path, harness=harness_copy)
    _assert_unqualified(status, QualificationDetail.HARNESS_UNAVAILABLE)
    assert status.pi_ai_version is None


def test_missing_source_is_harness_unavailable(harness_copy: Path, tmp_path: Path) -> None:
    """A deleted harness source cannot be hashed: HARNESS_UNAVAILABLE."""
    path = _write(tmp_path, encode_record(_record(harness_copy)))
    (harness_copy / "diff.mjs").unlink()
    status = check_qualification(path, harness=harness_copy)
    _assert_unqualified(status, QualificationDetail.HARNESS_UNAVAILABLE)


def test_symlinked_source_is_harness_unavailable(harness_copy: Path, tmp_path: Path) -> None:
    """A harness source replaced by a symlink is not followed."""
    path = _write(tmp_path, encode_record(_record(harness_copy)))
    real = tmp_path / "diff-real.mjs"
    (harness_copy / "diff.mjs").replace(real)
    (harness_copy / "diff.mjs").symlink_to(real)
    status = check_qualification(path, harness=harness_copy)
    _assert_unqualified(status, QualificationDetail.HARNESS_UNAVAILABLE)


def test_status_exposes_version_but_never_the_digest(harness_copy: Path, tmp_path: Path) -> None:
    """Nothing reachable from the status carries the digest (seed: version only)."""
    record = _record(harness_copy)
    path = _write(tmp_path, encode_record(record))
    status = check_qualification(path, harness=harness_copy)
    assert record.source_digest.value not in repr(status)
    assert "0.73.1" in repr(status)
