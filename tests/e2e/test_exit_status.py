"""Exit statuses through the real CLI (R-CLI-3, R-RP-5, R-FS-6, R-REL-1), with the leak check.

Each global incompleteness code (INPUT_INVALID, NO_JOURNALS, SIDECAR_NOT_OFFLINE,
SNAPSHOT_CHANGED) and OUTPUT_REFUSED must exit 2 and print exactly one fixed line on stderr,
nothing on stdout, and create nothing: every run here names an `--out` file and a check shows
it was not created and that no input changed. Every variant input is canary-named and
canary-filled, so each failure path is also a canary test (R-OUT-3). Every run also names a
`--log-file`, which must not be created either. A complete run exiting 0 is in
test_canary.py.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from clearing_analysis.policy import policy_dir
from tests.e2e._canary import Canaries
from tests.e2e._canary_inputs import ROUTE_FIELDS, CanaryInputs
from tests.e2e._cli import fixed_line, listing, run_cli


@dataclass
class Case:
    """A prepared failing invocation: arguments, the expected code and detail, an optional
    prelude."""

    args: list[str]
    code: str
    detail: str
    prelude: str = ""
    hook_creates: Path | None = None  # a file the test's own hook creates on purpose


def _named_dir(tmp: Path, c: Canaries, label: str) -> Path:
    directory = tmp / c(f"dir.{label}")
    directory.mkdir()
    return directory


def _routes_invalid(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    routes = _named_dir(tmp, c, "routes") / f"{c('file.routes')}.json"
    entry = {"api": c("routes.label"), **ROUTE_FIELDS, c("routes.key"): c("routes.value")}
    routes.write_text(json.dumps([entry]))
    return Case(inputs.args(routes=routes), "INPUT_INVALID", "ROUTES_WRONG_SHAPE")


def _agent_config_contradictory(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    """Per-run proofs naming one run id twice invalidate the input (R-EL-3)."""
    config = _named_dir(tmp, c, "config") / f"{c('file.config')}.json"
    run_id = c("config.runId")
    proof = {"builtins": [c("config.builtin")], "mcpTools": "none", "runId": run_id}
    config.write_text(json.dumps([proof, {**proof, "builtins": ["read"]}]))
    return Case(inputs.args(agent_config=config), "INPUT_INVALID", "AGENT_CONFIG_RUN_ID_DUPLICATE")


def _journals_missing(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    journals = tmp / c("dir.absent") / "x.jsonl"
    return Case(inputs.args(journals=journals), "INPUT_INVALID", "JOURNALS_MISSING")


def _sidecar_lookalike(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    """A non-STRICT lookalike whose rows break the schema: the error is raised inside a pool
    worker during replay (2 workers) and must still reach the CLI as a fixed code."""
    copy = _named_dir(tmp, c, "lookalike") / f"{c('file.lookalike')}.sqlite"
    db = sqlite3.connect(copy)
    db.execute("ATTACH DATABASE ? AS src", (str(inputs.sidecar),))
    for table in ("sidecar_meta", "conversation_policy", "retained_result", "committed_id_index"):
        db.execute(f"CREATE TABLE main.{table} AS SELECT * FROM src.{table}")
    db.execute("UPDATE main.retained_result SET state = 7")
    db.commit()
    db.execute("DETACH DATABASE src")
    db.close()
    return Case([*inputs.args(sidecar=copy), "--workers", "2"], "INPUT_INVALID", "SIDECAR_SCHEMA")


def _no_journals(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    empty = _named_dir(tmp, c, "empty")
    (empty / f"{c('file.notJournal')}.json").write_text(c("notJournal.text"))
    return Case(inputs.args(journals=empty), "NO_JOURNALS", "NO_JOURNAL_FILES")


def _sidecar_copy(inputs: CanaryInputs, tmp: Path, c: Canaries, label: str) -> Path:
    copy = _named_dir(tmp, c, label) / f"{c(f'file.{label}')}.sqlite"
    shutil.copyfile(inputs.sidecar, copy)
    return copy


def _wal_sidecar(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    """A WAL-mode database with no companion left (header bytes 18-19 say WAL, R-SC-2)."""
    copy = _sidecar_copy(inputs, tmp, c, "wal")
    db = sqlite3.connect(copy)
    assert db.execute("PRAGMA journal_mode=WAL").fetchone() == ("wal",)
    db.close()
    assert copy.read_bytes()[18:20] == b"\x02\x02"
    assert sorted(p.name for p in copy.parent.iterdir()) == [copy.name]
    return Case(inputs.args(sidecar=copy), "SIDECAR_NOT_OFFLINE", "WAL_MODE")


def _companion(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    """A case variant of a companion name counts (R-SC-1: compared case-insensitively)."""
    copy = _sidecar_copy(inputs, tmp, c, "companion")
    (copy.parent / f"{copy.name}-sHm").write_bytes(c("companion.bytes").encode())
    return Case(inputs.args(sidecar=copy), "SIDECAR_NOT_OFFLINE", "COMPANION_PRESENT")


def _hooked(hook: str) -> str:
    """A prelude that runs `hook` between the two snapshots, through the library's test hook."""
    return (
        "import functools, os, pathlib, clearing_analysis.cli.replay as _r\n"
        f"def _between():\n    {hook}\n"
        "_r.replay_job = functools.partial(_r.replay_job, between_snapshots=_between)\n"
    )


