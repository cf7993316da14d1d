"""The image a run happened in (container/runtime.py): only a well-formed `imageid` line of
the runtime's own file is taken, and the report carries it or null."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clearing_analysis.container.runtime import stated_image_id
from clearing_analysis.jobs import analyze_job
from clearing_analysis.policy import limits
from clearing_analysis.synth import generate

IMAGE = "d550dab5d1418d11286cb7b0e6ad626a2719feaf3d592c9aee5747b20cd68750"
# What podman 4.3 writes for a --privileged container (measured); a sealed run gets none.
PRIVILEGED = (
    'engine="podman-4.3.1"\nname="elastic_albattani"\n'
    'id="168c2f199ee0de03eba3ea7fd4e2a9d27521be129cb74031863ecf7ba8b210f7"\n'
    f'image="localhost/clearing-analysis:latest"\nimageid="{IMAGE}"\nrootless=0\n'
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
                [corpus / "journals"],
                sidecar=corpus / "history.sqlite",
                routes=corpus / "routes.json",
                containerenv=path,
            ).data
        )
        for path in (stated, tmp_path / "absent")
    ]
    assert [report["imageId"] for report in reports] == [IMAGE, None]
