"""Exit statuses through the real CLI (R-CLI-3, R-RP-5, R-FS-6, R-REL-1), with the leak check.

Each global incompleteness code (INPUT_INVALID, NO_JOURNALS, SIDECAR_NOT_OFFLINE,
SNAPSHOT_CHANGED), OUTPUT_REFUSED and QUALIFIER_FAILED must exit 2 and print exactly one line on
stderr, `clearing-analysis: <CODE> <DETAIL>: <remedy>` with the remedy of the one table, nothing
on stdout, and create nothing: every replay run here names an `--out` file and a check shows it
was not created and that no input changed. Every variant input is canary-named and
canary-filled, so each failure path is also a canary test (R-OUT-3). Every run also names a
`--log-file`, which must not be created either. The last test proves that every detail a
command line can reach has such a case (here or in tests/cli/), and names the reason for each
one it cannot reach. A complete run exiting 0 is in test_canary.py.
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

from clearing_analysis.codes.errors import MountContractDetail, QualificationDetail
from clearing_analysis.codes.table import REMEDIES
from clearing_analysis.policy import limits, policy_dir
from clearing_analysis.qualify.harness import (
    ANALYZER_ROLE,
    HARNESS_ENV,
    HARNESS_SOURCES,
    IMAGE_ROLE_ENV,
    harness_dir,
)
from tests.attest import test_signed_analyze as signed_analyze
from tests.cli import test_failure_lines as failure_lines
from tests.cli import test_usage_errors as usage_errors
from tests.e2e import test_canary
from tests.e2e import test_html_page as html_page
from tests.e2e import test_no_evidence as no_evidence
from tests.e2e._canary import Canaries
from tests.e2e._canary_inputs import ROUTE_FIELDS, CanaryInputs
from tests.e2e._cli import fixed_line, listing, run_cli
from tests.inputs.test_sidecar_offline import break_table_root


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
    """Per-run proofs naming one run of one conversation twice invalidate the input (R-EL-3)."""
    config = _named_dir(tmp, c, "config") / f"{c('file.config')}.json"
    run_id = c("config.runId")
    proof = {
        "builtins": [c("config.builtin")],
        "mcpTools": "none",
        "runId": run_id,
        "physicalConversationId": c("config.physicalConversationId"),
    }
    config.write_text(json.dumps([proof, {**proof, "builtins": ["read"]}]))
    return Case(inputs.args(agent_config=config), "INPUT_INVALID", "AGENT_CONFIG_RUN_ID_DUPLICATE")


def _journals_missing(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    journals = tmp / c("dir.absent") / "x.jsonl"
    return Case(inputs.args(journals=journals), "INPUT_INVALID", "JOURNALS_MISSING")


def _sidecar_lookalike(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    """A non-STRICT lookalike (the DDL's columns and keys, so it opens) whose rows break the
    schema: the error is raised inside a pool worker during replay (2 workers) and must still
    reach the CLI as a fixed code."""
    copy = _named_dir(tmp, c, "lookalike") / f"{c('file.lookalike')}.sqlite"
    db = sqlite3.connect(copy)
    db.executescript((policy_dir() / "sidecar.sql").read_text().replace(") STRICT;", ");"))
    db.execute("PRAGMA ignore_check_constraints = ON")
    db.execute("ATTACH DATABASE ? AS src", (str(inputs.sidecar),))
    for table in ("sidecar_meta", "conversation_policy", "retained_result", "committed_id_index"):
        db.execute(f"INSERT INTO main.{table} SELECT * FROM src.{table}")
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


def _sidecar_damaged(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    """A copy whose retained_result root page has a broken type byte under an intact schema:
    PRAGMA quick_check refuses it before replay (SQLite keeps no checksums)."""
    copy = _sidecar_copy(inputs, tmp, c, "damaged")
    break_table_root(copy, "retained_result")
    return Case(inputs.args(sidecar=copy), "INPUT_INVALID", "SIDECAR_DAMAGED")


def _sidecar_computed(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    """A copy with a (canary-named) view: something that computes values when read is refused
    before any row is read (R-REL-7)."""
    copy = _sidecar_copy(inputs, tmp, c, "computed")
    db = sqlite3.connect(copy)
    db.execute(f'CREATE VIEW "{c("view.name")}" AS SELECT zeroblob(1000000000) AS z')
    db.commit()
    db.close()
    return Case(inputs.args(sidecar=copy), "INPUT_INVALID", "SIDECAR_COMPUTED_SCHEMA")


def _sidecar_value_too_large(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    """A copy whose first indexed row (a journal's result) holds one byte more text than
    maxSidecarValueBytes: refused when replay reads it, whatever it holds (canary text)."""
    copy = _sidecar_copy(inputs, tmp, c, "valueTooLarge")
    longest = limits().max_sidecar_value_bytes
    text = c("large.text")
    db = sqlite3.connect(copy)
    db.execute(
        "UPDATE retained_result SET text = ? WHERE row_id = (SELECT min(row_id) FROM"
        " committed_id_index)",
        ((text * (longest // len(text) + 1))[: longest + 1],),
    )
    db.commit()
    db.close()
    return Case(inputs.args(sidecar=copy), "INPUT_INVALID", "SIDECAR_VALUE_TOO_LARGE")


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
        "import functools, os, pathlib, clearing_analysis.pipeline.jobs as _r\n"
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


def _journals_fifo(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    """A FIFO named as a journal argument is neither a file nor a directory (never opened)."""
    fifo = _named_dir(tmp, c, "fifo") / f"{c('file.fifo')}.jsonl"
    os.mkfifo(fifo)
    return Case(inputs.args(journals=fifo), "INPUT_INVALID", "JOURNALS_NOT_FILE_OR_DIRECTORY")


def _native_root(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    """A walked directory holding a native root's `aliases` entry is refused, not guessed at."""
    root = _named_dir(tmp, c, "nativeRoot")
    (root / "aliases").mkdir()
    shutil.copyfile(sorted(inputs.journals.rglob("*.jsonl"))[0], root / f"{c('file.nr')}.jsonl")
    return Case(inputs.args(journals=root), "INPUT_INVALID", "NATIVE_ROOT_NOT_JOURNALS")


def _sidecar_directory(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    directory = _named_dir(tmp, c, "sidecarDir")
    return Case(inputs.args(sidecar=directory), "INPUT_INVALID", "SIDECAR_NOT_FILE")


def _routes_missing(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    missing = _named_dir(tmp, c, "routesGone") / f"{c('file.routesGone')}.json"
    return Case(inputs.args(routes=missing), "INPUT_INVALID", "ROUTES_MISSING")


def _qualification_directory(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    directory = _named_dir(tmp, c, "qualificationDir")
    return Case(inputs.args(qualification=directory), "INPUT_INVALID", "QUALIFICATION_NOT_FILE")


def _sidecar_text(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    """A text file passed as the sidecar: no SQLite header."""
    text = _named_dir(tmp, c, "sidecarText") / f"{c('file.sidecarText')}.sqlite"
    text.write_text(c("sidecarText.body") * 8)
    return Case(inputs.args(sidecar=text), "INPUT_INVALID", "SIDECAR_NOT_SQLITE")


def _allowlist_duplicate(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    """Two identical reviewed declarations (canary server and tool names) contradict nothing
    but are refused as a sign of a hand-edited file."""
    allowlist = _named_dir(tmp, c, "allowlist") / f"{c('file.allowlist')}.json"
    entry = {
        "server": c("allowlist.server"),
        "tool": c("allowlist.tool"),
        "serverIdentityDigest": c.hex("allowlist.digest"),
        "readOnly": True,
    }
    allowlist.write_text(json.dumps([entry, entry]))
    return Case(inputs.args(app_allowlist=allowlist), "INPUT_INVALID", "APP_ALLOWLIST_DUPLICATE")


def _journal_appears(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    """A journal appears in a walked directory between the snapshots (R-FS-7)."""
    journals = tmp / c("dir.journalsCopy")
    shutil.copytree(inputs.journals, journals)
    appearing = journals / f"{c('file.appears')}.jsonl"
    hook = f"pathlib.Path({str(appearing)!r}).write_bytes(b'')"
    return Case(
        inputs.args(journals=journals),
        "SNAPSHOT_CHANGED",
        "DIRECTORY_CHANGED",
        _hooked(hook),
        appearing,
    )


def _out_dot(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    """`--out DIR/..` names no new file (a path object keeps `..`; it drops a final `.`)."""
    out = f"{_named_dir(tmp, c, 'dot')}{os.sep}.."
    return Case([*inputs.args(), "--out", out], "OUTPUT_REFUSED", "OUTPUT_NAME_INVALID")


def _out_under_a_file(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    parent = _named_dir(tmp, c, "underFile") / c("file.notADirectory")
    parent.write_text(c("notADirectory.text"))
    out = parent / f"{c('file.underFile')}.json"
    return Case(
        [*inputs.args(), "--out", str(out)], "OUTPUT_REFUSED", "OUTPUT_PARENT_NOT_DIRECTORY"
    )


def _out_exists(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    existing = _named_dir(tmp, c, "exists") / f"{c('file.exists')}.json"
    existing.write_text(c("exists.text"))
    return Case([*inputs.args(), "--out", str(existing)], "OUTPUT_REFUSED", "OUTPUT_EXISTS")


def _out_hard_link_to_input(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    """An --out path that is a hard link (elsewhere, under another name) to the routes input."""
    routes = _named_dir(tmp, c, "linkedRoutes") / f"{c('file.linkedRoutes')}.json"
    shutil.copyfile(inputs.routes, routes)
    link = _named_dir(tmp, c, "hardLink") / f"{c('file.hardLink')}.json"
    os.link(routes, link)
    args = [*inputs.args(routes=routes), "--out", str(link)]
    return Case(args, "OUTPUT_REFUSED", "OUTPUT_IS_INPUT")


def _out_same_as_log(inputs: CanaryInputs, tmp: Path, c: Canaries) -> Case:
    both = _named_dir(tmp, c, "both") / f"{c('file.both')}.json"
    args = [*inputs.args(), "--out", str(both), "--log-file", str(both)]
    return Case(args, "OUTPUT_REFUSED", "OUTPUT_SAME_AS_LOG")


CASES: dict[str, Callable[[CanaryInputs, Path, Canaries], Case]] = {
    "routes-invalid": _routes_invalid,
    "agent-config-contradictory": _agent_config_contradictory,
    "journals-missing": _journals_missing,
    "sidecar-lookalike-in-worker": _sidecar_lookalike,
    "no-journals": _no_journals,
    "wal-sidecar": _wal_sidecar,
    "sidecar-damaged": _sidecar_damaged,
    "sidecar-computed-schema": _sidecar_computed,
    "sidecar-value-too-large": _sidecar_value_too_large,
    "companion-present": _companion,
    "input-touched": _input_touched,
    "companion-appears": _companion_appears,
    "out-inside-input": _out_inside_input,
    "out-companion-name": _out_companion_name,
    "out-dangling-symlink": _out_dangling_symlink,
    "out-dir-vanishes": _out_dir_vanishes,
    "journals-fifo": _journals_fifo,
    "native-root": _native_root,
    "sidecar-directory": _sidecar_directory,
    "routes-missing": _routes_missing,
    "qualification-directory": _qualification_directory,
    "sidecar-text": _sidecar_text,
    "allowlist-duplicate": _allowlist_duplicate,
    "journal-appears": _journal_appears,
    "out-dot-dot": _out_dot,
    "out-under-a-file": _out_under_a_file,
    "out-exists": _out_exists,
    "out-hard-link-to-input": _out_hard_link_to_input,
    "out-same-as-log": _out_same_as_log,
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
    if "--log-file" not in case.args:
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
        "import sys, pathlib, clearing_analysis.pipeline.jobs as _j\n"
        "_real = _j.analyze_snapshot\n"
        "def _replay(*args, **kwargs):\n"
        f"    pathlib.Path({str(copy)!r} + '-wal').write_bytes(b'')\n"
        "    return _real(*args, **kwargs)\n"
        "_j.analyze_snapshot = _replay\n"
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
        "import clearing_analysis.pipeline.jobs as _r\n"
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


@pytest.mark.parametrize("command", ["analyze", "explore"])
def test_totals_beyond_exact_integers_are_one_fixed_line(
    command: str, canary_inputs: CanaryInputs, tmp_path: Path
) -> None:
    """A report that would print an integer beyond the exact range is never written:
    INPUT_INVALID TOTALS_OUT_OF_RANGE, exit 2, one fixed line, no output, no page. A real
    history needs some 9 million requests at 10^9 tokens each to get there (each value is
    within its range; docs/formats/README.md), so the prelude lowers the bound the writer
    checks every report against to 1,000, which this history's byte total passes."""
    prelude = "import clearing_analysis.report.validate as _v\n_v.MAX_EXACT_INTEGER = 1000\n"
    out, page = tmp_path / "report.json", tmp_path / "report.html"
    if command == "analyze":
        args = ["analyze", *canary_inputs.args()]
    else:
        routes = json.loads(canary_inputs.routes.read_text())
        sessions_routes = tmp_path / "routes.json"
        sessions_routes.write_text(json.dumps([{**routes[0], "api": "openai-completions"}]))
        writer = Path(__file__).resolve().parents[1] / "data" / "pi-sessions" / "writer"
        args = ["explore", "--sessions", str(writer), "--routes", str(sessions_routes)]
    done = run_cli([*args, "--out", str(out), "--html", str(page)], prelude=prelude)
    expected = fixed_line("INPUT_INVALID", "TOTALS_OUT_OF_RANGE")
    assert (done.returncode, done.stderr, done.stdout) == (2, expected, b"")
    assert not out.exists()
    assert not page.exists()


def _harness_without_pi_ai(tmp: Path) -> Path:
    """A harness copy whose pi-ai manifest is installed but the package behind it is not."""
    copy = tmp / "qualify"
    copy.mkdir()
    for name in (*HARNESS_SOURCES, "package.json", "package-lock.json"):
        shutil.copy2(harness_dir() / name, copy / name)
    manifest = Path("node_modules", "@mariozechner", "pi-ai", "package.json")
    (copy / manifest).parent.mkdir(parents=True)
    shutil.copy2(harness_dir() / manifest, copy / manifest)
    return copy


# The QUALIFIER_FAILED details a CLI run reaches without altering the harness.
QUALIFIER_DETAILS = (
    "NODE_NOT_FOUND",
    "NODE_NOT_IN_IMAGE",
    "HARNESS_NOT_INSTALLED",
    "HARNESS_FAULT",
)


@pytest.mark.parametrize("detail", QUALIFIER_DETAILS, ids=str.lower)
def test_qualifier_failure_is_one_fixed_line(detail: str, tmp_path: Path) -> None:
    """`qualify` without node on PATH (in a checkout, and where the analyzer image's role is
    set), with a harness directory holding no install, and with a pi-ai that cannot load:
    QUALIFIER_FAILED with that detail, exit 2, nothing on stdout, no --out created, nothing Node
    printed passed on."""
    env = dict(os.environ)
    if detail == "NODE_NOT_FOUND":
        env["PATH"] = str(tmp_path)
    elif detail == "NODE_NOT_IN_IMAGE":
        env["PATH"] = str(tmp_path)
        env[IMAGE_ROLE_ENV] = ANALYZER_ROLE
    elif detail == "HARNESS_NOT_INSTALLED":
        env[HARNESS_ENV] = str(tmp_path / "empty")
        (tmp_path / "empty").mkdir()
    else:
        env[HARNESS_ENV] = str(_harness_without_pi_ai(tmp_path))
    out = tmp_path / "record.json"
    done = run_cli(["qualify", "--out", str(out)], env=env)
    assert (done.returncode, done.stderr, done.stdout) == (
        2,
        fixed_line("QUALIFIER_FAILED", detail),
        b"",
    )
    assert not out.exists()


@pytest.mark.parametrize(
    "detail", ["SESSIONS_MISSING", "SESSIONS_NOT_FILE_OR_DIRECTORY", "NO_SESSION_FILES"]
)
def test_explore_refusals_are_one_fixed_line(
    detail: str, canary_inputs: CanaryInputs, tmp_path: Path
) -> None:
    """`explore --sessions` refuses a missing path, a FIFO and a selection without session
    files with their fixed lines (docs/exit-codes.md), echoing nothing, creating nothing."""
    c = Canaries(seed=zlib.crc32(detail.encode()))
    named = _named_dir(tmp_path, c, "sessions")
    argument = named / f"{c('file.sessions')}.jsonl"
    code = "INPUT_INVALID"
    if detail == "SESSIONS_NOT_FILE_OR_DIRECTORY":
        os.mkfifo(argument)
    elif detail == "NO_SESSION_FILES":
        (named / f"{c('file.notes')}.txt").write_text("not a session")
        argument, code = named, "NO_JOURNALS"
    out = tmp_path / f"{c('file.out')}.json"
    before = _names(tmp_path)
    done = run_cli(
        [
            "explore",
            "--sessions",
            str(argument),
            "--routes",
            str(canary_inputs.routes),
            "--out",
            str(out),
        ]
    )
    assert (done.returncode, done.stderr, done.stdout) == (2, fixed_line(code, detail), b"")
    assert _names(tmp_path) == before
    canary_inputs.assert_private(done.stderr, c.values)


# Pairs asserted through the CLI by the tests named here (besides the CASES above, the usage
# errors of tests/cli/test_usage_errors.py and the inputs of tests/cli/test_failure_lines.py).
ASSERTED_ELSEWHERE: dict[tuple[str, str], str] = {
    ("OUTPUT_REFUSED", "SYNTH_OUT_EXISTS"): "test_synth_refuses_an_existing_directory",
    ("OUTPUT_REFUSED", "STDOUT_FAILED"): "test_closed_stdout_is_one_fixed_line",
    ("QUALIFIER_FAILED", "NODE_NOT_FOUND"): "test_qualifier_failure_is_one_fixed_line",
    ("QUALIFIER_FAILED", "NODE_NOT_IN_IMAGE"): "test_qualifier_failure_is_one_fixed_line",
    ("QUALIFIER_FAILED", "HARNESS_NOT_INSTALLED"): "test_qualifier_failure_is_one_fixed_line",
    ("QUALIFIER_FAILED", "HARNESS_FAULT"): "test_qualifier_failure_is_one_fixed_line",
    (
        "ANALYZER_FAULT",
        "INTERNAL_ERROR",
    ): "test_canary.test_internal_fault_prints_only_the_fault_code",
    ("INPUT_INVALID", "SESSIONS_MISSING"): "test_explore_refusals_are_one_fixed_line",
    ("INPUT_INVALID", "SESSIONS_NOT_FILE_OR_DIRECTORY"): "test_explore_refusals_are_one_fixed_line",
    ("NO_JOURNALS", "NO_SESSION_FILES"): "test_explore_refusals_are_one_fixed_line",
    (
        "INPUT_INVALID",
        "TOTALS_OUT_OF_RANGE",
    ): "test_totals_beyond_exact_integers_are_one_fixed_line",
}

_PERMISSION = "needs a permission denial, which a test run as root does not get"
_RACE = "needs a change inside a window of microseconds; asserted on the library (tests/inputs)"
_HARNESS = "needs an altered Node harness or pi-ai; the runner maps them (qualify/runner.py)"
# Pairs no CLI test reaches, and why.
NOT_THROUGH_THE_CLI: dict[tuple[str, str], str] = {
    ("INPUT_INVALID", "JOURNALS_UNREADABLE"): _PERMISSION,
    ("INPUT_INVALID", "SIDECAR_UNREADABLE"): _PERMISSION,
    ("INPUT_INVALID", "ROUTES_UNREADABLE"): _PERMISSION,
    ("INPUT_INVALID", "AGENT_CONFIG_UNREADABLE"): _PERMISSION,
    ("INPUT_INVALID", "APP_ALLOWLIST_UNREADABLE"): _PERMISSION,
    ("INPUT_INVALID", "SESSIONS_UNREADABLE"): _PERMISSION,
    ("INPUT_INVALID", "REPORT_UNREADABLE"): _PERMISSION,
    ("OUTPUT_REFUSED", "OUTPUT_PARENT_UNREADABLE"): _PERMISSION,
    ("OUTPUT_REFUSED", "OUTPUT_CREATE_FAILED"): _PERMISSION,
    ("OUTPUT_REFUSED", "OUTPUT_WRITE_FAILED"): "needs a full file system (tests/inputs)",
    ("OUTPUT_REFUSED", "OUTPUT_PARENT_CHANGED"): _RACE,
    ("SNAPSHOT_CHANGED", "SELECTION_CHANGED"): _RACE,
    **{
        ("QUALIFIER_FAILED", detail.value): _HARNESS
        for detail in QualificationDetail
        if detail.value not in QUALIFIER_DETAILS
    },
    **{
        ("MOUNT_CONTRACT_VIOLATED", detail.value): "the image's entrypoint (tests/container/)"
        for detail in MountContractDetail
    },
    ("USAGE_ERROR", "INVALID_COMMAND_LINE"): "the mapping's fallback; no command line raises it",
}


def test_every_detail_reachable_through_the_cli_has_a_cli_case(
    canary_inputs: CanaryInputs, tmp_path: Path
) -> None:
    """Every (code, detail) pair of the remedy table is asserted, as its exact stderr line,
    by a CLI test, or is listed above with the reason no CLI run can reach it; none is both."""
    covered: set[tuple[str, str]] = set()
    for index, build in enumerate(CASES.values()):
        scratch = tmp_path / str(index)
        scratch.mkdir()
        case = build(canary_inputs, scratch, Canaries(seed=index))
        covered.add((case.code, case.detail))
    covered |= set(ASSERTED_ELSEWHERE) | failure_lines.COVERED | signed_analyze.COVERED
    covered |= no_evidence.COVERED | html_page.COVERED
    covered |= {("USAGE_ERROR", case[2]) for case in usage_errors.CASES}
    for test_name in ASSERTED_ELSEWHERE.values():
        module, _, name = test_name.rpartition(".")
        assert callable(getattr(test_canary, name) if module else globals()[name]), test_name
    assert covered.isdisjoint(NOT_THROUGH_THE_CLI)
    assert covered | set(NOT_THROUGH_THE_CLI) == set(REMEDIES)
