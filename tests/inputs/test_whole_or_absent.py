"""Outputs appear whole or not at all (R-REL-5): an unnamed O_TMPFILE linked into place.

A process writing through `output.create_exclusive` is killed with SIGKILL at many points
while it writes; each time the directory holds either the complete file or nothing, never a
partial file or a temporary name. The CLI's report and log go through it (an audit hook sees
the unnamed open and the link), the named exclusive-create fallback still refuses an existing
name, and a file that exists before the link is never replaced.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import signal
import time
from pathlib import Path

import pytest

from clearing_analysis.codes.errors import OutputRefusedError
from clearing_analysis.inputs import output
from clearing_analysis.inputs.output import NO_INPUTS, create_exclusive
from tests.e2e._cli import run_cli
from tests.synth.corpora import corpus_options, make_corpus

KILLS = 200
PAYLOAD = (b"0123456789abcdef" * 65536) * 8  # 8 MiB: a write long enough to land kills in


def _write_in_child(target: Path, data: bytes) -> int:
    """Fork a child that writes `data` to `target` through create_exclusive; its pid."""
    pid = os.fork()
    if pid == 0:  # the child: write, then leave without running any of pytest's cleanup
        status = 1
        try:
            create_exclusive(target, data, NO_INPUTS)
            status = 0
        finally:
            os._exit(status)
    return pid


def _write_seconds(directory: Path) -> float:
    """How long one whole write takes here (median of three), to spread the kills over it."""
    times = []
    for attempt in range(3):
        start = time.perf_counter()
        create_exclusive(directory / f"calibration-{attempt}", PAYLOAD, NO_INPUTS)
        times.append(time.perf_counter() - start)
    return sorted(times)[1]


def test_sigkill_during_writing_leaves_the_whole_file_or_none(tmp_path: Path) -> None:
    """200 kills at seeded points over the write (from before it starts to just after it
    ends): no partial file, no stray entry; both outcomes occur."""
    calibration = tmp_path / "calibration"
    calibration.mkdir()
    span = _write_seconds(calibration) * 1.2
    expected = hashlib.sha256(PAYLOAD).digest()
    rng = random.Random(2026)
    outcomes = {"absent": 0, "whole": 0}
    for kill in range(KILLS):
        directory = tmp_path / f"kill-{kill}"
        directory.mkdir()
        target = directory / "report.json"
        delay = rng.uniform(0, span)
        pid = _write_in_child(target, PAYLOAD)
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        entries = sorted(entry.name for entry in directory.iterdir())
        if not entries:
            outcomes["absent"] += 1
            continue
        assert entries == ["report.json"], entries
        content = target.read_bytes()
        assert len(content) == len(PAYLOAD), f"partial file after a kill at {delay:.4f} s"
        assert hashlib.sha256(content).digest() == expected
        outcomes["whole"] += 1
        target.unlink()
    assert outcomes["absent"] > 0 and outcomes["whole"] > 0, outcomes


def test_link_never_replaces_an_existing_name(tmp_path: Path) -> None:
    """A name that appears after the file was written unnamed, before it is linked, is
    refused and left as it was; no other entry is made."""
    target = tmp_path / "report.json"
    with contextlib.ExitStack() as descriptors:
        staged = output._stage(output.NewFile(target, b"ours"), NO_INPUTS, descriptors)
        target.write_bytes(b"theirs")
        with pytest.raises(OutputRefusedError) as caught:
            output._link_all([staged])
    assert caught.value.detail == "OUTPUT_CREATE_FAILED"
    assert target.read_bytes() == b"theirs"
    assert [entry.name for entry in tmp_path.iterdir()] == ["report.json"]


def test_named_fallback_without_o_tmpfile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the platform has no O_TMPFILE, the file is created exclusively under its name
    (the same bytes, mode and refusal of an existing name)."""
    monkeypatch.setattr(output, "_O_TMPFILE", None)
    created = create_exclusive(tmp_path / "r.json", b"whole\n", NO_INPUTS, mode=0o600)
    assert (tmp_path / "r.json").read_bytes() == b"whole\n"
    assert (tmp_path / "r.json").stat().st_mode & 0o777 == 0o600
    assert created.identity == (
        (tmp_path / "r.json").stat().st_dev,
        (tmp_path / "r.json").stat().st_ino,
    )
    with pytest.raises(OutputRefusedError) as caught:
        create_exclusive(tmp_path / "r.json", b"again\n", NO_INPUTS)
    assert caught.value.detail == "OUTPUT_EXISTS"


