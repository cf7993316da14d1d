"""The summary as the page shows it: the facts of the terminal's one-screen summary
(`report.text.summary`, `report.text.explore_summary`) as HTML, a paragraph for the overall
line, a list of the APIs with the figures that decided each, and the closing notes, without the
terminal's hints ("--details", "clearing-analysis explain CODE"): on the page every table
follows the summary and every code's meaning is under "Statements and limitations". The
versions, the rate and the period are in the page's header. Every text comes from the same
functions the terminal's summary uses, so both say the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from clearing_analysis.report import explore_model as em
from clearing_analysis.report import model as rm
from clearing_analysis.report.text.explore_human import STATEMENT_TEXT as EXPLORE_STATEMENT_TEXT
from clearing_analysis.report.text.explore_summary import (
    UPPER_BOUND_NOTE,
    sessions_line,
    upper_bound_figures,
)
from clearing_analysis.report.text.explore_summary import api_head as explore_api_head
from clearing_analysis.report.text.summary import OVERALL_RULE, PRECEDENCE, api_head, figures
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


def _api_item(head: str, figures_: Sequence[str]) -> str:
    """One API: its line (already HTML) and its figures as a nested list."""
    items = "".join(f"<li>{escape(figure)}</li>" for figure in figures_)
    return f"<li>{head}<ul>{items}</ul></li>" if items else f"<li>{head}</li>"


def _what_ifs(part: rm.WhatIfs) -> str:
    line = escape(summary_line(part, hint=""))
    return f'<p class="what-ifs">{line} (<a href="#what-ifs">what-ifs</a>)</p>'


def analysis_summary(report: rm.Report) -> str:
    """The analysis summary as HTML: the overall verdict, per API the verdict line and the
    figures behind it, the precedence note when an API would STOP, the closing notes and the
    what-if line."""
    verdict = report.verdict.value
    overall = (
        f'<p class="overall">Overall: <span class="badge {verdict.lower()}">{verdict}</span>'
        f" ({escape(OVERALL_RULE)})</p>"
    )
    items = []
    any_would_stop = False
    for api, part in rm.in_api_order(report.per_api):
        head, would_stop = api_head(report, api, part)
        any_would_stop |= would_stop
        items.append(_api_item(_badged(head, part.gate.verdict.value), figures(part)))
    notes = [PRECEDENCE] if any_would_stop else []
    notes += [MODELED_NOTE, CODES_NOTE]
    return (
        overall
        + f'<ul class="apis">{"".join(items)}</ul>'
        + "".join(f'<p class="note">{escape(note)}</p>' for note in notes)
        + _what_ifs(report.what_ifs_informational)
    )


def explore_summary(report: em.ExploreReport) -> str:
    """The explore summary as HTML: the statement that explore gives no verdict, the sessions
    read, per API its pressure evidence and the upper bound's figures, the closing notes and
    the what-if line."""
    banner = EXPLORE_STATEMENT_TEXT[em.ExploreStatement.NEVER_A_VERDICT]
    items = [
        _api_item(escape(explore_api_head(api, part)), upper_bound_figures(part))
        for api, part in rm.in_api_order(report.per_api)
    ]
    notes = (UPPER_BOUND_NOTE, CODES_NOTE)
    return (
        f'<p class="overall"><strong>{escape(banner)}</strong></p>'
        f"<p>{escape(sessions_line(report))}</p>"
        + f'<ul class="apis">{"".join(items)}</ul>'
        + "".join(f'<p class="note">{escape(note)}</p>' for note in notes)
        + _what_ifs(report.what_ifs_informational)
    )


__all__ = ["CODES_NOTE", "MODELED_NOTE", "analysis_summary", "explore_summary"]
