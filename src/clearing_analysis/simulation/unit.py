"""A unit's simulation in plain Python: the walk, and what the report needs of it.

`walk` runs `ConversationSimulator` over every physical conversation of an assessment and
collects the columns of the boundary, cleared-result, request, unique-result and checkpoint
tables. `summarize` reduces them to a `UnitSimulation` of fixed size per API: the request sums
the cost model reads, the growth parts (docs/model.md: `simulation.growth` states them as
table operations, and a test holds this module to them), per tool class the results and what
was cleared of them, and the figures of the boundary, cleared-result and (in-window)
checkpoint rows (`simulation.figures`). No row leaves the unit.

Nothing here loads polars: a pool worker replays, assesses and summarizes its units without
it, and what it sends back is sums, counts and histograms. The main process adds them in unit
order (`simulation.totals.Combiner`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeAlias

import msgspec

from clearing_analysis.eligibility import Assessment, Boundary, OccurrenceTally
from clearing_analysis.inputs.configs import Api, Routes
from clearing_analysis.policy import WhatIfId, placeholder_text
from clearing_analysis.replay.heuristic import text_tokens
from clearing_analysis.simulation.clearing import (
    FLAGS,
    INTS,
    OTHER,
    Columns,
    ConversationSimulator,
)
from clearing_analysis.simulation.figures import (
    BoundaryFigures,
    CheckpointFigures,
    ClearedFigures,
    boundary_figures,
    checkpoint_figures,
    cleared_figures,
)
from clearing_analysis.simulation.refetch import ClearingPoint, RefetchTally, measure
from clearing_analysis.simulation.what_if import PolicySums, run_what_ifs
from clearing_analysis.toolclass import ToolClass

RESULT_COLUMNS: dict[str, str] = {
    "api": OTHER,
    "tool_class": OTHER,
    "web": FLAGS,
    "text_bytes": INTS,
    "tokens": INTS,
    "lower_bound_class": FLAGS,
    "cleared": FLAGS,
}
CHECKPOINT_COLUMNS: dict[str, str] = {
    "journal": INTS,
    "api": OTHER,  # null: no request before it in its journal
    "before_turn": INTS,
    "tokens_before": INTS,
    "tokens_after": INTS,
    "summary_tokens": INTS,
    "trigger": OTHER,
    "after_request": FLAGS,
}

# Column name -> values, in row order (ints, bools, short fixed strings, None).
Column: TypeAlias = list[Any]


class RequestSums(msgspec.Struct):
    """Integer sums over one API's requests (R-CM-1, R-CM-7)."""

    requests: int = 0
    fallback: int = 0
    input: int = 0  # over observed requests
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0
    fallback_context: int = 0  # over fallback requests
    fallback_output: int = 0
    removed_observed: int = 0  # Σ observed min(cleared tokens carried, prefix)

    def add(self, other: RequestSums) -> None:
        """Add another unit's sums."""
        for name in self.__struct_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


class CategorySums(msgspec.Struct):
    """Unique results of one tool class (or of the web subset) and what was cleared of them."""

    results: int = 0
    text_bytes: int = 0
    lower_bound_class: int = 0
    cleared: int = 0
    cleared_text_bytes: int = 0

    def add(self, other: CategorySums) -> None:
        """Add another unit's sums."""
        for name in self.__struct_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


class ApiSimulation(msgspec.Struct):
    """One API's sums and figures."""

    requests: RequestSums = msgspec.field(default_factory=RequestSums)
    categories: dict[ToolClass, CategorySums] = msgspec.field(
        default_factory=lambda: {tool: CategorySums() for tool in ToolClass}
    )
    web: CategorySums = msgspec.field(default_factory=CategorySums)
    boundary_span: int = 0
    compaction_removed: int = 0
    boundaries: BoundaryFigures = msgspec.field(default_factory=BoundaryFigures)
    cleared: ClearedFigures = msgspec.field(default_factory=ClearedFigures)
    checkpoints: CheckpointFigures = msgspec.field(default_factory=CheckpointFigures)

    def add(self, other: ApiSimulation) -> None:
        """Add another unit's sums and figures."""
        self.requests.add(other.requests)
        for tool, sums in other.categories.items():
            self.categories[tool].add(sums)
        self.web.add(other.web)
        self.boundary_span += other.boundary_span
        self.compaction_removed += other.compaction_removed
        self.boundaries.add(other.boundaries)
        self.cleared.add(other.cleared)
        self.checkpoints.add(other.checkpoints)


