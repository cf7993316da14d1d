"""The signed payload: an in-toto Statement v1 about one report (docs/attestation.md).

Guarantees:
- The statement has exactly one subject, the report: its file name (no directory) and the
  SHA-256 of its bytes. The predicate (`RunPredicate`, type `PREDICATE_TYPE`) holds exactly
  the tool version, the pi-ai version of an accepted qualification record, the image ID and
  image digest the runtime states (null where it states none) and the mount contract status:
  no input path, digest, name or count beyond what the report already says.
- `encode_statement` writes deterministic compact JSON (sorted keys, no trailing newline);
  `decode_statement` reads one back strictly (strict JSON, every field required, no unknown
  field at any level, every value of its documented form) or refuses it with
  `VERIFY_FAILED STATEMENT_INVALID`.
- policy/schemas/run-attestation.schema.json is generated from these structs (a test keeps it
  equal; regenerate with `python -m clearing_analysis.attest.statement`).
"""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Annotated, Any, Final, Literal

import msgspec

from clearing_analysis import strictjson
from clearing_analysis.codes.errors import VerifyDetail, VerifyError
from clearing_analysis.container.sealed import ContractStatus
from clearing_analysis.policy import limits

STATEMENT_TYPE: Final = "https://in-toto.io/Statement/v1"
# A type identifier under the product's own name; `.invalid` (RFC 2606) is a domain nobody can
# register, so no other party can ever publish a predicate of this type (docs/attestation.md).
PREDICATE_TYPE: Final = "https://clearing-analysis.invalid/attestation/run/v1"
SCHEMA_FILE: Final = "schemas/run-attestation.schema.json"

Sha256Hex = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$", min_length=64, max_length=64)]
# The report's own patterns (report.model): a package version and a 64-hex image ID.
Version = Annotated[
    str, msgspec.Meta(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$", max_length=64)
]
ImageId = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$", min_length=64, max_length=64)]
ImageDigest = Annotated[str, msgspec.Meta(pattern="^sha256:[0-9a-f]{64}$", max_length=71)]
# A file name as the signing run was given it (one path component, 255 at most on Linux).
SubjectName = Annotated[str, msgspec.Meta(min_length=1, max_length=255)]


class _Strict(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    """Immutable, camelCase on the wire, no unknown field accepted."""


class DigestSet(_Strict, frozen=True):
    """The subject's digests: SHA-256 only, lowercase hex."""

    sha256: Sha256Hex


class Subject(_Strict, frozen=True):
    """The report: its file name and the SHA-256 of its bytes."""

    name: SubjectName
    digest: DigestSet


class RunPredicate(_Strict, frozen=True):
    """What the signing run states about itself (docs/attestation.md, "The predicate")."""

    tool_version: Version
    pi_ai_version: Version | None
    image_id: ImageId | None
    image_digest: ImageDigest | None
    mount_contract: ContractStatus


class Statement(_Strict, frozen=True):
    """An in-toto Statement v1 with exactly one subject and a run predicate."""

    type: Literal["https://in-toto.io/Statement/v1"] = msgspec.field(name="_type")
    subject: Annotated[tuple[Subject, ...], msgspec.Meta(min_length=1, max_length=1)]
    predicate_type: Literal["https://clearing-analysis.invalid/attestation/run/v1"]
    predicate: RunPredicate


_ENCODER = msgspec.json.Encoder(order="sorted")


def sha256_hex(data: bytes) -> str:
    """Lowercase hex SHA-256 of `data` (hashlib's, as the report tooling uses)."""
    return hashlib.sha256(data).hexdigest()


def run_statement(report_name: str, report: bytes, predicate: RunPredicate) -> Statement:
    """The statement about the report `report_name` whose bytes are `report`."""
    return Statement(
        type=STATEMENT_TYPE,
        subject=(Subject(name=report_name, digest=DigestSet(sha256=sha256_hex(report))),),
        predicate_type=PREDICATE_TYPE,
        predicate=predicate,
    )


def encode_statement(statement: Statement) -> bytes:
    """The statement's payload bytes: deterministic compact JSON, every value checked."""
    data = _ENCODER.encode(statement)
    # The structs do not check constraints on construction: a decode does, so an invalid
    # statement (a programming error, never user data) is never signed.
    msgspec.json.decode(data, type=Statement, strict=True)
    return data


def decode_statement(payload: bytes) -> Statement:
    """A signed payload read back strictly, or STATEMENT_INVALID."""
    try:
        value = strictjson.loads(payload, max_depth=limits().max_nesting_depth)
        return strictjson.to_struct(value, Statement)
    except strictjson.JsonRejected:
        raise VerifyError(VerifyDetail.STATEMENT_INVALID) from None


def statement_schema() -> dict[str, Any]:
    """JSON Schema 2020-12 of the statement, every object closed to unknown fields."""
    schema: dict[str, Any] = msgspec.json.schema(Statement)
    for definition in schema.get("$defs", {}).values():
        if definition.get("type") == "object" and "properties" in definition:
            definition["additionalProperties"] = False
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "clearing-analysis run attestation: the in-toto Statement v1 in the envelope",
        **schema,
    }


def schema_bytes() -> bytes:
    """The schema file's exact bytes: sorted keys, two-space indent, trailing newline."""
    return (json.dumps(statement_schema(), indent=2, sort_keys=True) + "\n").encode("ascii")


__all__ = [
    "PREDICATE_TYPE",
    "SCHEMA_FILE",
    "STATEMENT_TYPE",
    "DigestSet",
    "RunPredicate",
    "Statement",
    "Subject",
    "decode_statement",
    "encode_statement",
    "run_statement",
    "schema_bytes",
    "sha256_hex",
    "statement_schema",
]

if __name__ == "__main__":
    sys.stdout.buffer.write(schema_bytes())
