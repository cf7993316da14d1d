"""No evidence, no verdict (R-RP-5 decision): a selection in which nothing replays is
NO_JOURNALS through the real CLI, exit 2, one fixed line, nothing written.

The detail names what the files are when their first line shows another kind of history (pi
sessions given to `analyze`, native journals given to `explore`, Claude Code or Codex CLI
transcripts), else the most frequent reason the files were skipped. Every file and directory is
canary-named and every text and id a canary, so each case is also a canary test (R-OUT-3).
"""

from __future__ import annotations

import json
import shutil
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from clearing_analysis.histories.recognize import format_of_lines
from clearing_analysis.inputs.recognize import HistoryFormat
from tests.e2e._canary import Canaries
from tests.e2e._canary_inputs import CanaryInputs
from tests.e2e._cli import fixed_line, run_cli


@dataclass(frozen=True)
class Selection:
    """What a case hands to a command: a directory of files and which command reads it."""

    command: str  # "analyze" or "explore"
    directory: Path


def _canary_journal(inputs: CanaryInputs, label: str) -> Path:
    """One of the canary input set's journals (tests/e2e/_canary_inputs.py), by its label."""
    names = inputs.canaries
    nested = inputs.journals / names["dir.nested"]
    for directory in (nested, inputs.journals):
        path = directory / f"{names[f'file.{label}']}.jsonl"
        if path.exists():
            return path
    raise AssertionError(label)


def _copies(inputs: CanaryInputs, target: Path, c: Canaries, labels: list[str]) -> None:
    for index, label in enumerate(labels):
        shutil.copyfile(_canary_journal(inputs, label), target / f"{c(f'copy{index}')}.jsonl")


def _lines(path: Path, *lines: dict[str, object], newline: bool = True) -> None:
    text = "\n".join(json.dumps(line) for line in lines)
    path.write_text(text + ("\n" if newline else ""))


def _pi_session(
    c: Canaries, path: Path, tag: str = "pi", *, version: int = 3, newline: bool = True
) -> None:
    header = {
        "type": "session",
        "version": version,
        "id": c(f"{tag}.id"),
        "timestamp": "2026-01-02T03:04:05.000Z",
        "cwd": c(f"{tag}.cwd"),
    }
    message = {
        "type": "message",
        "id": c(f"{tag}.entry"),
        "parentId": None,
        "timestamp": "2026-01-02T03:04:06.000Z",
        "message": {"role": "user", "content": c(f"{tag}.prompt"), "timestamp": 1767322446000},
    }
    _lines(path, header, message, newline=newline)


def _claude_code(c: Canaries, path: Path) -> None:
    _lines(
        path,
        {"type": "summary", "summary": c("cc.summary"), "leafUuid": c("cc.leaf")},
        {
            "parentUuid": None,
            "sessionId": c("cc.session"),
            "uuid": c("cc.uuid"),
            "type": "user",
            "cwd": c("cc.cwd"),
            "message": {"role": "user", "content": c("cc.prompt")},
        },
    )


def _codex(c: Canaries, path: Path) -> None:
    _lines(
        path,
        {
            "timestamp": "2026-01-02T03:04:05.000Z",
            "type": "session_meta",
            "payload": {"id": c("codex.id"), "cwd": c("codex.cwd"), "instructions": None},
        },
    )


Build = Callable[[CanaryInputs, Path, Canaries], str]


def _analyze_copies(*labels: str) -> Build:
    def build(inputs: CanaryInputs, target: Path, c: Canaries) -> str:
        _copies(inputs, target, c, list(labels))
        return "analyze"

    return build


def _pi_sessions_to_analyze(inputs: CanaryInputs, target: Path, c: Canaries) -> str:
    # Two pi sessions outnumber the one native journal beside them (which is invalid anyway).
    _pi_session(c, target / f"{c('file.pi1')}.jsonl", "pi1")
    _pi_session(c, target / f"{c('file.pi2')}.jsonl", "pi2")
    _copies(inputs, target, c, ["broken"])
    return "analyze"


def _journals_to_explore(inputs: CanaryInputs, target: Path, c: Canaries) -> str:
    _copies(inputs, target, c, ["rich", "open"])
    return "explore"


def _claude_code_to_analyze(_inputs: CanaryInputs, target: Path, c: Canaries) -> str:
    _claude_code(c, target / f"{c('file.cc')}.jsonl")
    return "analyze"


def _codex_to_analyze(_inputs: CanaryInputs, target: Path, c: Canaries) -> str:
    # explore reads Codex rollouts (docs/formats/codex.md); analyze names them.
    _codex(c, target / f"{c('file.codex')}.jsonl")
    return "analyze"


def _invalid_codex(_inputs: CanaryInputs, target: Path, c: Canaries) -> str:
    # A rollout explore cannot read (a broken middle line) is a skipped session, not foreign.
    path = target / f"{c('file.codex')}.jsonl"
    _codex(c, path)
    with path.open("a") as stream:
        stream.write("{" + c("codex.broken") + "\n{}\n")
    return "explore"


def _sessions(**kwargs: object) -> Build:
    def build(_inputs: CanaryInputs, target: Path, c: Canaries) -> str:
        _pi_session(c, target / f"{c('file.session')}.jsonl", **kwargs)  # type: ignore[arg-type]
        return "explore"

    return build


def _invalid_sessions(_inputs: CanaryInputs, target: Path, c: Canaries) -> str:
    path = target / f"{c('file.session')}.jsonl"
    _pi_session(c, path)
    with path.open("a") as stream:
        stream.write('{"type": "' + c("broken.line") + '", oops}\n')
    return "explore"


