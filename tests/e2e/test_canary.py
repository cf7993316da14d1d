"""R-OUT-3 canary test over the real `clearing-analysis replay` command (R-OUT-1, R-REL-1).

Every free-text and identifier position of every input (journals, sidecar, configs, and the
names of all their files and directories) holds a unique canary. The command runs in a fresh
interpreter, to stdout and to exclusively created `--out` and `--log-file` files, with 1 and 2
workers, and through internal faults (in the main process and in a pool worker). No canary,
nor any 8-character fragment of one, nor the input root's path may appear in stdout, stderr,
the output file or the log.

`keygen`, a signed `analyze` (its attestation decoded) and `verify`, passing and failing, run
over the same inputs under the same check, and so do `show` (summary and `--details`) and
`explain` of every code the summary names. Both reports' informational what-if part is checked
to be there, never gating and not vacuous, in the JSON, the human view and the page.

`explore` runs the same way over pi sessions planted with canaries in every text, name, path,
id and cwd position (tests/e2e/_canary_pi.py).

The failure paths (invalid routes and agent-config, WAL sidecar, companions, changed snapshot,
refused --out, schema-breaking sidecar, corrupt sidecar) run in test_exit_status.py with the
same inputs and the same leak check.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest

from clearing_analysis.cli.verify import VERIFIED
from clearing_analysis.pipeline.demo import corpus_summary_text
from clearing_analysis.policy import WhatIfId, catalog_model_ids
from tests.e2e._canary import Canaries, leaks
from tests.e2e._canary_claude_code import (
    ClaudeCodeCanaryInputs,
    make_claude_code_canary_inputs,
)
from tests.e2e._canary_inputs import CanaryInputs
from tests.e2e._canary_pi import PiCanaryInputs, make_pi_canary_inputs
from tests.e2e._cli import Listing, fixed_line, listing, run_cli


def only_outputs_created(
    before: Listing, after: Listing, inputs: CanaryInputs, *outputs: Path
) -> bool:
    """Nothing changed under the inputs' root except the new outputs (and their directory)."""
    allowed = {str(p.relative_to(inputs.root)) for p in (*outputs, inputs.out_dir)}
    changed = {entry[0] for entry in set(before) ^ set(after)}
    return changed == allowed


def _exercised(summary: dict[str, Any]) -> None:
    """The counts prove every planted journal and position was actually read (not vacuous)."""
    # The rich journal, its resumed copy and a conversation without a capture policy.
    assert summary["journalsReplayed"] == 3
    assert all(count >= 1 for count in summary["skippedJournals"].values())
    assert summary["skippedJournals"]["INVALID"] == 4
    assert summary["skippedBoundaries"] == {
        "DUPLICATE": 1,
        "OWNER_MISSING": 1,
        "UNSUPPORTED_API": 1,
        "OUTSIDE_CAPTURE_WINDOW": 1,
        "OUTSIDE_PERIOD": 0,  # no --since / --until given
    }
    anthropic = summary["perApi"]["anthropic-messages"]
    # Built-in reads proven by the agent-config, the app tool by its journal origin and the
    # other app tool by its sidecar origin; all their canary texts matched byte for byte (the
    # resumed copy's own turn adds one read).
    assert anthropic["retention"]["proven"] == anthropic["retention"]["matched"] == 14
    assert anthropic["eligibility"]["byClass"]["LOWER_BOUND"] >= 1
    # The canary qualification record decoded and reached the version check.
    details = {api["detail"] for api in summary["qualification"]["perApi"].values()}
    assert details.isdisjoint({"MISSING", "MALFORMED"})
    assert summary["perApi"]["openai-responses"]["retention"]["matched"] == 6


def test_leak_check_finds_fragments_case_insensitively() -> None:
    """The detector is not vacuous: an 8-char fragment in another case is a leak, 7 is not."""
    c = Canaries(seed=1)
    value = c("probe")
    assert leaks(b"{" + value[5:13].upper().encode() + b"}", c.values) == ["probe"]
    assert leaks(value[5:12].encode(), c.values) == []
    hexed = c.hex("probe.hex")
    assert leaks(hexed[20:28].encode(), {"h": hexed}) == ["h"]


