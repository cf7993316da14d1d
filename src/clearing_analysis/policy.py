"""Reviewed data the analyzer enforces, read from the repository's `policy/` directory.

Thresholds, limits, tool classes, the placeholder text, guard detectors and schemas are data,
not literals in code: a reviewer changes them in one place (`policy/`) and the tests check them.
In a checkout `policy/` sits at the repository root; an installed wheel carries it as
`clearing_analysis/_policy`.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import msgspec

_PACKAGE_DIR = Path(__file__).resolve().parent


@functools.cache
def policy_dir() -> Path:
    """The directory holding the policy files (wheel copy first, then the checkout)."""
    for candidate in (_PACKAGE_DIR / "_policy", _PACKAGE_DIR.parent.parent / "policy"):
        if (candidate / "limits.json").is_file():
            return candidate
    raise RuntimeError("policy directory not found: broken installation")


def read_policy_bytes(name: str) -> bytes:
    """Raw bytes of one policy file (relative name, e.g. 'schemas/routes.schema.json')."""
    return (policy_dir() / name).read_bytes()


def load_policy_json(name: str) -> Any:
    """A policy JSON file, parsed. Policy files are reviewed, trusted data."""
    return json.loads(read_policy_bytes(name))


class Limits(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    """Resource limits for decoding untrusted input (bytes and nesting levels)."""

    max_journal_line_bytes: int
    max_nesting_depth: int
    max_config_file_bytes: int
    max_qualification_file_bytes: int


@functools.cache
def limits() -> Limits:
    """The decoding limits from policy/limits.json."""
    return msgspec.json.decode(read_policy_bytes("limits.json"), type=Limits)
