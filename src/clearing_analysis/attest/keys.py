"""Ed25519 keys: generation, the signing key's checks, the verifying key (docs/attestation.md).

Every key operation is the `cryptography` package's. Guarantees:
- `write_key_pair(out)` generates an Ed25519 key and creates two new files, both checked up
  front and created exclusively (`inputs.output`, R-FS rules): `out`, the private key as
  unencrypted PKCS#8 PEM with mode exactly 0600, and `out.pub`, the public key as PEM
  SubjectPublicKeyInfo (mode 0666 less the umask). Both are written before either is named
  (`create_all`), so a refusal, a failure or an interrupt leaves both or neither. Nothing is
  printed.
- `load_signing_key(path)` refuses (R-REL-1: a fixed code, nothing written), each with its
  `SIGNING_KEY_REFUSED` detail: a missing path, a non-regular file, a file this user cannot
  open; a PEM public key (`KEY_IS_PUBLIC`: `KEY.pub` given for `KEY`, whatever its mode); a
  file whose mode grants the group or others any permission (the file actually opened, after
  symlinks, is the one checked), before its bytes are parsed as a private key; then anything
  that is not an unencrypted PEM private key (`KEY_MALFORMED`, `KEY_ENCRYPTED`), or is one of
  another algorithm (`KEY_NOT_ED25519`).
- `load_verifying_key(path)` accepts exactly a PEM Ed25519 public key (VERIFY_FAILED
  `PUBKEY_MISSING` / `PUBKEY_INVALID`).
- A key's `keyid` is the lowercase hex SHA-256 of its DER SubjectPublicKeyInfo, the same for
  both halves of a pair (`openssl pkey -pubin -in KEY.pub -outform DER | sha256sum`).
No key material, path or library message ever reaches an error.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Final

import msgspec
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from clearing_analysis.codes.errors import (
    SigningKeyDetail,
    SigningKeyError,
    VerifyDetail,
    VerifyError,
)
from clearing_analysis.inputs.output import NO_INPUTS, NewFile, check_output, create_all

PUBLIC_SUFFIX: Final = ".pub"
PRIVATE_KEY_MODE: Final = 0o600
# Any permission bit for the group or others refuses a private key (as ssh does).
_GROUP_OR_OTHERS: Final = 0o077
# A PEM Ed25519 key is about 120 bytes; the cap only bounds what is read.
MAX_KEY_BYTES: Final = 16 * 1024
_READ_FLAGS: Final = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK


def keyid(public_key: Ed25519PublicKey) -> str:
    """Lowercase hex SHA-256 of the public key's DER SubjectPublicKeyInfo."""
    der = public_key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return hashlib.sha256(der).hexdigest()


def public_key_path(private_key: Path) -> Path:
    """Where `keygen --out KEY` puts the public key: `KEY.pub`."""
    return private_key.with_name(private_key.name + PUBLIC_SUFFIX)


def write_key_pair(out: Path) -> None:
    """Create `out` (private key, 0600) and `out.pub` (public key), both exclusively."""
    public_path = public_key_path(out)
    check_output(out, NO_INPUTS)
    check_output(public_path, NO_INPUTS)
    private_key = Ed25519PrivateKey.generate()
    private_pem = private_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    public_pem = private_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    # Both files or neither (R-REL-6): each is written unnamed, then both are named.
    create_all(
        [NewFile(out, private_pem, PRIVATE_KEY_MODE), NewFile(public_path, public_pem)], NO_INPUTS
    )


class SigningKey(msgspec.Struct, frozen=True):
    """A checked Ed25519 private key and its key ID."""

    private_key: Ed25519PrivateKey
    keyid: str

    def sign(self, message: bytes) -> bytes:
        """The Ed25519 signature of `message` (64 bytes)."""
        return self.private_key.sign(message)


class VerifyingKey(msgspec.Struct, frozen=True):
    """An Ed25519 public key and its key ID."""

    public_key: Ed25519PublicKey
    keyid: str

    def verifies(self, signature: bytes, message: bytes) -> bool:
        """Whether `signature` is this key's valid Ed25519 signature of `message`."""
        try:
            self.public_key.verify(signature, message)
        except InvalidSignature:
            return False
        return True


