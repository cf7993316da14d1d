"""The reports' informational what-if part (docs/model.md, section 9; docs/report.md): its
reference row is the gated figures, its schema part cannot hold a verdict, and a saved report
whose part breaks what the renderers rely on is refused like any other broken report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from clearing_analysis.codes.errors import InputInvalidError
from clearing_analysis.models.rates import RateLabel
from clearing_analysis.policy import WhatIfId, read_policy_bytes
from clearing_analysis.report import model as rm
from clearing_analysis.report.encode import decode_report
from clearing_analysis.report.text.view import render_text
from clearing_analysis.report.text.what_ifs import WHERE_EVALUATED, summary_line

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


@pytest.mark.parametrize("profile", ["build", "mixed"])
def test_the_reference_row_is_the_gated_figures(profile: str) -> None:
    """In the golden reports, per API, the seed's row clears what the gated simulation clears
    and its pressure reduction and cost ratios at 0%, 5% and 20% are the gated models' (the
    goldens were made at the default 5%, so the rates coincide); it never rewrites warm."""
    report = decode_report((GOLDEN / f"report-{profile}.json").read_bytes())
    assert isinstance(report, rm.Report)
    for api, part in report.per_api.items():
        rows = report.what_ifs_informational.per_api[api]
        assert [row.policy for row in rows] == list(WhatIfId)
        (seed,) = [row for row in rows if row.reference]
        assert seed.policy is WhatIfId.SEED_COLD_PRE_TURN
        assert (seed.cleared_results, seed.tokens_removed) == (
            part.simulation.cleared_results,
            part.simulation.admitted_net_tokens,
        )
        assert (seed.warm_clearing_events, seed.rewritten_prefix_tokens) == (0, 0)
        assert seed.defined == part.pressure.defined
        gated = {at.rate: at for at in part.pressure.sensitivities}
        costs = {at.rate: at for at in part.cost.sensitivities}
        for at in seed.sensitivities:
            assert at.pressure_reduction == gated[at.rate].reduction
            assert at.list_price_ratio == costs[at.rate].list_price.ratio
            assert at.quota_share_ratio == costs[at.rate].quota_share.ratio


def _schema(name: str) -> dict[str, Any]:
    return json.loads(read_policy_bytes(f"schemas/{name}"))


@pytest.mark.parametrize("name", ["report.schema.json", "explore-report.schema.json"])
def test_the_schema_part_cannot_hold_a_verdict(name: str) -> None:
    """The part's definitions are closed (no field beyond theirs) and none is a verdict or a
    reason; `gating` can only be false."""
    definitions = _schema(name)["$defs"]
    for definition in ("WhatIfs", "WhatIfPolicy", "WhatIfAtRate"):
        part = definitions[definition]
        assert part["additionalProperties"] is False
        assert not {"verdict", "deferReasons", "stopReasons", "gate"} & set(part["properties"])
    assert definitions["WhatIfs"]["properties"]["gating"] == {"enum": [False]}


def _edited(edit: str) -> bytes:
    report = json.loads((GOLDEN / "report-build.json").read_bytes())
    rows = report["whatIfsInformational"]["perApi"]["anthropic-messages"]
    if edit == "a verdict":
        report["whatIfsInformational"]["verdict"] = "BUILD"
    elif edit == "a policy missing":
        del rows[2]
    elif edit == "more warm events than events":
        rows[1]["warmClearingEvents"] = rows[1]["clearingEvents"] + 1
    else:
        rows[1]["sensitivities"].reverse()
    return json.dumps(report).encode()


@pytest.mark.parametrize(
    "edit",
    ["a verdict", "a policy missing", "more warm events than events", "rates out of order"],
)
def test_a_broken_part_is_not_a_report(edit: str) -> None:
    """Each edit of the golden report's what-if part is REPORT_NOT_A_REPORT, never rendered."""
    with pytest.raises(InputInvalidError) as raised:
        decode_report(_edited(edit))
    assert raised.value.detail.value == "REPORT_NOT_A_REPORT"


def test_the_details_state_where_the_policies_are_evaluated() -> None:
    """The --details section states where the policies clear and the model's limit beside
    the figures (the history replayed as recorded: re-reads priced only through the retrieval
    rate); the first screen does not."""
    report = decode_report((GOLDEN / "report-build.json").read_bytes())
    assert isinstance(report, rm.Report)
    details = " ".join(render_text(report, details=True).split())
    assert WHERE_EVALUATED in details
    assert WHERE_EVALUATED not in " ".join(render_text(report).split())


def test_the_summary_line_names_a_policy_only_when_one_reduces_pressure() -> None:
    """The summary names the policy with the largest pressure reduction at the default rate;
    when no policy reduces pressure at all, it says so instead of naming the first row of a
    tie at zero (the real pi sessions under their catalog routes are such a history)."""
    report = decode_report((GOLDEN / "report-build.json").read_bytes())
    assert isinstance(report, rm.Report)
    part = report.what_ifs_informational
    best = max(
        at.pressure_reduction
        for rows in part.per_api.values()
        for row in rows
        for at in row.sensitivities
        if RateLabel.DEFAULT in at.labels
    )
    assert best > 0
    assert "reduces pressure most" in summary_line(part)
    flat = _with_rates(part, default_only=False, pressure_reduction=0.0)
    assert summary_line(flat) == (
        "What-ifs (informational, never gating): no policy reduces pressure on this history"
        " (--details)"
    )


