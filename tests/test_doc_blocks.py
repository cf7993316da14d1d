"""The documented shell blocks CI runs as written (tools/container/doc_blocks.py), checked
without podman: which blocks run, and that what they say holds on hosts like these.

The blocks themselves run in the sealed smoke (tools/container/smoke.sh), which needs podman
and a built image; here their extraction, the rules every runnable block keeps, and the pages
whose blocks need no container, run as written.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _runner() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "doc_blocks", ROOT / "tools/container/doc_blocks.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RUNNER = _runner()
BLOCKS = {page: RUNNER.shell_blocks(ROOT / page) for page in RUNNER.PAGES}


def _runnable(page: str) -> list[str]:
    return [text for _line, text, skip in BLOCKS[page] if skip is None]


def test_every_shell_block_is_found_and_a_skip_says_why(tmp_path: Path) -> None:
    """Each ```sh fence is one block (a hand-made page: two blocks, the second skipped with
    its reason); on the real pages every block either runs or names its reason."""
    page = tmp_path / "page.md"
    page.write_text(
        "text\n```sh\necho one\n```\n<!-- doc-test: skip (needs a registry) -->\n"
        "```sh\npodman push x\n```\n```yaml\nnot: shell\n```\n",
        encoding="utf-8",
    )
    assert RUNNER.shell_blocks(page) == [
        (3, "echo one", None),
        (7, "podman push x", "needs a registry"),
    ]
    script = RUNNER.script("page.md", RUNNER.shell_blocks(page))
    assert script.startswith("set -euo pipefail\n")
    assert "echo one" in script
    assert "podman push x" not in script
    for page_name, blocks in BLOCKS.items():
        assert blocks, page_name
        for _line, _text, skip in blocks:
            assert skip is None or skip.strip(), page_name


def test_a_skip_marker_without_a_reason_is_refused(tmp_path: Path) -> None:
    """A skip marker with an empty or blank reason, or a misspelt one, fails extraction."""
    for marker in ("skip ()", "skip (  )", "skipped (x)"):
        page = tmp_path / "page.md"
        page.write_text(f"<!-- doc-test: {marker} -->\n```sh\necho one\n```\n", encoding="utf-8")
        with pytest.raises(ValueError, match="must say why"):
            RUNNER.shell_blocks(page)


def _has_shell_fence(page: Path) -> bool:
    return re.search(r"^```sh$", page.read_text(encoding="utf-8"), flags=re.MULTILINE) is not None


def test_the_pages_run_are_every_page_with_a_shell_block(tmp_path: Path) -> None:
    """The runner's pages are exactly README.md and the docs/*.md holding a ```sh fence, and a
    page added with one is found without being listed."""
    candidates = [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    expected = {p.relative_to(ROOT).as_posix() for p in candidates if _has_shell_fence(p)}
    assert set(RUNNER.PAGES) == expected
    assert RUNNER.PAGES[0] == "README.md"
    assert {"docs/explore.md", "docs/attestation.md", "docs/qualification.md"} <= expected
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text("no shell here\n", encoding="utf-8")
    (tmp_path / "docs/new.md").write_text("```sh\necho new\n```\n", encoding="utf-8")
    (tmp_path / "docs/prose.md").write_text("```yaml\na: 1\n```\n", encoding="utf-8")
    assert RUNNER.pages(tmp_path) == ("docs/new.md",)


def _needs_no_container(page: str) -> bool:
    return page != "README.md" and not any("podman" in text for text in _runnable(page))


def test_pages_needing_no_container_run_as_written(tmp_path: Path) -> None:
    """Each page whose runnable blocks use no container (explore, qualification) runs, in
    order, in a scratch directory with the checkout's .venv/bin on PATH, as in the smoke."""
    pages = [page for page in RUNNER.PAGES if _needs_no_container(page)]
    assert {"docs/explore.md", "docs/qualification.md"} <= set(pages)
    for name in ("home", "tmp"):
        (tmp_path / name).mkdir()
    env = dict(
        os.environ,
        PATH=f"{ROOT / '.venv' / 'bin'}:{os.environ.get('PATH', '')}",
        HOME=str(tmp_path / "home"),
        TMPDIR=str(tmp_path / "tmp"),
        CHECKOUT=str(ROOT),
    )
    for page in pages:
        scratch = tmp_path / Path(page).stem
        scratch.mkdir()
        done = subprocess.run(
            ["bash", "-c", RUNNER.script(page, BLOCKS[page])],
            cwd=scratch,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, (page, done.stderr[-2000:])
        ran = [line for line, _text, skip in BLOCKS[page] if skip is None]
        for line in ran:
            assert f"doc-test: {page}:{line}\n" in done.stdout, (page, line)


def test_runnable_blocks_need_no_containers_conf_and_set_the_limits() -> None:
    """No runnable block sets CONTAINERS_CONF, and every `podman run` in one passes the two
    --ulimit flags, directly or through $SEALED, which carries them."""
    for page in RUNNER.PAGES:
        for text in _runnable(page):
            assert "CONTAINERS_CONF" not in text, page
            joined = text.replace("\\\n", " ")
            sealed = re.search(r'SEALED="([^"]*)"', joined)
            for run in re.findall(r"podman run [^\n]*", joined):
                flags = run if "$SEALED" not in run else sealed.group(1) if sealed else ""
                assert "--ulimit nofile=" in flags, (page, run)
                assert "--ulimit nproc=" in flags, (page, run)


def test_one_input_layout_across_the_docs() -> None:
    """Every container path of an input in the README, docs/container.md, docs/attestation.md
    and compose.yaml is under /in/corpus/ or is /in/qualification.json."""
    pages = ["README.md", "docs/container.md", "docs/attestation.md", "compose.yaml"]
    seen = 0
    for page in pages:
        text = (ROOT / page).read_text(encoding="utf-8")
        for path in re.findall(r"(?<![\w$.])/in/[\w./-]+", text):
            seen += 1
            allowed = path in {"/in/qualification.json", "/in/..."}
            assert path.startswith("/in/corpus/") or allowed, (page, path)
    assert seen >= 20


def test_compose_runs_from_any_directory_with_its_file_named() -> None:
    """The compose block names the file with -f (a reader elsewhere than the checkout has no
    compose.yaml in the current directory) and puts pipx's directory on PATH itself."""
    (compose,) = [t for t in _runnable("docs/container.md") if "podman-compose" in t]
    assert "pipx install podman-compose==" in compose
    assert 'export PATH="$HOME/.local/bin:$PATH"' in compose
    assert all(" -f " in line for line in compose.splitlines() if "podman-compose " in line)


def _yaml_blocks(page: str, heading: str) -> str:
    """The ```yaml blocks of `page`'s `## heading` section, joined in order."""
    text = (ROOT / page).read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return "".join(re.findall(r"^```yaml\n(.*?)^```$", section, flags=re.MULTILINE | re.DOTALL))


def test_ci_page_explains_every_line_of_both_templates() -> None:
    """docs/ci.md quotes each template whole, in order, in the blocks its line-by-line
    sections explain: joined, they are the files byte for byte (an edit to a template that the
    page does not follow fails here)."""
    templates = {
        "The GitHub Actions workflow, line by line": "ci/github/clearing-analysis.yml",
        "The GitLab CI job, line by line": "ci/gitlab/clearing-analysis.gitlab-ci.yml",
    }
    for heading, template in templates.items():
        quoted = _yaml_blocks("docs/ci.md", heading)
        assert quoted == (ROOT / template).read_text(encoding="utf-8"), template
