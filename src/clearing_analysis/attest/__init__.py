"""Signed run attestations: which image produced which report, verifiable offline.

`analyze --out report.json --sign-key KEY` writes `report.json.intoto.jsonl` beside the report:
one DSSE envelope (`dsse`) over an in-toto Statement v1 (`statement`) whose subject is the
report's file name and SHA-256 and whose predicate states the tool version, the pi-ai version
of an accepted qualification record, the image the runtime states and whether the mount
contract held (`container.sealed`). `keygen` writes an Ed25519 key pair, `verify` checks a
report against its envelope and a public key (`keys`, `sign`, `verify`). The attestation is an
output like the report (R-FS-1..6, R-CT-3), says nothing the report does not (R-OUT-1) and leaves
the report's bytes as they are (R-OUT-4).

Every key and signature operation is the `cryptography` package's; nothing cryptographic is
written here (the DSSE pre-authentication encoding is a byte layout, checked against the DSSE
specification's own example in the tests). The modules that use `cryptography` are imported
only by `keygen`, a signed `analyze` and `verify`, so no other command loads it. The formats,
and what an attestation proves and does not prove, are in docs/attestation.md.
"""
