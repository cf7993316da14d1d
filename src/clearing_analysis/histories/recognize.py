"""What kind of history a file holds, from its first lines alone (R-RP-5 decision, R-SRC-1).

The native journal's header rule (`inputs.recognize`) and then each adapter's own rule, in the
adapters' order (`histories.adapters`): the first that recognizes the lines names the format,
else UNKNOWN. When nothing in a selection replays, the refusal names what the files are if that
can be recognized: pi session files given to `analyze`, native journals given to `explore`, or
another agent's history. The shapes are listed in docs/formats/README.md, "Recognized first
lines"; the result is a fixed `HistoryFormat`, nothing of the file is kept or printed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from clearing_analysis.histories import adapters, first_lines
from clearing_analysis.inputs.recognize import HistoryFormat, is_native_header, line_object


def format_of_lines(lines: Sequence[bytes]) -> HistoryFormat:
    """The format whose first lines `lines` are (see the module docstring)."""
    first = line_object(lines[0]) if lines else None
    if first is not None and is_native_header(first):
        return HistoryFormat.NATIVE_JOURNAL
    for adapter in adapters():
        if adapter.recognizes(lines):
            return adapter.format
    return HistoryFormat.UNKNOWN


def format_of(path: Path) -> HistoryFormat:
    """The format `path` holds, from its first lines (`histories.first_lines`)."""
    return format_of_lines(first_lines(path))


def foreign_format(
    paths: Iterable[Path],
    expected: HistoryFormat,
    accepted: frozenset[HistoryFormat] = frozenset(),
) -> HistoryFormat | None:
    """The most frequent recognized format other than `expected` (and the other `accepted`
    formats the command reads) among `paths`, when at least as many files have it as have the
    expected one; else None (ties: enum order)."""
    counts = Counter(format_of(path) for path in paths)
    foreign = [
        (count, fmt)
        for fmt, count in counts.items()
        if fmt not in (expected, HistoryFormat.UNKNOWN) and fmt not in accepted
    ]
    if not foreign:
        return None
    order = list(HistoryFormat)
    count, fmt = max(foreign, key=lambda pair: (pair[0], -order.index(pair[1])))
    return fmt if count >= counts[expected] else None


def explored_formats() -> frozenset[HistoryFormat]:
    """The formats `explore` reads: one per adapter."""
    return frozenset(adapter.format for adapter in adapters())


__all__ = ["explored_formats", "foreign_format", "format_of", "format_of_lines"]
