"""The image a run happened in (container/runtime.py): only a well-formed `imageid` line of
the runtime's own file is taken, and the report carries it or null; beside it, the digest of a
digest reference on the `image` line (never the name), which only a signed run's attestation
carries."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from clearing_analysis.attest.keys import write_key_pair
from clearing_analysis.container.runtime import StatedImage, stated_image, stated_image_id
from clearing_analysis.inputs.requests import AnalyzeRequest
from clearing_analysis.pipeline.jobs import analyze_job
from clearing_analysis.policy import limits
from clearing_analysis.synth import generate

IMAGE = "d550dab5d1418d11286cb7b0e6ad626a2719feaf3d592c9aee5747b20cd68750"
# What podman 4.3 writes for a --privileged container (measured); a sealed run gets none.
PRIVILEGED = (
    'engine="podman-4.3.1"\nname="elastic_albattani"\n'
    'id="168c2f199ee0de03eba3ea7fd4e2a9d27521be129cb74031863ecf7ba8b210f7"\n'
    f'image="localhost/clearing-analysis:latest"\nimageid="{IMAGE}"\nrootless=0\n'
)
DIGEST = "sha256:8826a42d52e468b5130e65b1b10877fccc910f13fa9ac139d00aeb414d3309cd"
# The same, for a container started from a digest reference (measured: podman 4.3.1 writes the
# reference as given, `name@sha256:...`).
BY_DIGEST = PRIVILEGED.replace(
    'image="localhost/clearing-analysis:latest"', f'image="localhost/clearing-analysis@{DIGEST}"'
)


def test_the_stated_image_id_is_taken(tmp_path: Path) -> None:
    """The privileged form names the image ID; nothing else of the file is returned."""
    path = tmp_path / "containerenv"
    path.write_text(PRIVILEGED)
    assert stated_image_id(path) == IMAGE


@pytest.mark.parametrize(
    "content",
    [
        None,
        "",
        PRIVILEGED.replace(IMAGE, IMAGE.upper()),
        PRIVILEGED.replace(IMAGE, IMAGE[:-1]),
        PRIVILEGED.replace(f'imageid="{IMAGE}"', f"imageid={IMAGE}"),
        PRIVILEGED + f'imageid="{"0" * 64}"\n',
        f'image="{IMAGE}"\n',
    ],
    ids=[
        "no file (a sealed run)",
        "empty file",
        "upper-case id",
        "short id",
        "unquoted id",
        "two image ids",
        "image name only",
    ],
)
def test_anything_else_states_nothing(tmp_path: Path, content: str | None) -> None:
    """A missing, empty, malformed or ambiguous file states no image."""
    path = tmp_path / "containerenv"
    if content is not None:
        path.write_text(content)
    assert stated_image_id(path) is None


def test_an_oversized_file_states_nothing(tmp_path: Path) -> None:
    """A file larger than the config limit is not read at all."""
    path = tmp_path / "containerenv"
    path.write_bytes(PRIVILEGED.encode() + b"#" * limits().max_config_file_bytes)
    assert stated_image_id(path) is None


def test_the_report_names_the_stated_image(tmp_path: Path) -> None:
    """analyze puts the stated image ID at the report's top level, and null without one."""
    corpus = tmp_path / "corpus"
    generate(corpus, seed=3, conversations=2, profile="mixed")
    stated = tmp_path / "containerenv"
    stated.write_text(PRIVILEGED)
    reports = [
        json.loads(
            analyze_job(
                AnalyzeRequest(
                    journals=(corpus / "journals",),
                    sidecar=corpus / "history.sqlite",
                    routes=corpus / "routes.json",
                ),
                containerenv=path,
            ).data
        )
        for path in (stated, tmp_path / "absent")
    ]
    assert [report["imageId"] for report in reports] == [IMAGE, None]


def test_a_digest_reference_states_its_digest_and_nothing_of_the_name(tmp_path: Path) -> None:
    """Started from `name@sha256:...`: the ID and the digest alone; from a tag: no digest."""
    path = tmp_path / "containerenv"
    path.write_text(BY_DIGEST)
    assert stated_image(path) == StatedImage(IMAGE, DIGEST)
    assert "localhost" not in repr(stated_image(path))
    path.write_text(PRIVILEGED)
    assert stated_image(path) == StatedImage(IMAGE, None)


@pytest.mark.parametrize(
    "content",
    [
        BY_DIGEST.replace(DIGEST, DIGEST.upper().replace("SHA256", "sha256")),
        BY_DIGEST.replace(DIGEST, DIGEST[:-1]),
        BY_DIGEST.replace(DIGEST, DIGEST.replace("sha256", "sha512")),
        BY_DIGEST + f'image="other@{DIGEST}"\n',
        BY_DIGEST + 'image="localhost/clearing-analysis:latest"\n',
        BY_DIGEST.replace(f'imageid="{IMAGE}"\n', ""),
    ],
    ids=[
        "upper-case digest",
        "short digest",
        "another algorithm",
        "two digest references",
        "two image lines",
        "no image id beside it",
    ],
)
def test_no_digest_unless_one_well_formed_reference_beside_an_id(
    tmp_path: Path, content: str
) -> None:
    """A malformed or ambiguous `image` line, or one without an `imageid`, states no digest."""
    path = tmp_path / "containerenv"
    path.write_text(content)
    assert stated_image(path).image_digest is None


def test_the_digest_reaches_the_attestation_not_the_report(tmp_path: Path) -> None:
    """A signed analyze with a digest-started runtime file: the report names the image ID only
    (its bytes equal those of the same run started from a tag), and the digest goes into the
    signed run's attestation only."""
    corpus = tmp_path / "corpus"
    generate(corpus, seed=3, conversations=1, profile="mixed")
    (tmp_path / "key").mkdir()
    key = tmp_path / "key" / "run.key"
    write_key_pair(key)
    reports, predicates = [], []
    for name, content in (("tag", PRIVILEGED), ("digest", BY_DIGEST)):
        stated = tmp_path / name
        stated.write_text(content)
        (tmp_path / f"out-{name}").mkdir()
        out = tmp_path / f"out-{name}" / "report.json"
        analyze_job(
            AnalyzeRequest(
                journals=(corpus / "journals",),
                sidecar=corpus / "history.sqlite",
                routes=corpus / "routes.json",
                out=out,
                sign_key=key,
            ),
            containerenv=stated,
        ).write(out)
        reports.append(out.read_bytes())
        envelope = json.loads(out.with_name("report.json.intoto.jsonl").read_bytes())
        predicates.append(json.loads(base64.b64decode(envelope["payload"]))["predicate"])
    assert reports[0] == reports[1]
    assert json.loads(reports[1])["imageId"] == IMAGE
    assert [predicate["imageDigest"] for predicate in predicates] == [None, DIGEST]
