"""What a saved report must satisfy beyond its JSON Schema before anything renders it (`show`).

A report read back is untrusted input: it may have been edited, truncated or made up. The
schema (policy/schemas/*.schema.json) states types, enums, required fields and lower bounds;
it cannot state the invariants below, which every report this version writes satisfies and
the human view relies on. `report.encode.decode_report` checks them after the schema and the
typed decoding; a report that breaks one is `INPUT_INVALID REPORT_NOT_A_REPORT`, never a crash
of the renderer (R-REL-1):

- every number is a finite float or an integer of at most `MAX_EXACT_INTEGER` in magnitude
  (the largest integer a JSON number holds exactly in a double, what every reader of the
  report can take; a 401-digit integer is valid JSON that no renderer can turn into a float);
- every histogram has at least one edge, strictly increasing edges, and exactly one count per
  edge (`histogram_consistent`; `below` counts values under the first edge, so there must be
  one);
- the cold boundaries' estimates are a part of all the estimates: `coldEstimates` has the
  edges of `estimates` and no count (bucket, `below`, `unknown`) above the one of `estimates`
  (the page draws the warm boundaries as the difference, bucket by bucket; found by the
  fuzzer, a report target crash in CI);
- an API's gate lists each of the six criteria exactly once (the summary shows the measured
  value of the criterion behind each reason; a schema-valid gate may list any, found by the
  structure-aware property tests);
- a cost model is defined exactly when it has figures at some retrieval rate (the human view
  shows the figures at the gated rate, or at the first rate), and every list of figures by
  retrieval rate (pressure, cost, all-uncached) is in strictly increasing rate order, as the
  sensitivities are built (models.rates);
- the informational what-ifs list, for each API, every reviewed policy exactly once, each with
  no more warm clearing events than clearing events, figures by rate in increasing rate order,
  and figures exactly when its models are defined;
- the usage tables of `--by` number their sessions 1, 2, ... in order, list each UTC day once
  in ascending order, and name a model only as the pinned pi-ai catalog lists it (or null):
  an edited report cannot carry a recorded model name, or any other text, in them.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Final

import msgspec

from clearing_analysis import ranges
from clearing_analysis.gate import ApiGate, CriterionId
from clearing_analysis.policy import WhatIfId, catalog_model_ids
from clearing_analysis.report import model as rm

# 2**53 - 1: beyond it a JSON number no longer holds every integer exactly (RFC 8259 §6).
MAX_EXACT_INTEGER: Final = ranges.MAX_EXACT_INTEGER


def numbers_in_range(value: Any) -> bool:
    """Whether every number in parsed JSON is a finite float or an exact integer (iterative)."""
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, bool):
            continue
        if isinstance(node, int):
            if abs(node) > MAX_EXACT_INTEGER:
                return False
        elif isinstance(node, float):
            if not math.isfinite(node):
                return False
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list | tuple):
            stack.extend(node)
    return True


def histogram_consistent(histogram: rm.Histogram) -> bool:
    """One count per edge, at least one edge, edges strictly increasing."""
    edges = histogram.edges
    return (
        len(edges) >= 1
        and len(histogram.counts) == len(edges)
        and all(low < high for low, high in itertools.pairwise(edges))
    )


def _part_of(part: rm.Histogram, whole: rm.Histogram) -> bool:
    """Whether `part` counts a subset of what `whole` counts, bucket by bucket."""
    return (
        part.edges == whole.edges
        and part.below <= whole.below
        and part.unknown <= whole.unknown
        and all(some <= every for some, every in zip(part.counts, whole.counts, strict=False))
    )


def _increasing(rates: list[float]) -> bool:
    return all(low < high for low, high in itertools.pairwise(rates))


def _part_consistent(part: msgspec.Struct) -> bool:
    """The invariants of one part of a report (module docstring); True for any other part."""
    if isinstance(part, rm.Histogram):
        return histogram_consistent(part)
    if isinstance(part, rm.Cost):
        return part.defined == bool(part.sensitivities) and _increasing(
            [at.rate for at in part.sensitivities]
        )
    if isinstance(part, rm.Evidence):
        return _part_of(part.cold_estimates, part.estimates)
    if isinstance(part, rm.Pressure | rm.AllUncached):
        return _increasing([at.rate for at in part.sensitivities])
    if isinstance(part, rm.WhatIfPolicy):
        return (
            part.defined == bool(part.sensitivities)
            and part.warm_clearing_events <= part.clearing_events
            and _increasing([at.rate for at in part.sensitivities])
        )
    if isinstance(part, rm.WhatIfs):
        # Each API lists every reviewed policy once: the renderers' table and chart rows.
        return all(
            sorted(row.policy for row in rows) == sorted(WhatIfId) for rows in part.per_api.values()
        )
    if isinstance(part, rm.ModelUsage):
        # A model is named only as the pinned catalog names it (docs/privacy.md).
        return part.model is None or part.model in catalog_model_ids()
    if isinstance(part, rm.UsageBreakdown):
        days = [row.day for row in part.by_day]
        return [row.session for row in part.by_session] == list(
            range(1, len(part.by_session) + 1)
        ) and days == sorted(set(days))
    if isinstance(part, ApiGate):
        ids = [criterion.id for criterion in part.criteria]
        return len(ids) == len(CriterionId) and set(ids) == set(CriterionId)
    return True


def _parts(report: msgspec.Struct) -> list[msgspec.Struct]:
    """Every struct anywhere in a decoded report, itself included (iterative walk)."""
    found: list[msgspec.Struct] = []
    stack: list[Any] = [report]
    while stack:
        node = stack.pop()
        if isinstance(node, msgspec.Struct):
            found.append(node)
            stack.extend(getattr(node, name) for name in node.__struct_fields__)
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list | tuple):
            stack.extend(node)
    return found


def invariants_hold(report: msgspec.Struct) -> bool:
    """Whether a schema-valid, decoded report satisfies what its schema cannot state."""
    return all(_part_consistent(part) for part in _parts(report))


__all__ = ["MAX_EXACT_INTEGER", "histogram_consistent", "invariants_hold", "numbers_in_range"]
