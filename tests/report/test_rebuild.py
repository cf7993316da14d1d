"""A reader rebuilds every printed cost component from the printed blends and counts
(R-OUT-4 decision): to 1e-9 relative, on the `build` golden report, whose components are all
non-zero. With 9 decimal places instead of 12 significant digits a quota-share blend of
2.26e-09 printed as 2e-09 and this failed by 13%."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from clearing_analysis.policy import simulation_policy
from clearing_analysis.synth import generate

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "report-build.json"
SEED, CONVERSATIONS = 20261129, 6  # tests/golden/README.md


@pytest.fixture(scope="module")
def routes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """The build corpus's routes (the report never prints route prices), by API."""
    out = tmp_path_factory.mktemp("rebuild") / "build"
    generate(out, SEED, conversations=CONVERSATIONS, profile="build")
    entries = json.loads((out / "routes.json").read_text(encoding="utf-8"))
    return {entry["api"]: entry for entry in entries}


def _f(value: float) -> Fraction:
    """A printed number as the decimal it reads as."""
    return Fraction(repr(value))


def _weights(route: dict[str, Any], view: str) -> dict[str, Fraction]:
    if view == "listDelta":
        return {k: _f(v) / 10**6 for k, v in route["prices"].items()}
    return {k: _f(v) / _f(route["quotaBudget"]) for k, v in route["quota"].items()}


def _rebuilt(part: dict[str, Any], at: dict[str, Any], view: str, route: dict[str, Any]) -> dict:
    """R-CM-7's components from printed figures only."""
    cost, pressure = part["cost"], part["pressure"]
    w = _weights(route, view)
    blend = _f(cost["listPriceBlend" if view == "listDelta" else "quotaShareBlend"])
    n = Fraction(part["requests"]["requests"])
    s, g = Fraction(pressure["admitted"]), Fraction(pressure["growth"])
    c_off = _f(pressure["off"])
    c_on = next(_f(p["on"]) for p in pressure["sensitivities"] if p["rate"] == at["rate"])
    pfx = _f(cost["meanObservedPrefix"])
    rate = _f(at["rate"])
    per_cycle = s / c_off
    cycle = (
        route["summaryInputTokens"] * w["input"]
        + route["summaryOutputTokens"] * w["output"]
        + pressure["drain"] * w["cacheWrite"]
    )
    cleared = part["simulation"]["clearedResults"]
    return {
        "retained": n * per_cycle / 2 * blend,
        "removed.observed": -cost["removedObservedTokens"] * blend,
        "removed.extension": -c_on * (n / g) * per_cycle * min(per_cycle, pfx) * blend,
        "summary.cycleChange": (c_on - c_off) * cycle,
        "summary.enlargedSummaries": (c_on * per_cycle + cost["summaryClearedTokens"]) * w["input"],
        "retrieval.roundTrips": rate
        * cleared
        * (pfx * blend + simulation_policy().retrieval_output_tokens * w["output"]),
        "retrieval.returnedHistory": rate * pressure["retrieved"] * blend * (n / c_on) / 2,
    }


def _printed(delta: dict[str, Any]) -> dict[str, Fraction]:
    return {
        "retained": _f(delta["retained"]),
        **{f"removed.{k}": _f(delta["removed"][k]) for k in ("observed", "extension")},
        **{f"summary.{k}": _f(delta["summary"][k]) for k in ("cycleChange", "enlargedSummaries")},
        **{f"retrieval.{k}": _f(delta["retrieval"][k]) for k in ("roundTrips", "returnedHistory")},
    }


def test_every_component_is_rebuilt_to_a_billionth(routes: dict[str, dict[str, Any]]) -> None:
    """Each API, view and rate: |printed - rebuilt| <= 1e-9 |rebuilt|, and the printed
    components add up to the printed on - off exactly."""
    report = json.loads(GOLDEN.read_text(encoding="utf-8"))
    checked = 0
    for api, part in report["perApi"].items():
        for at in part["cost"]["sensitivities"]:
            for view, figures in (("listDelta", "listPrice"), ("quotaShareDelta", "quotaShare")):
                printed = _printed(at[view])
                for name, value in _rebuilt(part, at, view, routes[api]).items():
                    assert abs(printed[name] - value) <= abs(value) / 10**9, (api, view, name)
                    checked += value != 0
                on_minus_off = _f(at[figures]["on"]) - _f(at[figures]["off"])
                assert sum(printed.values(), Fraction(0)) == on_minus_off
    assert checked >= 100  # not vacuous: the build corpus clears in every API
