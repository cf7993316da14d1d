"""The names of the history formats, and the strict reading of a first line that recognition
uses (R-RP-5 decision, R-SRC-1).

Which format a file holds is decided from its first lines alone (`histories.recognize`): each
format's own adapter holds its rule (`HistoryAdapter.recognizes`), and the native journal's
header rule is here, beside the names every figure of a format is reported under. Only top-level
keys and a few constant values are looked at; nothing of a file is kept or printed. A line is
decoded under the journal decoders' JSON rules and nesting limit (`strictjson`,
`maxNestingDepth`): a line that is not a JSON object, breaks a rule, nests deeper than the limit
or is too long matches no rule, as every reader would refuse it.
"""

from __future__ import annotations

import enum
from typing import Any

from clearing_analysis import strictjson
from clearing_analysis.policy import limits


class HistoryFormat(enum.StrEnum):
    """The kinds of history file this tool can tell apart by their first lines: the native
    journal `analyze` reads, one name per adapter `explore` reads (histories), and UNKNOWN."""

    NATIVE_JOURNAL = "NATIVE_JOURNAL"
    PI_SESSION = "PI_SESSION"
    CLAUDE_CODE = "CLAUDE_CODE"
    CODEX = "CODEX"
    UNKNOWN = "UNKNOWN"


_NATIVE_FORMAT = "pi-native-journal"


def line_object(line: bytes) -> dict[str, Any] | None:
    """The line as a JSON object under the decoders' rules, or None (see the module
    docstring)."""
    try:
        value = strictjson.loads(line, max_depth=limits().max_nesting_depth)
    except strictjson.JsonRejected:
        return None
    return value if isinstance(value, dict) else None


def is_native_header(value: dict[str, Any]) -> bool:
    """A native journal v2 header: `{"kind": "header", "format": "pi-native-journal", ...}`."""
    return value.get("kind") == "header" and value.get("format") == _NATIVE_FORMAT


__all__ = ["HistoryFormat", "is_native_header", "line_object"]
