"""`verify`: does this report carry a valid attestation by this key? (docs/attestation.md)

The steps, in this order, each refusal one fixed `VERIFY_FAILED` detail with exit 2 (R-CLI-3,
R-REL-1), and nothing of the report, the key or the envelope ever printed (R-OUT-1):
1. the public key: a PEM Ed25519 public key (`PUBKEY_MISSING`, `PUBKEY_INVALID`);
2. the report: an existing regular file (`REPORT_MISSING`), and beside it `R.intoto.jsonl`
   (`ATTESTATION_MISSING`);
3. the envelope decodes (`ENVELOPE_MALFORMED`, `attest.dsse`);
4. the signature verifies with this key over PAE(payloadType, payload). If it does not, what
   the envelope still shows names the refusal (`_unverified_reason`): a `keyid` of another key
   is `WRONG_KEY`; a payload that no longer reads as this product's statement about this
   report (another type, not a run statement, another subject digest) is `PAYLOAD_CHANGED`;
   otherwise `BAD_SIGNATURE` (the signature changed, or the payload changed only where it still
   reads as such a statement: the subject's name). These are unauthenticated hints, so, as
   DSSE requires of the key ID, they never decide acceptance: they only name the reason of a
   refusal the signature already made;
5. the payload type is in-toto's and the payload a run statement of this product
   (`STATEMENT_INVALID`);
6. the report's SHA-256 equals the subject's (`REPORT_CHANGED`). The subject's name is not
   compared: a report may be renamed together with its attestation;
7. with `require_sealed`, the predicate says the mount contract held (`CONTRACT_NOT_HELD`).
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from clearing_analysis.attest.dsse import (
    MAX_ENVELOPE_BYTES,
    PAYLOAD_TYPE,
    Envelope,
    decode_envelope,
    pae,
)
from clearing_analysis.attest.keys import VerifyingKey, load_verifying_key
from clearing_analysis.attest.sign import attestation_path
from clearing_analysis.attest.statement import Statement, decode_statement
from clearing_analysis.codes.errors import VerifyDetail, VerifyError
from clearing_analysis.container.sealed import ContractStatus

_READ_FLAGS = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK
_CHUNK = 1 << 20


def _open_regular(path: Path, detail: VerifyDetail) -> int:
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        raise VerifyError(detail) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise VerifyError(detail)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _report_sha256(report: Path) -> str:
    fd = _open_regular(report, VerifyDetail.REPORT_MISSING)
    digest = hashlib.sha256()
    try:
        while chunk := os.read(fd, _CHUNK):
            digest.update(chunk)
    except OSError:
        raise VerifyError(VerifyDetail.REPORT_MISSING) from None
    finally:
        os.close(fd)
    return digest.hexdigest()


def _read_attestation(path: Path) -> bytes:
    fd = _open_regular(path, VerifyDetail.ATTESTATION_MISSING)
    try:
        with os.fdopen(os.dup(fd), "rb") as stream:
            return stream.read(MAX_ENVELOPE_BYTES + 1)
    except OSError:
        raise VerifyError(VerifyDetail.ATTESTATION_MISSING) from None
    finally:
        os.close(fd)


def _unverified_reason(envelope: Envelope, key: VerifyingKey, report_digest: str) -> VerifyDetail:
    """Which refusal a signature that did not verify is, from unsigned evidence only."""
    if envelope.keyid is not None and envelope.keyid != key.keyid:
        return VerifyDetail.WRONG_KEY
    if envelope.payload_type != PAYLOAD_TYPE:
        return VerifyDetail.PAYLOAD_CHANGED
    try:
        statement = decode_statement(envelope.payload)
    except VerifyError:
        return VerifyDetail.PAYLOAD_CHANGED
    if statement.subject[0].digest.sha256 != report_digest:
        return VerifyDetail.PAYLOAD_CHANGED
    return VerifyDetail.BAD_SIGNATURE


def verify_report(report: Path, pubkey: Path, *, require_sealed: bool = False) -> Statement:
    """The verified statement about `report`, or VerifyError (module docstring)."""
    key = load_verifying_key(pubkey)
    report_digest = _report_sha256(report)
    envelope = decode_envelope(_read_attestation(attestation_path(report)))
    if not key.verifies(envelope.signature, pae(envelope.payload_type, envelope.payload)):
        raise VerifyError(_unverified_reason(envelope, key, report_digest))
    if envelope.payload_type != PAYLOAD_TYPE:
        raise VerifyError(VerifyDetail.STATEMENT_INVALID)
    statement = decode_statement(envelope.payload)
    if statement.subject[0].digest.sha256 != report_digest:
        raise VerifyError(VerifyDetail.REPORT_CHANGED)
    if require_sealed and statement.predicate.mount_contract is not ContractStatus.HELD:
        raise VerifyError(VerifyDetail.CONTRACT_NOT_HELD)
    return statement


__all__ = ["verify_report"]
