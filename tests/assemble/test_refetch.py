"""The observed re-fetch part: its Wilson interval, its assembly and its summary line."""

from __future__ import annotations

from pathlib import Path

import pytest

from clearing_analysis.assemble.refetch import population, refetches_part, wilson_interval
from clearing_analysis.inputs.configs import Api
from clearing_analysis.report import model as rm
from clearing_analysis.report.encode import decode_report
from clearing_analysis.report.text.refetches import summary_line
from clearing_analysis.simulation.refetch import RefetchSums, RefetchTally

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def test_wilson_interval_known_values() -> None:
    """5 of 10 gives 0.2366-0.7634 and 0 of 10 gives 0-0.2775 at 95%; no trial, none."""
    low, high = wilson_interval(5, 10, 0.95) or (0, 0)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    low, high = wilson_interval(0, 10, 0.95) or (1, 1)
    assert (low, round(high, 4)) == (0.0, 0.2775)
    assert wilson_interval(0, 0, 0.95) is None


def test_wilson_interval_is_asymmetric_off_the_middle() -> None:
    """2 of 10 at 95% (z = 1.96): centre (0.2 + 0.19207) / 1.38415 = 0.28326, half-width
    1.96 * sqrt(0.016 + 0.0096037) / 1.38415 = 0.22658, so 0.0567-0.5098; 10 of 10 gives
    0.7225-1 exactly at the top."""
    low, high = wilson_interval(2, 10, 0.95) or (0, 0)
    assert (round(low, 4), round(high, 4)) == (0.0567, 0.5098)
    low, high = wilson_interval(10, 10, 0.95) or (0, 0)
    assert (round(low, 4), high) == (0.7225, 1.0)


def test_wilson_interval_widens_with_confidence() -> None:
    """5 of 10 at 99% (z = 2.5758): half-width 2.5758 * sqrt(0.025 + 0.016587) / 1.66349
    = 0.3158 around 0.5, so 0.1842-0.8158."""
    low, high = wilson_interval(5, 10, 0.99) or (0, 0)
    assert (round(low, 4), round(high, 4)) == (0.1842, 0.8158)


def test_population_counts_share_and_histograms() -> None:
    """The share is re-fetched over comparable; the distances fill the turn and token
    histograms (0 turns in the first bucket, 1,500 tokens in the 1,000 one)."""
    sums = RefetchSums(results=12, comparable=10, refetched=2, refetched_after_write=1)
    sums.turns, sums.tokens = [0, 7], [1_500, 90_000]
    sums.bucket()
    assert (sums.turns, sums.tokens) == ([], [])
    part = population(sums)
    assert (part.results, part.comparable, part.refetched, part.refetched_after_write) == (
        12,
        10,
        2,
        1,
    )
    assert part.observed_share == pytest.approx(0.2)
    # 2 of 10 at the policy's 95%: the hand-computed 0.0567-0.5098 above.
    assert part.interval_low is not None and part.interval_high is not None
    assert (round(part.interval_low, 4), round(part.interval_high, 4)) == (0.0567, 0.5098)
    assert sum(part.distance_turns.counts) == 2 and part.distance_turns.counts[0] == 1
    assert part.distance_tokens.counts[1] == 1


def test_every_api_has_a_row_and_gating_is_false() -> None:
    """An API without a tally gets an empty one: no share, no interval."""
    part = refetches_part({Api.OPENAI_RESPONSES: RefetchTally()}, (Api.ANTHROPIC_MESSAGES,))
    assert part.gating is False
    empty = part.per_api[Api.ANTHROPIC_MESSAGES].cleared
    assert (empty.observed_share, empty.interval_low, empty.interval_high) == (None, None, None)


def test_summary_line_shows_the_share_rates_and_the_option() -> None:
    """With cleared results the line names the highest share, its interval, the gated rates
    and --retrieval-rate with that share, in one line of at most 80 columns."""
    report = decode_report((GOLDEN / "report-build.json").read_bytes())
    assert isinstance(report, rm.Report) and report.refetches_informational is not None
    line = summary_line(report.refetches_informational, report.retrieval_rate)
    shares = [
        r.cleared.observed_share
        for r in report.refetches_informational.per_api.values()
        if r.cleared.observed_share is not None
    ]
    assert line is not None and len(line) <= 80
    assert line.endswith(f"--retrieval-rate {max(shares):.4g}")
    assert "vs gated 0/5/20%" in line
    assert summary_line(None, 0.05) is None
