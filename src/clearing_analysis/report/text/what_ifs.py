"""The informational what-ifs in the human views (docs/model.md, section 9): one summary line
(which policy reduces pressure most, and at what cost) and the `--details` tables. Shared by
the analysis and the explore views; it renders only what the report's `WhatIfs` part holds and
never a verdict."""

from __future__ import annotations

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from clearing_analysis.inputs.configs import Api
from clearing_analysis.models.rates import RateLabel, exact
from clearing_analysis.policy import gate_policy, what_if_table
from clearing_analysis.report import model as rm
from clearing_analysis.report.text.tables import compact_table
from clearing_analysis.report.text.terminal import number, percent

TITLE = "What-ifs: the pruning policies agents ship, on this history (informational, never gating)"
# Where the policies clear, and the model's one limit a reader must see beside the figures
# (docs/model.md, section 9).
WHERE_EVALUATED = (
    "Each policy clears where its source does: before a prompt turn, or before every request"
    " of a turn (E estimated there as at a boundary). The history is replayed as recorded:"
    " re-reads a clearing would cause are priced only through the retrieval rate."
)


def _at_default(row: rm.WhatIfPolicy) -> rm.WhatIfAtRate | None:
    """The row's figures at the default retrieval rate, if its models are defined."""
    return next((at for at in row.sensitivities if RateLabel.DEFAULT in at.labels), None)


def _within_cost_limit(at: rm.WhatIfAtRate) -> bool:
    """Both cost ratios bounded and at most 1 + the gate's cost limit (R-G criterion 5),
    compared as the decimals the report and the policy state (x1.05 is within, not the double
    just above 21/20): a policy that costs more is never the headline's answer."""
    limit = 1 + exact(gate_policy().max_cost_increase)
    ratios = (at.list_price_ratio, at.quota_share_ratio)
    return all(ratio is not None and exact(ratio) <= limit for ratio in ratios)


def summary_line(part: rm.WhatIfs, *, hint: str = " (--details)") -> str:
    """Which policy reduces pressure most (at the default retrieval rate, over every API)
    among those within the cost limit, and its cost ratio in both views; or plainly that none
    reduces pressure, or that every one that does costs more; `hint` closes it (where the
    tables are)."""
    defined = False
    any_reduces = False
    best: tuple[float, Api, rm.WhatIfPolicy, rm.WhatIfAtRate] | None = None
    for api, rows in rm.in_api_order(part.per_api):
        for row in rows:
            at = _at_default(row)
            if at is None:
                continue
            defined = True
            if at.pressure_reduction <= 0:
                continue
            any_reduces = True
            if _within_cost_limit(at) and (best is None or at.pressure_reduction > best[0]):
                best = (at.pressure_reduction, api, row, at)
    limit = percent(gate_policy().max_cost_increase)
    default = percent(gate_policy().default_retrieval_rate)
    if not defined:
        return f"What-ifs (informational): no API has a defined pressure model{hint}"
    if not any_reduces:
        # The first row of a tie at zero is no answer: say that none reduces pressure.
        return (
            "What-ifs (informational, never gating): no policy reduces pressure on this"
            f" history{hint}"
        )
    if best is None:
        return (
            "What-ifs (informational, never gating): every policy that reduces pressure"
            f" costs more than the {limit} limit at {default} retrieval{hint}"
        )
    _, api, row, at = best
    return (
        f"What-ifs (informational, never gating): within the {limit} cost limit,"
        f" {row.policy.value} reduces pressure most, {percent(at.pressure_reduction)} on"
        f" {api.value} at {percent(at.rate)} retrieval, cost x{number(at.list_price_ratio, 4)}"
        f" list price, x{number(at.quota_share_ratio, 4)} quota{hint}"
    )


def _policy_column(table: Table) -> None:
    """The policy column, as wide as the longest id (the reference's with its " *"): a code
    is never cut."""
    width = max(
        len(policy.id.value) + (2 if policy.reference else 0) for policy in what_if_table().policies
    )
    table.add_column("policy", justify="left", no_wrap=True, min_width=width)


def _policy_table(title: str, headers: tuple[str, ...]) -> Table:
    """A titled table: the policy column, then right-aligned figures."""
    table = compact_table(title)
    _policy_column(table)
    for header in headers:
        table.add_column(header, justify="right", no_wrap=True)
    return table


def _events_table(api: Api, rows: tuple[rm.WhatIfPolicy, ...]) -> Table:
    table = _policy_table(
        f"\n{api.value}: what each policy would have cleared",
        ("events", "warm", "results", "removed", "rewritten"),
    )
    for row in rows:
        table.add_row(
            row.policy.value + (" *" if row.reference else ""),
            number(row.clearing_events),
            percent(row.warm_share),
            number(row.cleared_results),
            number(row.tokens_removed),
            number(row.rewritten_prefix_tokens),
        )
    return table


def _rates_table(api: Api, rows: tuple[rm.WhatIfPolicy, ...]) -> Table:
    table = _policy_table(
        f"{api.value}: pressure and cost by retrieval rate",
        ("rate", "cut", "avoided", "list", "quota"),
    )
    for row in rows:
        if not row.defined:
            causes = " ".join(cause.value for cause in row.undefined_causes)
            table.add_row(row.policy.value, "-", f"undefined: {causes}", "-", "-", "-")
        for index, at in enumerate(row.sensitivities):
            table.add_row(
                row.policy.value if index == 0 else "",
                percent(at.rate),
                percent(at.pressure_reduction),
                number(at.compactions_avoided, 2),
                f"x{number(at.list_price_ratio, 4)}",
                f"x{number(at.quota_share_ratio, 4)}",
            )
    return table


def tables(part: rm.WhatIfs) -> list[RenderableType]:
    """The titled section: per API what each policy cleared, then its pressure and cost."""
    parts: list[RenderableType] = [
        Text(f"\n{TITLE}", style="bold"),
        Text(
            "Each policy's own defaults (policy/what-ifs.json), within the seed's eligibility;"
            " the gate ignores this section. Warm: the share of clearing events while the cache"
            " was warm; removed: net tokens cleared; rewritten: prefix tokens sent again"
            " instead of read from the cache (priced at the higher of input and cache write)."
            " Cut: the pressure reduction 1 - C_on/C_off; avoided:"
            " compactions over the window; list, quota: the cost ratio (on + prefix rewrite) /"
            " off in each view. *: the reference, the seed's own policy (the gated simulation). "
            + WHERE_EVALUATED
        ),
    ]
    for api, rows in rm.in_api_order(part.per_api):
        parts.append(_events_table(api, rows))
        parts.append(_rates_table(api, rows))
    return parts


__all__ = ["TITLE", "WHERE_EVALUATED", "summary_line", "tables"]