def test_replay_output_carries_no_canary(canary_inputs: CanaryInputs) -> None:
    """stdout (1 worker, one journal also named explicitly), then --out and --log-file
    (2 workers): exit 0, same report bytes,
    no canary in stdout, stderr, the report or the log; only the two outputs created."""
    before = listing(canary_inputs.root)
    # A journal named explicitly as well as inside its directory is replayed once (R-CLI-2).
    explicit = sorted(canary_inputs.journals.rglob("*.jsonl"))[0]
    to_stdout = run_cli(["replay", *canary_inputs.args(), "--journals", str(explicit)])
    assert to_stdout.returncode == 0
    assert to_stdout.stderr == b""
    canary_inputs.assert_private(to_stdout.stdout)
    _exercised(json.loads(to_stdout.stdout))

    names = Canaries(seed=2)
    out = canary_inputs.out_dir / f"{names('out.name')}.json"
    log = canary_inputs.out_dir / f"{names('log.name')}.log"
    args = [*canary_inputs.args(), "--workers", "2", "--out", str(out), "--log-file", str(log)]
    to_file = run_cli(["replay", *args])
    try:
        assert to_file.returncode == 0
        assert (to_file.stdout, to_file.stderr) == (b"", b"")
        written = out.read_bytes()
        assert written == to_stdout.stdout
        canary_inputs.assert_private(written, names.values)
        logged = log.read_bytes()
        assert b"replay.finished" in logged  # the log was really written
        canary_inputs.assert_private(logged, names.values)
        assert only_outputs_created(before, listing(canary_inputs.root), canary_inputs, out, log)
    finally:
        out.unlink(missing_ok=True)
        log.unlink(missing_ok=True)


def _what_ifs_covered(report: dict[str, Any]) -> None:
    """The informational what-if part is there: never gating, every reviewed policy per API in
    table order (counts only: these small inputs reach no policy's trigger), and no verdict
    anywhere in it (its schema part has no such field)."""
    part = report["whatIfsInformational"]
    assert part["gating"] is False
    assert "verdict" not in json.dumps(part).lower()
    rows = part["perApi"]["anthropic-messages"]
    assert [row["policy"] for row in rows] == [policy.value for policy in WhatIfId]
    assert all(row["clearingEvents"] >= row["warmClearingEvents"] >= 0 for row in rows)


def _refetches_covered(report: dict[str, Any]) -> None:
    """The re-fetch measure ran on the canary arguments (not vacuous): calls were compared
    through their digests and a repeated read of the shared canary path was found."""
    per_api = report["refetchesInformational"]["perApi"]
    every = [part["allResults"] for part in per_api.values()]
    assert sum(part["comparable"] for part in every) > 0
    assert sum(part["refetched"] + part["refetchedAfterWrite"] for part in every) > 0


