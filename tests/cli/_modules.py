"""The modules a real command run has loaded by the time it exits (start-up tests)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from tests.e2e._cli import run_cli


def loaded_after(
    args: list[str], tmp_path: Path, name: str, *, statuses: Sequence[int] = (0,)
) -> list[str]:
    """`sys.modules` at the exit of `clearing-analysis ARGS` in a new interpreter, sorted
    (written to `tmp_path/NAME.json` by an atexit hook); its exit status must be in
    `statuses`."""
    modules = tmp_path / f"{name}.json"
    prelude = (
        "import atexit, json, sys\n"
        f"_to = {str(modules)!r}\n"
        "atexit.register(lambda: open(_to, 'w').write(json.dumps(sorted(sys.modules))))\n"
    )
    done = run_cli(args, prelude=prelude)
    assert done.returncode in statuses, done.stderr
    return list(json.loads(modules.read_text()))
