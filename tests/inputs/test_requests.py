"""A command's request checks its values once, when it is made (inputs.requests)."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import pytest

from clearing_analysis.codes.errors import InputInvalidError
from clearing_analysis.inputs.paths import JOURNAL_RULES, SESSION_RULES
from clearing_analysis.inputs.period import EVERYTHING
from clearing_analysis.inputs.requests import (
    AnalyzeRequest,
    ExploreRequest,
    ReplayRequest,
    parse_retrieval_rate,
)
from clearing_analysis.policy import gate_policy

NATIVE = {"journals": (Path("j"),), "sidecar": Path("s"), "routes": Path("r")}


class TestRetrievalRate:
    """R-CLI-4: a fraction in [0, 1], its default the policy's."""

    def test_the_default_is_the_policys(self) -> None:
        """Absent, the rate is policy/gate.json's defaultRetrievalRate, as an exact decimal."""
        default = gate_policy().default_retrieval_rate
        expected = Fraction(repr(default))
        assert parse_retrieval_rate(None) == expected == Fraction(1, 20)
        assert AnalyzeRequest(**NATIVE).retrieval_rate == expected  # type: ignore[arg-type]
        explore = ExploreRequest(sessions=(Path("s"),), routes=Path("r"))
        assert explore.retrieval_rate == expected

    @pytest.mark.parametrize(
        ("given", "expected"),
        [
            (0.0, Fraction(0)),
            (1.0, Fraction(1)),
            (0.2, Fraction(1, 5)),
            (0.123, Fraction(123, 1000)),
        ],
    )
    def test_a_supplied_rate_is_kept_as_its_decimal(self, given: float, expected: Fraction) -> None:
        """The rate typed is the rate gated: 0.2 is 1/5, not the float nearest it."""
        assert parse_retrieval_rate(given) == expected

    @pytest.mark.parametrize(
        "given",
        [-0.01, 1.0000001, math.nan, math.inf, -math.inf],
        ids=["negative", "above-one", "nan", "infinity", "minus-infinity"],
    )
    def test_out_of_range_is_input_invalid(self, given: float) -> None:
        """Anything outside [0, 1], or not a number, is INPUT_INVALID with its fixed detail."""
        with pytest.raises(InputInvalidError) as caught:
            parse_retrieval_rate(given)
        assert caught.value.detail == "RETRIEVAL_RATE_OUT_OF_RANGE"


class TestRunRequests:
    """What the session and the pipeline read of a run's request."""

    def test_native_requests_select_journals(self) -> None:
        """replay and analyze select with the journal rules, have a sidecar, and analyze
        alone may have a page; the period defaults to everything."""
        replay = ReplayRequest(**NATIVE)  # type: ignore[arg-type]
        analyze = AnalyzeRequest(**NATIVE, html=Path("p"))  # type: ignore[arg-type]
        for request in (replay, analyze):
            assert (request.histories, request.rules) == ((Path("j"),), JOURNAL_RULES)
            assert (request.sidecar, request.period) == (Path("s"), EVERYTHING)
        assert (replay.html, analyze.html) == (None, Path("p"))

    def test_explore_requests_select_sessions_without_a_sidecar(self) -> None:
        """explore selects with the session rules and names no sidecar, record or proof."""
        request = ExploreRequest(sessions=(Path("a"), Path("b")), routes=Path("r"))
        assert (request.histories, request.rules) == ((Path("a"), Path("b")), SESSION_RULES)
        absent = (request.sidecar, request.qualification, request.agent_config)
        assert absent == (None, None, None)
        assert request.app_allowlist is None

    @pytest.mark.parametrize("workers", [0, -1])
    def test_workers_below_one_are_a_programming_error(self, workers: int) -> None:
        """The CLI refuses them (min=1); a library caller gets an error, never a hang."""
        with pytest.raises(ValueError, match="workers"):
            ReplayRequest(**NATIVE, workers=workers)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="workers"):
            ExploreRequest(sessions=(Path("s"),), routes=Path("r"), workers=workers)

    def test_a_signed_request_writes_to_a_file(self) -> None:
        """A signing key without --out cannot be requested (the CLI says USAGE_ERROR first)."""
        with pytest.raises(ValueError, match="file"):
            AnalyzeRequest(**NATIVE, sign_key=Path("k"))  # type: ignore[arg-type]
        signed = AnalyzeRequest(**NATIVE, sign_key=Path("k"), out=Path("o"))  # type: ignore[arg-type]
        assert signed.sign_key == Path("k")

    def test_requests_are_frozen(self) -> None:
        """A request cannot change once checked."""
        request = ReplayRequest(**NATIVE)  # type: ignore[arg-type]
        with pytest.raises(AttributeError):
            request.workers = 3  # type: ignore[misc]
