"""The reports' informational what-if part (docs/model.md, section 9; docs/report.md): its
reference row is the gated figures, its schema part cannot hold a verdict, and a saved report
whose part breaks what the renderers rely on is refused like any other broken report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from clearing_analysis.errors import InputInvalidError
from clearing_analysis.models.rates import RateLabel
from clearing_analysis.policy import WhatIfId, read_policy_bytes
from clearing_analysis.report import model as rm
from clearing_analysis.report.encode import decode_report
from clearing_analysis.report.view import render_text
from clearing_analysis.report.what_ifs_view import WHERE_EVALUATED, summary_line

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
    flat = msgspec.structs.replace(
        part,
        per_api={
            api: tuple(
                msgspec.structs.replace(
                    row,
                    sensitivities=tuple(
                        msgspec.structs.replace(at, pressure_reduction=0.0)
                        for at in row.sensitivities
                    ),
                )
                for row in rows
            )
            for api, rows in part.per_api.items()
        },
    )
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
