"""The two report builders on a run with no evidence: what each part says of nothing, the
APIs in enum order, the usage tables only when asked, byte-identical encodings."""

from __future__ import annotations

import json
from fractions import Fraction

from clearing_analysis.assemble.analysis import Stages, build_report
from clearing_analysis.assemble.explore import ExploreStages, build_explore
from clearing_analysis.eligibility.totals import combine
from clearing_analysis.gate import DeferReason, Verdict
from clearing_analysis.inputs.configs import Api, Routes, decode_routes
from clearing_analysis.qualify.verify import check_qualification
from clearing_analysis.report import explore_model as em
from clearing_analysis.report import model as rm
from clearing_analysis.report.encode import decode_report, encode_explore, encode_report
from clearing_analysis.simulation.totals import Combiner, RequestSums, SimulationTotals
from tests._seed_route import SEED_ROUTE

# Listed out of enum order, so that the report's order is its own.
ROUTES: Routes = decode_routes(
    json.dumps([SEED_ROUTE | {"api": "openai-responses"}, SEED_ROUTE]).encode()
)
APIS = tuple(ROUTES.by_api)


def _simulation() -> SimulationTotals:
    """No boundary; two requests of 1M input tokens on 2026-01-01 (day 20,454), at 3 per
    million: a cost of 6."""
    simulation = Combiner(APIS).result(0)
    simulation.usage[(Api.ANTHROPIC_MESSAGES.value, 0, 20_454, None)] = RequestSums(
        requests=2, input=2_000_000
    )
    return simulation


def _report(*, usage_by: bool) -> rm.Report:
    return build_report(
        Stages(
            totals=combine([], APIS),
            simulation=_simulation(),
            routes=ROUTES,
            qualification=check_qualification(None),
            retrieval_rate=Fraction(1, 2),
            journal_bytes=1_234,
            image_id=None,
            usage_by=usage_by,
        )
    )


def test_no_evidence_defers_every_api_in_enum_order() -> None:
    """No boundary: each routed API defers (too few pressured and cold boundaries, payload
    unqualified), anthropic-messages before openai-responses, and so does the run."""
    report = _report(usage_by=False)
    assert list(report.per_api) == [Api.ANTHROPIC_MESSAGES, Api.OPENAI_RESPONSES]
    assert report.verdict is Verdict.DEFER
    gate = report.per_api[Api.ANTHROPIC_MESSAGES].gate
    assert gate.verdict is Verdict.DEFER
    assert set(gate.defer_reasons) == {
        DeferReason.REPRESENTATIVENESS_LOW,
        DeferReason.COLD_EVIDENCE_LOW,
        DeferReason.PAYLOAD_UNQUALIFIED,
    }
    assert (report.snapshot.journals_replayed, report.snapshot.journal_bytes) == (0, 1_234)
    assert report.retrieval_rate == 0.5


def test_the_usage_tables_only_when_asked() -> None:
    """Without --by no usage tables; with it, one session, one day, the unlisted model,
    each 2 requests costing 6."""
    assert _report(usage_by=False).usage_by is None
    usage = _report(usage_by=True).usage_by
    assert usage is not None
    assert [(row.session, row.requests, row.list_price_cost) for row in usage.by_session] == [
        (1, 2, 6.0)
    ]
    assert [(row.day, row.list_price_cost) for row in usage.by_day] == [("2026-01-01", 6.0)]
    assert [(row.model, row.requests) for row in usage.by_model] == [(None, 2)]


def test_the_report_encodes_the_same_bytes_and_decodes_back() -> None:
    """Two builds of the same stages encode byte-identically, and the bytes decode to the
    same report."""
    first, second = encode_report(_report(usage_by=True)), encode_report(_report(usage_by=True))
    assert first == second
    assert decode_report(first) == _report(usage_by=True)


def _explore() -> em.ExploreReport:
    return build_explore(
        ExploreStages(
            totals=combine([], APIS),
            simulation=_simulation(),
            routes=ROUTES,
            retrieval_rate=Fraction(1, 4),
            session_bytes=99,
        )
    )


def test_explore_of_nothing_reads_no_session_and_never_gates() -> None:
    """No session: none read, the 99 bytes counted, the upper bound, the APIs in enum
    order, the usage tables absent without --by, and the same bytes twice."""
    explored = _explore()
    assert explored.gating is False
    assert (explored.sessions.sessions_read, explored.sessions.session_bytes) == (0, 99)
    assert list(explored.per_api) == [Api.ANTHROPIC_MESSAGES, Api.OPENAI_RESPONSES]
    assert explored.per_api[Api.ANTHROPIC_MESSAGES].requests.requests == 0
    assert (explored.retrieval_rate, explored.usage_by) == (0.25, None)
    assert encode_explore(explored) == encode_explore(_explore())
