"""The synthetic corpus: layout, validity, determinism, and a manifest that tells the truth."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from clearing_analysis.cli import app
from clearing_analysis.identity import ToolIdentity, finalized_tool_id
from clearing_analysis.inputs.configs import (
    AgentConfig,
    Attestation,
    load_agent_config,
    load_app_allowlist,
    load_routes,
)
from clearing_analysis.inputs.sidecar import check_offline, open_sidecar
from clearing_analysis.policy import read_policy_bytes
from clearing_analysis.replay.guard import trips
from clearing_analysis.synth import generate
from tests.cli._guarded import invoke, usage_line
from tests.synth.recount import Recount, recount


def _digests(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def _truth(corpus: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((corpus / "ground-truth.json").read_text())
    return loaded


class TestLayoutAndValidity:
    def test_layout_is_the_documented_one(self, mixed_corpus: Path) -> None:
        """The corpus holds exactly the six documented entries, journals as a native root."""
        names = sorted(path.name for path in mixed_corpus.iterdir())
        assert names == [
            "agent-config.json",
            "app-allowlist.json",
            "ground-truth.json",
            "history.sqlite",
            "journals",
            "routes.json",
        ]
        journals = list((mixed_corpus / "journals").iterdir())
        assert journals and all(path.suffix == ".jsonl" for path in journals)
        assert _truth(mixed_corpus)["journalFiles"] == len(journals)

    def test_configs_decode_with_the_analyzer_decoders(self, mixed_corpus: Path) -> None:
        """routes, agent-config (per-run proofs here) and allowlist decode strictly."""
        routes = load_routes(mixed_corpus / "routes.json")
        assert {api.value for api in routes.by_api} == set(_truth(mixed_corpus)["perApi"])
        assert len(routes.by_api) == 4
        agent = load_agent_config(mixed_corpus / "agent-config.json")
        assert agent.per_run is not None
        assert sum(len(runs) for runs in agent.per_run.values()) > 10
        assert len(load_app_allowlist(mixed_corpus / "app-allowlist.json").entries) == 4

    def test_per_run_proofs_name_runs_of_their_conversation(self, mixed_corpus: Path) -> None:
        """Every per-run proof names a (physical conversation, run) pair that a journal holds:
        the header's physicalConversationId and one of that journal's run_start runIds."""
        runs: set[tuple[str, str]] = set()
        for path in (mixed_corpus / "journals").iterdir():
            conversation = ""
            for line in path.read_bytes().splitlines():
                try:
                    record = json.loads(line)
                except ValueError:
                    continue  # the planted cut-off and corrupt lines
                if not isinstance(record, dict):
                    continue
                if record.get("kind") == "header":
                    conversation = record["physicalConversationId"]
                elif record.get("kind") == "run_start":
                    runs.add((conversation, record["runId"]))
        agent = load_agent_config(mixed_corpus / "agent-config.json")
        assert agent.per_run is not None
        assert {(p, r) for p, proofs in agent.per_run.items() for r in proofs} <= runs

    def test_run_ids_repeat_across_conversations_and_proofs_name_theirs(
        self, mixed_corpus: Path
    ) -> None:
        """Some conversations number runs per journal, so one run id has proofs in several
        conversations; finding a proof by run id alone would change the proven counts, and
        the manifest's counts are those of proofs found by (conversation, run)."""
        agent = load_agent_config(mixed_corpus / "agent-config.json")
        assert agent.per_run is not None
        conversations: dict[str, set[str]] = {}
        for physical, proofs in agent.per_run.items():
            for run_id in proofs:
                conversations.setdefault(run_id, set()).add(physical)
        assert any(len(found) > 1 for found in conversations.values())

        def by_run_id_only(config: AgentConfig, physical: str, run_id: str) -> Attestation | None:
            del physical  # the wrong rule: any conversation's proof of that run id
            assert config.per_run is not None
            found = (proofs.get(run_id) for proofs in config.per_run.values())
            return next((a for a in found if a is not None), None)

        def proven(seen: Recount) -> int:
            return sum(counts["retention"]["proven"] for counts in seen.per_api.values())

        truth = _truth(mixed_corpus)["perApi"]
        assert proven(recount(mixed_corpus)) == sum(
            c["retention"]["proven"] for c in truth.values()
        )
        assert proven(recount(mixed_corpus, by_run_id_only)) > proven(recount(mixed_corpus))

    def test_sidecar_is_offline_with_the_reviewed_ddl(self, mixed_corpus: Path) -> None:
        """history.sqlite: policy DDL verbatim, schema_version 1, rollback mode, no companion."""
        sidecar = mixed_corpus / "history.sqlite"
        check_offline(sidecar)
        assert sidecar.read_bytes()[18:20] == b"\x01\x01"
        assert not [p for p in mixed_corpus.iterdir() if p.name.startswith("history.sqlite-")]
        reference = sqlite3.connect(":memory:")
        reference.executescript(read_policy_bytes("sidecar.sql").decode())
        query = "SELECT type, name, sql FROM sqlite_master ORDER BY name"
        expected = reference.execute(query).fetchall()
        with open_sidecar(sidecar) as view:
            assert view.conversation_policy("absent") is None
        db = sqlite3.connect(f"file:{sidecar}?mode=ro&immutable=1", uri=True)
        assert db.execute(query).fetchall() == expected
        assert db.execute("SELECT value FROM sidecar_meta").fetchall() == [("1",)]
        db.close()

    def test_manifest_agrees_with_an_independent_recount(self, mixed_corpus: Path) -> None:
        """Every manifest count equals a recount made by replaying the written files."""
        truth = _truth(mixed_corpus)
        seen = recount(mixed_corpus)
        assert truth["format"] == "clearing-synth-ground-truth" and truth["version"] == 1
        assert (truth["seed"], truth["profile"]) == (11, "mixed")
        assert truth["journalFiles"] == seen.journal_files
        assert truth["replayedJournals"] == seen.replayed
        assert truth["skippedJournals"] == {
            key: seen.skipped_journals.get(key, 0) for key in truth["skippedJournals"]
        }
        assert set(seen.skipped_journals) <= set(truth["skippedJournals"])
        assert truth["skippedBoundaries"] == {
            key: seen.skipped_boundaries.get(key, 0) for key in truth["skippedBoundaries"]
        }
        assert truth["perApi"] == seen.per_api
        assert truth["retentionDefects"] == {
            key: seen.defects.get(key, 0) for key in truth["retentionDefects"]
        }

    def test_mixed_plants_every_skip_reason_and_defect(self, mixed_corpus: Path) -> None:
        """The default profile has every journal skip, boundary skip and defect kind."""
        truth = _truth(mixed_corpus)
        assert all(truth["skippedJournals"].values())
        assert all(truth["skippedBoundaries"].values())
        assert all(truth["retentionDefects"].values())
        assert truth["replayedJournals"] > truth["journalFiles"] // 2

    def test_invalid_share_has_a_tool_name_mismatch(self, mixed_corpus: Path) -> None:
        """One INVALID journal's toolResult names another tool than its tool_call_start (and
        its assistant toolCall); the recount finds that journal INVALID, TOOL_NAME_MISMATCH."""
        mismatched = 0
        for path in (mixed_corpus / "journals").iterdir():
            started: dict[tuple[str, str], str] = {}
            for record in _records(path):
                if record["kind"] == "tool_call_start":
                    started[(record["runId"], record["callId"])] = record["toolName"]
                message = record.get("message", {})
                if record["kind"] == "message" and message["role"] == "toolResult":
                    # .get: a planted deleted line may have removed the start
                    call = started.get((record["runId"], message["toolCallId"]))
                    mismatched += call is not None and call != message["toolName"]
        assert mismatched >= 1
        assert recount(mixed_corpus).invalid_details["TOOL_NAME_MISMATCH"] == mismatched

    def test_credential_envelopes_are_the_ones_the_guard_trips_on(self, mixed_corpus: Path) -> None:
        """Some web envelopes hold a fake credential: the guard trips on them and on no other
        result. Tripping envelopes are redacted (web_envelope / json) or not, and redacted
        envelopes trip or not, so structuredScanLosses is neither zero nor every envelope."""
        kinds: set[tuple[bool, bool]] = set()
        for path in (mixed_corpus / "journals").iterdir():
            records = _records(path)
            redacted = {
                r["targetSeq"]
                for r in records
                if r["kind"] == "redaction"
                and (r["scope"], r["format"]) == ("web_envelope", "json")
            }
            for record in records:
                message = record.get("message", {})
                if record["kind"] != "message" or message["role"] != "toolResult":
                    continue
                text = "".join(b["text"] for b in message["content"] if b["type"] == "text")
                if message["toolName"] in ("web_fetch", "web_search"):
                    kinds.add((trips(text), record["seq"] in redacted))
                else:
                    assert not trips(text)
        assert kinds == {(True, True), (True, False), (False, True), (False, False)}
        losses = sum(c["structuredScanLosses"] for c in _truth(mixed_corpus)["perApi"].values())
        assert losses >= 1

    def test_sidecar_rows_match_their_journal_results(self, mixed_corpus: Path) -> None:
        """Each row is linked to a journal result (a planted not-identity-linked row to the
        result whose id indexes it); only planted defects differ from it, and the writer's
        redactions of credential envelopes, which its journal marks."""
        texts: dict[tuple[str, str, str], str] = {}
        marked: set[tuple[str, str, str]] = set()  # results marked web_envelope / json
        for path in (mixed_corpus / "journals").iterdir():
            # Skipped journals hold retained results too, so read lines leniently here.
            records = _records(path)
            physical = records[0].get("physicalConversationId", "")
            by_seq: dict[int, tuple[str, str, str]] = {}
            for record in records:
                message = record.get("message", {})
                if record["kind"] == "message" and message.get("role") == "toolResult":
                    block = message["content"][0]
                    if block["type"] == "text":
                        key = (physical, record["runId"], message["toolCallId"])
                        texts[key] = block["text"]
                        by_seq[record["seq"]] = key
                elif record["kind"] == "redaction" and record["scope"] == "web_envelope":
                    target = by_seq.get(record["targetSeq"])  # None: a planted deleted line
                    if target is not None:
                        marked.add(target)
        db = sqlite3.connect(f"file:{mixed_corpus / 'history.sqlite'}?mode=ro", uri=True)
        kinds = dict.fromkeys(("bytes", "digest", "text", "redacted", "truncated"), 0)
        credential_rows = not_linked = 0
        index = dict(db.execute("SELECT finalized_id, row_id FROM committed_id_index"))
        rows = db.execute(
            "SELECT row_id, physical_conversation_id, host_turn_id, run_id, call_id,"
            " byte_length, sha256, text, redacted, truncated, tombstone FROM retained_result"
        ).fetchall()
        for row_id, pc, turn, run, call, *columns in rows:
            length, digest, text, redacted, truncated, tombstone = columns
            if (pc, run, call) not in texts:
                # Not identity-linked: the row names another call (a retry) and is indexed
                # under the id of the result whose text it holds.
                result_call = call.removesuffix("-retry")
                linked_id = finalized_tool_id(ToolIdentity(pc, turn, run, result_call))
                assert call != result_call and index[linked_id] == row_id
                assert text == texts[(pc, run, result_call)]
                not_linked += 1
                continue
            original = texts[(pc, run, call)]
            raw = original.encode()
            if tombstone:
                assert text is None
                continue
            if redacted and trips(original):
                # A credential envelope: the writer redacts it whether or not it is a planted
                # defect (of the manifest's population), and marks it in its journal.
                assert (pc, run, call) in marked
                credential_rows += 1
            elif redacted:
                kinds["redacted"] += 1
                assert "[redacted]" in text and text != original
            elif truncated:
                kinds["truncated"] += 1
                assert original.startswith(text) and len(text) < len(original)
            else:
                kinds["text"] += text != original
            kinds["bytes"] += length != len(raw)
            kinds["digest"] += bytes(digest) != hashlib.sha256(raw).digest()
        db.close()
        defects = _truth(mixed_corpus)["retentionDefects"]
        assert len(rows) > 500 and credential_rows > 0
        assert not_linked == defects["notIdentityLinked"] > 0
        # Redacted credential envelopes of the population are planted `redacted` defects too.
        plain_redacted = kinds.pop("redacted")
        assert plain_redacted <= defects["redacted"] <= plain_redacted + credential_rows
        assert kinds == {
            "bytes": defects["bytesMismatch"],
            "digest": defects["digestMismatch"],
            "text": defects["textMismatch"],
            "truncated": defects["truncated"],
        }


