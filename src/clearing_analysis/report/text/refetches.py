"""The observed re-fetch part in the human views (R-RF-1): the summary's one line and the
details' table, shared by the analysis and the explore views. It renders only counts and
shares the report holds (R-OUT-1)."""

from __future__ import annotations

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from clearing_analysis.inputs.configs import Api
from clearing_analysis.policy import gate_policy
from clearing_analysis.report import model as rm
from clearing_analysis.report.text.labels import interval_confidence
from clearing_analysis.report.text.tables import compact_table
from clearing_analysis.report.text.terminal import number, percent

TITLE = "Observed re-fetches (informational, never gating)"


def _gated_rates(supplied: float) -> str:
    """The gated retrieval rates, short: 0/5/20% (and the supplied one, if another)."""
    rates = sorted({*gate_policy().retrieval_sensitivities, supplied})
    return "/".join(f"{100 * rate:g}" for rate in rates) + "%"


def _range(population: rm.RefetchPopulation) -> str:
    low, high = population.interval_low, population.interval_high
    return f"{interval_confidence()} {percent(low).removesuffix('%')}-{percent(high)}"


def summary_line(part: rm.Refetches | None, retrieval_rate: float) -> str | None:
    """The observed share of the cleared results with its interval beside the gated
    retrieval rates, and the option that gates on it (the highest share over the APIs, so one
    line at 80 columns); with no comparable cleared result, the highest share of all results
    (the baseline re-read habit).
    None for a report without the part."""
    if part is None:
        return None
    gated = _gated_rates(retrieval_rate)
    rows = [refetches for _, refetches in rm.in_api_order(part.per_api)]
    cleared = [r.cleared for r in rows if r.cleared.observed_share is not None]
    if cleared:
        top = max(cleared, key=lambda population: population.observed_share or 0.0)
        share = top.observed_share or 0.0
        return (
            f"Re-fetch share {percent(share)} ({_range(top)}) vs gated {gated}:"
            f" --retrieval-rate {share:.4g}"
        )
    every = [r.all_results for r in rows if r.all_results.observed_share is not None]
    if every:
        top = max(every, key=lambda population: population.observed_share or 0.0)
        return (
            f"Re-fetch share: none cleared; all results {percent(top.observed_share)}"
            f" ({_range(top)}) vs gated {gated}"
        )
    return f"Re-fetch share: no comparable result; gated {gated}"


_HEADERS = ("results", "comparable", "re-fetched", "after write", "share")


def _table(api: Api, part: rm.ApiRefetches) -> Table:
    table = compact_table(f"\n{api.value}: observed re-fetches")
    table.add_column("population", no_wrap=True)
    for header in (*_HEADERS, f"{interval_confidence()} interval"):
        table.add_column(header, justify="right", no_wrap=True)
    for label, population in (("cleared", part.cleared), ("all results", part.all_results)):
        interval = "-"
        if population.interval_low is not None:
            interval = f"{percent(population.interval_low)}-{percent(population.interval_high)}"
        table.add_row(
            label,
            number(population.results),
            number(population.comparable),
            number(population.refetched),
            number(population.refetched_after_write),
            percent(population.observed_share),
            interval,
        )
    return table


def tables(part: rm.Refetches) -> list[RenderableType]:
    """The titled section: per API, the cleared results and all results, their counts and
    observed share with its Wilson interval (its confidence in policy/refetch.json)."""
    parts: list[RenderableType] = [
        Text(f"\n{TITLE}", style="bold"),
        Text(
            "A later call of the same tool with equal canonical arguments (policy/refetch.json)"
            " in the same conversation: after the clearing point for the cleared results, after"
            " the result itself for all results. Comparable: results whose call has canonical"
            " arguments; after write: a file re-read after a write or edit of it (apart, not in"
            " the share). A lower bound of need; the gate ignores this section."
        ),
    ]
    parts.extend(_table(api, refetches) for api, refetches in rm.in_api_order(part.per_api))
    return parts


__all__ = ["TITLE", "summary_line", "tables"]
