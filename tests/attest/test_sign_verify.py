"""Sign, then verify: the round trip, and each change, key and shape with its fixed detail.

In process, through the library (`attest.sign`, `attest.verify`); the CLI and the analyze run
are in test_signed_analyze.py, the privacy check in tests/e2e/test_canary.py.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from jsonschema import Draft202012Validator

from clearing_analysis.attest.dsse import (
    PAYLOAD_TYPE,
    Envelope,
    decode_envelope,
    encode_envelope,
    pae,
)
from clearing_analysis.attest.keys import load_signing_key, write_key_pair
from clearing_analysis.attest.sign import (
    attestation_path,
    envelope_for,
    run_predicate,
    subject_name,
)
from clearing_analysis.attest.statement import (
    PREDICATE_TYPE,
    SCHEMA_FILE,
    STATEMENT_TYPE,
    RunPredicate,
    schema_bytes,
    sha256_hex,
)
from clearing_analysis.attest.verify import verify_report
from clearing_analysis.codes.errors import OutputRefusedError, VerifyError
from clearing_analysis.container.sealed import ContractStatus
from clearing_analysis.policy import read_policy_bytes

PREDICATE = RunPredicate(
    tool_version="0.1.0",
    pi_ai_version="0.73.1",
    image_id=None,
    image_digest=None,
    mount_contract=ContractStatus.HELD,
)


class Signed:
    """A report file, its attestation and two key pairs (the signer's and another)."""

    def __init__(self, root: Path, predicate: RunPredicate = PREDICATE) -> None:
        self.root = root
        write_key_pair(root / "signer.key")
        write_key_pair(root / "other.key")
        self.key = load_signing_key(root / "signer.key")
        self.pubkey = root / "signer.key.pub"
        self.other_pubkey = root / "other.key.pub"
        self.report = root / "report.json"
        self.report.write_bytes(b'{"format":"clearing-analysis-report","x":' + b"1" * 500 + b"}\n")
        self.attestation = attestation_path(self.report)
        self.attestation.write_bytes(
            envelope_for("report.json", self.report.read_bytes(), predicate, self.key)
        )

    def envelope(self) -> dict[str, Any]:
        return cast(dict[str, Any], json.loads(self.attestation.read_bytes()))

    def payload(self) -> bytes:
        return base64.b64decode(self.envelope()["payload"])

    def write_envelope(self, document: dict[str, Any]) -> None:
        self.attestation.write_bytes(json.dumps(document).encode() + b"\n")

    def resign(self, payload: bytes, payload_type: str = PAYLOAD_TYPE) -> None:
        """A genuine signature by the signer's key over another payload."""
        signature = self.key.sign(pae(payload_type, payload))
        envelope = Envelope(payload, payload_type, self.key.keyid, signature)
        self.attestation.write_bytes(encode_envelope(envelope))

    def detail(self, pubkey: Path | None = None, *, require_sealed: bool = False) -> str:
        with pytest.raises(VerifyError) as caught:
            verify_report(self.report, pubkey or self.pubkey, require_sealed=require_sealed)
        return str(caught.value.detail)


@pytest.fixture
def signed(tmp_path: Path) -> Signed:
    return Signed(tmp_path)


def test_sign_then_verify(signed: Signed) -> None:
    """The statement verifies and says what was signed: one subject, the report's name and
    SHA-256, the predicate type and the predicate as given."""
    statement = verify_report(signed.report, signed.pubkey, require_sealed=True)
    assert statement.type == STATEMENT_TYPE
    assert statement.predicate_type == PREDICATE_TYPE
    (subject,) = statement.subject
    assert subject.name == "report.json"
    assert subject.digest.sha256 == sha256_hex(signed.report.read_bytes())
    assert statement.predicate == PREDICATE
    envelope = signed.envelope()
    assert envelope["payloadType"] == "application/vnd.in-toto+json"
    assert envelope["signatures"][0]["keyid"] == signed.key.keyid


def test_the_statement_matches_the_published_schema(signed: Signed) -> None:
    """The signed payload validates against policy/schemas/run-attestation.schema.json, which
    is what the structs generate (regenerate: python -m clearing_analysis.attest.statement)."""
    assert read_policy_bytes(SCHEMA_FILE) == schema_bytes()
    schema = json.loads(read_policy_bytes(SCHEMA_FILE))
    Draft202012Validator.check_schema(schema)
    assert Draft202012Validator(schema).is_valid(json.loads(signed.payload()))
    predicate = schema["$defs"]["RunPredicate"]
    # Exactly the five documented fields, all required, nothing else admitted.
    assert (
        set(predicate["required"])
        == set(predicate["properties"])
        == {
            "toolVersion",
            "piAiVersion",
            "imageId",
            "imageDigest",
            "mountContract",
        }
    )
    assert predicate["additionalProperties"] is False


def test_a_flipped_report_byte_is_report_changed(signed: Signed) -> None:
    """One flipped bit anywhere in the report: REPORT_CHANGED (sampled through the file)."""
    original = signed.report.read_bytes()
    for index in range(0, len(original), 37):
        changed = bytearray(original)
        changed[index] ^= 0x01
        signed.report.write_bytes(bytes(changed))
        assert signed.detail() == "REPORT_CHANGED", index
    signed.report.write_bytes(original + b"\n")  # one byte more is a change too
    assert signed.detail() == "REPORT_CHANGED"


def test_a_flipped_payload_byte_is_payload_changed(signed: Signed) -> None:
    """Any byte of the signed payload changed (re-encoded as valid base64) is refused:
    PAYLOAD_CHANGED wherever the change leaves no valid statement about this report (its
    structure, types, digest, predicate), BAD_SIGNATURE only where it still reads as one: a
    printable change inside the subject's name, which verify does not compare (a report may be
    renamed with its attestation). The name's span is found here by plain byte search."""
    payload = signed.payload()
    name = b'"report.json"'
    start = payload.index(name) + 1
    name_span = range(start, start + len(name) - 2)
    seen: set[str] = set()
    for index in range(len(payload)):
        document = signed.envelope()
        changed = bytearray(payload)
        changed[index] ^= 0x20
        document["payload"] = base64.b64encode(bytes(changed)).decode()
        signed.write_envelope(document)
        still_a_name = index in name_span and changed[index] >= 0x20 and changed[index] != 0x22
        expected = "BAD_SIGNATURE" if still_a_name else "PAYLOAD_CHANGED"
        detail = signed.detail()
        assert detail == expected, index
        seen.add(detail)
    assert seen == {"BAD_SIGNATURE", "PAYLOAD_CHANGED"}


def test_a_flipped_signature_byte_is_bad_signature(signed: Signed) -> None:
    """Any bit of the 64 signature bytes flipped: BAD_SIGNATURE; a truncated or lengthened
    signature too."""
    original = signed.envelope()
    raw = base64.b64decode(original["signatures"][0]["sig"])
    variants = [bytes(raw[:i]) + bytes([raw[i] ^ 0x01]) + bytes(raw[i + 1 :]) for i in range(64)]
    variants += [raw[:63], raw + b"\x00", b""]
    for variant in variants:
        document = signed.envelope()
        document["signatures"][0]["sig"] = base64.b64encode(variant).decode()
        signed.write_envelope(document)
        assert signed.detail() == "BAD_SIGNATURE"


def test_a_changed_payload_type_is_payload_changed(signed: Signed) -> None:
    """payloadType is signed too (PAE): another type on the same payload is PAYLOAD_CHANGED."""
    document = signed.envelope()
    document["payloadType"] = "application/json"
    signed.write_envelope(document)
    assert signed.detail() == "PAYLOAD_CHANGED"


def test_every_single_byte_change_of_the_attestation_file_is_refused(signed: Signed) -> None:
    """Exhaustively, each byte of the .intoto.jsonl file changed on its own: refused as
    BAD_SIGNATURE, PAYLOAD_CHANGED or ENVELOPE_MALFORMED, unless the change left every signed thing
    as it was (payload, payloadType and signature decode to the same bytes): a key ID hint, or
    the unused low bits of a base64 text's last character. Those change nothing the signature
    covers, so, as DSSE requires of an unauthenticated hint, they never decide."""
    original = signed.attestation.read_bytes()
    signed_parts = decode_envelope(original)
    seen: set[str] = set()
    for index in range(len(original)):
        changed = bytearray(original)
        changed[index] ^= 0x01
        signed.attestation.write_bytes(bytes(changed))
        try:
            verify_report(signed.report, signed.pubkey)
        except VerifyError as error:
            assert error.detail in {"BAD_SIGNATURE", "PAYLOAD_CHANGED", "ENVELOPE_MALFORMED"}, index
            seen.add(error.detail)
            continue
        accepted = decode_envelope(bytes(changed))
        assert (accepted.payload, accepted.payload_type, accepted.signature) == (
            signed_parts.payload,
            signed_parts.payload_type,
            signed_parts.signature,
        ), index
        seen.add("UNSIGNED_PART_ONLY")
    assert seen == {
        "BAD_SIGNATURE",
        "PAYLOAD_CHANGED",
        "ENVELOPE_MALFORMED",
        "UNSIGNED_PART_ONLY",
    }


def test_a_wrong_key_is_wrong_key(signed: Signed) -> None:
    """Verified with another public key: WRONG_KEY (the envelope's key ID names the signer)."""
    assert signed.detail(signed.other_pubkey) == "WRONG_KEY"


def test_the_key_id_never_decides(signed: Signed) -> None:
    """The key ID is a hint only: without it a wrong key is BAD_SIGNATURE; with a forged one
    naming the verifier's key it is BAD_SIGNATURE too; and a genuine signature whose hint was
    changed still verifies (the signature decides)."""
    document = signed.envelope()
    del document["signatures"][0]["keyid"]
    signed.write_envelope(document)
    assert signed.detail(signed.other_pubkey) == "BAD_SIGNATURE"
    assert verify_report(signed.report, signed.pubkey).predicate == PREDICATE
    other = load_signing_key_id(signed.other_pubkey)
    document["signatures"][0]["keyid"] = other
    signed.write_envelope(document)
    assert signed.detail(signed.other_pubkey) == "BAD_SIGNATURE"
    assert verify_report(signed.report, signed.pubkey).predicate == PREDICATE


def load_signing_key_id(pubkey: Path) -> str:
    from clearing_analysis.attest.keys import load_verifying_key

    return load_verifying_key(pubkey).keyid


@pytest.mark.parametrize(
    "payload",
    [
        b"not json",
        b"{}",
        b'{"_type":"https://in-toto.io/Statement/v1"}',
        "two subjects",
        "no subject",
        "an unknown predicate field",
        "an unknown statement field",
        "another predicate type",
        "statement v0.1",
        "a digest in upper case",
        "another contract value",
        "a duplicate key",
    ],
)
def test_a_signed_payload_that_is_no_run_statement(signed: Signed, payload: bytes | str) -> None:
    """Genuinely signed by the signer's key, but not this product's statement: STATEMENT_INVALID."""
    statement = json.loads(signed.payload())
    subject = statement["subject"][0]
    edits: dict[str, Any] = {
        "two subjects": lambda s: s.update(subject=[subject, subject]),
        "no subject": lambda s: s.update(subject=[]),
        "an unknown predicate field": lambda s: s["predicate"].update(inputs=["/home/x"]),
        "an unknown statement field": lambda s: s.update(comment="x"),
        "another predicate type": lambda s: s.update(
            predicateType="https://slsa.dev/provenance/v1"
        ),
        "statement v0.1": lambda s: s.update(_type="https://in-toto.io/Statement/v0.1"),
        "a digest in upper case": lambda s: subject["digest"].update(
            sha256=subject["digest"]["sha256"].upper()
        ),
        "another contract value": lambda s: s["predicate"].update(mountContract="VIOLATED"),
    }
    if isinstance(payload, str) and payload in edits:
        edits[payload](statement)
        data = json.dumps(statement).encode()
    elif payload == "a duplicate key":
        data = signed.payload().replace(b'{"_type"', b'{"_type":"x","_type"', 1)
    else:
        assert isinstance(payload, bytes)
        data = payload
    signed.resign(data)
    assert signed.detail() == "STATEMENT_INVALID"


def test_a_signed_statement_of_another_payload_type(signed: Signed) -> None:
    """The right statement, genuinely signed, under another payload type: STATEMENT_INVALID."""
    signed.resign(signed.payload(), "application/vnd.example+json")
    assert signed.detail() == "STATEMENT_INVALID"


def test_missing_files(signed: Signed, tmp_path: Path) -> None:
    """No report, no attestation beside it, no public key: each its own detail."""
    assert signed.detail(tmp_path / "absent.pub") == "PUBKEY_MISSING"
    signed.attestation.unlink()
    assert signed.detail() == "ATTESTATION_MISSING"
    signed.attestation.mkdir()
    assert signed.detail() == "ATTESTATION_MISSING"
    signed.report.unlink()
    assert signed.detail() == "REPORT_MISSING"


def test_renamed_together_still_verifies(signed: Signed) -> None:
    """A report renamed with its attestation verifies: the digest binds it, not the name."""
    moved = signed.root / "ci-report.json"
    signed.report.rename(moved)
    signed.attestation.rename(attestation_path(moved))
    assert verify_report(moved, signed.pubkey).subject[0].name == "report.json"


def test_require_sealed(tmp_path: Path) -> None:
    """--require-sealed: a NOT_CHECKED run verifies without it, CONTRACT_NOT_HELD with it."""
    unchecked = Signed(
        tmp_path,
        RunPredicate(
            tool_version="0.1.0",
            pi_ai_version=None,
            image_id=None,
            image_digest=None,
            mount_contract=ContractStatus.NOT_CHECKED,
        ),
    )
    assert (
        verify_report(unchecked.report, unchecked.pubkey).predicate.mount_contract == "NOT_CHECKED"
    )
    assert unchecked.detail(require_sealed=True) == "CONTRACT_NOT_HELD"


def _report(statuses: list[str], pi_ai: str | None = "0.73.1") -> Any:
    per_api = {
        f"api{i}": SimpleNamespace(qualification=SimpleNamespace(status=status))
        for i, status in enumerate(statuses)
    }
    return SimpleNamespace(
        tool_version="0.1.0", pi_ai_version=pi_ai, image_id="ab" * 32, per_api=per_api
    )


@pytest.mark.parametrize(
    ("statuses", "expected"),
    [
        (["QUALIFIED", "PAYLOAD_UNQUALIFIED"], "0.73.1"),
        (["QUALIFIED"], "0.73.1"),
        (["PAYLOAD_UNQUALIFIED", "PAYLOAD_UNQUALIFIED"], None),
    ],
)
def test_the_pi_ai_version_is_an_accepted_records(
    statuses: list[str], expected: str | None
) -> None:
    """piAiVersion only when some API is QUALIFIED (the record was valid and current), else
    null; the image ID is the report's; the image digest is the one stated, or null."""
    predicate = run_predicate(_report(statuses), None, ContractStatus.NOT_CHECKED)
    assert predicate.pi_ai_version == expected
    assert predicate.tool_version == "0.1.0"
    assert predicate.image_id == "ab" * 32
    assert predicate.image_digest is None
    digest = "sha256:" + "cd" * 32
    assert run_predicate(_report(statuses), digest, ContractStatus.HELD).image_digest == digest


def test_subject_names_must_be_utf8() -> None:
    """A report name that is not UTF-8 (surrogate-escaped bytes) cannot be named: refused as
    OUTPUT_NAME_INVALID; a UTF-8 name is taken as is, without its directory."""
    assert subject_name(Path("/out/dir/rapport-é.json")) == "rapport-é.json"
    with pytest.raises(OutputRefusedError) as caught:
        subject_name(Path("/out/report-\udcff.json"))
    assert caught.value.detail == "OUTPUT_NAME_INVALID"
