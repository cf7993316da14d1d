"""What a code means and what to do about it, from the one table of each (`explain`).

`lookup` finds every entry a code names: the INTERRUPTED line of a stopped run, a refusal's
code (`INPUT_INVALID`) or detail (`ROUTES_WRONG_SHAPE`, or both words as the failure line
prints them), and the codes a report and its human view carry (`REPRESENTATIVENESS_LOW`,
`APPROVAL_STATE_UNATTESTED`, ...). A code that means different things in different places
(`DUPLICATE` for a journal, a boundary and a session; `INTERRUPTED`) gives one entry per place.
The text comes only from `meanings` and `remedies`: the word looked up is matched against those
tables and never printed itself (R-OUT-1).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from clearing_analysis.errors import AnalysisError
from clearing_analysis.meanings import CODE_MEANINGS, MEANINGS, REPORT_CODES, RUN_LINES
from clearing_analysis.remedies import OPTION_PLACEHOLDER, REMEDIES
from clearing_analysis.wrapping import INDENT, wrap


@dataclass(frozen=True, slots=True)
class Entry:
    """One code's explanation: its name as printed, what kind of code it is, what it means
    and what to do (None for a refusal code, whose details each say)."""

    name: str
    kind: str
    meaning: str
    todo: str | None
    details: tuple[str, ...] = ()


def _error_classes() -> Iterator[type[AnalysisError]]:
    """Every class with a code of its own, in the order docs/exit-codes.md lists them."""
    by_code: dict[str, type[AnalysisError]] = {}
    todo: list[type[AnalysisError]] = [AnalysisError]
    while todo:
        cls = todo.pop()
        if "code" in vars(cls):
            by_code[cls.code] = cls
        todo.extend(cls.__subclasses__())
    for code in CODE_MEANINGS:
        yield by_code[code]


def _refusal_kind(cls: type[AnalysisError]) -> str:
    return f"refusal, exit {cls.exit_status}"


def entries() -> Iterator[Entry]:
    """Every entry: each run line (INTERRUPTED), each refusal code and its details, then
    every report code."""
    for code, (kind, meaning, todo) in RUN_LINES.items():
        yield Entry(code, kind, meaning, todo)
    for cls in _error_classes():
        details = tuple(detail.value for detail in cls.detail_enum)
        yield Entry(cls.code, _refusal_kind(cls), CODE_MEANINGS[cls.code], None, details)
        for detail in cls.detail_enum:
            remedy = REMEDIES[(cls.code, detail)].replace(OPTION_PLACEHOLDER, "the option")
            yield Entry(
                f"{cls.code} {detail.value}",
                _refusal_kind(cls),
                MEANINGS[(cls.code, detail)],
                remedy,
            )
    for (kind, code), (meaning, todo) in REPORT_CODES.items():
        yield Entry(code, kind, meaning, todo)


def lookup(words: list[str]) -> list[Entry]:
    """The entries `words` name (one code, or a refusal's code and detail), in table order;
    empty when they name none. Case does not matter."""
    wanted = " ".join(word.upper() for word in words)
    found = []
    for entry in entries():
        names = {entry.name}
        if " " in entry.name and len(words) == 1:
            names.add(entry.name.split(" ", 1)[1])  # a refusal's detail alone
        if wanted in names:
            found.append(entry)
    return found


def _plain(text: str) -> str:
    """Markdown code spans as the words they stand for."""
    return text.replace("`", "")


def render(found: list[Entry], width: int) -> str:
    """The explanation of each entry, wrapped at spaces to `width` columns."""
    lines: list[str] = []
    for entry in found:
        if lines:
            lines.append("")
        lines.append(f"{entry.name} ({entry.kind})")
        lines.extend(wrap(f"Meaning: {_plain(entry.meaning)}", width, INDENT, INDENT * 2))
        if entry.todo is not None:
            lines.extend(wrap(f"What to do: {_plain(entry.todo)}", width, INDENT, INDENT * 2))
        if entry.details:
            listed = "Details (explain each for what to do): " + " ".join(entry.details)
            lines.extend(wrap(listed, width, INDENT, INDENT * 2))
    return "".join(f"{line}\n" for line in lines)


def listing(width: int) -> str:
    """Every code with its kind, one per line: what `explain` with no code prints."""
    lines = [
        "Every code clearing-analysis prints; clearing-analysis explain CODE explains one.",
        "",
    ]
    for entry in entries():
        lines.extend(wrap(f"{entry.name}  ({entry.kind})", width, "", INDENT))
    return "".join(f"{line}\n" for line in lines)


__all__ = ["Entry", "entries", "listing", "lookup", "render"]