class Walked(msgspec.Struct, frozen=True):
    """The columns of one assessment's simulation and its per-API occurrence counts."""

    columns: Columns
    results: dict[str, list[Any]]  # one row per unique result (by finalized id, per API)
    checkpoints: dict[str, list[Any]]  # one row per observed checkpoint of every journal
    occurrences: dict[Api, OccurrenceTally]
    apis: tuple[Api, ...]  # the assessment's APIs, in its order
    journals: int  # the assessment's journals (their ordinals are below this)
    placeholder_tokens: int
    what_ifs: dict[WhatIfId, dict[Api, PolicySums]]  # the reviewed policies' sums (informational)
    # Observed re-fetches per API (simulation.refetch, R-RF-1): informational.
    refetches: dict[Api, RefetchTally] = msgspec.field(default_factory=dict)


class UnitSimulation(msgspec.Struct, frozen=True):
    """A unit's simulation reduced for the report (what a pool worker sends back): per-API
    sums and figures, of a size that does not grow with the unit."""

    journals: int  # the unit's journals: its usage keys' ordinals are below this
    per_api: dict[Api, ApiSimulation]
    placeholder_tokens: int
    what_ifs: dict[WhatIfId, dict[Api, PolicySums]]
    # Request sums by usage key, in the order first met (the usage tables, `--by`).
    usage: dict[UsageKey, RequestSums] = msgspec.field(default_factory=dict)
    refetches: dict[Api, RefetchTally] = msgspec.field(default_factory=dict)


def _transposed(names: Iterable[str], rows: list[tuple[Any, ...]]) -> dict[str, list[Any]]:
    """Rows (tuples in column order) as columns."""
    if not rows:
        return {name: [] for name in names}
    return {name: list(values) for name, values in zip(names, zip(*rows, strict=True), strict=True)}


def _unique_results(assessment: Assessment, cleared_ids: set[str]) -> dict[str, list[Any]]:
    """One row per unique result (by finalized id, per API cohort) of the counted boundaries'
    turns; a result in no cohort (its request's API has no route) has no row."""
    rows: list[tuple[Any, ...]] = []
    seen: set[tuple[Api, str]] = set()
    for boundary in assessment.boundaries:
        results = assessment.replay.journals[boundary.journal].journal.results
        classes = assessment.classes[boundary.journal]
        cohorts = assessment.cohorts[boundary.journal]
        for slot in boundary.replayed.turn_results:
            api = cohorts[slot]
            if api is None:
                continue
            result = results[slot]
            key = (api, result.finalized_id)
            if key in seen:
                continue
            seen.add(key)
            result_class = classes[slot]
            rows.append(
                (
                    api.value,
                    result.tool_class.value,
                    result.web,
                    result.text_bytes,
                    result.tokens,
                    result_class.fixed is None and result_class.shortfall is None,
                    result.finalized_id in cleared_ids,
                )
            )
    return _transposed(RESULT_COLUMNS, rows)


def _checkpoints(assessment: Assessment) -> dict[str, list[Any]]:
    """One row per checkpoint of every contributing journal inside the period (no text; the
    assessment counts the others)."""
    period = assessment.period
    rows = [
        (
            position,
            checkpoint.api,
            checkpoint.before_turn,
            checkpoint.tokens_before,
            checkpoint.tokens_after,
            checkpoint.summary_tokens,
            checkpoint.trigger.upper(),
            checkpoint.after_request,
        )
        for position, merged in enumerate(assessment.replay.journals)
        for checkpoint in merged.journal.checkpoints
        if period.contains(checkpoint.timestamp)
    ]
    return _transposed(CHECKPOINT_COLUMNS, rows)


