"""A unit's simulation tables reduced to fixed-size figures per API, as soon as they are made.

The report reads of the counted boundaries, the cleared results and the observed checkpoints
only counts, sums, maxima and fixed-edge histograms (docs/model.md, docs/report.md), and every
one of them adds up across units: a unit holds whole conversations (and their journals), and
the ordinals that tell conversations, lineages and journals apart are the unit's own. So each
unit sends these figures instead of one row per boundary and per cleared result, and the main
process adds them (`simulation.totals.Combiner`): what it holds no longer grows with the
corpus (R-PERF-1; docs/performance.md, "Memory against the corpus size").

The figures are the same functions of the same columns that the simulation's polars tables
give (`simulation.run.simulate`, `simulation.growth`); `tests/simulation/test_figures.py`
holds them to those table expressions on generated tables. Nothing here loads polars: a pool
worker reduces its own units.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec

from clearing_analysis.policy import gate_policy, histogram_edges


class Buckets(msgspec.Struct):
    """Counts of values by fixed edges, as `report.model.Histogram` states them: a value lands
    in the last bucket whose edge is <= it, the last bucket is open, `below` counts values under
    the first edge and `unknown` the values that were not known (None)."""

    edges: tuple[int, ...]
    counts: list[int]
    below: int = 0
    unknown: int = 0

    @classmethod
    def over(cls, edges: Sequence[int]) -> Buckets:
        """Empty buckets of `edges` (ascending)."""
        return cls(tuple(edges), [0] * len(edges))

    def add(self, value: int | None) -> None:
        """Count one value."""
        if value is None:
            self.unknown += 1
            return
        bucket = bisect.bisect_right(self.edges, value) - 1
        if bucket < 0:
            self.below += 1
        else:
            self.counts[bucket] += 1

    def extend(self, values: Iterable[int | None]) -> None:
        """Count every value."""
        for value in values:
            self.add(value)

    def merge(self, other: Buckets) -> None:
        """Add another part's counts of the same edges."""
        if other.edges != self.edges:
            raise ValueError("buckets of different edges cannot be added")
        self.counts = [a + b for a, b in zip(self.counts, other.counts, strict=True)]
        self.below += other.below
        self.unknown += other.unknown


def token_buckets() -> Buckets:
    """Empty buckets of the policy's token edges (policy/histograms.json)."""
    return Buckets.over(histogram_edges().tokens)


def _gap_buckets() -> Buckets:
    return Buckets.over(histogram_edges().request_gap_ms)


