"""Canonical arguments and their keyed digests (policy/refetch.json, replay.arguments)."""

from __future__ import annotations

import pickle
from pathlib import Path

from clearing_analysis.inputs.sidecar import open_sidecar
from clearing_analysis.replay import replay_journals
from clearing_analysis.replay.arguments import ArgumentKey, call_digests, refetch_policy
from clearing_analysis.replay.model import ReplayedJournal
from clearing_analysis.toolclass import ToolClass, ToolNames, tool_class
from tests.replay.builder import ANTHROPIC, JournalBuilder, SidecarBuilder, routes

KEY = ArgumentKey(bytes(range(32)))


def test_fetching_tools_are_read_only_and_writing_tools_effectful() -> None:
    """Every fetching tool of a known table is a read-only built-in there, every writing or
    polling tool is not."""
    for names in ToolNames:
        table = refetch_policy().tables.get(names.value)
        assert table is not None, names
        for name in table.fetches:
            assert tool_class(name, names) is ToolClass.READ_ONLY_BUILTIN, (names, name)
        for name in (*table.writes, *table.polling):
            assert tool_class(name, names) is not ToolClass.READ_ONLY_BUILTIN, (names, name)


def test_claude_code_table_names_its_tools() -> None:
    """The Claude Code table names Read / Grep / Glob / WebFetch as fetches, its editing tools
    as writes and BashOutput as polling."""
    table = refetch_policy().tables["CLAUDE_CODE"]
    assert {"Read", "Grep", "Glob", "WebFetch"} <= set(table.fetches)
    assert table.fetches["Read"].path == "path"
    assert {"Edit", "MultiEdit", "Write", "NotebookEdit"} <= set(table.writes)
    assert "BashOutput" in table.polling


def test_equal_canonical_arguments_give_equal_digests() -> None:
    """Key order, non-canonical arguments and the file_path alias change nothing; another
    range, path or tool does."""
    base = call_digests(KEY, "PI_FAMILY", "read", {"path": "a.py", "offset": 1, "limit": 9})
    same = call_digests(KEY, "PI_FAMILY", "read", {"limit": 9, "offset": 1, "file_path": "a.py"})
    assert base.arguments is not None and base == same
    assert call_digests(KEY, "PI_FAMILY", "read", {"path": "a.py", "offset": 2, "limit": 9}) != (
        base
    )
    other_range = call_digests(KEY, "PI_FAMILY", "read", {"path": "a.py"})
    assert other_range.arguments != base.arguments
    assert other_range.read_path == base.read_path  # the same file
    grep = call_digests(KEY, "PI_FAMILY", "grep", {"path": "a.py"})
    assert grep.arguments != other_range.arguments and grep.read_path is None


def test_writes_keep_the_path_only_and_others_nothing() -> None:
    """A write or edit keeps the digest of its path (equal to a read's of that path); bash,
    polling calls, unknown tools and tables, and a run without a key keep nothing."""
    read = call_digests(KEY, "NATIVE", "read", {"path": "a.py"})
    edit = call_digests(KEY, "NATIVE", "edit", {"path": "a.py", "oldText": "x", "newText": "y"})
    assert edit.arguments is None and edit.written_path == read.read_path is not None
    for table, name in (("NATIVE", "bash"), ("PI_FAMILY", "process"), ("NATIVE", "mcp_x")):
        assert call_digests(KEY, table, name, {"path": "a.py"}) == call_digests(None, "", "", {})
    assert call_digests(None, "NATIVE", "read", {"path": "a.py"}).arguments is None
    assert call_digests(KEY, "OTHER", "read", {"path": "a.py"}).arguments is None


def test_key_is_hidden_random_and_pickles() -> None:
    """Two generated keys differ and digest differently; the repr shows nothing of the key;
    a pickled key (how a pool worker receives it) digests alike."""
    first, second = ArgumentKey.generate(), ArgumentKey.generate()
    assert first != second
    args = {"url": "https://example.org/"}
    assert call_digests(first, "NATIVE", "web_fetch", args) != call_digests(
        second, "NATIVE", "web_fetch", args
    )
    assert repr(first) == "ArgumentKey(<hidden>)"
    copy = pickle.loads(pickle.dumps(first))
    assert call_digests(copy, "NATIVE", "web_fetch", args) == call_digests(
        first, "NATIVE", "web_fetch", args
    )


def test_replay_stores_digests_from_the_requested_call(tmp_path: Path) -> None:
    """A replayed result carries its call's digests, taken from the assistant's toolCall even
    when the call start records no arguments (as a mapped pi session's does)."""
    b = JournalBuilder()
    b.turn("t0")
    b.run("r0", "t0")
    calls = [("c0", "read", {"path": "a.py"}), ("c1", "edit", {"path": "a.py"})]
    b.assistant("r0", "", api=ANTHROPIC, calls=calls)
    for call_id, name, _ in calls:
        b.call_start("r0", call_id, name, {})
        b.call_end("r0", call_id)
        b.result("r0", call_id, name)
    b.assistant("r0", "done")
    b.run_end("r0")
    b.close()
    path = b.write(tmp_path)
    sidecar = SidecarBuilder(tmp_path / "history.sqlite").finish()
    with open_sidecar(sidecar) as view:
        keyed = replay_journals([path], routes(ANTHROPIC), view, argument_key=KEY)
        plain = replay_journals([path], routes(ANTHROPIC), view)
    journal = keyed.journals[0].journal
    assert isinstance(journal, ReplayedJournal)
    read, edit = journal.results
    expected = call_digests(KEY, "NATIVE", "read", {"path": "a.py"})
    assert read.argument_digest == expected.arguments is not None
    assert read.read_path_digest == edit.written_path_digest == expected.read_path
    assert edit.argument_digest is None
    assert all(r.argument_digest is None for r in plain.journals[0].journal.results)


def test_codex_table_names_its_read_only_tools() -> None:
    """The Codex table compares read_file by path and range and lists write_stdin as polling;
    its shells and apply_patch are never fetches."""
    table = refetch_policy().tables["CODEX"]
    assert {"read_file", "view_image", "list_dir", "grep_files"} <= set(table.fetches)
    assert table.fetches["read_file"].path == "path"
    assert table.fetches["read_file"].arguments["path"] == ("file_path", "path")
    assert "write_stdin" in table.polling
    assert not {"exec_command", "shell", "apply_patch"} & set(table.fetches)