def walk(assessment: Assessment, routes: Routes) -> Walked:
    """Simulate every physical conversation, in order of first appearance (merge order)."""
    placeholder_tokens = text_tokens(placeholder_text())
    columns = Columns()
    tallies = {api: OccurrenceTally() for api in assessment.per_api}
    simulator = ConversationSimulator(
        assessment, dict(routes.by_api), columns, tallies, placeholder_tokens
    )
    conversations: dict[str, list[Boundary]] = {}
    lineages: dict[str, int] = {}
    for boundary in assessment.boundaries:
        conversations.setdefault(boundary.physical_conversation_id, []).append(boundary)
        lineages.setdefault(boundary.logical_conversation_id, len(lineages))
    cleared_ids: set[str] = set()
    for ordinal, boundaries in enumerate(conversations.values()):
        lineage = lineages[boundaries[0].logical_conversation_id]
        cleared_ids |= simulator.run(boundaries, ordinal, lineage)
    refetches = measure(assessment, _clearing_points(columns, simulator.result_keys), tallies)
    return Walked(
        columns=columns,
        results=_unique_results(assessment, cleared_ids),
        checkpoints=_checkpoints(assessment),
        occurrences=tallies,
        apis=tuple(assessment.per_api),
        journals=len(assessment.replay.journals),
        placeholder_tokens=placeholder_tokens,
        # The what-if policies walk the same boundaries again, each with its own state
        # (docs/model.md, section 9): informational, never read by the gate.
        what_ifs=run_what_ifs(assessment, routes, simulator.layouts),
        refetches=refetches,
    )


def _clearing_points(columns: Columns, result_keys: Mapping[str, int]) -> dict[str, ClearingPoint]:
    """Each cleared result's finalized id and the boundary that cleared it (a result is
    cleared once), from the cleared-result and boundary columns."""
    finalized = {key: finalized_id for finalized_id, key in result_keys.items()}
    boundaries = columns.boundaries.columns
    journal, turn, estimate = boundaries["journal"], boundaries["turn"], boundaries["estimate"]
    cleared = columns.cleared.columns
    points: dict[str, ClearingPoint] = {}
    for api, row, key in zip(cleared["api"], cleared["boundary"], cleared["result"], strict=True):
        points.setdefault(
            finalized[key], ClearingPoint(journal[row], turn[row], estimate[row], Api(api))
        )
    return points


# The usage tables' key (`--by`): API value, journal (ordinal local to the unit), UTC day
# (days since 1970-01-01), catalog model id (None: not in the catalog).
UsageKey: TypeAlias = "tuple[str, int, int, str | None]"


def _add_request(
    one: RequestSums, fallback: bool, usage: tuple[int, int, int, int], carried: int
) -> None:
    """One request into `one`: recorded usage when it counts, else the fallback's inputs."""
    prompt, read, write, output = usage
    one.requests += 1
    if fallback:
        one.fallback += 1
    else:
        one.input += prompt
        one.cache_read += read
        one.cache_write += write
        one.output += output
        one.removed_observed += min(carried, prompt + read + write)


def _request_sums(
    requests: Mapping[str, Column],
) -> tuple[dict[str, RequestSums], dict[UsageKey, RequestSums]]:
    """RequestSums by API value, and the same by usage key (the usage tables), from the request
    columns."""
    sums: dict[str, RequestSums] = {}
    groups: dict[UsageKey, RequestSums] = {}
    for api, fallback, prompt, read, write, output, context, message, carried, key in zip(
        requests["api"],
        requests["fallback"],
        requests["input"],
        requests["cache_read"],
        requests["cache_write"],
        requests["output"],
        requests["context_tokens"],
        requests["message_tokens"],
        requests["cleared_tokens_carried"],
        zip(requests["api"], requests["journal"], requests["day"], requests["model"], strict=True),
        strict=True,
    ):
        one = sums.get(api)
        if one is None:
            one = sums[api] = RequestSums()
        group = groups.get(key)
        if group is None:
            group = groups[key] = RequestSums()
        usage = (prompt, read, write, output)
        _add_request(one, fallback, usage, carried)
        _add_request(group, fallback, usage, carried)
        if fallback:
            one.fallback_context += context
            one.fallback_output += message
    return sums, groups


def _category_sums(results: Mapping[str, Column]) -> dict[str, ApiSimulation]:
    """Per API value, the categories and web sums of the unique results."""
    # Results and text bytes per distinct (api, tool class, web, lower bound, cleared): a few
    # dozen keys, then added into the sums.
    groups: dict[tuple[Any, ...], list[int]] = {}
    for key, text_bytes in zip(
        zip(
            results["api"],
            results["tool_class"],
            results["web"],
            results["lower_bound_class"],
            results["cleared"],
            strict=True,
        ),
        results["text_bytes"],
        strict=True,
    ):
        group = groups.get(key)
        if group is None:
            groups[key] = [1, text_bytes]
        else:
            group[0] += 1
            group[1] += text_bytes
    per_api: dict[str, ApiSimulation] = {}
    for (api, tool, web, lower, cleared), (count, text_bytes) in groups.items():
        sums = per_api.get(api)
        if sums is None:
            sums = per_api[api] = ApiSimulation()
        categories = [sums.categories[ToolClass(tool)]]
        if web:
            categories.append(sums.web)
        for category in categories:
            category.results += count
            category.text_bytes += text_bytes
            category.lower_bound_class += count if lower else 0
            if cleared:
                category.cleared += count
                category.cleared_text_bytes += text_bytes
    return per_api


