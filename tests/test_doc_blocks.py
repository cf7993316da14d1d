"""The documented shell blocks CI runs as written (tools/container/doc_blocks.py), checked
without podman: which blocks run, and that what they say holds on hosts like these.

The blocks themselves run in the sealed smoke (tools/container/smoke.sh), which needs podman
and a built image; here only their extraction and the rules every runnable block keeps.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

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
        assert len(_runnable(page_name)) >= 2, page_name
        for _line, _text, skip in blocks:
            assert skip is None or skip.strip(), page_name


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
