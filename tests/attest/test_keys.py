"""Keys: `keygen`'s two files, and every refusal of `--sign-key` and `--pubkey`."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa

from clearing_analysis.attest.keys import (
    MAX_KEY_BYTES,
    keyid,
    load_signing_key,
    load_verifying_key,
    write_key_pair,
)
from clearing_analysis.codes.errors import (
    OutputRefusedDetail,
    OutputRefusedError,
    SigningKeyError,
    VerifyError,
)
from tests.cli._guarded import invoke
from tests.container.test_contract import OTHER_USER, _drop_dac_capabilities


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def pair(tmp_path: Path) -> Path:
    """A key pair written by keygen's own function: tmp/run.key and tmp/run.key.pub."""
    key = tmp_path / "run.key"
    write_key_pair(key)
    return key


class TestKeygen:
    """`keygen --out KEY`: KEY (0600, PKCS#8 PEM) and KEY.pub, exclusively, silently."""

    @pytest.mark.parametrize("umask", [0o000, 0o022, 0o077, 0o277])
    def test_private_key_is_0600_whatever_the_umask(self, tmp_path: Path, umask: int) -> None:
        """The private key's mode is exactly 0600; the public key follows the umask."""
        previous = os.umask(umask)
        try:
            write_key_pair(tmp_path / "k")
        finally:
            os.umask(previous)
        assert _mode(tmp_path / "k") == 0o600
        assert _mode(tmp_path / "k.pub") == 0o666 & ~umask

    def test_the_files_are_an_ed25519_pair_in_pem(self, pair: Path) -> None:
        """PKCS#8 PEM private key, SubjectPublicKeyInfo PEM public key of the same key."""
        private_pem = pair.read_bytes()
        assert private_pem.startswith(b"-----BEGIN PRIVATE KEY-----\n")
        private = serialization.load_pem_private_key(private_pem, password=None)
        public = serialization.load_pem_public_key(pair.with_name("run.key.pub").read_bytes())
        assert isinstance(private, ed25519.Ed25519PrivateKey)
        assert isinstance(public, ed25519.Ed25519PublicKey)
        assert public.public_bytes_raw() == private.public_key().public_bytes_raw()
        assert (
            load_signing_key(pair).keyid == load_verifying_key(pair.with_name("run.key.pub")).keyid
        )

    def test_each_run_makes_a_new_key(self, tmp_path: Path) -> None:
        """Two runs, two different keys."""
        write_key_pair(tmp_path / "a")
        write_key_pair(tmp_path / "b")
        assert (tmp_path / "a").read_bytes() != (tmp_path / "b").read_bytes()

    def test_the_cli_prints_nothing(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """`clearing-analysis keygen --out KEY`: exit 0, nothing on stdout or stderr."""
        done = invoke(["keygen", "--out", str(tmp_path / "k")], capsys)
        assert (done.status, done.stdout, done.stderr) == (0, "", "")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["k", "k.pub"]

    @pytest.mark.parametrize("existing", ["k", "k.pub"])
    def test_an_existing_file_is_refused_and_nothing_created(
        self, tmp_path: Path, existing: str
    ) -> None:
        """Either name taken: OUTPUT_EXISTS before a key is made; the other is not created."""
        (tmp_path / existing).write_bytes(b"mine")
        with pytest.raises(OutputRefusedError) as caught:
            write_key_pair(tmp_path / "k")
        assert caught.value.detail == OutputRefusedDetail.OUTPUT_EXISTS
        assert [p.name for p in tmp_path.iterdir()] == [existing]
        assert (tmp_path / existing).read_bytes() == b"mine"

    def test_a_symlink_is_refused(self, tmp_path: Path) -> None:
        """A symlink at KEY.pub (dangling or not) is never followed."""
        (tmp_path / "k.pub").symlink_to(tmp_path / "elsewhere")
        with pytest.raises(OutputRefusedError) as caught:
            write_key_pair(tmp_path / "k")
        assert caught.value.detail == OutputRefusedDetail.OUTPUT_IS_SYMLINK
        assert not (tmp_path / "elsewhere").exists()


def _pem(private: object) -> bytes:
    return private.private_bytes(  # type: ignore[attr-defined, no-any-return]
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _key_detail(path: Path) -> str:
    with pytest.raises(SigningKeyError) as caught:
        load_signing_key(path)
    assert str(caught.value) == f"SIGNING_KEY_REFUSED:{caught.value.detail}"
    return caught.value.detail


class TestSigningKey:
    """`--sign-key`: every refusal, each with its detail; the good forms accepted."""

    @pytest.mark.parametrize("mode", [0o400, 0o600, 0o700])
    def test_owner_only_modes_are_accepted(self, pair: Path, mode: int) -> None:
        """0400, 0600 (keygen's) and even 0700: no bit for the group or others."""
        pair.chmod(mode)
        assert (
            load_signing_key(pair).keyid == load_verifying_key(pair.with_name("run.key.pub")).keyid
        )

    @pytest.mark.parametrize("mode", [0o640, 0o604, 0o644, 0o620, 0o602, 0o610, 0o601, 0o660])
    def test_any_group_or_other_permission_is_refused(self, pair: Path, mode: int) -> None:
        """Group- or world-readable, and also -writable or -executable: KEY_PERMISSIONS_TOO_OPEN."""
        pair.chmod(mode)
        assert _key_detail(pair) == "KEY_PERMISSIONS_TOO_OPEN"

    def test_the_file_opened_is_the_one_checked(self, pair: Path, tmp_path: Path) -> None:
        """A symlink (mode 0777 itself) to a private key is judged by the key file: accepted
        when that is 0600, refused when that is group-readable."""
        link = tmp_path / "link.key"
        link.symlink_to(pair)
        assert load_signing_key(link).keyid
        pair.chmod(0o640)
        assert _key_detail(link) == "KEY_PERMISSIONS_TOO_OPEN"

    def test_missing_and_not_a_file(self, tmp_path: Path) -> None:
        """No such file, a dangling symlink, a path through a file: KEY_MISSING; a directory
        or a FIFO: KEY_NOT_FILE (the FIFO is not waited on)."""
        assert _key_detail(tmp_path / "absent") == "KEY_MISSING"
        (tmp_path / "dangling").symlink_to(tmp_path / "absent")
        assert _key_detail(tmp_path / "dangling") == "KEY_MISSING"
        (tmp_path / "file").write_bytes(b"")
        assert _key_detail(tmp_path / "file" / "key") == "KEY_MISSING"
        (tmp_path / "dir").mkdir(mode=0o700)
        assert _key_detail(tmp_path / "dir") == "KEY_NOT_FILE"
        os.mkfifo(tmp_path / "fifo", 0o600)
        assert _key_detail(tmp_path / "fifo") == "KEY_NOT_FILE"

    def test_a_key_this_user_cannot_read(self, pair: Path) -> None:
        """The image's case: a 0600 key owned by another user (root's, read by 65534) is
        KEY_UNREADABLE. As root, checked in a child without the capabilities that bypass file
        modes (as the image's --cap-drop=ALL); otherwise with a mode-000 key of our own."""
        if os.geteuid() != 0:
            pair.chmod(0o000)
            assert _key_detail(pair) == "KEY_UNREADABLE"
            return
        os.chown(pair, OTHER_USER, OTHER_USER)
        probe = (
            "import sys\n"
            "from pathlib import Path\n"
            "from clearing_analysis.attest.keys import load_signing_key\n"
            "from clearing_analysis.codes.errors import SigningKeyError\n"
            "try:\n"
            "    load_signing_key(Path(sys.argv[1]))\n"
            "except SigningKeyError as error:\n"
            "    print(error.detail)\n"
            "else:\n"
            "    print('OK')\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", probe, str(pair)],
            preexec_fn=_drop_dac_capabilities,
            capture_output=True,
            text=True,
            check=True,
        )
        assert done.stdout.strip() == "KEY_UNREADABLE"

    def test_not_a_private_key(self, tmp_path: Path, pair: Path) -> None:
        """Garbage, DER, an OpenSSH key, an empty or oversized file: KEY_MALFORMED."""
        private = ed25519.Ed25519PrivateKey.generate()
        samples = {
            "garbage": b"not a key\n",
            "empty": b"",
            "der": private.private_bytes(
                serialization.Encoding.DER,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            ),
            "openssh": private.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.OpenSSH,
                serialization.NoEncryption(),
            ),
            "oversized": _pem(private) + b"\n" * MAX_KEY_BYTES,
        }
        for name, data in samples.items():
            path = tmp_path / name
            path.write_bytes(data)
            path.chmod(0o600)
            assert _key_detail(path) == "KEY_MALFORMED", name

    @pytest.mark.parametrize("mode", [0o644, 0o600, 0o400])
    def test_a_public_key_is_named_whatever_its_mode(self, pair: Path, mode: int) -> None:
        """KEY.pub given for KEY: KEY_IS_PUBLIC, whether world-readable as keygen leaves it
        (not KEY_PERMISSIONS_TOO_OPEN, which would suggest chmod-ing a public key) or owner-only;
        an RSA public key too."""
        public = pair.with_name("run.key.pub")
        public.chmod(mode)
        assert _key_detail(public) == "KEY_IS_PUBLIC"
        rsa_public = public.with_name("rsa.pub")
        rsa_public.write_bytes(
            rsa.generate_private_key(public_exponent=65537, key_size=2048)
            .public_key()
            .public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        )
        rsa_public.chmod(mode)
        assert _key_detail(rsa_public) == "KEY_IS_PUBLIC"

    def test_an_encrypted_key(self, tmp_path: Path) -> None:
        """A passphrase-protected PEM key: KEY_ENCRYPTED (no passphrase is ever asked for)."""
        path = tmp_path / "encrypted.key"
        path.write_bytes(
            ed25519.Ed25519PrivateKey.generate().private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.BestAvailableEncryption(b"passphrase"),
            )
        )
        path.chmod(0o600)
        assert _key_detail(path) == "KEY_ENCRYPTED"

    def test_another_algorithm(self, tmp_path: Path) -> None:
        """Valid private keys of other algorithms: KEY_NOT_ED25519."""
        others = {
            "ec": ec.generate_private_key(ec.SECP256R1()),
            "ed448": ed448.Ed448PrivateKey.generate(),
            "rsa": rsa.generate_private_key(public_exponent=65537, key_size=2048),
        }
        for name, private in others.items():
            path = tmp_path / name
            path.write_bytes(_pem(private))
            path.chmod(0o600)
            assert _key_detail(path) == "KEY_NOT_ED25519", name