def _observed(
    boundaries: Mapping[str, Column],
    checkpoints: Mapping[str, Column],
    per_api: dict[str, ApiSimulation],
) -> dict[str, list[Any]]:
    """Native growth per API into `per_api` (R-PM-3, R-PM-4; docs/model.md): each journal's
    window of counted boundaries of the API, from E of the first to E of the last, plus what
    each checkpoint of that API in the window removed (the first boundary's turn < its turn);
    a checkpoint after the window's last boundary (a trailing compaction) extends the window
    to it: the window then ends at the last such checkpoint's tokens after instead of the last
    E. Returns those checkpoints' rows, API by API in `per_api`'s order."""
    windows: dict[tuple[int, str], list[int]] = {}  # first turn, its E, last turn, its E
    for journal, api, turn, estimate in zip(
        boundaries["journal"],
        boundaries["api"],
        boundaries["turn"],
        boundaries["estimate"],
        strict=True,
    ):
        window = windows.get((journal, api))
        if window is None:
            windows[(journal, api)] = [turn, estimate, turn, estimate]
        elif turn < window[0]:
            window[0:2] = [turn, estimate]
        elif turn > window[2]:
            window[2:4] = [turn, estimate]
    inside: dict[str, list[int]] = {api: [] for api in per_api}  # row numbers, by API
    ends = {key: window[3] for key, window in windows.items()}  # the window's last figure
    before, after = checkpoints["tokens_before"], checkpoints["tokens_after"]
    for row, (journal, api, before_turn) in enumerate(
        zip(checkpoints["journal"], checkpoints["api"], checkpoints["before_turn"], strict=True)
    ):
        window = windows.get((journal, api))
        if window is None or before_turn <= window[0]:
            continue
        inside[api].append(row)
        if before_turn > window[2]:  # trailing: rows come in journal order, the last one wins
            ends[(journal, api)] = after[row]
    for (journal, api), (_, first, _, _) in windows.items():
        per_api[api].boundary_span += ends[(journal, api)] - first
    observed: dict[str, list[Any]] = {name: [] for name in checkpoints}
    for api, rows in inside.items():
        per_api[api].compaction_removed += sum(before[row] - after[row] for row in rows)
        for name, values in checkpoints.items():
            observed[name].extend(values[row] for row in rows)
    return observed


def summarize(walked: Walked) -> UnitSimulation:
    """What the report needs of one unit's simulation."""
    requests, usage = _request_sums(walked.columns.requests.columns)
    categories = _category_sums(walked.results)
    per_api: dict[str, ApiSimulation] = {}
    for api in walked.apis:
        sums = categories.get(api.value, ApiSimulation())
        sums.requests = requests.get(api.value, RequestSums())
        per_api[api.value] = sums
    boundaries = walked.columns.boundaries.columns
    observed = _observed(boundaries, walked.checkpoints, per_api)
    for value, figures in boundary_figures(boundaries, observed).items():
        per_api[value].boundaries = figures
    for value, cleared in cleared_figures(walked.columns.cleared.columns).items():
        per_api[value].cleared = cleared
    for value, checkpoints in checkpoint_figures(observed).items():
        per_api[value].checkpoints = checkpoints
    for tally in walked.refetches.values():
        tally.bucket()
    return UnitSimulation(
        journals=walked.journals,
        per_api={api: per_api[api.value] for api in walked.apis},
        placeholder_tokens=walked.placeholder_tokens,
        what_ifs=walked.what_ifs,
        usage=usage,
        refetches=walked.refetches,
    )


__all__ = [
    "CHECKPOINT_COLUMNS",
    "RESULT_COLUMNS",
    "ApiSimulation",
    "CategorySums",
    "Column",
    "RequestSums",
    "UnitSimulation",
    "UsageKey",
    "Walked",
    "summarize",
    "walk",
]