def test_mode_is_exact_through_the_unnamed_file(tmp_path: Path) -> None:
    """An exact mode (keygen's private key) is set before any byte is written and kept by the
    link; without one, the umask applies as to a shell redirect."""
    create_exclusive(tmp_path / "key", b"k", NO_INPUTS, mode=0o600)
    assert (tmp_path / "key").stat().st_mode & 0o777 == 0o600
    umask = os.umask(0o027)
    try:
        create_exclusive(tmp_path / "plain", b"p", NO_INPUTS)
    finally:
        os.umask(umask)
    assert (tmp_path / "plain").stat().st_mode & 0o777 == 0o640


# Records every open with O_TMPFILE and every link, as the interpreter's audit events show
# them (`open`: path, mode, flags; `os.link`: source, destination, dir descriptors).
_AUDIT = """
import os, sys
def _hook(event, args):
    if event == "open" and isinstance(args[2], int) and args[2] & os.O_TMPFILE == os.O_TMPFILE:
        sys.stderr.write("AUDIT tmpfile\\n")
    elif event == "open" and args[0] in ("report.json", "run.log"):
        sys.stderr.write("AUDIT named " + os.fsdecode(args[0]) + "\\n")
    elif event == "os.link":
        sys.stderr.write("AUDIT link " + os.fsdecode(args[1]) + "\\n")
sys.addaudithook(_hook)
"""


def test_analyze_report_and_log_are_linked_into_place(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    """`analyze --out --log-file`: each file is an unnamed open, both are written before
    either gets its name by a link (one run's outputs are one whole, R-REL-6), and neither is
    created under its name directly."""
    corpus = make_corpus(tmp_path_factory, "build", 2)
    out, log = tmp_path / "report.json", tmp_path / "run.log"
    done = run_cli(
        ["analyze", *corpus_options(corpus), "--out", out, "--log-file", log, "--workers", "1"],
        prelude=_AUDIT,
    )
    assert done.returncode == 0, done.stderr
    events = [line for line in done.stderr.decode().splitlines() if line.startswith("AUDIT")]
    assert events == [
        "AUDIT tmpfile",
        "AUDIT tmpfile",
        "AUDIT link report.json",
        "AUDIT link run.log",
    ]
    assert out.read_bytes().startswith(b"{") and log.read_bytes()


def test_a_run_of_several_files_is_taken_back_when_one_cannot_be_named(tmp_path: Path) -> None:
    """Three files written unnamed; the third's name appears before the links: the first
    two, already named, are unlinked again, the third name is left as it was (R-REL-6)."""
    files = [output.NewFile(tmp_path / name, b"ours") for name in ("a.json", "b.html", "c.log")]
    with contextlib.ExitStack() as descriptors:
        staged = [output._stage(file, NO_INPUTS, descriptors) for file in files]
        (tmp_path / "c.log").write_bytes(b"theirs")
        with pytest.raises(OutputRefusedError) as caught:
            output._link_all(staged)
    assert caught.value.detail == "OUTPUT_CREATE_FAILED"
    assert [entry.name for entry in tmp_path.iterdir()] == ["c.log"]
    assert (tmp_path / "c.log").read_bytes() == b"theirs"


def test_the_named_fallback_takes_a_run_back_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without O_TMPFILE each file is created under its name at link time; when the second
    name is taken, the first file (already created and written) is removed again."""
    monkeypatch.setattr(output, "_O_TMPFILE", None)
    files = [output.NewFile(tmp_path / "a.json", b"ours"), output.NewFile(tmp_path / "b.log", b"x")]
    with contextlib.ExitStack() as descriptors:
        staged = [output._stage(file, NO_INPUTS, descriptors) for file in files]
        assert [item.fd for item in staged] == [None, None]  # nothing written yet
        (tmp_path / "b.log").write_bytes(b"theirs")
        with pytest.raises(OutputRefusedError) as caught:
            output._link_all(staged)
    assert caught.value.detail == "OUTPUT_CREATE_FAILED"
    assert [entry.name for entry in tmp_path.iterdir()] == ["b.log"]


def test_a_name_someone_else_put_in_place_is_never_taken_back(tmp_path: Path) -> None:
    """A run's name replaced by another file between its link and the take-back (here: the
    second link fails after the first name was swapped for someone else's file): that file
    stays; only entries that are still this run's files are unlinked."""
    files = [output.NewFile(tmp_path / "a.json", b"ours"), output.NewFile(tmp_path / "b.log", b"x")]
    with contextlib.ExitStack() as descriptors:
        staged = [output._stage(file, NO_INPUTS, descriptors) for file in files]
        staged[0].created = output._link(staged[0])
        (tmp_path / "a.json").unlink()
        (tmp_path / "a.json").write_bytes(b"theirs")
        (tmp_path / "b.log").write_bytes(b"theirs too")
        with pytest.raises(OutputRefusedError):
            output._link_all(staged[1:])
        output._unlink_all(staged)
    assert (tmp_path / "a.json").read_bytes() == b"theirs"