def test_the_details_tables_fit_80_columns_with_every_figure_whole() -> None:
    """At 80 columns, with a nine-digit rewrite and an eight-digit removal on every row (a
    policy that clears before every request rewrites millions of prefix tokens on a long
    history), the what-if tables keep every line within 80 columns and print every figure
    whole: no cell is cut or folded onto a second line."""
    report = decode_report((GOLDEN / "report-build.json").read_bytes())
    assert isinstance(report, rm.Report)
    part = report.what_ifs_informational
    wide = {
        api: tuple(
            msgspec.structs.replace(
                row, rewritten_prefix_tokens=123_456_789, tokens_removed=98_765_432
            )
            for row in rows
        )
        for api, rows in part.per_api.items()
    }
    report = msgspec.structs.replace(
        report, what_ifs_informational=msgspec.structs.replace(part, per_api=wide)
    )
    text = render_text(report, width=80, details=True)
    section = text[text.index("What-ifs: the pruning policies") :]
    assert all(len(line) <= 80 for line in section.splitlines())
    assert "…" not in section
    rows = [line for line in section.splitlines() if "123,456,789" in line]
    assert len(rows) == len(wide) * len(WhatIfId)
    assert all("98,765,432" in line for line in rows)


def _with_rates(part: rm.WhatIfs, *, default_only: bool, **fields: Any) -> rm.WhatIfs:
    """The part with the given fields set at every row's rates (or at the default rate only)."""
    return msgspec.structs.replace(
        part,
        per_api={
            api: tuple(
                msgspec.structs.replace(
                    row,
                    sensitivities=tuple(
                        msgspec.structs.replace(at, **fields)
                        if not default_only or RateLabel.DEFAULT in at.labels
                        else at
                        for at in row.sensitivities
                    ),
                )
                for row in rows
            )
            for api, rows in part.per_api.items()
        },
    )


def _with_ratios(part: rm.WhatIfs, ratio: float | None, quota: float | None = None) -> rm.WhatIfs:
    """The part with every row's default-rate cost ratios set (list price to ratio, quota
    share to quota, or to ratio when not given)."""
    return _with_rates(
        part,
        default_only=True,
        list_price_ratio=ratio,
        quota_share_ratio=ratio if quota is None else quota,
    )


def _golden_part() -> rm.WhatIfs:
    report = decode_report((GOLDEN / "report-build.json").read_bytes())
    assert isinstance(report, rm.Report)
    return report.what_ifs_informational


def test_the_summary_line_never_promotes_a_policy_that_costs_more() -> None:
    """In the golden report the policy that cuts pressure most at 5% retrieval
    (INPUT_THRESHOLD_COMPACTOR on openai-codex-responses, quota x1.1045) costs more than the
    5% limit: the line names the best one within the limit instead, in both views."""
    part = _golden_part()
    at_default = [
        (at.pressure_reduction, row.policy, at)
        for rows in part.per_api.values()
        for row in rows
        for at in row.sensitivities
        if RateLabel.DEFAULT in at.labels
    ]
    overall = max(at_default, key=lambda entry: entry[0])
    assert overall[1] is WhatIfId.INPUT_THRESHOLD_COMPACTOR
    assert overall[2].quota_share_ratio is not None and overall[2].quota_share_ratio > 1.05
    within = [
        entry
        for entry in at_default
        if entry[2].list_price_ratio is not None
        and entry[2].quota_share_ratio is not None
        and max(entry[2].list_price_ratio, entry[2].quota_share_ratio) <= 1.05
    ]
    best = max(within, key=lambda entry: entry[0])
    line = summary_line(part)
    assert line.startswith(
        "What-ifs (informational, never gating): within the 5.0% cost limit,"
        f" {best[1].value} reduces pressure most, 40.0% on openai-codex-responses"
    )
    assert WhatIfId.INPUT_THRESHOLD_COMPACTOR.value not in line


def test_the_summary_line_says_when_every_policy_that_helps_costs_more() -> None:
    """When every policy that reduces pressure costs more than the limit in either view (or
    its cost is unbounded), the line says so plainly and names none."""
    expected = (
        "What-ifs (informational, never gating): every policy that reduces pressure costs"
        " more than the 5.0% limit at 5.0% retrieval (--details)"
    )
    part = _golden_part()
    assert summary_line(_with_ratios(part, 1.06)) == expected
    assert summary_line(_with_ratios(part, 1.0, quota=1.0500001)) == expected
    assert summary_line(_with_ratios(part, None)) == expected


def test_a_policy_exactly_at_the_limit_is_within_it() -> None:
    """The limit is inclusive, compared as the decimal the policy states (1.05, not the
    nearest double above it): x1.05 in both views still gets named."""
    line = summary_line(_with_ratios(_golden_part(), 1.05))
    assert "reduces pressure most" in line
    assert "INPUT_THRESHOLD_COMPACTOR reduces pressure most" in line
    assert "x1.0500 list price, x1.0500 quota" in line
