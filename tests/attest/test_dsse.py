"""The DSSE layer: the pre-authentication encoding against the specification's own example,
and the envelope's one accepted shape (everything else ENVELOPE_MALFORMED)."""

from __future__ import annotations

import base64
import json

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, utils

from clearing_analysis.attest.dsse import (
    MAX_ENVELOPE_BYTES,
    PAYLOAD_TYPE,
    Envelope,
    b64decode_either,
    decode_envelope,
    encode_envelope,
    pae,
)
from clearing_analysis.codes.errors import VerifyError

# DSSE protocol.md, "Test Vectors" (protocol version 1.0.0): the example payload, its type,
# the PAE the specification prints, and the published ECDSA P-256 / SHA-256 key and signature
# (raw r || s) over that PAE.
SPEC_TYPE = "http://example.com/HelloWorld"
SPEC_BODY = b"hello world"
SPEC_PAE = b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
SPEC_X = 46950820868899156662930047687818585632848591499744589407958293238635476079160
SPEC_Y = 5640078356564379163099075877009565129882514886557779369047442380624545832820
SPEC_SIG = (
    "A3JqsQGtVsJ2O2xqrI5IcnXip5GToJ3F+FnZ+O88SjtR6rDAajabZKciJTfUiHqJPcIAriEGAHTVeCUjW2JIZA=="
)
SPEC_ENVELOPE_PAYLOAD = "aGVsbG8gd29ybGQ="


def test_pae_is_the_specification_example() -> None:
    """PAE of the specification's example is, byte for byte, the PAE it prints."""
    assert pae(SPEC_TYPE, SPEC_BODY) == SPEC_PAE


def test_the_specification_signature_verifies_over_our_pae() -> None:
    """The signature the specification publishes for its example verifies (with the published
    key, by `cryptography`) over the bytes `pae` produces, and not over a changed byte: so the
    encoding is the one the specification signs, not merely a string that looks like it."""
    public_key = ec.EllipticCurvePublicNumbers(SPEC_X, SPEC_Y, ec.SECP256R1()).public_key()
    raw = base64.b64decode(SPEC_SIG)
    signature = utils.encode_dss_signature(
        int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
    )
    public_key.verify(signature, pae(SPEC_TYPE, SPEC_BODY), ec.ECDSA(hashes.SHA256()))
    with pytest.raises(InvalidSignature):
        public_key.verify(signature, pae(SPEC_TYPE, b"hello World"), ec.ECDSA(hashes.SHA256()))
    assert base64.b64decode(SPEC_ENVELOPE_PAYLOAD) == SPEC_BODY


@pytest.mark.parametrize(
    ("payload_type", "body", "expected"),
    [
        # LEN is the byte length of the UTF-8 type, not its character count.
        (
            "application/vnd.exämple+json",
            b"{}",
            b"DSSEv1 29 application/vnd.ex\xc3\xa4mple+json 2 {}",
        ),
        # An empty body still has its separating space.
        (PAYLOAD_TYPE, b"", b"DSSEv1 28 application/vnd.in-toto+json 0 "),
        # No leading zeros, and the body is taken as bytes, spaces and newlines included.
        ("t", b"a b\n" * 3, b"DSSEv1 1 t 12 a b\na b\na b\n"),
    ],
    ids=["utf8-type", "empty-body", "binary-body"],
)
def test_pae_lengths_are_byte_lengths(payload_type: str, body: bytes, expected: bytes) -> None:
    """The layout's edge cases, as the protocol defines LEN(s)."""
    assert pae(payload_type, body) == expected


ENVELOPE = Envelope(b'{"_type":"x"}', PAYLOAD_TYPE, "ab" * 32, bytes(range(64)))


def test_envelope_round_trip_is_one_sorted_compact_line() -> None:
    """What analyze writes: one line, keys sorted, standard padded base64; it decodes back."""
    line = encode_envelope(ENVELOPE)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    document = json.loads(line)
    assert list(document) == ["payload", "payloadType", "signatures"]
    assert document["signatures"] == [
        {"keyid": "ab" * 32, "sig": base64.b64encode(bytes(range(64))).decode()}
    ]
    assert decode_envelope(line) == ENVELOPE
    assert decode_envelope(line.rstrip(b"\n")) == ENVELOPE  # the final newline is optional


def _line(document: object) -> bytes:
    return json.dumps(document).encode() + b"\n"