class BoundaryFigures(msgspec.Struct):
    """One API's counted boundaries: what the evidence, simulation and warm-rewrite parts read.

    `warm_*` are the pressured boundaries that were not cold (the gap known and within the
    cache's lifetime plus margin, or unknown); `overshoot` is the largest growth of E between
    two adjacent counted boundaries of one journal (turn t, then t + 1) with no observed
    checkpoint between them and both estimates from recorded usage (R-SIM-1), 0 with none
    (`models.route_check`)."""

    boundaries: int = 0
    lineages: int = 0
    pressured: int = 0
    pressured_lineages: int = 0
    cold_pressured: int = 0
    cold_pressured_lineages: int = 0
    admitting: int = 0  # cold pressured with at least the gate's admitted net tokens
    request_gaps_ms: Buckets = msgspec.field(default_factory=_gap_buckets)
    estimates: Buckets = msgspec.field(default_factory=token_buckets)
    cold_estimates: Buckets = msgspec.field(default_factory=token_buckets)
    clearing_points: int = 0
    batches: int = 0  # boundaries that cleared at least one result
    admitted_per_batch: Buckets = msgspec.field(default_factory=token_buckets)
    budget_stops: int = 0
    upper_bound_net_tokens: int = 0
    upper_bound_admitting: int = 0  # cold pressured with that many upper-bound net tokens
    warm_pressured: int = 0
    warm_pressured_unknown_gap: int = 0
    warm_pressured_tokens: int = 0  # Σ E over them
    overshoot: int = 0

    def add(self, other: BoundaryFigures) -> None:
        """Add another unit's figures (lineages are a unit's own: their counts add)."""
        for name in (
            "boundaries",
            "lineages",
            "pressured",
            "pressured_lineages",
            "cold_pressured",
            "cold_pressured_lineages",
            "admitting",
            "clearing_points",
            "batches",
            "budget_stops",
            "upper_bound_net_tokens",
            "upper_bound_admitting",
            "warm_pressured",
            "warm_pressured_unknown_gap",
            "warm_pressured_tokens",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for mine, theirs in (
            (self.request_gaps_ms, other.request_gaps_ms),
            (self.estimates, other.estimates),
            (self.cold_estimates, other.cold_estimates),
            (self.admitted_per_batch, other.admitted_per_batch),
        ):
            mine.merge(theirs)
        self.overshoot = max(self.overshoot, other.overshoot)


class ClearedFigures(msgspec.Struct):
    """One API's cleared results: their count and the sums the pressure and cost models read."""

    results: int = 0
    net_tokens: int = 0
    text_bytes: int = 0
    escaped_bytes: int = 0
    escaped_tokens: int = 0
    summary_tokens: int = 0

    def add(self, other: ClearedFigures) -> None:
        """Add another unit's sums."""
        for name in self.__struct_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


class CheckpointFigures(msgspec.Struct):
    """One API's observed checkpoints (inside its windows): counts by trigger, the histograms of
    the compactions part, and the tokensBefore of the threshold compactions that followed a
    request, which the route check reads against the overshoot known only once every unit is
    in (one number per such compaction: what still grows with the corpus, slowly)."""

    checkpoints: int = 0
    by_trigger: dict[str, int] = msgspec.field(default_factory=dict)
    tokens_before: Buckets = msgspec.field(default_factory=token_buckets)
    tokens_after: Buckets = msgspec.field(default_factory=token_buckets)
    summary_tokens: Buckets = msgspec.field(default_factory=token_buckets)
    threshold_tokens_before: list[int] = msgspec.field(default_factory=list)

    def add(self, other: CheckpointFigures) -> None:
        """Add another unit's figures."""
        self.checkpoints += other.checkpoints
        for trigger, count in other.by_trigger.items():
            self.by_trigger[trigger] = self.by_trigger.get(trigger, 0) + count
        self.tokens_before.merge(other.tokens_before)
        self.tokens_after.merge(other.tokens_after)
        self.summary_tokens.merge(other.summary_tokens)
        self.threshold_tokens_before.extend(other.threshold_tokens_before)


class _Lineages(msgspec.Struct):
    every: set[int] = msgspec.field(default_factory=set)
    pressured: set[int] = msgspec.field(default_factory=set)
    cold_pressured: set[int] = msgspec.field(default_factory=set)


def boundary_figures(
    boundaries: Mapping[str, Sequence[Any]], observed: Mapping[str, Sequence[Any]]
) -> dict[str, BoundaryFigures]:
    """Per API value, the figures of a unit's boundary rows; `observed` is the unit's observed
    checkpoints of every API (a checkpoint between two boundaries cuts their growth apart)."""
    admitted_threshold = gate_policy().admitted_net_tokens_per_boundary
    figures: dict[str, BoundaryFigures] = {}
    lineages: dict[str, _Lineages] = {}
    # (journal, turn, E, usage based) per API: the overshoot's adjacent pairs.
    walks: dict[str, list[tuple[int, int, int, bool]]] = {}
    for (
        api,
        journal,
        lineage,
        turn,
        estimate,
        usage_based,
        gap_ms,
        cold,
        pressured,
        cold_pressured,
        clearing_point,
        cleared_results,
        admitted_net,
        budget_stopped,
        upper_bound_net,
    ) in zip(
        boundaries["api"],
        boundaries["journal"],
        boundaries["lineage"],
        boundaries["turn"],
        boundaries["estimate"],
        boundaries["usage_based"],
        boundaries["gap_ms"],
        boundaries["cold"],
        boundaries["pressured"],
        boundaries["cold_pressured"],
        boundaries["clearing_point"],
        boundaries["cleared_results"],
        boundaries["admitted_net"],
        boundaries["budget_stopped"],
        boundaries["upper_bound_net"],
        strict=True,
    ):
        one = figures.get(api)
        if one is None:
            one = figures[api] = BoundaryFigures()
            lineages[api] = _Lineages()
            walks[api] = []
        seen = lineages[api]
        one.boundaries += 1
        seen.every.add(lineage)
        one.request_gaps_ms.add(gap_ms)
        one.estimates.add(estimate)
        if cold:
            one.cold_estimates.add(estimate)
        if pressured:
            one.pressured += 1
            seen.pressured.add(lineage)
            if not cold:
                one.warm_pressured += 1
                one.warm_pressured_tokens += estimate
                if gap_ms is None:
                    one.warm_pressured_unknown_gap += 1
        if cold_pressured:
            one.cold_pressured += 1
            seen.cold_pressured.add(lineage)
            if admitted_net >= admitted_threshold:
                one.admitting += 1
            if upper_bound_net >= admitted_threshold:
                one.upper_bound_admitting += 1
        if clearing_point:
            one.clearing_points += 1
        if cleared_results > 0:
            one.batches += 1
            one.admitted_per_batch.add(admitted_net)
        if budget_stopped:
            one.budget_stops += 1
        one.upper_bound_net_tokens += upper_bound_net
        walks[api].append((journal, turn, estimate, bool(usage_based)))
    cut = set(zip(observed["journal"], observed["before_turn"], strict=True))
    for api, one in figures.items():
        seen = lineages[api]
        one.lineages = len(seen.every)
        one.pressured_lineages = len(seen.pressured)
        one.cold_pressured_lineages = len(seen.cold_pressured)
        one.overshoot = _overshoot(walks[api], cut)
    return figures


def _overshoot(walk: list[tuple[int, int, int, bool]], cut: set[tuple[int, int]]) -> int:
    """The largest growth of E between adjacent usage-based boundaries of one journal with no
    observed checkpoint before the later one; 0 with none."""
    walk.sort(key=lambda row: (row[0], row[1]))
    largest = 0
    for (journal, turn, estimate, usage_based), previous in zip(walk[1:], walk, strict=False):
        if (
            journal == previous[0]
            and previous[1] == turn - 1
            and usage_based
            and previous[3]
            and (journal, turn) not in cut
        ):
            largest = max(largest, estimate - previous[2])
    return largest


def cleared_figures(cleared: Mapping[str, Sequence[Any]]) -> dict[str, ClearedFigures]:
    """Per API value, the sums of a unit's cleared-result rows."""
    figures: dict[str, ClearedFigures] = {}
    for api, net, text_bytes, escaped_bytes, escaped_tokens, summary in zip(
        cleared["api"],
        cleared["net_tokens"],
        cleared["text_bytes"],
        cleared["escaped_bytes"],
        cleared["escaped_tokens"],
        cleared["summary_tokens"],
        strict=True,
    ):
        one = figures.get(api)
        if one is None:
            one = figures[api] = ClearedFigures()
        one.results += 1
        one.net_tokens += net
        one.text_bytes += text_bytes
        one.escaped_bytes += escaped_bytes
        one.escaped_tokens += escaped_tokens
        one.summary_tokens += summary
    return figures


def checkpoint_figures(observed: Mapping[str, Sequence[Any]]) -> dict[str, CheckpointFigures]:
    """Per API value, the figures of a unit's observed checkpoint rows."""
    figures: dict[str, CheckpointFigures] = {}
    for api, before, after, summary, trigger, after_request in zip(
        observed["api"],
        observed["tokens_before"],
        observed["tokens_after"],
        observed["summary_tokens"],
        observed["trigger"],
        observed["after_request"],
        strict=True,
    ):
        one = figures.get(api)
        if one is None:
            one = figures[api] = CheckpointFigures()
        one.checkpoints += 1
        one.by_trigger[trigger] = one.by_trigger.get(trigger, 0) + 1
        one.tokens_before.add(before)
        one.tokens_after.add(after)
        one.summary_tokens.add(summary)
        if trigger == "THRESHOLD" and after_request:
            one.threshold_tokens_before.append(before)
    return figures


__all__ = [
    "BoundaryFigures",
    "Buckets",
    "CheckpointFigures",
    "ClearedFigures",
    "boundary_figures",
    "checkpoint_figures",
    "cleared_figures",
    "token_buckets",
]