def _refuse_key(detail: SigningKeyDetail) -> SigningKeyError:
    return SigningKeyError(detail)


def _is_public_key(data: bytes) -> bool:
    """Whether `data` is a PEM public key (of any algorithm): a `.pub` file, not a secret."""
    try:
        serialization.load_pem_public_key(data)
    except (ValueError, UnsupportedAlgorithm):
        return False
    return True


def _read_private_key_file(path: Path) -> bytes:
    try:
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError:
        raise _refuse_key(SigningKeyDetail.KEY_MISSING) from None
    except NotADirectoryError:
        raise _refuse_key(SigningKeyDetail.KEY_MISSING) from None
    except OSError:
        raise _refuse_key(SigningKeyDetail.KEY_UNREADABLE) from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise _refuse_key(SigningKeyDetail.KEY_NOT_FILE)
        chunks: list[bytes] = []
        size = 0
        while size <= MAX_KEY_BYTES:
            chunk = os.read(fd, MAX_KEY_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError:
        raise _refuse_key(SigningKeyDetail.KEY_UNREADABLE) from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    # A public key is named as such whatever its mode (a .pub file is rightly world-readable);
    # a private key readable by others is refused before it is parsed.
    if size <= MAX_KEY_BYTES and _is_public_key(data):
        raise _refuse_key(SigningKeyDetail.KEY_IS_PUBLIC)
    if status.st_mode & _GROUP_OR_OTHERS:
        raise _refuse_key(SigningKeyDetail.KEY_PERMISSIONS_TOO_OPEN)
    if size > MAX_KEY_BYTES:
        raise _refuse_key(SigningKeyDetail.KEY_MALFORMED)
    return data


def load_signing_key(path: Path) -> SigningKey:
    """The Ed25519 private key at `path`, after the checks of the module docstring."""
    data = _read_private_key_file(path)
    try:
        private_key = serialization.load_pem_private_key(data, password=None)
    except TypeError:  # the library's way of saying the key is encrypted
        raise _refuse_key(SigningKeyDetail.KEY_ENCRYPTED) from None
    except (ValueError, UnsupportedAlgorithm):
        raise _refuse_key(SigningKeyDetail.KEY_MALFORMED) from None
    if not isinstance(private_key, Ed25519PrivateKey):
        raise _refuse_key(SigningKeyDetail.KEY_NOT_ED25519)
    return SigningKey(private_key, keyid(private_key.public_key()))


def load_verifying_key(path: Path) -> VerifyingKey:
    """The PEM Ed25519 public key at `path`, or PUBKEY_MISSING / PUBKEY_INVALID."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        raise VerifyError(VerifyDetail.PUBKEY_MISSING) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise VerifyError(VerifyDetail.PUBKEY_MISSING)
        with os.fdopen(os.dup(fd), "rb") as stream:
            data = stream.read(MAX_KEY_BYTES + 1)
    except OSError:
        raise VerifyError(VerifyDetail.PUBKEY_MISSING) from None
    finally:
        os.close(fd)
    if len(data) > MAX_KEY_BYTES:
        raise VerifyError(VerifyDetail.PUBKEY_INVALID)
    try:
        public_key = serialization.load_pem_public_key(data)
    except (ValueError, UnsupportedAlgorithm):
        raise VerifyError(VerifyDetail.PUBKEY_INVALID) from None
    if not isinstance(public_key, Ed25519PublicKey):
        raise VerifyError(VerifyDetail.PUBKEY_INVALID)
    return VerifyingKey(public_key, keyid(public_key))


__all__ = [
    "MAX_KEY_BYTES",
    "PRIVATE_KEY_MODE",
    "PUBLIC_SUFFIX",
    "SigningKey",
    "VerifyingKey",
    "keyid",
    "load_signing_key",
    "load_verifying_key",
    "public_key_path",
    "write_key_pair",
]
