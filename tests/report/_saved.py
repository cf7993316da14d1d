"""Saved reports of both kinds for the read-back tests, and the edits that broke `show`.

The analysis report is the checked-in golden one; the explore report is made here, by the
library, from the pi writer's sessions (tests/data/pi-sessions/writer). Each edit takes a
parsed report and returns the bytes of an edited copy, so a reproducer is always built on
today's valid report (a test checks the unedited bytes are accepted first).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from clearing_analysis.inputs.requests import ExploreRequest
from tests._seed_route import SEED_ROUTE

ROOT = Path(__file__).resolve().parents[2]
GOLDEN_REPORT = ROOT / "tests" / "golden" / "report-build.json"
WRITER_SESSIONS = ROOT / "tests" / "data" / "pi-sessions" / "writer"
WRITER_API = "openai-completions"

Edit = Callable[[Any], bytes]


def explore_report_bytes(scratch: Path) -> bytes:
    """An explore report of the writer's sessions, as `explore --json` writes it."""
    from clearing_analysis.pipeline.jobs import explore_job

    routes = scratch / "routes.json"
    routes.write_text(json.dumps([{**SEED_ROUTE, "api": WRITER_API}]))
    return explore_job(ExploreRequest(sessions=(WRITER_SESSIONS,), routes=routes, workers=1)).data


def _nodes(value: Any) -> Iterator[tuple[Any, Any, Any]]:
    """(container, key, child) for every member of parsed JSON, depth first, in order."""
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        children = [(node, key, child) for key, child in items]
        yield from children
        stack.extend(child for _, _, child in reversed(children) if isinstance(child, dict | list))


def _first(value: Any, wanted: Callable[[Any, Any], bool]) -> tuple[Any, Any]:
    for container, key, child in _nodes(value):
        if wanted(key, child):
            return container, key
    raise AssertionError("the report has no such member")


def _is_float(_key: Any, child: Any) -> bool:
    return isinstance(child, float)


def _is_histogram(_key: Any, child: Any) -> bool:
    return isinstance(child, dict) and set(child) == {"edges", "counts", "below", "unknown"}


def _dump(value: Any) -> bytes:
    return json.dumps(value, allow_nan=True).encode()


def _set_float(replacement: float) -> Edit:
    def edit(report: Any) -> bytes:
        container, key = _first(report, _is_float)
        container[key] = replacement
        return _dump(report)

    return edit


def _huge_integer(report: Any) -> bytes:
    """A 401-digit integer as a histogram's `unknown` count: valid JSON, a schema-valid count
    that decodes to a Python int and used to overflow `float()` in the human view."""
    container, key = _first(report, _is_histogram)
    container[key]["unknown"] = 10**400
    return _dump(report)


def _counts_beyond_edges(report: Any) -> bytes:
    container, key = _first(report, _is_histogram)
    container[key]["counts"].append(1)
    return _dump(report)


def _is_defined_cost(_key: Any, child: Any) -> bool:
    return isinstance(child, dict) and child.get("defined") is True and "sensitivities" in child


def _cost_without_rates(report: Any) -> bytes:
    """A defined cost model with no figures at any rate (the schema allows an empty array);
    found by `make fuzz` after the first five classes were fixed."""
    container, key = _first(report, _is_defined_cost)
    container[key]["sensitivities"] = []
    return _dump(report)


def _below_without_edges(report: Any) -> bytes:
    container, key = _first(report, _is_histogram)
    container[key].update(edges=[], counts=[], below=3)
    return _dump(report)


def _is_evidence(_key: Any, child: Any) -> bool:
    return isinstance(child, dict) and "coldEstimates" in child and "estimates" in child