def _input_touched(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    routes = _named_dir(tmp, c, "touched") / f"{c('file.touched')}.json"
    shutil.copyfile(inputs.routes, routes)
    hook = f"os.utime({str(routes)!r}, ns=(1, 1))"
    return Case(inputs.args(routes=routes), "SNAPSHOT_CHANGED", "FILE_CHANGED", _hooked(hook))


def _companion_appears(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    copy = _sidecar_copy(inputs, tmp, c, "appears")
    companion = copy.parent / f"{copy.name}-journal"
    hook = f"pathlib.Path({str(companion)!r}).write_bytes(b'')"
    return Case(
        inputs.args(sidecar=copy), "SNAPSHOT_CHANGED", "COMPANION_CHANGED", _hooked(hook), companion
    )


def _out_inside_input(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    out = inputs.journals / f"{c('file.outInside')}.json"
    return Case([*inputs.args(), "--out", str(out)], "OUTPUT_REFUSED", "OUTPUT_INSIDE_INPUT")


def _out_companion_name(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    """The output may not take a (case-variant) companion name of the sidecar (R-FS-5)."""
    copy = _sidecar_copy(inputs, tmp, c, "outCompanion")
    out = copy.parent / f"{copy.name.upper()}-WAL"
    return Case(
        [*inputs.args(sidecar=copy), "--out", str(out)], "OUTPUT_REFUSED", "OUTPUT_NAME_COLLIDES"
    )


def _out_dangling_symlink(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    """A dangling symlink destination is refused, not followed (R-FS-2)."""
    link = _named_dir(tmp, c, "link") / f"{c('file.link')}.json"
    link.symlink_to(link.parent / f"{c('file.linkTarget')}.json")
    return Case([*inputs.args(), "--out", str(link)], "OUTPUT_REFUSED", "OUTPUT_IS_SYMLINK")


def _out_dir_vanishes(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    """The output directory disappears while the job runs (R-REL-3): refused, not recreated."""
    out_dir = _named_dir(tmp, c, "vanishing")
    out = out_dir / f"{c('file.vanishing')}.json"
    hook = f"os.rmdir({str(out_dir)!r})"
    return Case(
        [*inputs.args(), "--out", str(out)],
        "OUTPUT_REFUSED",
        "OUTPUT_PARENT_MISSING",
        _hooked(hook),
    )


CASES: dict[str, Callable[[CanaryInputs, Path, Canaries], Case]] = {
    "routes-invalid": _routes_invalid,
    "agent-config-contradictory": _agent_config_contradictory,
    "journals-missing": _journals_missing,
    "sidecar-lookalike-in-worker": _sidecar_lookalike,
    "no-journals": _no_journals,
    "wal-sidecar": _wal_sidecar,
    "companion-present": _companion,
    "input-touched": _input_touched,
    "companion-appears": _companion_appears,
    "out-inside-input": _out_inside_input,
    "out-companion-name": _out_companion_name,
    "out-dangling-symlink": _out_dangling_symlink,
    "out-dir-vanishes": _out_dir_vanishes,
}


def _names(root: Path) -> list[str]:
    return [entry[0] for entry in listing(root)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_failure_exits_2_with_one_fixed_line(
    name: str, canary_inputs: CanaryInputs, tmp_path: Path
) -> None:
    """Exit 2, stderr exactly the fixed line, empty stdout, nothing created, no canary."""
    c = Canaries(seed=zlib.crc32(name.encode()))
    case = CASES[name](canary_inputs, tmp_path, c)
    out = tmp_path / f"{c('file.out')}.json"
    log = tmp_path / f"{c('file.log')}.log"
    if "--out" not in case.args:
        case.args += ["--out", str(out)]
    case.args += ["--log-file", str(log)]
    before, before_tmp = listing(canary_inputs.root), _names(tmp_path)
    done = run_cli(["replay", *case.args], prelude=case.prelude)
    assert (done.returncode, done.stderr, done.stdout) == (
        2,
        fixed_line(case.code, case.detail),
        b"",
    )
    assert not out.exists()
    assert not log.exists()
    assert listing(canary_inputs.root) == before
    created = set(_names(tmp_path)) - set(before_tmp)
    hooked = set() if case.hook_creates is None else {str(case.hook_creates.relative_to(tmp_path))}
    assert created == hooked
    canary_inputs.assert_private(done.stderr, c.values)


def test_synth_refuses_an_existing_directory(tmp_path: Path) -> None:
    """`synth --out` on an existing directory: OUTPUT_REFUSED, exit 2, nothing written."""
    existing = tmp_path / "corpus"
    existing.mkdir()
    done = run_cli(["synth", "--out", str(existing), "--seed", "1", "--conversations", "1"])
    expected = fixed_line("OUTPUT_REFUSED", "SYNTH_OUT_EXISTS")
    assert (done.returncode, done.stderr, done.stdout) == (2, expected, b"")
    assert list(existing.iterdir()) == []


def test_qualify_refuses_output_inside_its_sources() -> None:
    """`qualify --out` into the policy directory it certifies is refused before any work."""
    out = policy_dir() / "e2e-qualification-must-not-exist.json"
    try:
        done = run_cli(["qualify", "--out", str(out)])
        assert (done.returncode, done.stderr, done.stdout) == (
            2,
            fixed_line("OUTPUT_REFUSED", "OUTPUT_INSIDE_INPUT"),
            b"",
        )
        assert not out.exists()
    finally:
        out.unlink(missing_ok=True)


@pytest.mark.parametrize("workers", [1, 2])
def test_companion_appearing_mid_replay(
    workers: int, canary_inputs: CanaryInputs, tmp_path: Path
) -> None:
    """R-REL-3: a companion appearing after the session opened, just before replay, is a fixed
    code with exit 2 and one stderr line, with or without a process pool (whose workers open
    the sidecar again and refuse it); no output, no canary."""
    c = Canaries(seed=99)
    copy = _sidecar_copy(canary_inputs, tmp_path, c, "midRun")
    out = tmp_path / f"{c('file.midRunOut')}.json"
    prelude = (
        "import sys, pathlib, clearing_analysis.jobs as _j\n"
        "_real = _j.replay_journals\n"
        "def _replay(*args, **kwargs):\n"
        f"    pathlib.Path({str(copy)!r} + '-wal').write_bytes(b'')\n"
        "    return _real(*args, **kwargs)\n"
        "_j.replay_journals = _replay\n"
    )
    args = [*canary_inputs.args(sidecar=copy), "--workers", str(workers), "--out", str(out)]
    done = run_cli(["replay", *args], prelude=prelude)
    # 1 worker: the open view replays, the second snapshot sees the companion; 2 workers: each
    # worker's own offline check sees it first. Both report the same change: SNAPSHOT_CHANGED.
    expected = fixed_line("SNAPSHOT_CHANGED", "COMPANION_CHANGED")
    assert (done.returncode, done.stderr, done.stdout) == (2, expected, b"")
    assert not out.exists()
    canary_inputs.assert_private(done.stderr, c.values)


def test_sidecar_with_undecodable_schema_is_input_invalid(
    canary_inputs: CanaryInputs, tmp_path: Path
) -> None:
    """R-REL-1: a corrupt sidecar (one byte of a table name in sqlite_master made invalid
    UTF-8) is a bad input: INPUT_INVALID, exit 2, one fixed line, no canary."""
    c = Canaries(seed=98)
    copy = _sidecar_copy(canary_inputs, tmp_path, c, "corrupt")
    table = canary_inputs.canaries["extra.table"].encode()
    raw = copy.read_bytes()
    assert raw.count(table) == 3  # name, tbl_name and the CREATE statement in sqlite_master
    copy.write_bytes(raw.replace(table, table[:-1] + b"\xff", 1))
    done = run_cli(["replay", *canary_inputs.args(sidecar=copy)])
    canary_inputs.assert_private(done.stderr, c.values)
    expected = fixed_line("INPUT_INVALID", "SIDECAR_SCHEMA")
    assert (done.returncode, done.stderr, done.stdout) == (2, expected, b"")


def test_ctrl_c_inside_a_command_is_interrupted(
    canary_inputs: CanaryInputs, tmp_path: Path
) -> None:
    """Ctrl-C while a command runs (typer catches it inside the command): exit 130 and the one
    INTERRUPTED line, nothing on stdout, no output created."""
    prelude = (
        "import clearing_analysis.cli.replay as _r\n"
        "def _interrupt(journals, **kwargs):\n"
        "    raise KeyboardInterrupt\n"
        "_r.replay_job = _interrupt\n"
    )
    out = tmp_path / "interrupted.json"
    done = run_cli(["replay", *canary_inputs.args(), "--out", str(out)], prelude=prelude)
    assert (done.returncode, done.stderr, done.stdout) == (
        130,
        b"clearing-analysis: INTERRUPTED\n",
        b"",
    )
    assert not out.exists()


def test_closed_stdout_is_one_fixed_line(canary_inputs: CanaryInputs) -> None:
    """stdout whose reader is gone (a closed pipe): OUTPUT_REFUSED STDOUT_FAILED, exit 2, and
    that line alone on stderr (no message of the interpreter's own about the lost bytes)."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        done = run_cli(["replay", *canary_inputs.args()], stdout=writer)
    finally:
        os.close(writer)
    assert (done.returncode, done.stderr) == (2, fixed_line("OUTPUT_REFUSED", "STDOUT_FAILED"))
