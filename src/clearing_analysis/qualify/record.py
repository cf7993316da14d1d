"""The qualification record: format, strict decoding and deterministic encoding (R-Q-3).

The record is what `clearing-analysis qualify` writes and `analyze` reads back. Format
(docs/qualification.md, schema policy/schemas/qualification.schema.json):

    {"format": "clearing-analysis/qualification", "formatVersion": 1,
     "piAi": {"package": ..., "version": ...},
     "sourceDigest": {"algorithm": "sha256", "value": <64 hex>},
     "apis": {<api>: {"cases", "targetedLeaves", "unintendedDifferences",
                      "byCategory": {<every DifferenceCategory>: count}}}}

Guarantees: `decode_record` accepts exactly this shape (strict JSON, no unknown fields, all
four APIs, every category present, at least one case and one targeted leaf per API, the
unintended count equal to the category sum) or raises `RecordRejected`. `encode_record` is
deterministic: sorted keys, two-space indent, UTF-8, one trailing newline.
"""

from __future__ import annotations

import enum
import json
from typing import Annotated, Final, Literal

import msgspec

from clearing_analysis import strictjson
from clearing_analysis.inputs.configs import Api
from clearing_analysis.policy import limits

FORMAT_NAME: Final = "clearing-analysis/qualification"
FORMAT_VERSION: Final = 1

Count = Annotated[int, msgspec.Meta(ge=0, le=2**53 - 1)]
PositiveCount = Annotated[int, msgspec.Meta(ge=1, le=2**53 - 1)]
Sha256Hex = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$", min_length=64, max_length=64)]
PackageName = Annotated[str, msgspec.Meta(min_length=1, max_length=214)]
Version = Annotated[
    str, msgspec.Meta(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?\Z", max_length=64)
]


class DifferenceCategory(enum.StrEnum):
    """Where an unintended payload difference occurred (same codes as qualify/diff.mjs)."""

    TOOL_CALL_ARGUMENTS = "TOOL_CALL_ARGUMENTS"
    REASONING = "REASONING"
    SIGNATURE = "SIGNATURE"
    ORDERING = "ORDERING"
    ID = "ID"
    PAIRING = "PAIRING"
    CACHE_CONTROL = "CACHE_CONTROL"
    OTHER_LEAF = "OTHER_LEAF"
    STRUCTURE = "STRUCTURE"
    UNTARGETED_RESULT_TEXT = "UNTARGETED_RESULT_TEXT"
    TARGET_NOT_CHANGED = "TARGET_NOT_CHANGED"
    TARGET_WRONG_VALUE = "TARGET_WRONG_VALUE"
    TARGET_NOT_LOCATED = "TARGET_NOT_LOCATED"


class RecordRejected(Exception):  # noqa: N818  (a verdict with a fixed reason)
    """The bytes are not a valid qualification record; `reason` is a fixed code."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class PiAi(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The pi-ai package the builders came from."""

    package: PackageName
    version: Version


class SourceDigest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """SHA-256 of the exact harness sources (definition in harness.py and the docs)."""

    algorithm: Literal["sha256"]
    value: Sha256Hex


class ApiSummary(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    """Per-API counts: cases run, target leaves checked, unintended differences by category."""

    cases: PositiveCount
    targeted_leaves: PositiveCount
    unintended_differences: Count
    by_category: dict[DifferenceCategory, Count]

    def check(self) -> None:
        """Cross-field rules msgspec cannot express."""
        if set(self.by_category) != set(DifferenceCategory):
            raise RecordRejected("CATEGORIES_INCOMPLETE")
        if sum(self.by_category.values()) != self.unintended_differences:
            raise RecordRejected("COUNTS_INCONSISTENT")


class QualificationRecord(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    """One qualification run of the installed builders."""

    format: Literal["clearing-analysis/qualification"]
    format_version: Literal[1]
    pi_ai: PiAi
    source_digest: SourceDigest
    apis: dict[Api, ApiSummary]

    def check(self) -> None:
        """Every supported API is present and internally consistent."""
        if set(self.apis) != set(Api):
            raise RecordRejected("APIS_INCOMPLETE")
        for summary in self.apis.values():
            summary.check()


def decode_record(raw: bytes) -> QualificationRecord:
    """Strictly decode record bytes, or raise `RecordRejected` with a fixed reason."""
    if len(raw) > limits().max_qualification_file_bytes:
        raise RecordRejected("TOO_LARGE")
    try:
        value = strictjson.loads(raw, max_depth=limits().max_nesting_depth)
        record = strictjson.to_struct(value, QualificationRecord)
    except strictjson.JsonRejected as rejected:
        raise RecordRejected(rejected.reason) from None
    record.check()
    return record


def encode_record(record: QualificationRecord) -> bytes:
    """Deterministic UTF-8 JSON: sorted keys, two-space indent, trailing newline."""
    builtins = msgspec.to_builtins(record)
    return (json.dumps(builtins, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode()
