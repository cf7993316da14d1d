"""Write the seed corpus (fuzz/corpus/<target>/) and the report reproducers (fuzz/regressions/).

`python -m fuzz.seeds` rewrites them from the documented examples, hand-built files and the
checked-in golden report; the files are committed, so the fuzzers and the regression test
(tests/fuzz/) need nothing else. Every seed is a valid input of its target; a fuzzer mutates it.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the tests' builders, when run as a script

from tests.journal._build import valid  # noqa: E402
from tests.pisession.builder import Session  # noqa: E402
from tests.report._saved import (  # noqa: E402
    GOLDEN_REPORT,
    RENDERED,
    REPRODUCERS,
    explore_report_bytes,
    rendered,
    reproducer,
)

from clearing_analysis.attest.dsse import PAYLOAD_TYPE, Envelope, encode_envelope, pae  # noqa: E402
from clearing_analysis.attest.statement import (  # noqa: E402
    RunPredicate,
    encode_statement,
    run_statement,
)
from clearing_analysis.container.sealed import ContractStatus  # noqa: E402
from clearing_analysis.inputs.configs import Api  # noqa: E402
from clearing_analysis.qualify.record import (  # noqa: E402
    ApiSummary,
    DifferenceCategory,
    PiAi,
    QualificationRecord,
    SourceDigest,
    encode_record,
)

CORPUS = ROOT / "fuzz" / "corpus"
REGRESSIONS = ROOT / "fuzz" / "regressions"
EXAMPLES = ROOT / "docs" / "formats" / "examples"


def _session(version: int | None) -> bytes:
    session = Session(version=version)
    session.turn(["read"])
    session.entry("compaction", summary="s", tokensBefore=1000, firstKeptEntryId=None)
    session.user("again")
    session.assistant()
    return session.text().encode()


def _record() -> bytes:
    counts = dict.fromkeys(DifferenceCategory, 0)
    summary = ApiSummary(cases=8, targeted_leaves=18, unintended_differences=0, by_category=counts)
    record = QualificationRecord(
        format="clearing-analysis/qualification",
        format_version=1,
        pi_ai=PiAi(package="@mariozechner/pi-ai", version="0.1.0"),
        source_digest=SourceDigest(algorithm="sha256", value="ab" * 32),
        apis=dict.fromkeys(Api, summary),
    )
    return encode_record(record)


def _envelope(report: bytes) -> bytes:
    key = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    predicate = RunPredicate(
        tool_version="0.1.0",
        pi_ai_version=None,
        image_id=None,
        image_digest=None,
        mount_contract=ContractStatus.NOT_CHECKED,
    )
    payload = encode_statement(run_statement("report.json", report, predicate))
    signature = key.sign(pae(PAYLOAD_TYPE, payload))
    return encode_envelope(Envelope(payload, PAYLOAD_TYPE, "00" * 32, signature))


def seeds() -> dict[str, dict[str, bytes]]:
    """Seed files by target, then by name."""
    golden = GOLDEN_REPORT.read_bytes()
    with tempfile.TemporaryDirectory() as scratch:
        explore = explore_report_bytes(Path(scratch))
    return {
        "journal": {
            "example.jsonl": (EXAMPLES / "journal-v2.example.jsonl").read_bytes(),
            "small.jsonl": valid(),
        },
        "pisession": {"v3.jsonl": _session(3), "v1.jsonl": _session(None)},
        "routes": {"example.json": (EXAMPLES / "routes.example.json").read_bytes()},
        "agent_config": {
            "period.json": (EXAMPLES / "agent-config.example.json").read_bytes(),
            "per-run.json": (EXAMPLES / "agent-config.per-run.example.json").read_bytes(),
        },
        "app_allowlist": {"example.json": (EXAMPLES / "app-allowlist.example.json").read_bytes()},
        "qualification": {"record.json": _record()},
        "report": {"analysis.json": golden, "explore.json": explore},
        "show_html": {"analysis.json": golden, "explore.json": explore},
        "envelope": {"report.json.intoto.jsonl": _envelope(golden)},
    }


def main() -> None:
    """Write the seeds, and the report reproducers built on the two seed reports."""
    corpus = seeds()
    for target, files in corpus.items():
        directory = CORPUS / target
        directory.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            (directory / name).write_bytes(data)
    regressions = REGRESSIONS / "report"
    regressions.mkdir(parents=True, exist_ok=True)
    for kind in ("analysis", "explore"):
        for name in REPRODUCERS:
            data = reproducer(corpus["report"][f"{kind}.json"], name)
            (regressions / f"{kind}-{name}.json").write_bytes(data)
    # The reports whose page crashed: kept for both targets that render one.
    for target in ("report", "show_html"):
        directory = REGRESSIONS / target
        directory.mkdir(parents=True, exist_ok=True)
        for kind in ("analysis", "explore"):
            for name in RENDERED:
                data = rendered(corpus["report"][f"{kind}.json"], name)
                (directory / f"{kind}-{name}.json").write_bytes(data)


if __name__ == "__main__":
    main()