def test_analyze_show_and_log_carry_no_canary(canary_inputs: CanaryInputs) -> None:
    """`analyze` to stdout (1 worker) and to --out with --log-file (2 workers): exit 0, the
    same JSON report, and no canary in stdout, stderr, the report, the log, the HTML page
    (--html, and `show --html` of the saved report), or the human view `show` renders from the
    saved report (the summary, and with --details every table); only the outputs are
    created."""
    before = listing(canary_inputs.root)
    # --by stores the usage tables (any value stores all three: the same bytes below).
    to_stdout = run_cli(["analyze", *canary_inputs.args(), "--by", "day"])
    assert (to_stdout.returncode, to_stdout.stderr) == (0, b"")
    report = json.loads(to_stdout.stdout)
    assert report["format"] == "clearing-analysis-report"
    assert all(report["usageBy"][table] for table in ("bySession", "byDay", "byModel"))
    assert report["perApi"]["anthropic-messages"]["eligibility"]["occurrences"] > 0
    _what_ifs_covered(report)
    _refetches_covered(report)
    canary_inputs.assert_private(to_stdout.stdout)

    names = Canaries(seed=4)
    out = canary_inputs.out_dir / f"{names('analyze.out')}.json"
    log = canary_inputs.out_dir / f"{names('analyze.log')}.log"
    page = canary_inputs.out_dir / f"{names('analyze.html')}.html"
    shown_page = canary_inputs.out_dir / f"{names('show.html')}.html"
    args = [*canary_inputs.args(), "--workers", "2", "--out", str(out), "--log-file", str(log)]
    to_file = run_cli(["analyze", *args, "--html", str(page), "--by", "session"])
    try:
        assert to_file.returncode == 0
        assert (to_file.stdout, to_file.stderr) == (b"", b"")
        assert out.read_bytes() == to_stdout.stdout
        logged = log.read_bytes()
        assert b"analyze.verdict" in logged
        canary_inputs.assert_private(logged, names.values)
        html = page.read_bytes()
        assert b"anthropic-messages" in html and b"<svg" in html  # the page is not vacuous
        assert b'id="what-ifs"' in html and b'id="what-ifs-anthropic-messages-pressure"' in html
        canary_inputs.assert_private(html, names.values)
        from_saved = run_cli(["show", str(out), "--html", str(shown_page)])
        assert (from_saved.returncode, from_saved.stdout, from_saved.stderr) == (0, b"", b"")
        assert shown_page.read_bytes() == html
        for details in ([], ["--details"]):
            shown = run_cli(["show", str(out), *details])
            assert (shown.returncode, shown.stderr) == (0, b"")
            assert b"anthropic-messages: " in shown.stdout
            assert (b"Details" in shown.stdout) == bool(details)
            assert b"What-ifs (informational" in shown.stdout
            assert (b"What-ifs: the pruning policies" in shown.stdout) == bool(details)
            canary_inputs.assert_private(shown.stdout, names.values)
        # The usage tables: sessions by ordinal, models only as the catalog names them.
        for by in ("session", "day", "model"):
            shown = run_cli(["show", str(out), "--by", by])
            assert (shown.returncode, shown.stderr) == (0, b"")
            assert b"Recorded usage by " in shown.stdout and b"total" in shown.stdout
            canary_inputs.assert_private(shown.stdout, names.values)
        # Every code the summary names, explained: only the tables' text comes out.
        summary = run_cli(["show", str(out)]).stdout.decode()
        codes = sorted(set(re.findall(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b", summary)))
        assert codes
        for code in codes:
            explained = run_cli(["explain", code])
            assert (explained.returncode, explained.stderr) == (0, b""), code
            canary_inputs.assert_private(explained.stdout, names.values)
        assert only_outputs_created(
            before, listing(canary_inputs.root), canary_inputs, out, log, page, shown_page
        )
    finally:
        for created in (out, log, page, shown_page):
            created.unlink(missing_ok=True)


def test_analyze_internal_fault_prints_only_the_fault_code(canary_inputs: CanaryInputs) -> None:
    """A fault inside the analysis (after replay, in the models) whose message carries a
    canary: exit 1 and exactly the ANALYZER_FAULT line, nothing on stdout."""
    secret = canary_inputs.canaries["rich.appResult"]
    prelude = (
        "import clearing_analysis.simulation.unit as _s\n"
        "def _boom(assessment, routes):\n"
        f"    raise RuntimeError({secret!r})\n"
        "_s.walk = _boom\n"
    )
    done = run_cli(["analyze", *canary_inputs.args()], prelude=prelude)
    assert done.returncode == 1
    assert done.stderr == fixed_line("ANALYZER_FAULT", "INTERNAL_ERROR")
    assert done.stdout == b""
    canary_inputs.assert_private(done.stderr)


def test_internal_fault_prints_only_the_fault_code(canary_inputs: CanaryInputs) -> None:
    """An unexpected exception whose message and traceback carry canaries and paths: exit 1,
    stderr is exactly the ANALYZER_FAULT line (R-CLI-3), nothing on stdout, nothing created."""
    secret = canary_inputs.canaries["rich.appResult"]
    prelude = (
        "import clearing_analysis.pipeline.jobs as _r\n"
        "def _boom(journals, **kwargs):\n"
        f"    raise RuntimeError({secret!r} + str(journals) + str(kwargs))\n"
        "_r.replay_job = _boom\n"
    )
    out = canary_inputs.out_dir / "fault.json"
    before = listing(canary_inputs.root)
    done = run_cli(["replay", *canary_inputs.args(), "--out", str(out)], prelude=prelude)
    assert done.returncode == 1
    assert done.stderr == fixed_line("ANALYZER_FAULT", "INTERNAL_ERROR")
    assert done.stdout == b""
    canary_inputs.assert_private(done.stdout + done.stderr)
    assert listing(canary_inputs.root) == before


def test_fault_inside_replay_worker_prints_only_the_fault_code(
    canary_inputs: CanaryInputs, tmp_path: Path
) -> None:
    """An exception raised inside a pool worker while replaying a journal, its message
    carrying a canary: still exit 1 and exactly ANALYZER_FAULT on stderr."""
    secret = canary_inputs.canaries["rich.checkpointSummary"]
    prelude = (
        "import clearing_analysis.pipeline.units as _u\n"
        "def _boom(path, routes, sidecar):\n"
        f"    raise ValueError({secret!r} + str(path))\n"
        "_u.replay_journal = _boom\n"
    )
    done = run_cli(["replay", *canary_inputs.args(), "--workers", "2"], worker_prelude=prelude)
    assert done.returncode == 1
    assert done.stderr == fixed_line("ANALYZER_FAULT", "INTERNAL_ERROR")
    assert done.stdout == b""
    canary_inputs.assert_private(done.stderr)


def test_synth_prints_counts_only(tmp_path: Path) -> None:
    """`synth --out <canary-named dir>` prints counts only, never the path it wrote."""
    c = Canaries(seed=3)
    out = tmp_path / c("synth.dir") / c("synth.corpus")
    out.parent.mkdir()
    done = run_cli(["synth", "--out", str(out), "--seed", "5", "--conversations", "1"])
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout.startswith(b"synth: conversations=1 ")
    assert leaks(done.stdout, c.values) == []
    assert str(tmp_path).encode() not in done.stdout
    assert (out / "ground-truth.json").is_file()


def test_corpus_summary_echoes_no_journal_label(canary_inputs: CanaryInputs) -> None:
    """The corpus summary of canary journals carries no canary (unsupported API labels are
    counted under a fixed code, not printed)."""
    text = corpus_summary_text(canary_inputs.journals).encode()
    assert b"anthropic-messages" in text  # the summary really covered the journals
    canary_inputs.assert_private(text)


def test_keygen_signed_analyze_and_verify_carry_no_canary(
    canary_inputs: CanaryInputs, tmp_path: Path
) -> None:
    """`keygen` into canary-named paths, a signed `analyze` of the canary inputs (2 workers,
    with --log-file) to a canary-named --out, and `verify`, passing and failing: each prints
    nothing but its fixed line (keygen nothing at all); no canary and no input path is in the
    report, the log, the envelope or its decoded statement, whose only name is the subject's,
    the --out file name itself; the canary qualification record's pi-ai version is not
    copied; only the three outputs are created."""
    names = Canaries(seed=6)
    everything = {**canary_inputs.canaries, **names.values}
    keys = tmp_path / names("key.dir")
    keys.mkdir()
    key = keys / names("key.name")
    made = run_cli(["keygen", "--out", str(key)])
    assert (made.returncode, made.stdout, made.stderr) == (0, b"", b"")
    again = run_cli(["keygen", "--out", str(key)])
    assert (again.returncode, again.stdout) == (2, b"")
    assert again.stderr == fixed_line("OUTPUT_REFUSED", "OUTPUT_EXISTS")

    out = canary_inputs.out_dir / f"{names('signed.out')}.json"
    log = canary_inputs.out_dir / f"{names('signed.log')}.log"
    attestation = out.with_name(out.name + ".intoto.jsonl")
    before = listing(canary_inputs.root)
    args = [*canary_inputs.args(), "--workers", "2", "--out", str(out), "--log-file", str(log)]
    signed = run_cli(["analyze", *args, "--sign-key", str(key)])
    try:
        assert (signed.returncode, signed.stdout, signed.stderr) == (0, b"", b"")
        assert only_outputs_created(
            before, listing(canary_inputs.root), canary_inputs, out, log, attestation
        )
        canary_inputs.assert_private(out.read_bytes(), names.values)
        canary_inputs.assert_private(log.read_bytes(), names.values)
        raw = attestation.read_bytes()
        canary_inputs.assert_private(raw, names.values)
        payload = base64.b64decode(json.loads(raw)["payload"])
        statement = json.loads(payload)
        assert statement["subject"][0]["name"] == out.name
        # The subject's name is the --out name given, by design; nothing else is named.
        canary_inputs.assert_private(payload.replace(out.name.encode(), b""), names.values)
        assert statement["predicate"]["piAiVersion"] is None  # the canary record was rejected
        assert statement["predicate"]["mountContract"] == "NOT_CHECKED"

        verified = run_cli(["verify", str(out), "--pubkey", f"{key}.pub"])
        assert (verified.returncode, verified.stdout, verified.stderr) == (
            0,
            VERIFIED.encode(),
            b"",
        )
        copy = tmp_path / f"{names('copy.name')}.json"
        changed = bytearray(out.read_bytes())
        changed[len(changed) // 2] ^= 0x01
        copy.write_bytes(bytes(changed))
        copy.with_name(copy.name + ".intoto.jsonl").write_bytes(raw)
        refusals = {
            "REPORT_CHANGED": ["verify", str(copy), "--pubkey", f"{key}.pub"],
            "PUBKEY_MISSING": ["verify", str(out), "--pubkey", str(keys / names("absent"))],
            "ATTESTATION_MISSING": ["verify", str(log), "--pubkey", f"{key}.pub"],
            "PUBKEY_INVALID": ["verify", str(out), "--pubkey", str(key)],
        }
        for detail, command in refusals.items():
            done = run_cli(command)
            assert (done.returncode, done.stdout) == (2, b""), detail
            assert done.stderr == fixed_line("VERIFY_FAILED", detail), detail
            assert leaks(done.stderr, everything) == []
    finally:
        for path in (out, log, attestation):
            path.unlink(missing_ok=True)


@pytest.fixture(scope="module")
def pi_canary_inputs(tmp_path_factory: pytest.TempPathFactory) -> PiCanaryInputs:
    """pi sessions with canaries everywhere, under a canary-named root."""
    return make_pi_canary_inputs(tmp_path_factory.mktemp("pi-canary"), Canaries(seed=20261201))


def _pi_private(inputs: PiCanaryInputs, blob: bytes, extra: dict[str, str] | None = None) -> None:
    assert leaks(blob, {**inputs.canaries, **(extra or {})}) == []
    assert str(inputs.root).encode() not in blob
    assert b"Lookup" not in blob  # the app tool's name, beyond its canary part


def test_explore_show_and_log_carry_no_canary(pi_canary_inputs: PiCanaryInputs) -> None:
    """`explore` to stdout (1 worker) and to --out with --log-file and --html (2 workers): exit
    0, the same report, every planted session read or skipped (not vacuous), and no canary in
    stdout, stderr, the report, the log, the HTML page or the human view `show` renders
    (summary and --details); only the outputs created."""
    inputs = pi_canary_inputs
    base = ["explore", "--sessions", str(inputs.sessions), "--routes", str(inputs.routes)]
    before = listing(inputs.root)
    to_stdout = run_cli([*base, "--workers", "1", "--by", "model"])
    assert (to_stdout.returncode, to_stdout.stderr) == (0, b"")
    report = json.loads(to_stdout.stdout)
    # The canary model names are in no catalog: one row without a name; any named row is a
    # pinned catalog model.
    models = [row["model"] for row in report["usageBy"]["byModel"]]
    assert models[-1] is None
    assert set(models[:-1]) <= catalog_model_ids()
    assert len(report["usageBy"]["bySession"]) > 1
    sessions = report["sessions"]
    assert sessions["sessionsRead"] == 4  # rich, branched, fork, version 1
    assert sessions["skippedSessions"] == {
        "DUPLICATE": 0,
        "INVALID": 1,
        "OPEN": 1,
        "UNSUPPORTED_VERSION": 1,
    }
    # One unknown type and one unknown role each in rich, its fork and the branched file; one
    # orphan tool result on the resumed paths of rich and its fork (the branched file resumes
    # from before it).
    assert sessions["unrecognized"] == {
        "ENTRY_TYPE": 3,
        "MESSAGE_ROLE": 3,
        "ORPHAN_TOOL_RESULT": 2,
    }
    assert sessions["offPathEntries"] > 0
    assert sessions["skippedBoundaries"]["DUPLICATE"] > 0
    anthropic = report["perApi"]["anthropic-messages"]
    assert {row["toolClass"] for row in anthropic["toolResults"] if row["results"]} >= {
        "UNKNOWN",
        "READ_ONLY_BUILTIN",
        "EFFECTFUL_BUILTIN",
    }
    assert anthropic["compactions"]["checkpoints"] > 0
    _what_ifs_covered(report)
    _refetches_covered(report)
    _pi_private(inputs, to_stdout.stdout)

    names = Canaries(seed=5)
    out = inputs.out_dir / f"{names('explore.out')}.json"
    log = inputs.out_dir / f"{names('explore.log')}.log"
    page = inputs.out_dir / f"{names('explore.html')}.html"
    outputs = ["--out", str(out), "--log-file", str(log), "--html", str(page)]
    to_file = run_cli([*base, "--workers", "2", *outputs, "--by", "day"])
    try:
        assert (to_file.returncode, to_file.stdout, to_file.stderr) == (0, b"", b"")
        assert out.read_bytes() == to_stdout.stdout
        logged = log.read_bytes()
        assert b"explore.upper_bound" in logged
        _pi_private(inputs, logged, names.values)
        html = page.read_bytes()
        assert b"UPPER BOUND" in html and b"<svg" in html  # the page is not vacuous
        assert b'id="what-ifs"' in html
        _pi_private(inputs, html, names.values)
        for details in ([], ["--details"]):
            shown = run_cli(["show", str(out), *details])
            assert (shown.returncode, shown.stderr) == (0, b"")
            assert (b"UPPER BOUND" in shown.stdout) == bool(details)
            assert (b"What-ifs: the pruning policies" in shown.stdout) == bool(details)
            _pi_private(inputs, shown.stdout, names.values)
        for by in ("session", "day", "model"):
            shown = run_cli(["show", str(out), "--details", "--by", by])
            assert (shown.returncode, shown.stderr) == (0, b"")
            assert b"Recorded usage by " in shown.stdout and b"total" in shown.stdout
            _pi_private(inputs, shown.stdout, names.values)
        assert only_outputs_created(before, listing(inputs.root), inputs, out, log, page)  # type: ignore[arg-type]
    finally:
        for created in (out, log, page):
            created.unlink(missing_ok=True)


@pytest.fixture(scope="module")
def cc_canary_inputs(tmp_path_factory: pytest.TempPathFactory) -> ClaudeCodeCanaryInputs:
    """Claude Code transcripts with canaries in every string value, under a canary root."""
    root = tmp_path_factory.mktemp("cc-canary")
    return make_claude_code_canary_inputs(root, Canaries(seed=20261203))


def _cc_private(inputs: ClaudeCodeCanaryInputs, blob: bytes, extra: dict[str, str]) -> None:
    assert leaks(blob, {**inputs.canaries, **extra}) == []
    assert str(inputs.root).encode() not in blob
    assert b"mcp__" not in blob  # the MCP tool's name, beyond its canary parts


def test_explore_of_claude_code_carries_no_canary(cc_canary_inputs: ClaudeCodeCanaryInputs) -> None:
    """`explore` over Claude Code transcripts (a main session with a rewind, parallel built-in
    and MCP calls, a compaction and a torn last line, a subagent in each layout, a refused
    file): exit 0, everything read or refused as planted (not vacuous), and no canary in
    stdout, stderr, the report, the log, the HTML page or `show --details`."""
    inputs = cc_canary_inputs
    names = Canaries(seed=6)
    out = inputs.out_dir / f"{names('cc.out')}.json"
    log = inputs.out_dir / f"{names('cc.log')}.log"
    page = inputs.out_dir / f"{names('cc.html')}.html"
    args = ["explore", "--sessions", str(inputs.projects), "--routes", str(inputs.routes)]
    outputs = ["--out", str(out), "--log-file", str(log), "--html", str(page)]
    done = run_cli([*args, *outputs])
    try:
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
        data = out.read_bytes()
        report = json.loads(data)
        sessions = report["sessions"]
        assert sessions["byFormat"] == {"CLAUDE_CODE": 3, "CODEX": 0, "PI_SESSION": 0}
        assert sessions["skippedSessions"]["INVALID"] == 1
        assert sessions["invalidSessionDetails"] == {"MALFORMED_JSON": 1}
        assert sessions["tornFinalLines"] == 1
        assert sessions["unrecognized"]["ENTRY_TYPE"] == 1
        assert sessions["offPathEntries"] > 0
        assert sessions["placeholderOutputRequests"] > 0
        anthropic = report["perApi"]["anthropic-messages"]
        classes = {row["toolClass"] for row in anthropic["toolResults"] if row["results"]}
        assert {"APP", "READ_ONLY_BUILTIN", "EFFECTFUL_BUILTIN"} <= classes
        assert anthropic["compactions"]["checkpoints"] == 1
        assert "OUTPUT_TOKENS_PLACEHOLDER" in anthropic["limitations"]
        for blob in (data, log.read_bytes(), page.read_bytes()):
            _cc_private(inputs, blob, names.values)
        shown = run_cli(["show", str(out), "--details"])
        assert (shown.returncode, shown.stderr) == (0, b"")
        _cc_private(inputs, shown.stdout, names.values)
    finally:
        for created in (out, log, page):
            created.unlink(missing_ok=True)


def test_explore_internal_fault_prints_only_the_fault_code(
    pi_canary_inputs: PiCanaryInputs,
) -> None:
    """A fault inside explore's models whose message carries a canary: exit 1 and exactly
    the ANALYZER_FAULT line, nothing on stdout."""
    secret = pi_canary_inputs.canaries["rich.prompt0"]
    prelude = (
        "import clearing_analysis.assemble.explore as _b\n"
        "def _boom(stages):\n"
        f"    raise RuntimeError({secret!r})\n"
        "_b.build_explore = _boom\n"
    )
    done = run_cli(
        [
            "explore",
            "--sessions",
            str(pi_canary_inputs.sessions),
            "--routes",
            str(pi_canary_inputs.routes),
        ],
        prelude=prelude,
    )
    assert (done.returncode, done.stdout) == (1, b"")
    assert done.stderr == fixed_line("ANALYZER_FAULT", "INTERNAL_ERROR")
    _pi_private(pi_canary_inputs, done.stderr)
