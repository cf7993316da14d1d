"""diff.mjs / reference.mjs on crafted payloads: each place maps to its fixed category."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.node

CASES = Path(__file__).with_name("diff_cases.mjs")


@pytest.fixture(scope="module")
def results() -> dict[str, list[str]]:
    """Categories found for every crafted case (one node process)."""
    node = shutil.which("node")
    assert node is not None
    completed = subprocess.run([node, str(CASES)], capture_output=True, check=True)
    parsed: dict[str, list[str]] = json.loads(completed.stdout)
    return parsed


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("identical", []),
        ("argument", ["TOOL_CALL_ARGUMENTS"]),
        ("thinking_text", ["REASONING"]),
        ("signature_dropped", ["SIGNATURE"]),
        ("redacted_changed", ["SIGNATURE"]),
        ("reasoning_block_dropped", ["SIGNATURE"]),
        ("tool_use_id", ["ID"]),
        ("pairing", ["PAIRING"]),
        ("results_swapped", ["ORDERING"]),
        ("cache_control_moved", ["CACHE_CONTROL", "CACHE_CONTROL"]),
        ("untargeted_result", ["UNTARGETED_RESULT_TEXT"]),
        ("target_not_changed", ["TARGET_NOT_CHANGED"]),
        ("target_wrong_value", ["TARGET_WRONG_VALUE"]),
        ("other_leaf", ["OTHER_LEAF"]),
        ("structure", ["STRUCTURE"]),
        ("not_located", ["TARGET_NOT_LOCATED"]),
        ("ambiguous", ["TARGET_AMBIGUOUS"]),
        ("misplaced", ["TARGET_MISPLACED"]),
        ("responses_ok", []),
        ("responses_pairing", ["PAIRING"]),
        ("completions_arguments", ["TOOL_CALL_ARGUMENTS"]),
    ],
)
def test_category(results: dict[str, list[str]], case: str, expected: list[str]) -> None:
    """The crafted difference is found exactly once per changed place, in its category."""
    assert sorted(results[case]) == sorted(expected)
