"""A Codex tool result's outcome, from the exit status Codex writes into the output.

Codex records no success flag on a tool result (R-SRC-3). Where Codex documents an exit
status inside the output text, it is read here; nothing else of the output is looked at, and
nothing of it is kept. The shapes (docs/formats/codex.md, "Tool results and outcomes"; openai/
codex `codex-rs/core/src/tools/mod.rs` and the unified-exec response):

- structured shell output: a JSON object `{"output": ..., "metadata": {"exit_code": N, ...}}`;
- freeform shell output: a first line `Exit code: N`;
- `exec_command` / `write_stdin`: a line `Process exited with code N` in the header lines
  before the first `Output:` line (a process still running says `Process running with session
  ID ...` instead, and has no outcome yet).

Anything else is UNKNOWN: the result is not clearable.
"""

from __future__ import annotations

import enum
import re

from clearing_analysis import ranges, strictjson
from clearing_analysis.policy import limits


class Outcome(enum.StrEnum):
    """What a result's output says about its call."""

    SUCCESS = "SUCCESS"
    ERROR = "ERROR"
    UNKNOWN = "UNKNOWN"


_EXIT_CODE_LINE = re.compile(r"Exit code: (-?[0-9]{1,10})")
_PROCESS_EXITED = re.compile(r"Process exited with code (-?[0-9]{1,10})")
_OUTPUT_HEADER = "Output:"
# The header of a unified-exec response is a few short lines; the body after `Output:` is the
# command's own text and is never searched.
_MAX_HEADER_LINES = 8
# Only an output that could be the structured form is decoded as JSON, and only so far.
_MAX_STRUCTURED_PREFIX = '{"output":'


def _from_code(text: str) -> Outcome:
    code = int(text)
    if not ranges.MIN_EXIT_CODE <= code <= ranges.MAX_EXIT_CODE:
        return Outcome.UNKNOWN
    return Outcome.SUCCESS if code == 0 else Outcome.ERROR


def _structured(output: str) -> Outcome | None:
    if not output.startswith(_MAX_STRUCTURED_PREFIX):
        return None
    try:  # under the reader's own JSON rules and nesting limit
        value = strictjson.loads(output.encode(), max_depth=limits().max_nesting_depth)
    except strictjson.JsonRejected:
        return None
    if not isinstance(value, dict):
        return None
    metadata = value.get("metadata")
    if not isinstance(metadata, dict):
        return None
    code = metadata.get("exit_code")
    if type(code) is not int:
        return None
    return _from_code(str(code))


def outcome_of(output: str) -> Outcome:
    """The outcome an output's documented exit status states (see the module docstring)."""
    structured = _structured(output)
    if structured is not None:
        return structured
    lines = output.split("\n", _MAX_HEADER_LINES + 1)[:_MAX_HEADER_LINES]
    if lines:
        first = _EXIT_CODE_LINE.fullmatch(lines[0].rstrip("\r"))
        if first is not None:
            return _from_code(first.group(1))
    for raw in lines:
        line = raw.rstrip("\r")
        if line == _OUTPUT_HEADER:
            break
        exited = _PROCESS_EXITED.fullmatch(line)
        if exited is not None:
            return _from_code(exited.group(1))
    return Outcome.UNKNOWN


__all__ = ["Outcome", "outcome_of"]
