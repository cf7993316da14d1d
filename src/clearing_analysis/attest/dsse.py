"""The DSSE envelope (DSSE protocol v1.0.0 and its JSON envelope), without any cryptography.

Guarantees:
- `pae` is the pre-authentication encoding the signature covers, byte for byte as the DSSE
  protocol defines it: `"DSSEv1" SP LEN(type) SP type SP LEN(body) SP body`, LEN the ASCII
  decimal byte length without leading zeros, `type` the UTF-8 of PAYLOAD_TYPE (tested against
  the specification's own example, whose published signature verifies over these bytes).
- `encode_envelope` writes one JSON line: sorted keys, compact, standard base64 with padding,
  exactly one signature with its `keyid`, and a trailing newline.
- `decode_envelope` accepts exactly that shape and nothing else: at most `MAX_ENVELOPE_BYTES`,
  one line (one trailing newline allowed), strict JSON (`strictjson`: UTF-8, no duplicate
  key), the three fields `payload`, `payloadType` and `signatures` and no other, exactly one
  signature object with `sig` and an optional `keyid` (both strings, nothing else), base64 in
  the standard or the URL-safe alphabet (the protocol requires verifiers to take either), with
  or without padding. Anything else is `VERIFY_FAILED ENVELOPE_MALFORMED`; nothing of the input
  is kept in the error.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any, Final

import msgspec

from clearing_analysis import strictjson
from clearing_analysis.codes.errors import VerifyDetail, VerifyError
from clearing_analysis.policy import limits

PAYLOAD_TYPE: Final = "application/vnd.in-toto+json"
# An envelope of a run attestation is about 1.5 KB; the cap only bounds what is read.
MAX_ENVELOPE_BYTES: Final = 64 * 1024

_STANDARD = re.compile(r"[A-Za-z0-9+/]*={0,2}")
_URL_SAFE = re.compile(r"[A-Za-z0-9_-]*={0,2}")
_ENVELOPE_FIELDS = frozenset({"payload", "payloadType", "signatures"})
_SIGNATURE_FIELDS = frozenset({"keyid", "sig"})


def pae(payload_type: str, payload: bytes) -> bytes:
    """PAE(UTF8(payload_type), payload): the bytes a DSSE signature is computed over."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)


class Envelope(msgspec.Struct, frozen=True):
    """A decoded single-signature envelope; `keyid` is an unauthenticated hint (may be None)."""

    payload: bytes
    payload_type: str
    keyid: str | None
    signature: bytes


def encode_envelope(envelope: Envelope) -> bytes:
    """The envelope as one JSON line (the `.intoto.jsonl` file's whole content)."""
    entry: dict[str, str] = {"sig": base64.b64encode(envelope.signature).decode("ascii")}
    if envelope.keyid is not None:
        entry["keyid"] = envelope.keyid
    document = {
        "payload": base64.b64encode(envelope.payload).decode("ascii"),
        "payloadType": envelope.payload_type,
        "signatures": [entry],
    }
    return (json.dumps(document, sort_keys=True, separators=(",", ":")) + "\n").encode("ascii")


def _malformed() -> VerifyError:
    return VerifyError(VerifyDetail.ENVELOPE_MALFORMED)


def b64decode_either(text: object) -> bytes:
    """Standard or URL-safe base64 (not mixed), padded or not; else ENVELOPE_MALFORMED."""
    if not isinstance(text, str):
        raise _malformed()
    if _STANDARD.fullmatch(text):
        altchars = None
    elif _URL_SAFE.fullmatch(text):
        altchars = b"-_"
    else:
        raise _malformed()
    bare = text.rstrip("=")
    padded = bare + "=" * (-len(bare) % 4)
    if len(bare) % 4 == 1 or text not in (bare, padded):
        raise _malformed()  # no base64 text has that length, or the padding is wrong
    try:
        return base64.b64decode(padded, altchars=altchars, validate=True)
    except (binascii.Error, ValueError):
        raise _malformed() from None


def _object(value: Any, allowed: frozenset[str], required: frozenset[str]) -> dict[str, Any]:
    if not isinstance(value, dict) or not required <= value.keys() <= allowed:
        raise _malformed()
    return value


def decode_envelope(data: bytes) -> Envelope:
    """The one envelope of an `.intoto.jsonl` file's bytes (module docstring)."""
    if len(data) > MAX_ENVELOPE_BYTES:
        raise _malformed()
    line = data.removesuffix(b"\n")
    if b"\n" in line:
        raise _malformed()  # more than one line: this format holds exactly one envelope
    try:
        value = strictjson.loads(line, max_depth=limits().max_nesting_depth)
    except strictjson.JsonRejected:
        raise _malformed() from None
    document = _object(value, _ENVELOPE_FIELDS, _ENVELOPE_FIELDS)
    signatures = document["signatures"]
    payload_type = document["payloadType"]
    if not isinstance(payload_type, str):
        raise _malformed()
    if not isinstance(signatures, list) or len(signatures) != 1:
        raise _malformed()  # exactly the one signature analyze writes
    entry = _object(signatures[0], _SIGNATURE_FIELDS, frozenset({"sig"}))
    keyid = entry.get("keyid")
    if keyid is not None and not isinstance(keyid, str):
        raise _malformed()
    return Envelope(
        payload=b64decode_either(document["payload"]),
        payload_type=payload_type,
        keyid=keyid or None,  # DSSE: an empty field may be omitted, so "" is no hint
        signature=b64decode_either(entry["sig"]),
    )


__all__ = [
    "MAX_ENVELOPE_BYTES",
    "PAYLOAD_TYPE",
    "Envelope",
    "b64decode_either",
    "decode_envelope",
    "encode_envelope",
    "pae",
]
