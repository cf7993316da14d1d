"""`analyze --sign-key` and `verify` through the real CLI entry: the round trip, the up-front
refusals (nothing created, no analysis work), the attestation as an output, the run that cannot
finish its attestation, and `mountContract` with and without the entrypoint's marker."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

from clearing_analysis.attest.dsse import PAYLOAD_TYPE, Envelope, encode_envelope, pae
from clearing_analysis.attest.keys import load_signing_key, write_key_pair
from clearing_analysis.cli.verify import VERIFIED, VERIFIED_SEALED
from clearing_analysis.codes.errors import OutputRefusedDetail, OutputRefusedError
from clearing_analysis.container.sealed import MARKER_VALUE, MARKER_VARIABLE
from clearing_analysis.inputs.requests import AnalyzeRequest
from clearing_analysis.inputs.session import InputSession
from clearing_analysis.pipeline.jobs import analyze_job
from clearing_analysis.synth import generate
from tests.cli._guarded import Done, invoke, usage_line
from tests.container._host import fake_host
from tests.container.test_contract import OTHER_USER, _drop_dac_capabilities
from tests.e2e._cli import fixed_line
from tests.synth.corpora import corpus_options

# The (code, detail) pairs this module asserts as exact stderr lines through the CLI (the
# exit-status inventory, tests/e2e/test_exit_status.py, counts them as covered).
COVERED: frozenset[tuple[str, str]] = frozenset(
    {
        ("SIGNING_KEY_REFUSED", detail)
        for detail in (
            "KEY_MISSING",
            "KEY_NOT_FILE",
            "KEY_IS_PUBLIC",
            "KEY_UNREADABLE",
            "KEY_PERMISSIONS_TOO_OPEN",
            "KEY_MALFORMED",
            "KEY_ENCRYPTED",
            "KEY_NOT_ED25519",
        )
    }
    | {
        ("VERIFY_FAILED", detail)
        for detail in (
            "REPORT_MISSING",
            "ATTESTATION_MISSING",
            "PUBKEY_MISSING",
            "PUBKEY_INVALID",
            "ENVELOPE_MALFORMED",
            "WRONG_KEY",
            "PAYLOAD_CHANGED",
            "BAD_SIGNATURE",
            "STATEMENT_INVALID",
            "REPORT_CHANGED",
            "CONTRACT_NOT_HELD",
        )
    }
    | {("OUTPUT_REFUSED", "SIGNATURE_SAME_AS_LOG"), ("OUTPUT_REFUSED", "HTML_SAME_AS_SIGNATURE")}
)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small synthetic corpus under in/ (read-only for the tests)."""
    root = tmp_path_factory.mktemp("signed") / "in"
    root.mkdir()
    generate(root / "corpus", seed=5, conversations=2, profile="mixed")
    return root / "corpus"


@pytest.fixture
def key(tmp_path: Path) -> Path:
    """A fresh key pair: key/run.key (0600) and key/run.key.pub."""
    directory = tmp_path / "key"
    directory.mkdir()
    write_key_pair(directory / "run.key")
    return directory / "run.key"


def _args(corpus: Path) -> list[str]:
    return ["analyze", *corpus_options(corpus)]


def _line(detail_code: str, detail: str) -> str:
    return fixed_line(detail_code, detail).decode()


def _statement(attestation: Path) -> dict[str, Any]:
    envelope = json.loads(attestation.read_bytes())
    return json.loads(base64.b64decode(envelope["payload"]))  # type: ignore[no-any-return]