CASES: dict[str, Build] = {
    # Native journals, all skipped: the most frequent reason (OPEN 2 : INVALID 1).
    "NONE_REPLAYED_OPEN": _analyze_copies("open", "open", "broken"),
    "NONE_REPLAYED_INVALID": _analyze_copies("broken", "malformed", "open"),
    "NONE_REPLAYED_IMPORTED": _analyze_copies("imported"),
    "NONE_REPLAYED_INHERITED": _analyze_copies("inherited"),
    "NONE_REPLAYED_UNSUPPORTED_VERSION": _analyze_copies("version"),
    "NONE_REPLAYED_INTERRUPTED": _analyze_copies("interrupted"),
    # Other kinds of history, recognized by their first line.
    "PI_SESSION_FILES": _pi_sessions_to_analyze,
    "NATIVE_JOURNAL_FILES": _journals_to_explore,
    "CLAUDE_CODE_TRANSCRIPTS": _claude_code_to_analyze,
    "CODEX_TRANSCRIPTS": _codex_to_analyze,
    # pi sessions, all skipped.
    "NONE_READ_UNSUPPORTED_VERSION": _sessions(version=4),
    "NONE_READ_OPEN": _sessions(newline=False),
    "NONE_READ_INVALID": _invalid_sessions,
}
# Not a detail of its own: a rollout explore cannot read ends as the pi sessions' do.
EXTRA_CASES: dict[str, tuple[str, Build]] = {"invalid-codex": ("NONE_READ_INVALID", _invalid_codex)}
COVERED = {("NO_JOURNALS", detail) for detail in CASES}
RUNS = {**{detail: (detail, build) for detail, build in CASES.items()}, **EXTRA_CASES}


@pytest.mark.parametrize("case", sorted(RUNS))
def test_nothing_replayed_is_no_journals(
    case: str, canary_inputs: CanaryInputs, tmp_path: Path
) -> None:
    """Exit 2 with `NO_JOURNALS <detail>` and its remedy alone on stderr; no report, no log,
    nothing else created; no canary anywhere."""
    detail, build = RUNS[case]
    c = Canaries(seed=zlib.crc32(case.encode()))
    target = tmp_path / c("dir.selection")
    target.mkdir()
    command = build(canary_inputs, target, c)
    out = tmp_path / f"{c('file.out')}.json"
    log = tmp_path / f"{c('file.log')}.log"
    selection = canary_inputs.args(journals=target)
    if command == "explore":
        selection = ["--sessions", str(target), "--routes", str(canary_inputs.routes)]
    before = sorted(p.name for p in tmp_path.iterdir())
    done = run_cli([command, *selection, "--out", str(out), "--log-file", str(log)])
    assert (done.returncode, done.stderr, done.stdout) == (
        2,
        fixed_line("NO_JOURNALS", detail),
        b"",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    canary_inputs.assert_private(done.stderr, c.values)


def test_a_replayed_journal_beside_foreign_files_gives_a_report(
    canary_inputs: CanaryInputs, tmp_path: Path
) -> None:
    """One native journal that replays is evidence: pi sessions beside it are skipped and
    counted, and the run completes (exit 0) with a report."""
    c = Canaries(seed=7)
    target = tmp_path / c("dir.selection")
    target.mkdir()
    _copies(canary_inputs, target, c, ["rich"])
    _pi_session(c, target / f"{c('file.pi1')}.jsonl", "pi1")
    _pi_session(c, target / f"{c('file.pi2')}.jsonl", "pi2")
    done = run_cli(["analyze", *canary_inputs.args(journals=target), "--json"])
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["snapshot"]["journalsReplayed"] == 1
    assert report["snapshot"]["skippedJournals"]["INVALID"] == 2


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (b'{"seq":0,"kind":"header","format":"pi-native-journal","version":2}', "NATIVE_JOURNAL"),
        (b'{"type":"session","id":"s","timestamp":"t"}', "PI_SESSION"),
        (b'{"type":"session","version":3,"id":"s"}', "PI_SESSION"),
        (b'{"type":"summary","summary":"x","leafUuid":"u"}', "CLAUDE_CODE"),
        (b'{"parentUuid":null,"sessionId":"s","uuid":"u","type":"user"}', "CLAUDE_CODE"),
        (b'{"timestamp":"t","type":"session_meta","payload":{"id":"i"}}', "CODEX"),
        (b'{"id":"i","timestamp":"t","instructions":null}', "CODEX"),
        (b'{"type":"session"}', "UNKNOWN"),
        (b'{"kind":"header","format":"other"}', "UNKNOWN"),
        (b"[1, 2]", "UNKNOWN"),
        (b'{"type": "session", oops}', "UNKNOWN"),
        (b"\xff\xfe", "UNKNOWN"),
        (b"[" * 100_000, "UNKNOWN"),
        (b"", "UNKNOWN"),
        (b'{"type":"session","id":"s","x":' + b"[" * 70 + b"]" * 70 + b"}", "UNKNOWN"),
        (b'{"kind":"header","format":"pi-native-journal","kind":"header"}', "UNKNOWN"),
    ],
    ids=[
        "native-header",
        "pi-v1",
        "pi-v3",
        "claude-summary",
        "claude-record",
        "codex-meta",
        "codex-old",
        "session-without-id",
        "other-header",
        "array",
        "malformed",
        "invalid-utf8",
        "deep-nesting",
        "empty",
        "nested-past-the-decoders-limit",
        "repeated-key",
    ],
)
def test_first_lines_are_recognized(line: bytes, expected: str) -> None:
    """Each kind by its distinguishing keys; anything else, however broken, is UNKNOWN: a
    line either reader would refuse (nested past the decoders' limit, a repeated key) too."""
    assert format_of_lines((line,)) is HistoryFormat(expected)
