"""The formats explore reads are named once, by their adapters (R-SRC-1, histories/__init__.py):
each table that says which format a figure or a refusal is of names every listed adapter's
format, recognition asks the adapters themselves, and replay takes the adapter's tool table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clearing_analysis.histories import adapter_of, adapters
from clearing_analysis.histories.pi import PI_SESSIONS
from clearing_analysis.histories.recognize import explored_formats, format_of, format_of_lines
from clearing_analysis.inputs.recognize import HistoryFormat
from clearing_analysis.pipeline.jobs import _FOREIGN_DETAIL
from clearing_analysis.report.explore_model import SessionFormat

# One first line each adapter recognizes (the shapes of docs/formats/README.md).
_FIRST_LINES = {
    HistoryFormat.PI_SESSION: {"type": "session", "version": 3, "id": "s"},
    HistoryFormat.CLAUDE_CODE: {"sessionId": "s", "uuid": "u", "parentUuid": None},
    HistoryFormat.CODEX: {"type": "session_meta", "payload": {"id": "s"}},
}


def test_each_adapter_names_its_own_format_and_the_fallback_is_last() -> None:
    """Formats are distinct, none is the native journal or UNKNOWN, the pi sessions last."""
    formats = [adapter.format for adapter in adapters()]
    assert len(set(formats)) == len(formats)
    assert not {HistoryFormat.NATIVE_JOURNAL, HistoryFormat.UNKNOWN} & set(formats)
    assert adapters()[-1] is PI_SESSIONS
    assert explored_formats() == frozenset(formats)


def test_the_report_has_a_figure_for_every_explored_format() -> None:
    """byFormat's keys (SessionFormat) are exactly the adapters' formats, in HistoryFormat's
    order: naming a format in HistoryFormat is all the report needs."""
    assert [fmt.value for fmt in SessionFormat] == [
        fmt.value for fmt in HistoryFormat if fmt in explored_formats()
    ]


def test_analyze_names_every_explored_format_in_its_refusal() -> None:
    """When analyze is given another format's files, each explored format has its detail."""
    assert explored_formats() <= _FOREIGN_DETAIL.keys()


def test_each_adapter_has_its_own_tool_table() -> None:
    """Replay names a file's tools by its adapter's table; no two formats share one."""
    tables = [adapter.tool_names for adapter in adapters()]
    assert len(set(tables)) == len(tables)


@pytest.mark.parametrize("fmt", sorted(_FIRST_LINES), ids=str)
def test_recognition_asks_the_adapters(tmp_path: Path, fmt: HistoryFormat) -> None:
    """A file an adapter's own rule recognizes is of that adapter's format, whether asked from
    its lines, its path or for its adapter."""
    line = json.dumps(_FIRST_LINES[fmt]).encode()
    path = tmp_path / "history.jsonl"
    path.write_bytes(line + b"\n")
    (owner,) = [adapter for adapter in adapters() if adapter.recognizes((line,))]
    assert owner.format is fmt
    assert format_of_lines((line,)) is fmt
    assert format_of(path) is fmt
    assert adapter_of(path) is owner


def test_the_native_header_is_no_adapters_and_nothing_else_is_recognized() -> None:
    """A native journal header is recognized by its own rule, which no adapter claims; an
    object of no format's shape, and no lines at all, are UNKNOWN."""
    native = json.dumps({"kind": "header", "format": "pi-native-journal"}).encode()
    assert format_of_lines((native,)) is HistoryFormat.NATIVE_JOURNAL
    assert not any(adapter.recognizes((native,)) for adapter in adapters())
    assert format_of_lines((b'{"type": "other"}',)) is HistoryFormat.UNKNOWN
    assert format_of_lines(()) is HistoryFormat.UNKNOWN
