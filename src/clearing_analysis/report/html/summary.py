"""The summary as the page shows it: the facts of the terminal's one-screen summary
(`report.text.summary`, for either report kind) as HTML, a paragraph for the overall
line, a list of the APIs with the figures that decided each, and the closing notes, without the
terminal's hints ("--details", "clearing-analysis explain CODE"): on the page every table
follows the summary and every code's meaning is under "Statements and limitations". The
versions, the rate and the period are in the page's header. Every text comes from the same
functions the terminal's summary uses, so both say the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import assert_never

from clearing_analysis.report import explore_model as em
from clearing_analysis.report import model as rm
from clearing_analysis.report.kinds import AnyReport
from clearing_analysis.report.text.labels import statement_text
from clearing_analysis.report.text.summary import (
    OVERALL_RULE,
    PRECEDENCE,
    UPPER_BOUND_NOTE,
    ApiLine,
    api_lines,
    sessions_line,
)
from clearing_analysis.report.text.what_ifs import summary_line

# Where the page has what the terminal's hints point to.
CODES_NOTE = "What each code means: Statements and limitations, at the end of the page."
MODELED_NOTE = "Figures are modeled, not observed savings; every table follows, per API."


def _badged(head: str, verdict: str) -> str:
    """A verdict line with its first verdict word as a badge (the rest escaped as text)."""
    before, word, after = head.partition(verdict)
    if not word:
        return escape(head)
    return (
        f'{escape(before)}<span class="badge {verdict.lower()}">{escape(word)}</span>'
        f"{escape(after)}"
    )


def _api_item(row: ApiLine) -> str:
    """One API: its line (its verdict word as a badge) and its figures as a nested list."""
    head = escape(row.head) if row.verdict is None else _badged(row.head, row.verdict.value)
    items = "".join(f"<li>{escape(figure)}</li>" for figure in row.figures)
    return f"<li>{head}<ul>{items}</ul></li>" if items else f"<li>{head}</li>"


def _what_ifs(part: rm.WhatIfs) -> str:
    line = escape(summary_line(part, hint=""))
    return f'<p class="what-ifs">{line} (<a href="#what-ifs">what-ifs</a>)</p>'


def _opening(report: AnyReport) -> str:
    """The overall verdict and its rule, or explore's statement that it gives none and the
    sessions read."""
    match report:
        case rm.Report():
            verdict = report.verdict.value
            return (
                f'<p class="overall">Overall: <span class="badge {verdict.lower()}">{verdict}'
                f"</span> ({escape(OVERALL_RULE)})</p>"
            )
        case em.ExploreReport():
            banner = statement_text(em.ExploreStatement.NEVER_A_VERDICT)
            return (
                f'<p class="overall"><strong>{escape(banner)}</strong></p>'
                f"<p>{escape(sessions_line(report))}</p>"
            )
        case _:
            assert_never(report)


def _notes(report: AnyReport, rows: Sequence[ApiLine]) -> list[str]:
    """The closing notes, the terminal's hints replaced by where the page has what they name."""
    match report:
        case rm.Report():
            precedence = [PRECEDENCE] if any(row.would_stop for row in rows) else []
            return [*precedence, MODELED_NOTE, CODES_NOTE]
        case em.ExploreReport():
            return [UPPER_BOUND_NOTE, CODES_NOTE]
        case _:
            assert_never(report)


def summary(report: AnyReport) -> str:
    """The summary as HTML, for either kind: the overall verdict (explore: the statement that
    it gives none, and the sessions read), per API its line and the figures behind it (the
    verdict's, or the upper bound's), the closing notes and the what-if line."""
    rows = api_lines(report)
    return (
        _opening(report)
        + f'<ul class="apis">{"".join(_api_item(row) for row in rows)}</ul>'
        + "".join(f'<p class="note">{escape(note)}</p>' for note in _notes(report, rows))
        + _what_ifs(report.what_ifs_informational)
    )


__all__ = ["CODES_NOTE", "MODELED_NOTE", "summary"]
