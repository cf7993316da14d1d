"""Signing a report: the attestation `analyze --out R --sign-key KEY` writes beside R.

Guarantees:
- The attestation of report file `R` is `R.intoto.jsonl` in the same directory
  (`attestation_path`); the statement's subject name is R's file name alone, which must be
  valid UTF-8 (else OUTPUT_REFUSED OUTPUT_NAME_INVALID, before any work).
- The predicate (`run_predicate`) holds only what the report already says or the run states
  about itself: the report's tool version; its pi-ai version only where at least one API's
  qualification is QUALIFIED, i.e. the record was valid and current, so its pi-ai version is
  the installed one the report names (otherwise null: a rejected record's version is
  unchecked input and is never copied); the report's image ID; the image digest the runtime
  states beside that ID (`container.runtime`: podman states one only to a `--privileged`
  container started from a digest reference; null otherwise, never invented); and the mount
  contract status (`container.sealed`).
- `envelope_for` signs PAE(payloadType, statement) with the checked key and returns the
  envelope line; nothing is written here (the analyze job writes it after the report).
- `prepare_signed_run` does a signed run's checks before any analysis work, in this order:
  the subject's name, the mount contract when the image's entrypoint asks for it
  (`container.sealed`; the key is one of the contract's inputs, so it must come from a
  read-only mount, R-CT-2), then the key itself (`keys.load_signing_key`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final

import msgspec

from clearing_analysis.attest.dsse import PAYLOAD_TYPE, Envelope, encode_envelope, pae
from clearing_analysis.attest.keys import SigningKey, load_signing_key
from clearing_analysis.attest.statement import (
    RunPredicate,
    encode_statement,
    run_statement,
)
from clearing_analysis.codes.errors import OutputRefusedDetail, OutputRefusedError
from clearing_analysis.container.arguments import contract_paths
from clearing_analysis.container.contract import ContractPaths
from clearing_analysis.container.sealed import ContractStatus, contract_status
from clearing_analysis.inputs.requests import AnalyzeRequest

if TYPE_CHECKING:
    from clearing_analysis.report.model import Report

ATTESTATION_SUFFIX: Final = ".intoto.jsonl"


def attestation_path(report: Path) -> Path:
    """The attestation beside report file `report`: its name plus `.intoto.jsonl`."""
    return report.with_name(report.name + ATTESTATION_SUFFIX)


def subject_name(report: Path) -> str:
    """The report's file name as the statement names it (UTF-8 only)."""
    name = report.name
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # bytes that are not UTF-8, kept by the OS as surrogates
        raise OutputRefusedError(OutputRefusedDetail.OUTPUT_NAME_INVALID) from None
    if not name or len(name) > 255:
        raise OutputRefusedError(OutputRefusedDetail.OUTPUT_NAME_INVALID)
    return name


def run_predicate(
    report: Report, image_digest: str | None, contract: ContractStatus
) -> RunPredicate:
    """The predicate of a signed run of `report`, whose runtime stated `image_digest` beside
    the report's image ID (module docstring)."""
    qualified = any(api.qualification.status == "QUALIFIED" for api in report.per_api.values())
    return RunPredicate(
        tool_version=report.tool_version,
        pi_ai_version=report.pi_ai_version if qualified else None,
        image_id=report.image_id,
        image_digest=image_digest if report.image_id is not None else None,
        mount_contract=contract,
    )


def envelope_for(
    report_name: str, report: bytes, predicate: RunPredicate, key: SigningKey
) -> bytes:
    """The `.intoto.jsonl` line: a DSSE envelope over the statement about `report`."""
    payload = encode_statement(run_statement(report_name, report, predicate))
    signature = key.sign(pae(PAYLOAD_TYPE, payload))
    return encode_envelope(Envelope(payload, PAYLOAD_TYPE, key.keyid, signature))


class SignedRun(msgspec.Struct, frozen=True):
    """What a signed run checked before any work: the key, the subject's name, where the
    attestation goes and whether the mount contract held."""

    key: SigningKey
    subject: str
    attestation: Path
    contract: ContractStatus

    def envelope(self, report: Report, data: bytes, image_digest: str | None) -> bytes:
        """The attestation of the finished report (`data`, its bytes; `report`, its model)."""
        predicate = run_predicate(report, image_digest, self.contract)
        return envelope_for(self.subject, data, predicate, self.key)


def prepare_signed_run(request: AnalyzeRequest) -> SignedRun:
    """A signed run's up-front checks (module docstring), or their refusal. The contract
    covers every path the request names (`container.arguments`) and the attestation."""
    if request.sign_key is None or request.out is None:
        raise RuntimeError("a signed run has a key and writes its report to a file")
    subject = subject_name(request.out)
    attestation = attestation_path(request.out)
    named = contract_paths(request)
    contract = contract_status(
        ContractPaths(
            inputs=named.inputs, outputs=(*named.outputs, attestation), sidecars=named.sidecars
        )
    )
    return SignedRun(load_signing_key(request.sign_key), subject, attestation, contract)


__all__ = [
    "ATTESTATION_SUFFIX",
    "SignedRun",
    "attestation_path",
    "envelope_for",
    "prepare_signed_run",
    "run_predicate",
    "subject_name",
]