def _cold_estimates_other_edges(report: Any) -> bytes:
    """Cold estimates on fewer edges than all the estimates, each histogram consistent alone:
    the page's warm bars (all minus cold, bucket by bucket) had no pairs; found by the report
    fuzz target in CI (ValueError in the page's estimates figure)."""
    container, key = _first(report, _is_evidence)
    cold = container[key]["coldEstimates"]
    cold.update(edges=cold["edges"][:-1], counts=cold["counts"][:-1])
    return _dump(report)


def _cold_estimates_beyond_all(report: Any) -> bytes:
    """More cold boundaries in a bucket than boundaries in it: a negative warm count."""
    container, key = _first(report, _is_evidence)
    evidence = container[key]
    evidence["coldEstimates"]["counts"][0] = evidence["estimates"]["counts"][0] + 1
    return _dump(report)


# The reproducers of the saved-report crash classes (docs/security.md), by name, with the code
# each must now give: (edit, INPUT_INVALID detail).
REPRODUCERS: dict[str, tuple[Edit, str]] = {
    "nan": (_set_float(float("nan")), "REPORT_MALFORMED"),
    "infinity": (_set_float(float("inf")), "REPORT_MALFORMED"),
    "minus-infinity": (_set_float(float("-inf")), "REPORT_MALFORMED"),
    "counts-beyond-edges": (_counts_beyond_edges, "REPORT_NOT_A_REPORT"),
    "below-without-edges": (_below_without_edges, "REPORT_NOT_A_REPORT"),
    "401-digit-integer": (_huge_integer, "REPORT_NOT_A_REPORT"),
    "cost-without-rates": (_cost_without_rates, "REPORT_NOT_A_REPORT"),
    "cold-estimates-other-edges": (_cold_estimates_other_edges, "REPORT_NOT_A_REPORT"),
    "cold-estimates-beyond-all": (_cold_estimates_beyond_all, "REPORT_NOT_A_REPORT"),
}


def _first_api(report: Any) -> str:
    return sorted(report["perApi"])[0]


def _what_if_ratio_1e308(report: Any) -> bytes:
    """Every what-if cost ratio of one API at 1e308: the page's cost-change chart drew
    100 x (ratio - 1), an infinity (decimal.InvalidOperation in leather's ticks)."""
    for row in report["whatIfsInformational"]["perApi"][_first_api(report)]:
        for at in row["sensitivities"]:
            at["listPriceRatio"] = 1e308
    return _dump(report)


def _cost_rate_1e308(report: Any) -> bytes:
    """A cost model with one retrieval rate, 1e308: the page named the cost chart by the rate
    in whole percent, round(1e308 x 100) (OverflowError)."""
    cost = report["perApi"][_first_api(report)]["cost"]
    cost["sensitivities"] = cost["sensitivities"][-1:]
    cost["sensitivities"][0]["rate"] = 1e308
    return _dump(report)


def _no_tool_results(report: Any) -> bytes:
    """No tool-class rows anywhere (per API, and over all APIs: an analysis report's overall
    tool results, an explore report's toolResultsAllApis): the page's tool-class charts had no
    category (UnboundLocalError in leather)."""
    for part in report["perApi"].values():
        part["toolResults"] = []
    if "overall" in report:
        report["overall"]["toolResults"] = []
    else:
        report["toolResultsAllApis"] = []
    return _dump(report)


# Schema-valid reports whose page ended in ANALYZER_FAULT: `show` accepts each, and every
# renderer renders it now (by name; each builds on either report kind).
RENDERED: dict[str, Edit] = {
    "what-if-ratio-1e308": _what_if_ratio_1e308,
    "cost-rate-1e308": _cost_rate_1e308,
    "no-tool-results": _no_tool_results,
}


def rendered(base: bytes, name: str) -> bytes:
    """The named accepted-and-rendered reproducer built on a saved report's bytes."""
    return RENDERED[name](json.loads(base))


def reproducer(base: bytes, name: str) -> bytes:
    """The named reproducer built on a saved report's bytes."""
    edit, _ = REPRODUCERS[name]
    return edit(json.loads(base))