def _records(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a journal's lines, skipping lines a planted defect broke."""
    records = []
    for line in path.read_bytes().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


def _copies(corpus: Path) -> list[tuple[list[dict[str, Any]], list[dict[str, Any]], int]]:
    """(parent records, copy records, copied record count) of each resumed copy and fork:
    a second journal of a conversation with its own journal id."""
    found = []
    for copy_path in sorted((corpus / "journals").glob("*-1.jsonl")):
        parent = _records(copy_path.with_name(copy_path.name.replace("-1.", "-0.")))
        copy = _records(copy_path)
        if copy[0]["journalId"] == parent[0]["journalId"]:
            continue  # a byte-identical duplicate, not a copy with turns of its own
        copied = 1
        while copied < len(copy) and copy[copied] == parent[copied]:
            copied += 1
        found.append((parent, copy, copied))
    return found


class TestCopiesAndForks:
    def test_copies_reuse_the_parents_later_host_turn_ids(self, mixed_corpus: Path) -> None:
        """Resumed copies (same physical id) and forks (new physical id, same lineage) repeat
        the parent's records up to a fork point, then start their own turns with the host turn
        ids the parent used after that point, each with another first input."""
        kinds = set()
        for parent, copy, copied in _copies(mixed_corpus):
            assert copy[0]["logicalConversationId"] == parent[0]["logicalConversationId"]
            same = copy[0]["physicalConversationId"] == parent[0]["physicalConversationId"]
            kinds.add("resumed" if same else "fork")
            later = [r for r in parent[copied:] if r["kind"] == "turn_start"]
            first_inputs = {}
            for record in later:
                first_inputs.setdefault(record["hostTurnId"], record["message"])
            own: list[dict[str, Any]] = []
            for record in copy[copied:]:
                if record["kind"] == "turn_start" and all(
                    o["hostTurnId"] != record["hostTurnId"] for o in own
                ):
                    own.append(record)
            reused = [r for r in own if r["hostTurnId"] in first_inputs]
            assert len(reused) >= 2
            assert [r["hostTurnId"] for r in reused] == list(first_inputs)[: len(reused)]
            assert all(r["message"] != first_inputs[r["hostTurnId"]] for r in reused)
        assert kinds == {"resumed", "fork"}

    def test_a_fork_is_captured_from_the_fork_on(self, mixed_corpus: Path) -> None:
        """A fork's policy row starts at the fork (its header time), and the results it copied
        from the parent have no rows under the fork's physical id; its own results do."""
        db = sqlite3.connect(f"file:{mixed_corpus / 'history.sqlite'}?mode=ro", uri=True)
        forks = 0
        for parent, copy, copied in _copies(mixed_corpus):
            physical = copy[0]["physicalConversationId"]
            if physical == parent[0]["physicalConversationId"]:
                continue
            forks += 1
            since = db.execute(
                "SELECT capture_enabled_since FROM conversation_policy"
                " WHERE physical_conversation_id = ?",
                (physical,),
            ).fetchall()
            assert since == [(copy[0]["createdAt"],)]
            rows = {
                (run, call)
                for run, call in db.execute(
                    "SELECT run_id, call_id FROM retained_result"
                    " WHERE physical_conversation_id = ?",
                    (physical,),
                )
            }
            results = [
                (i, (r["runId"], r["message"]["toolCallId"]))
                for i, r in enumerate(copy)
                if r["kind"] == "message" and r["message"]["role"] == "toolResult"
            ]
            assert not {key for i, key in results if i < copied} & rows
            assert {key for i, key in results if i >= copied} & rows
        db.close()
        assert forks >= 1

    def test_tool_identities_are_unique_per_physical_conversation(self, mixed_corpus: Path) -> None:
        """Within a physical conversation, (host turn, run, call) names one result, whichever
        journal holds it: copies repeat it byte for byte, own turns use fresh run and call ids
        even when they reuse a host turn id."""
        results: dict[tuple[str, str, str, str], str] = {}
        for path in sorted((mixed_corpus / "journals").iterdir()):
            records = _records(path)
            if not records or records[0].get("kind") != "header":
                continue
            physical = records[0]["physicalConversationId"]
            run_turn = {}
            for record in records:
                if record["kind"] == "run_start":
                    run_turn[record["runId"]] = record["hostTurnId"]
                elif record["kind"] == "message" and record["message"]["role"] == "toolResult":
                    run = record["runId"]
                    key = (physical, run_turn[run], run, record["message"]["toolCallId"])
                    text = json.dumps(record["message"], sort_keys=True)
                    assert results.setdefault(key, text) == text
        assert len(results) > 500


class TestDeterminismAndCli:
    def test_same_seed_same_bytes_other_seed_other_bytes(self, tmp_path: Path) -> None:
        """Two runs with one (seed, size, profile) are byte-identical; another seed differs."""
        generate(tmp_path / "a", 5, conversations=5)
        generate(tmp_path / "b", 5, conversations=5)
        generate(tmp_path / "c", 6, conversations=5)
        first = _digests(tmp_path / "a")
        assert first == _digests(tmp_path / "b")
        other = _digests(tmp_path / "c")
        assert first.keys() != other.keys() or first != other
        assert first["history.sqlite"] != other["history.sqlite"]

    def test_cli_refuses_an_existing_output(self, tmp_path: Path) -> None:
        """An existing --out is OUTPUT_REFUSED, exit 2, and nothing is written into it."""
        result = CliRunner().invoke(
            app, ["synth", "--out", str(tmp_path), "--seed", "1", "--conversations", "1"]
        )
        assert result.exit_code == 2
        assert "OUTPUT_REFUSED" in result.output
        assert list(tmp_path.iterdir()) == []

    def test_cli_needs_exactly_one_size_option(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Neither or both of --conversations / --size-mb is USAGE_ERROR EXCLUSIVE_OPTIONS
        (exit 2, one fixed line) and writes nothing."""
        out = str(tmp_path / "x")
        both = ["--conversations", "1", "--size-mb", "1"]
        line = usage_line("EXCLUSIVE_OPTIONS", "--conversations or --size-mb")
        for sizes in (both, []):
            done = invoke(["synth", "--out", out, "--seed", "1", *sizes], capsys)
            assert (done.status, done.stdout, done.stderr) == (2, "", line)
        assert not (tmp_path / "x").exists()

    def test_cli_prints_counts_only(self, tmp_path: Path) -> None:
        """The summary line carries counts only: no path, id or text."""
        out = tmp_path / "corpus-canary"
        result = CliRunner().invoke(
            app, ["synth", "--out", str(out), "--seed", "3", "--conversations", "2"]
        )
        assert result.exit_code == 0
        assert "canary" not in result.output and "journal-" not in result.output
        assert result.output.startswith("synth: conversations=2 ")

    @pytest.mark.slow
    def test_size_mb_stops_once_the_target_is_reached(self, tmp_path: Path) -> None:
        """--size-mb 5 writes at least 5 MB of journals and stops within one conversation."""
        summary = generate(tmp_path / "s", 9, size_mb=5)
        sizes = [p.stat().st_size for p in (tmp_path / "s" / "journals").iterdir()]
        assert summary.journal_bytes == sum(sizes) >= 5_000_000
        assert sum(sizes) - 5_000_000 < 2 * max(sizes)
