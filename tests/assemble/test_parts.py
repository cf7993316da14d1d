"""The per-API parts from hand-built sums: requests, usage at list prices, the usage tables,
web yield, escaping and the analyzed period."""

from __future__ import annotations

import json
from fractions import Fraction

from clearing_analysis.assemble.parts import (
    escaping_part,
    period_part,
    recorded_list_price,
    requests_part,
    usage_breakdown,
    usage_part,
    web_part,
)
from clearing_analysis.inputs.configs import Api, Route, Routes, decode_routes
from clearing_analysis.inputs.period import Period
from clearing_analysis.simulation.totals import CategorySums, RequestSums
from tests._figures import cleared_one
from tests._seed_route import SEED_ROUTE

# The seed route's prices per million tokens: input 3, cache read 0.3, write 3.75, output 15.
ROUTES: Routes = decode_routes(json.dumps([SEED_ROUTE]).encode())
ROUTE: Route = ROUTES.by_api[Api.ANTHROPIC_MESSAGES]


def _sums(**fields: int) -> RequestSums:
    return RequestSums(**fields)


def test_requests_part_counts_the_fallback_share() -> None:
    """8 requests of which 2 fall back: a share of 0.25; no request, no share."""
    part = requests_part(_sums(requests=8, fallback=2))
    assert (part.requests, part.fallback, part.fallback_share) == (8, 2, 0.25)
    assert requests_part(RequestSums()).fallback_share is None


def test_recorded_list_price_weights_each_token_kind_by_its_price() -> None:
    """1M input, 2M cache reads, 0.4M writes, 0.1M output at 3/0.3/3.75/15 per million:
    3 + 0.6 + 1.5 + 1.5 = 6.6 exactly; the fallback's tokens are not priced."""
    sums = _sums(
        input=1_000_000,
        cache_read=2_000_000,
        cache_write=400_000,
        output=100_000,
        fallback_context=9_000_000,
        fallback_output=9_000_000,
    )
    assert recorded_list_price(sums, ROUTE) == Fraction(33, 5)


def test_usage_part_counts_only_observed_requests() -> None:
    """5 requests with 1 fallback: 4 observed; the sums as recorded; the cost 6.6."""
    sums = _sums(
        requests=5,
        fallback=1,
        input=1_000_000,
        cache_read=2_000_000,
        cache_write=400_000,
        output=100_000,
    )
    part = usage_part(sums, ROUTE)
    assert (part.observed_requests, part.input, part.cache_read, part.cache_write) == (
        4,
        1_000_000,
        2_000_000,
        400_000,
    )
    assert (part.output, part.list_price_cost) == (100_000, 6.6)


def test_usage_breakdown_groups_by_session_day_and_model() -> None:
    """Three sums over journals 7 and 3, days 0 and 20_454, models m and unlisted: sessions
    numbered in journal order (3 first), days as UTC dates ascending, the unlisted model
    last; each row's tokens and cost summed (1M input costs 3)."""
    api = Api.ANTHROPIC_MESSAGES.value
    usage = {
        (api, 7, 20_454, "m"): _sums(requests=1, input=1_000_000),
        (api, 3, 0, None): _sums(requests=2, input=2_000_000),
        (api, 7, 0, "m"): _sums(requests=4, output=100_000),
    }
    got = usage_breakdown(usage, ROUTES)
    assert [(row.session, row.requests, row.list_price_cost) for row in got.by_session] == [
        (1, 2, 6.0),
        (2, 5, 4.5),
    ]
    assert [(row.day, row.requests, row.input, row.output) for row in got.by_day] == [
        ("1970-01-01", 6, 2_000_000, 100_000),
        ("2026-01-01", 1, 1_000_000, 0),
    ]
    assert [(row.model, row.requests, row.list_price_cost) for row in got.by_model] == [
        ("m", 5, 4.5),
        (None, 2, 6.0),
    ]


def test_usage_breakdown_of_nothing_is_three_empty_tables() -> None:
    """No usage: no session, no day, no model row."""
    got = usage_breakdown({}, ROUTES)
    assert (got.by_session, got.by_day, got.by_model) == ((), (), ())


def test_web_part_yields_the_cleared_bytes_share() -> None:
    """400 of 1,600 web text bytes cleared: a yield of 0.25; the counts passed through."""
    web = CategorySums(results=10, text_bytes=1_600, cleared=3, cleared_text_bytes=400)
    part = web_part(web, redacted=2, losses=1)
    assert (part.results, part.cleared, part.yield_share) == (10, 3, 0.25)
    assert (part.redacted_web_envelopes, part.structured_scan_losses) == (2, 1)
    assert web_part(CategorySums(), 0, 0).yield_share is None


def test_escaping_part_sums_the_cleared_rows() -> None:
    """Rows of 100 and 300 text bytes escaped to 110 and 390: 500 over 400, ratio 1.25."""
    cleared = cleared_one(
        [{"text_bytes": 100, "escaped_bytes": 110}, {"text_bytes": 300, "escaped_bytes": 390}]
    )
    part = escaping_part(cleared)
    assert (part.original_bytes, part.escaped_bytes, part.escaped_to_original_ratio) == (
        400,
        500,
        1.25,
    )


def test_escaping_part_of_no_row_has_no_ratio() -> None:
    """No cleared row: zero bytes and no ratio."""
    part = escaping_part(cleared_one([]))
    assert (part.original_bytes, part.escaped_bytes, part.escaped_to_original_ratio) == (0, 0, None)


def test_period_part_keeps_both_bounds() -> None:
    """The period's since and until, in milliseconds, as given."""
    part = period_part(Period(since_ms=1_000, until_ms=86_401_000))
    assert (part.since_ms, part.until_ms) == (1_000, 86_401_000)


def test_period_part_keeps_an_open_side_open() -> None:
    """An unbounded period: both bounds null."""
    part = period_part(Period())
    assert (part.since_ms, part.until_ms) == (None, None)