def _no_analysis(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any analysis work fail the test: the refusals must come before the first input
    is selected or read (InputSession.open, where every analysis starts)."""

    def forbidden(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("analysis work started")

    monkeypatch.setattr(InputSession, "open", forbidden)


def test_sign_then_verify(
    corpus: Path, key: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Signed: exit 0, nothing printed (not a terminal), the report byte for byte the unsigned
    one, its attestation beside it; verify: exit 0 and the fixed line only."""
    out = tmp_path / "out"
    out.mkdir()
    plain = invoke([*_args(corpus), "--out", str(out / "plain.json")], capsys)
    done = invoke([*_args(corpus), "--out", str(out / "r.json"), "--sign-key", str(key)], capsys)
    assert (plain.status, done.status, done.stdout, done.stderr) == (0, 0, "", "")
    assert sorted(p.name for p in out.iterdir()) == ["plain.json", "r.json", "r.json.intoto.jsonl"]
    assert (out / "r.json").read_bytes() == (out / "plain.json").read_bytes()
    statement = _statement(out / "r.json.intoto.jsonl")
    report = json.loads((out / "r.json").read_bytes())
    assert statement["subject"][0]["name"] == "r.json"
    assert statement["predicate"] == {
        "toolVersion": report["toolVersion"],
        "piAiVersion": None,  # no --qualification: no accepted record
        "imageId": report["imageId"],
        "imageDigest": None,
        "mountContract": "NOT_CHECKED",  # no entrypoint marker: nothing was checked
    }
    verified = invoke(["verify", str(out / "r.json"), "--pubkey", f"{key}.pub"], capsys)
    assert (verified.status, verified.stdout, verified.stderr) == (0, VERIFIED, "")
    sealed = invoke(
        ["verify", str(out / "r.json"), "--pubkey", f"{key}.pub", "--require-sealed"], capsys
    )
    assert (sealed.status, sealed.stdout) == (2, "")
    assert sealed.stderr == _line("VERIFY_FAILED", "CONTRACT_NOT_HELD")


def test_signed_runs_are_deterministic(
    corpus: Path, key: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two signed runs of the same inputs with the same key, each to its own `r.json`: the
    reports are byte-identical to an unsigned run's (R-OUT-4) and the two attestations are
    byte-identical too (Ed25519 signatures are deterministic; the statement holds no time).
    A run with another key gives another signature over the same statement."""
    keys = tmp_path / "keys"
    keys.mkdir()
    write_key_pair(keys / "other.key")
    runs = {"plain": None, "first": key, "second": key, "other": keys / "other.key"}
    for name, signing in runs.items():
        (tmp_path / name).mkdir()
        sign = [] if signing is None else ["--sign-key", str(signing)]
        out = tmp_path / name / "r.json"
        assert invoke([*_args(corpus), "--out", str(out), *sign], capsys).status == 0
    reports = {(tmp_path / name / "r.json").read_bytes() for name in runs}
    assert len(reports) == 1
    first, second, by_other = (
        (tmp_path / name / "r.json.intoto.jsonl").read_bytes()
        for name in ("first", "second", "other")
    )
    assert first == second
    assert first != by_other
    assert _statement(tmp_path / "first" / "r.json.intoto.jsonl") == _statement(
        tmp_path / "other" / "r.json.intoto.jsonl"
    )


def test_verify_failures_print_one_fixed_line(
    corpus: Path, key: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through the CLI: a changed report, a changed payload, a changed signature and a wrong
    key each exit 2 with their own line and print nothing else."""
    out = tmp_path / "out"
    out.mkdir()
    report, attestation = out / "r.json", out / "r.json.intoto.jsonl"
    assert (
        invoke([*_args(corpus), "--out", str(report), "--sign-key", str(key)], capsys).status == 0
    )
    write_key_pair(tmp_path / "other.key")
    original_report, original_envelope = report.read_bytes(), attestation.read_bytes()

    def verify(pubkey: Path) -> Done:
        return invoke(["verify", str(report), "--pubkey", str(pubkey)], capsys)

    def flipped(data: bytes, index: int) -> bytes:
        changed = bytearray(data)
        changed[index] ^= 0x01
        return bytes(changed)

    envelope = json.loads(original_envelope)
    payload = base64.b64decode(envelope["payload"])
    signature = base64.b64decode(envelope["signatures"][0]["sig"])
    with_payload = {**envelope, "payload": base64.b64encode(flipped(payload, 40)).decode()}
    with_signature = {
        **envelope,
        "signatures": [
            {**envelope["signatures"][0], "sig": base64.b64encode(flipped(signature, 5)).decode()}
        ],
    }
    # Genuinely signed by the key, but a statement about nothing (STATEMENT_INVALID).
    signing_key = load_signing_key(key)
    empty = b"{}"
    not_a_statement = encode_envelope(
        Envelope(empty, PAYLOAD_TYPE, signing_key.keyid, signing_key.sign(pae(PAYLOAD_TYPE, empty)))
    )
    cases = [
        (flipped(original_report, 1000), original_envelope, Path(f"{key}.pub"), "REPORT_CHANGED"),
        (original_report, not_a_statement, Path(f"{key}.pub"), "STATEMENT_INVALID"),
        (original_report, original_envelope, tmp_path / "absent.pub", "PUBKEY_MISSING"),
        (original_report, original_envelope, key, "PUBKEY_INVALID"),
        (original_report, json.dumps(with_payload).encode(), Path(f"{key}.pub"), "PAYLOAD_CHANGED"),
        (original_report, json.dumps(with_signature).encode(), Path(f"{key}.pub"), "BAD_SIGNATURE"),
        (original_report, original_envelope, tmp_path / "other.key.pub", "WRONG_KEY"),
        (original_report, b"{" + original_envelope, Path(f"{key}.pub"), "ENVELOPE_MALFORMED"),
    ]
    for report_bytes, envelope_bytes, pubkey, detail in cases:
        report.write_bytes(report_bytes)
        attestation.write_bytes(envelope_bytes)
        done = verify(pubkey)
        assert (done.status, done.stdout, done.stderr) == (
            2,
            "",
            _line("VERIFY_FAILED", detail),
        ), detail
    report.write_bytes(original_report)
    attestation.unlink()
    assert verify(Path(f"{key}.pub")).stderr == _line("VERIFY_FAILED", "ATTESTATION_MISSING")
    report.unlink()
    assert verify(Path(f"{key}.pub")).stderr == _line("VERIFY_FAILED", "REPORT_MISSING")


def test_sign_key_requires_out(
    corpus: Path, key: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--sign-key without --out: USAGE_ERROR MISSING_OPTION naming --out, before any work."""
    _no_analysis(monkeypatch)
    done = invoke([*_args(corpus), "--sign-key", str(key)], capsys)
    assert (done.status, done.stdout, done.stderr) == (2, "", usage_line("MISSING_OPTION", "--out"))


@pytest.mark.parametrize("mode", [0o640, 0o644, 0o604, 0o660])
def test_a_loose_key_is_refused_before_any_work(  # noqa: PLR0917  (fixtures)
    corpus: Path,
    key: Path,
    tmp_path: Path,
    mode: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A key its group or others may read: exit 2, the fixed line, no analysis, nothing
    created."""
    _no_analysis(monkeypatch)
    key.chmod(mode)
    out = tmp_path / "out"
    out.mkdir()
    done = invoke([*_args(corpus), "--out", str(out / "r.json"), "--sign-key", str(key)], capsys)
    assert (done.status, done.stdout) == (2, "")
    assert done.stderr == _line("SIGNING_KEY_REFUSED", "KEY_PERMISSIONS_TOO_OPEN")
    assert list(out.iterdir()) == []


def test_the_public_key_given_for_the_private_one_is_named(
    corpus: Path,
    key: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """KEY.pub, as keygen leaves it (world-readable), given to --sign-key: KEY_IS_PUBLIC, whose
    remedy points at the private key (not KEY_PERMISSIONS_TOO_OPEN, which would suggest
    chmod-ing it); before any work, nothing created."""
    _no_analysis(monkeypatch)
    public = key.with_name(key.name + ".pub")
    assert public.stat().st_mode & 0o044  # readable by others, as published keys are
    out = tmp_path / "out"
    out.mkdir()
    done = invoke([*_args(corpus), "--out", str(out / "r.json"), "--sign-key", str(public)], capsys)
    assert (done.status, done.stdout) == (2, "")
    assert done.stderr == _line("SIGNING_KEY_REFUSED", "KEY_IS_PUBLIC")
    assert "KEY.pub" in done.stderr
    assert list(out.iterdir()) == []


def test_every_key_refusal_comes_before_any_work(
    corpus: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Missing, not a file, malformed, encrypted, another algorithm: each its line, before any
    analysis work."""
    _no_analysis(monkeypatch)
    garbage = tmp_path / "garbage.key"
    garbage.write_bytes(b"-----BEGIN PRIVATE KEY-----\n")
    garbage.chmod(0o600)
    out = tmp_path / "out"
    out.mkdir()
    encrypted = tmp_path / "encrypted.key"
    encrypted.write_bytes(
        ed25519.Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"passphrase"),
        )
    )
    elliptic = tmp_path / "ec.key"
    elliptic.write_bytes(
        ec.generate_private_key(ec.SECP256R1()).private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    for path in (encrypted, elliptic):
        path.chmod(0o600)
    for path, detail in (
        (tmp_path / "absent.key", "KEY_MISSING"),
        (tmp_path, "KEY_NOT_FILE"),
        (garbage, "KEY_MALFORMED"),
        (encrypted, "KEY_ENCRYPTED"),
        (elliptic, "KEY_NOT_ED25519"),
    ):
        done = invoke(
            [*_args(corpus), "--out", str(out / "r.json"), "--sign-key", str(path)], capsys
        )
        assert (done.status, done.stderr) == (2, _line("SIGNING_KEY_REFUSED", detail)), detail
    assert list(out.iterdir()) == []


def test_an_unreadable_key_through_the_cli(corpus: Path, key: Path, tmp_path: Path) -> None:
    """The image's mistake, in a process that file modes bind: a 0600 key of another user is
    SIGNING_KEY_REFUSED KEY_UNREADABLE (not the parser's usage error), nothing created."""
    out = tmp_path / "out"
    out.mkdir(mode=0o777)
    if os.geteuid() == 0:
        os.chown(key, OTHER_USER, OTHER_USER)
        preexec = _drop_dac_capabilities
    else:
        key.chmod(0o000)
        preexec = None
    code = "from clearing_analysis.cli import main\nmain()\n"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            *_args(corpus),
            "--out",
            str(out / "r.json"),
            "--sign-key",
            str(key),
        ],
        preexec_fn=preexec,
        capture_output=True,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr == fixed_line("SIGNING_KEY_REFUSED", "KEY_UNREADABLE")
    assert list(out.iterdir()) == []


def test_the_attestation_is_an_output_checked_up_front(
    corpus: Path,
    key: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Its name taken, its name an input's in that directory, or the --log-file's or the
    --html page's: refused before any work (OUTPUT_REFUSED), and the report is not created
    either."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "taken.json.intoto.jsonl").write_bytes(b"someone else's")
    routes_copy = out / "r.json.intoto.jsonl"
    routes_copy.write_bytes((corpus / "routes.json").read_bytes())
    cases = [
        (["--out", str(out / "taken.json")], "OUTPUT_EXISTS"),
        # The routes input sits in the output directory under the attestation's name.
        (["--routes", str(routes_copy), "--out", str(out / "r.json")], "OUTPUT_NAME_COLLIDES"),
        (
            ["--out", str(out / "s.json"), "--log-file", str(out / "S.JSON.intoto.jsonl")],
            "SIGNATURE_SAME_AS_LOG",
        ),
        (
            ["--out", str(out / "h.json"), "--html", str(out / "h.json.intoto.jsonl")],
            "HTML_SAME_AS_SIGNATURE",
        ),
    ]
    before = sorted(p.name for p in out.iterdir())
    for extra, detail in cases:
        done = invoke([*_args(corpus), *extra, "--sign-key", str(key)], capsys)
        assert (done.status, done.stderr) == (2, _line("OUTPUT_REFUSED", detail)), detail
        assert sorted(p.name for p in out.iterdir()) == before
    assert (out / "taken.json.intoto.jsonl").read_bytes() == b"someone else's"
    # Inside an input directory: the report's own refusal, and no attestation either.
    done = invoke(
        [*_args(corpus), "--out", str(corpus / "journals" / "r.json"), "--sign-key", str(key)],
        capsys,
    )
    assert done.stderr == _line("OUTPUT_REFUSED", "OUTPUT_INSIDE_INPUT")


def test_an_attestation_whose_name_is_taken_leaves_no_output(
    corpus: Path, key: Path, tmp_path: Path
) -> None:
    """The attestation's name is taken while the run works (after the up-front check): the
    run is refused (OUTPUT_EXISTS) and none of its outputs is created, neither the report nor
    the page nor the log, so no unsigned report is left looking like the result of a signed
    run (every output of a run is one whole, R-REL-6)."""
    out = tmp_path / "out"
    out.mkdir()
    attestation = out / "r.json.intoto.jsonl"
    log = tmp_path / "run.log"
    job = analyze_job(
        AnalyzeRequest(
            journals=(corpus / "journals",),
            sidecar=corpus / "history.sqlite",
            routes=corpus / "routes.json",
            out=out / "r.json",
            log_file=log,
            sign_key=key,
            html=out / "r.html",
        ),
        between_snapshots=lambda: attestation.write_bytes(b"someone else's"),
    )
    with pytest.raises(OutputRefusedError) as refused:
        job.write(out / "r.json")
    assert refused.value.detail == OutputRefusedDetail.OUTPUT_EXISTS
    assert [path.name for path in out.iterdir()] == [attestation.name]
    assert attestation.read_bytes() == b"someone else's"
    assert not log.exists()


@pytest.fixture
def sealed_mounts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A fake mount table like a sealed container's: ro root, ro in/ and key/, rw out/; a
    loopback-only network; directories in/, out/, key/ under tmp_path."""
    places = {name: tmp_path / name for name in ("in", "out", "key", "rw-key")}
    for path in places.values():
        path.mkdir(exist_ok=True)
    fake_host(
        tmp_path,
        monkeypatch,
        f"2 1 8:1 /srv/in {places['in']} ro - ext4 /dev/vda1 rw\n"
        f"3 1 8:1 /srv/out {places['out']} rw - ext4 /dev/vda1 rw\n"
        f"4 1 8:1 /srv/key {places['key']} ro - ext4 /dev/vda1 rw\n"
        f"5 1 8:1 /srv/rw-key {places['rw-key']} rw - ext4 /dev/vda1 rw\n",
    )
    return places


def test_with_the_entrypoint_marker_the_contract_is_checked_again(
    corpus: Path,
    tmp_path: Path,
    sealed_mounts: dict[str, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The marker present and the contract holding for every path (the key on a read-only
    mount): mountContract HELD, and verify --require-sealed accepts the report. The key on a
    writable mount: refused as the entrypoint refuses an input there, nothing created."""
    import shutil

    inputs = sealed_mounts["in"] / "corpus"
    shutil.copytree(corpus, inputs)
    write_key_pair(sealed_mounts["key"] / "run.key")
    write_key_pair(sealed_mounts["rw-key"] / "run.key")
    monkeypatch.setenv(MARKER_VARIABLE, MARKER_VALUE)
    report = sealed_mounts["out"] / "r.json"
    done = invoke(
        [*_args(inputs), "--out", str(report), "--sign-key", str(sealed_mounts["key"] / "run.key")],
        capsys,
    )
    assert (done.status, done.stderr) == (0, "")
    assert (
        _statement(sealed_mounts["out"] / "r.json.intoto.jsonl")["predicate"]["mountContract"]
        == "HELD"
    )
    verified = invoke(
        [
            "verify",
            str(report),
            "--pubkey",
            str(sealed_mounts["key"] / "run.key.pub"),
            "--require-sealed",
        ],
        capsys,
    )
    assert (verified.status, verified.stdout) == (0, VERIFIED_SEALED)

    _no_analysis(monkeypatch)
    refused = invoke(
        [
            *_args(inputs),
            "--out",
            str(sealed_mounts["out"] / "x.json"),
            "--sign-key",
            str(sealed_mounts["rw-key"] / "run.key"),
        ],
        capsys,
    )
    assert (refused.status, refused.stderr) == (
        2,
        _line("MOUNT_CONTRACT_VIOLATED", "INPUT_NOT_READ_ONLY"),
    )
    assert not (sealed_mounts["out"] / "x.json").exists()


def test_a_marker_outside_the_contract_cannot_claim_it_held(
    corpus: Path,
    key: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The marker set by hand on this machine (a writable tmp, a network): the run is refused
    with the contract's code, not signed HELD; any other value of the variable is no marker."""
    out = tmp_path / "out"
    out.mkdir()
    args = [*_args(corpus), "--out", str(out / "r.json"), "--sign-key", str(key)]
    monkeypatch.setenv(MARKER_VARIABLE, MARKER_VALUE)
    done = invoke(args, capsys)
    assert done.status == 2
    assert done.stderr.startswith("clearing-analysis: MOUNT_CONTRACT_VIOLATED ")
    assert list(out.iterdir()) == []
    monkeypatch.setenv(MARKER_VARIABLE, "yes")
    assert invoke(args, capsys).status == 0
    assert _statement(out / "r.json.intoto.jsonl")["predicate"]["mountContract"] == "NOT_CHECKED"
