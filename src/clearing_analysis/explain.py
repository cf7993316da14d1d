"""What a code means and what to do about it, from the one table of each (`explain`).

`lookup` finds every entry a code names: the INTERRUPTED line of a stopped run, a refusal's
code (`INPUT_INVALID`) or detail (`ROUTES_WRONG_SHAPE`, or both words as the failure line
prints them), and the codes a report and its human view carry (`REPRESENTATIVENESS_LOW`,
`APPROVAL_STATE_UNATTESTED`, ...). A code that means different things in different places
(`DUPLICATE` for a journal, a boundary and a session; `INTERRUPTED`) gives one entry per place.
The text comes only from the one table of codes (`codes.table.TABLE`): the word looked up is
matched against it and never printed itself (R-OUT-1).
"""

from __future__ import annotations

from clearing_analysis.codes.table import TABLE, Code
from clearing_analysis.wrapping import INDENT, wrap


def lookup(words: list[str]) -> list[Code]:
    """The entries `words` name (one code, or a refusal's code and detail), in table order;
    empty when they name none. Case does not matter."""
    wanted = " ".join(word.upper() for word in words)
    found = []
    for entry in TABLE:
        names = {entry.name}
        if " " in entry.name and len(words) == 1:
            names.add(entry.name.split(" ", 1)[1])  # a refusal's detail alone
        if wanted in names:
            found.append(entry)
    return found


def _plain(text: str) -> str:
    """Markdown code spans as the words they stand for."""
    return text.replace("`", "")


def render(found: list[Code], width: int) -> str:
    """The explanation of each entry, wrapped at spaces to `width` columns."""
    lines: list[str] = []
    for entry in found:
        if lines:
            lines.append("")
        lines.append(f"{entry.name} ({entry.kind})")
        lines.extend(wrap(f"Meaning: {_plain(entry.meaning)}", width, INDENT, INDENT * 2))
        if entry.remedy is not None:
            lines.extend(wrap(f"What to do: {_plain(entry.remedy)}", width, INDENT, INDENT * 2))
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
    for entry in TABLE:
        lines.extend(wrap(f"{entry.name}  ({entry.kind})", width, "", INDENT))
    return "".join(f"{line}\n" for line in lines)


__all__ = ["listing", "lookup", "render"]
