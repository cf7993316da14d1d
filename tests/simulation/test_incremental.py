"""The incremental counts and the plain-Python summary against their definitions.

`ContextTally` counts each boundary's occurrences as results enter, settle and leave the
context; `classified_context` (a fresh cursor per boundary) is the definition it must match.
`unit.summarize` reduces the walk without polars; the tables of `run.simulate` and the table
operations of `growth.cohort_growth` are the definitions its sums and rows must match.
Generated corpora of several profiles and seeds: protection, retention, compaction and clearing
all occur.
"""

from __future__ import annotations

import polars as pl

from clearing_analysis.eligibility import (
    Assessment,
    Boundary,
    ContextCursor,
    ContextTally,
    EligibilityClass,
    OccurrenceTally,
    classified_context,
)
from clearing_analysis.eligibility.reasons import class_of
from clearing_analysis.inputs.configs import (
    Routes,
)
from clearing_analysis.simulation.run import simulate
from clearing_analysis.simulation.unit import CategorySums, RequestSums, summarize, walk
from clearing_analysis.toolclass import ToolClass
from tests.simulation.table_figures import (
    boundary_reference,
    checkpoint_reference,
    cleared_reference,
)


def test_context_tally_counts_what_each_boundary_walk_finds(
    assessed: tuple[Assessment, Routes],
) -> None:
    """At every counted boundary: the same occurrences by class and reason, the same
    lower-bound slots in the same order, and the same sum over the upper-bound ones, as a
    fresh walk of that boundary's whole context."""
    assessment, _ = assessed
    by_journal: dict[int, list[Boundary]] = {}
    for boundary in assessment.boundaries:
        by_journal.setdefault(boundary.journal, []).append(boundary)
    occurrences = protected = 0
    for position, counted in by_journal.items():
        results = assessment.replay.journals[position].journal.results
        classes, cohorts = assessment.classes[position], assessment.cohorts[position]
        weights = [slot * 7 + r.tokens for slot, r in enumerate(results)]
        tally = ContextTally(results, classes, cohorts, weights)
        for boundary in counted:
            tally.advance(boundary.replayed)
            got = OccurrenceTally()
            tally.count(boundary.api, got)
            want = OccurrenceTally()
            lower: list[int] = []
            upper = 0
            for slot, reason in classified_context(
                ContextCursor(results), boundary.replayed, results, classes, cohorts
            ):
                want.add(reason)
                if reason is None:
                    lower.append(slot)
                if class_of(reason) is not EligibilityClass.EXCLUDED:
                    upper += weights[slot]
                protected += reason is not None and reason.startswith("PROTECTED")
            assert (got.by_class, got.by_reason) == (want.by_class, want.by_reason)
            assert list(tally.lower_bound(boundary.api)) == lower
            assert tally.upper_weight(boundary.api) == upper
            occurrences += want.total
    assert occurrences > 0 and protected > 0


def _sum(frame: pl.DataFrame, expression: pl.Expr) -> int:
    value = frame.select(expression).item()
    return 0 if value is None else int(value)


def _category(rows: pl.DataFrame) -> CategorySums:
    cleared = rows.filter(pl.col("cleared"))
    return CategorySums(
        results=rows.height,
        text_bytes=_sum(rows, pl.col("text_bytes").sum()),
        lower_bound_class=_sum(rows, pl.col("lower_bound_class").sum()),
        cleared=cleared.height,
        cleared_text_bytes=_sum(cleared, pl.col("text_bytes").sum()),
    )


def test_summary_equals_the_tables(assessed: tuple[Assessment, Routes]) -> None:
    """Per API: request sums, per tool class and web sums, growth, and the figures of the
    boundary, cleared-result and observed checkpoint rows as the tables give them."""
    assessment, routes = assessed
    simulation = simulate(assessment, routes)
    summary = summarize(walk(assessment, routes))
    assert summary.per_api.keys() == simulation.growth.keys()
    observed_rows = pl.concat([growth.checkpoints for growth in simulation.growth.values()])
    prefix = pl.col("input") + pl.col("cache_read") + pl.col("cache_write")
    for api, sums in summary.per_api.items():
        requests = simulation.requests.filter(pl.col("api") == api.value)
        observed = requests.filter(~pl.col("fallback"))
        fallback = requests.filter(pl.col("fallback"))
        assert sums.requests == RequestSums(
            requests=requests.height,
            fallback=fallback.height,
            input=_sum(observed, pl.col("input").sum()),
            cache_read=_sum(observed, pl.col("cache_read").sum()),
            cache_write=_sum(observed, pl.col("cache_write").sum()),
            output=_sum(observed, pl.col("output").sum()),
            fallback_context=_sum(fallback, pl.col("context_tokens").sum()),
            fallback_output=_sum(fallback, pl.col("message_tokens").sum()),
            removed_observed=_sum(
                observed, pl.min_horizontal(pl.col("cleared_tokens_carried"), prefix).sum()
            ),
        )
        results = simulation.results.filter(pl.col("api") == api.value)
        for tool in ToolClass:
            assert sums.categories[tool] == _category(
                results.filter(pl.col("tool_class") == tool.value)
            )
        assert sums.web == _category(results.filter(pl.col("web")))
        growth = simulation.growth[api]
        assert (sums.boundary_span, sums.compaction_removed) == (
            growth.boundary_span,
            growth.compaction_removed,
        )
        mine = pl.col("api") == api.value
        assert sums.boundaries == boundary_reference(
            simulation.boundaries.filter(mine), observed_rows
        )
        assert sums.cleared == cleared_reference(simulation.cleared.filter(mine))
        assert sums.checkpoints == checkpoint_reference(growth.checkpoints)
    assert simulation.boundaries.height > 0
