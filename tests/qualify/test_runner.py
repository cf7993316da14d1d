"""The runner fails with fixed codes when the harness cannot run; it never echoes Node output."""

from __future__ import annotations

from pathlib import Path

import pytest

from clearing_analysis.codes.errors import QualificationError
from clearing_analysis.qualify import runner
from clearing_analysis.qualify.harness import IMAGE_ROLE_ENV, harness_dir

pytestmark = pytest.mark.node


def test_missing_install_is_refused_before_running(harness_copy: Path) -> None:
    """No installed pi-ai manifest: HARNESS_NOT_INSTALLED, exit status 2."""
    (harness_copy / "node_modules" / "@mariozechner" / "pi-ai" / "package.json").unlink()
    with pytest.raises(QualificationError) as raised:
        runner.qualify(harness_copy)
    assert raised.value.detail == "HARNESS_NOT_INSTALLED"
    assert raised.value.code == "QUALIFIER_FAILED"
    assert raised.value.exit_status == 2


def test_unloadable_pi_ai_is_a_harness_fault(harness_copy: Path) -> None:
    """A manifest without the package behind it: Node reports HARNESS_FAULT, nothing else."""
    with pytest.raises(QualificationError) as raised:
        runner.run_harness(None, harness_copy)
    assert raised.value.detail == "HARNESS_FAULT"


def test_empty_placeholder_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty placeholder text is a harness error, not a silent no-op clearing."""
    empty = tmp_path / "placeholder.txt"
    empty.write_bytes(b"\n")
    monkeypatch.setattr(runner, "placeholder_path", lambda: empty)
    with pytest.raises(QualificationError) as raised:
        runner.run_harness(None, harness_dir())
    assert raised.value.detail == "PLACEHOLDER_EMPTY"


def test_node_not_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without `node` on PATH the runner says NODE_NOT_FOUND."""
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(QualificationError) as raised:
        runner.run_harness(None, harness_dir())
    assert raised.value.detail == "NODE_NOT_FOUND"


@pytest.mark.parametrize(
    ("role", "detail"), [("analyzer", "NODE_NOT_IN_IMAGE"), ("qualifier", "NODE_NOT_FOUND")]
)
def test_node_missing_in_the_analyzer_image(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, role: str, detail: str
) -> None:
    """In the analyzer image (its role set, no Node by design) a missing node says so and
    points at the qualifier image; in any other role it is NODE_NOT_FOUND."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv(IMAGE_ROLE_ENV, role)
    with pytest.raises(QualificationError) as raised:
        runner.run_harness(None, harness_dir())
    assert raised.value.detail == detail


def test_placeholder_is_read_at_run_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another placeholder text still yields zero unintended differences (read, not baked in)."""
    other = tmp_path / "placeholder.txt"
    other.write_text('[cleared: ünïcødé 🙂 "quoted" {json: true}]\n', encoding="utf-8")
    monkeypatch.setattr(runner, "placeholder_path", lambda: other)
    output = runner.run_harness(None, harness_dir())
    assert all(summary.unintended_differences == 0 for summary in output.apis.values())
    assert all(summary.targeted_leaves > 0 for summary in output.apis.values())
