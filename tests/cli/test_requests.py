"""One mapping from parsed options to a command's request (cli._requests)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from clearing_analysis.cli._options import DEFAULT_RETRIEVAL_RATE, UsageTable
from clearing_analysis.cli._requests import UnmappedPathError, request_from
from clearing_analysis.codes.errors import InputInvalidError
from clearing_analysis.inputs.period import Period
from clearing_analysis.inputs.requests import (
    AnalyzeRequest,
    DemoRequest,
    OutputRequest,
    parse_retrieval_rate,
)
from clearing_analysis.policy import gate_policy
from tests.cli._guarded import invoke

PARSED = {
    "journals": [Path("a"), Path("b")],
    "sidecar": Path("s"),
    "routes": Path("r"),
    "retrieval_rate": 0.2,
    "since": "2026-06-01",
    "until": None,
    "by": UsageTable.DAY,
    "json_output": True,
    "details": False,
    "fail_on": None,
}


def test_parsed_values_become_the_request() -> None:
    """Lists become tuples, --since/--until the period, --retrieval-rate its exact decimal,
    --by the usage_by flag; options the request has no field for (--json) are left out."""
    request = request_from(AnalyzeRequest, PARSED)
    assert request.journals == (Path("a"), Path("b"))
    assert request.retrieval_rate == Fraction(1, 5)
    assert request.period == Period(since_ms=1_780_272_000_000)
    assert request.usage_by is True
    assert request.out is None


def test_a_choice_becomes_its_value() -> None:
    """`--by day` reaches the demo's request as the view's name of the table."""
    request = request_from(
        DemoRequest, {"seed": 1, "conversations": 2, "profile": "mixed", "by": UsageTable.DAY}
    )
    assert request.by == "day"


def test_a_path_no_field_takes_is_refused() -> None:
    """A path parameter that the request has no field for is refused, never dropped."""
    with pytest.raises(UnmappedPathError):
        request_from(OutputRequest, {"out": Path("o"), "extra": Path("x")})
    with pytest.raises(UnmappedPathError):
        request_from(OutputRequest, {"extra": [Path("x")]})


def test_a_refused_value_is_its_fixed_code() -> None:
    """A rate out of range or a bad date is INPUT_INVALID from the request, never echoed."""
    with pytest.raises(InputInvalidError) as caught:
        request_from(AnalyzeRequest, {**PARSED, "retrieval_rate": 1.5})
    assert caught.value.detail == "RETRIEVAL_RATE_OUT_OF_RANGE"
    with pytest.raises(InputInvalidError) as caught:
        request_from(AnalyzeRequest, {**PARSED, "since": "yesterday"})
    assert caught.value.detail == "PERIOD_NOT_A_DATE"


def test_the_default_rate_is_the_policys_in_the_option_and_the_request() -> None:
    """The CLI's default, its help text and the request's default are policy/gate.json's."""
    policy = gate_policy()
    assert policy.default_retrieval_rate == DEFAULT_RETRIEVAL_RATE
    absent = request_from(AnalyzeRequest, {**PARSED, "retrieval_rate": None})
    assert absent.retrieval_rate == parse_retrieval_rate(policy.default_retrieval_rate)


@pytest.mark.parametrize("command", ["analyze", "explore"])
def test_the_help_states_the_policy_rates(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """--retrieval-rate's help says the policy's default and the rates always reported."""
    done = invoke([command, "--help"], capsys)
    text = " ".join(done.stdout.split())
    policy = gate_policy()
    assert f"(default {policy.default_retrieval_rate:g}, pending lookup-pilot evidence)" in text
    assert "0, 5% and 20% are always reported too" in text
    assert f"[default: {policy.default_retrieval_rate:g}]" in text
    assert list(policy.retrieval_sensitivities) == [0, 0.05, 0.2]