def _pubkey_detail(path: Path) -> str:
    with pytest.raises(VerifyError) as caught:
        load_verifying_key(path)
    return caught.value.detail


class TestVerifyingKey:
    """`--pubkey`: exactly a PEM Ed25519 public key."""

    def test_missing(self, tmp_path: Path) -> None:
        """No such file, a directory: PUBKEY_MISSING."""
        assert _pubkey_detail(tmp_path / "absent") == "PUBKEY_MISSING"
        assert _pubkey_detail(tmp_path) == "PUBKEY_MISSING"

    def test_invalid(self, tmp_path: Path, pair: Path) -> None:
        """The private key by mistake, another algorithm's public key, garbage: PUBKEY_INVALID."""
        ec_public = (
            ec.generate_private_key(ec.SECP256R1())
            .public_key()
            .public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        )
        for name, data in {"private": pair.read_bytes(), "ec": ec_public, "x": b"x"}.items():
            path = tmp_path / f"{name}.pub"
            path.write_bytes(data)
            assert _pubkey_detail(path) == "PUBKEY_INVALID", name

    def test_keyid_is_the_sha256_of_the_der_public_key(self, pair: Path) -> None:
        """The documented key ID: hex SHA-256 of the DER SubjectPublicKeyInfo."""
        import hashlib

        public = load_verifying_key(pair.with_name("run.key.pub"))
        der = public.public_key.public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        assert public.keyid == keyid(public.public_key) == hashlib.sha256(der).hexdigest()
