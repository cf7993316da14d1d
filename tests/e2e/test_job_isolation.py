"""No discovery, no network, no provider code for the whole replay job (seed "Run locally",
R-SC-4, R-CLI-2).

HOME, every XDG_* variable and the working directory point at a decoy tree that looks like an
agent's state (native roots with journals, sidecars, configs). An audit hook (sys.addaudithook)
records every open, directory listing, SQLite connect, socket, subprocess and HTTP event while
the job runs: in-process through `jobs.replay_job` (1 worker), and in a fresh interpreter
through the CLI with 2 workers, whose spawned pool workers install the same hook first
(`run_cli`'s worker prelude). Nothing under the
decoy may be touched, no socket or process may be created, and the modules loaded after the
job include no provider SDK or HTTP client. (`ssl` is not on that list: structlog imports
asyncio, which imports ssl; no socket event shows it is ever used.)
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from clearing_analysis.inputs.requests import ReplayRequest
from clearing_analysis.pipeline.jobs import replay_job
from tests.e2e._canary_inputs import CanaryInputs
from tests.e2e._cli import run_cli

PATH_EVENTS = frozenset({"open", "os.scandir", "os.listdir", "sqlite3.connect"})
FORBIDDEN_EVENT_PREFIXES = (
    "socket.",
    "subprocess.",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "http.client.",
    "urllib.Request",
    "ftplib.",
    "smtplib.",
)
FORBIDDEN_MODULES = (
    "anthropic",
    "openai",
    "google",
    "boto3",
    "botocore",
    "httpx",
    "requests",
    "aiohttp",
    "urllib3",
    "http.client",
    "urllib.request",
    "grpc",
    "websockets",
    "keyring",
)
OUT_NAME = "isolated-summary.json"

_recording: list[tuple[str, tuple[Any, ...]]] | None = None


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _recording is not None:
        _recording.append((event, args))


sys.addaudithook(_audit)  # hooks cannot be removed; it records only while `_recording` is set


def _decoy(root: Path, inputs: CanaryInputs) -> Path:
    """A HOME full of plausible state: real journals and sidecars in the usual places."""
    journals = sorted(inputs.journals.rglob("*.jsonl"))
    for relative in (
        ".pi/agent/sessions/journals",
        ".pi/agent/journals",
        ".local/state/pi/journals",
        ".config/pi/journals",
        "journals",
        "",
    ):
        directory = root / relative
        directory.mkdir(parents=True, exist_ok=True)
        for n, journal in enumerate(journals[:3]):
            shutil.copyfile(journal, directory / f"decoy-{n}.jsonl")
    for relative in (".pi/agent/history.sqlite", "history.sqlite", ".local/state/pi/h.sqlite"):
        shutil.copyfile(inputs.sidecar, root / relative)
    for relative in ("routes.json", ".config/pi/routes.json", "agent-config.json"):
        shutil.copyfile(inputs.routes, root / relative)
    return root


@pytest.fixture
def decoy_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, canary_inputs: CanaryInputs
) -> Path:
    """HOME, XDG_* and the working directory all point at the decoy tree."""
    home = _decoy(tmp_path / "home", canary_inputs)
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(name, str(home))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(home))
    monkeypatch.chdir(home)
    return home


@pytest.fixture
def recorded() -> Iterator[list[tuple[str, tuple[Any, ...]]]]:
    """Audit events raised while the fixture is active."""
    global _recording  # noqa: PLW0603 - the audit hook is process-wide by design
    events: list[tuple[str, tuple[Any, ...]]] = []
    _recording = events
    try:
        yield events
    finally:
        _recording = None


# An output is first an unnamed file, opened as "." with O_TMPFILE relative to the checked
# output directory's descriptor, then linked to its name (inputs.output, R-REL-5).
UNNAMED = "<O_TMPFILE in the output directory>"


def _first(event: str, args: tuple[Any, ...]) -> object:
    """The path an event names, the unnamed output's open marked as such."""
    first = args[0] if args else None
    if event == "open" and first == "." and args[2] & os.O_TMPFILE == os.O_TMPFILE:
        return UNNAMED
    return first


def _event_path(event: str, first: object, cwd: Path) -> Path | None:
    """The absolute path an event names, if it names one."""
    if not isinstance(first, str | bytes | os.PathLike):
        return None
    path = os.fsdecode(first)
    if event == "sqlite3.connect" and path == ":memory:":
        return None  # the sidecar's reference schema is built in memory: no file
    if event == "sqlite3.connect" and path.startswith("file:"):
        path = urllib.parse.unquote(path.removeprefix("file:").split("?", 1)[0])
    if not Path(path).is_absolute():
        if path in (OUT_NAME, UNNAMED):  # outputs are made relative to their parent's descriptor
            return None
        return cwd / path  # anything else relative would resolve in the decoy working dir
    return Path(os.path.realpath(path))