def _document() -> dict[str, object]:
    return json.loads(encode_envelope(ENVELOPE))


def test_url_safe_and_unpadded_base64_are_accepted() -> None:
    """DSSE: verifiers MUST accept the standard and the URL-safe alphabet; padding optional."""
    sig = base64.urlsafe_b64encode(ENVELOPE.signature).decode().rstrip("=")
    assert {"-", "_"} & set(sig)  # the URL-safe alphabet really is exercised
    document = _document()
    document["payload"] = base64.urlsafe_b64encode(ENVELOPE.payload).decode().rstrip("=")
    document["signatures"] = [{"keyid": "ab" * 32, "sig": sig}]
    assert decode_envelope(_line(document)) == ENVELOPE


def test_an_empty_keyid_is_no_hint() -> None:
    """An empty field may be omitted (DSSE), so "" means no key ID, like an absent one."""
    document = _document()
    document["signatures"] = [{"keyid": "", "sig": base64.b64encode(ENVELOPE.signature).decode()}]
    assert decode_envelope(_line(document)).keyid is None
    document["signatures"] = [{"sig": base64.b64encode(ENVELOPE.signature).decode()}]
    assert decode_envelope(_line(document)).keyid is None


def _malformed_cases() -> dict[str, bytes]:
    good = encode_envelope(ENVELOPE)
    sig = base64.b64encode(ENVELOPE.signature).decode()
    cases: dict[str, bytes] = {
        "empty file": b"",
        "not json": b"not json\n",
        "a json array": b"[]\n",
        "two lines": good + good,
        "a blank second line": good + b"\n",
        "too large": good.rstrip(b"\n") + b" " * MAX_ENVELOPE_BYTES + b"\n",
        "utf-8 bom": b"\xef\xbb\xbf" + good,
        "invalid utf-8": good.replace(b'"payloadType"', b'"payloadType\xff"'),
        "duplicate key": good.replace(b'{"payload"', b'{"payloadType":"x","payload"'),
    }
    edits: dict[str, tuple[str, object]] = {
        "payload missing": ("payload", None),
        "payloadType missing": ("payloadType", None),
        "signatures missing": ("signatures", None),
        "extra field": ("extra", "x"),
        "payloadType not a string": ("payloadType", 1),
        "payload not a string": ("payload", 1),
        "payload not base64": ("payload", "!!!!"),
        "payload mixed alphabets": ("payload", "a+b-"),
        "payload bad length": ("payload", "abcde"),
        "payload wrong padding": ("payload", "YQ="),
        "payload too much padding": ("payload", "YQ==="),
        "no signature": ("signatures", []),
        "two signatures": ("signatures", [{"sig": sig}, {"sig": sig}]),
        "signatures not a list": ("signatures", {"sig": sig}),
        "signature not an object": ("signatures", [sig]),
        "sig missing": ("signatures", [{"keyid": "k"}]),
        "sig not a string": ("signatures", [{"sig": 7}]),
        "sig not base64": ("signatures", [{"sig": "*" * 88}]),
        "keyid not a string": ("signatures", [{"keyid": 1, "sig": sig}]),
        "extra signature field": ("signatures", [{"sig": sig, "cert": "x"}]),
    }
    for name, (field, value) in edits.items():
        document = _document()
        if value is None:
            del document[field]
        else:
            document[field] = value
        cases[name] = _line(document)
    return cases


MALFORMED = _malformed_cases()


@pytest.mark.parametrize("data", list(MALFORMED.values()), ids=list(MALFORMED))
def test_anything_else_is_envelope_malformed(data: bytes) -> None:
    """Every other shape, encoding or size is the one fixed detail, carrying nothing."""
    with pytest.raises(VerifyError) as caught:
        decode_envelope(data)
    assert caught.value.detail == "ENVELOPE_MALFORMED"
    assert str(caught.value) == "VERIFY_FAILED:ENVELOPE_MALFORMED"


@pytest.mark.parametrize(
    ("text", "raw"),
    [("", b""), ("YQ==", b"a"), ("YQ", b"a"), ("-_-_", b"\xfb\xff\xbf"), ("+/+/", b"\xfb\xff\xbf")],
)
def test_base64_forms(text: str, raw: bytes) -> None:
    """The accepted base64 forms decode to the same bytes."""
    assert b64decode_either(text) == raw