def _violations(events: list[tuple[str, Any]], decoy: Path) -> list[tuple[str, str]]:
    bad = []
    for event, first in events:
        if event.startswith(FORBIDDEN_EVENT_PREFIXES):
            bad.append((event, repr(first)))
        elif event in PATH_EVENTS:
            path = _event_path(event, first, decoy)
            if path is not None and path.is_relative_to(decoy):
                bad.append((event, str(path)))
    return bad


def _touched(events: list[tuple[str, Any]], root: Path, cwd: Path) -> set[str]:
    """Event names that touched something under `root` (to show the hook sees the job)."""
    hits = set()
    for event, first in events:
        if event in PATH_EVENTS:
            path = _event_path(event, first, cwd)
            if path is not None and path.is_relative_to(root.resolve()):
                hits.add(event)
    return hits


def test_replay_job_touches_only_explicit_inputs(
    canary_inputs: CanaryInputs,
    decoy_home: Path,
    tmp_path: Path,
    recorded: list[tuple[str, tuple[Any, ...]]],
) -> None:
    """In-process job (select, replay, assess, write): no decoy path, no socket, no process,
    and no provider SDK or HTTP client newly imported."""
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    modules_before = set(sys.modules)
    recorded.clear()
    job = replay_job(
        ReplayRequest(
            journals=(canary_inputs.journals,),
            sidecar=canary_inputs.sidecar,
            routes=canary_inputs.routes,
            agent_config=canary_inputs.agent_config,
            app_allowlist=canary_inputs.app_allowlist,
            out=out_dir / OUT_NAME,
        )
    )
    job.write(out_dir / OUT_NAME)
    events = [(event, _first(event, args)) for event, args in recorded]
    assert _violations(events, decoy_home) == []
    # Not vacuous: the hook saw the job list, open and connect the explicit inputs.
    assert _touched(events, canary_inputs.root, decoy_home) >= {
        "open",
        "os.scandir",
        "sqlite3.connect",
    }
    assert json.loads((out_dir / OUT_NAME).read_bytes())["journalsReplayed"] == 3
    new_modules = set(sys.modules) - modules_before
    assert sorted(m for m in new_modules if m.startswith(FORBIDDEN_MODULES)) == []


_PRELUDE = """
import atexit, json, os, sys
_log = os.open({log!r}, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
_WATCHED = {watched!r}
_PREFIXES = {prefixes!r}
def _hook(event, args):
    if event in _WATCHED or event.startswith(_PREFIXES):
        first = args[0] if args else None
        if event == "open" and first == "." and args[2] & os.O_TMPFILE == os.O_TMPFILE:
            first = {unnamed!r}
        if isinstance(first, bytes):
            first = os.fsdecode(first)
        if not isinstance(first, str):
            first = None  # a descriptor or nothing: not a path
        # os.write raises no audit event, so the hook cannot recurse.
        os.write(_log, (json.dumps([os.getpid(), event, first]) + "\\n").encode())
sys.addaudithook(_hook)
_modules = os.path.join({modules!r}, str(os.getpid()))
atexit.register(lambda: open(_modules, "w").write(json.dumps(sorted(sys.modules))))
"""


def test_cli_with_workers_touches_only_explicit_inputs(
    canary_inputs: CanaryInputs, decoy_home: Path, tmp_path: Path
) -> None:
    """A fresh interpreter running `replay --workers 2` from the decoy HOME: neither the main
    process nor the pool workers touch the decoy or the network, and no provider SDK or
    HTTP client is loaded at all."""
    log, modules = tmp_path / "audit.jsonl", tmp_path / "modules"
    modules.mkdir()
    out = tmp_path / OUT_NAME
    prelude = _PRELUDE.format(
        log=str(log),
        watched=sorted(PATH_EVENTS),
        prefixes=FORBIDDEN_EVENT_PREFIXES,
        modules=str(modules),
        unnamed=UNNAMED,
    )
    done = run_cli(
        ["replay", *canary_inputs.args(), "--workers", "2", "--out", str(out)],
        prelude=prelude,
        worker_prelude=prelude,  # the spawned workers install the same hook
        cwd=decoy_home,
        env=dict(os.environ),  # HOME and XDG_* point at the decoy (fixture)
    )
    assert (done.returncode, done.stderr) == (0, b"")
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    events = [(event, first) for _pid, event, first in rows]
    assert _violations(events, decoy_home) == []
    journal_root = str(canary_inputs.journals.resolve())
    readers = {
        pid
        for pid, event, first in rows
        if event == "open" and first and first.startswith(journal_root)
    }
    # Not vacuous: the parent reads the headers to plan the units, and a worker (one may have
    # taken both units) read the journals it replayed.
    assert len(readers) >= 2
    # The modules every process (parent, two workers, multiprocessing's resource tracker) had
    # loaded when it exited.
    by_process = [json.loads(path.read_text()) for path in sorted(modules.iterdir())]
    assert len(by_process) == 4
    assert sum("clearing_analysis.pipeline.units" in loaded for loaded in by_process) == 3
    assert [m for loaded in by_process for m in loaded if m.startswith(FORBIDDEN_MODULES)] == []
