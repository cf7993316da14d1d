"""Native growth G and the observed checkpoints of each API cohort (R-PM-3, R-PM-4).

G sums, over contributing journals, the span of the journal's counted boundaries of the API
(E of the last minus E of the first) plus what each observed checkpoint in that window removed
(tokensBefore - tokensAfter): compaction takes away growth that happened. Decisions
(docs/model.md): the sum runs per journal rather than per physical conversation, so the
branches of a fork never subtract from each other; a checkpoint belongs to the API of the
latest request before it and counts when it comes after the first counted boundary of its API
in its journal. One after the last such boundary (a trailing compaction: the history ended
after compacting) extends the window to it: the span then ends at the last trailing
checkpoint's tokens after instead of the last boundary's E, so the growth up to it counts and
the compaction is observed. Those checkpoints are also the observed ones the report shows
beside the model, never mixed into it. Both, and the route check's evidence, are polars
expressions over the boundary and checkpoint tables: the definitions that the pipeline's
per-unit reduction without polars (`unit.summarize`, `figures`) is tested against.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec
import polars as pl

from clearing_analysis.inputs.configs import Api


class Growth(msgspec.Struct, frozen=True):
    """One API cohort's native growth and the checkpoints inside its windows."""

    boundary_span: int
    compaction_removed: int
    checkpoints: pl.DataFrame  # rows of the checkpoint table inside the cohort's windows

    @property
    def total(self) -> int:
        """G (R-PM-4)."""
        return self.boundary_span + self.compaction_removed


def _int(frame: pl.DataFrame, expression: pl.Expr) -> int:
    value = frame.select(expression).item()
    return 0 if value is None else int(value)


def cohort_growth(
    boundaries: pl.DataFrame, checkpoints: pl.DataFrame, apis: Iterable[Api]
) -> dict[Api, Growth]:
    """G and the observed checkpoints of each API, from the simulation's tables."""
    windows = boundaries.group_by(["journal", "api"]).agg(
        pl.col("turn").min().alias("first_turn"),
        pl.col("turn").max().alias("last_turn"),
        pl.col("estimate").sort_by("turn").first().alias("first_estimate"),
        pl.col("estimate").sort_by("turn").last().alias("last_estimate"),
    )
    inside = (
        checkpoints.with_row_index("row")
        .join(windows, on=["journal", "api"], how="inner")
        .filter(pl.col("before_turn") > pl.col("first_turn"))
        .sort("row")
    )
    # A trailing checkpoint ends its window: the last one's tokens after (in journal order).
    ends = (
        inside.filter(pl.col("before_turn") > pl.col("last_turn"))
        .group_by(["journal", "api"])
        .agg(pl.col("tokens_after").sort_by("row").last().alias("end"))
    )
    windows = windows.join(ends, on=["journal", "api"], how="left").with_columns(
        pl.coalesce("end", "last_estimate").alias("end")
    )
    out: dict[Api, Growth] = {}
    for api in apis:
        mine = windows.filter(pl.col("api") == api.value)
        observed = inside.filter(pl.col("api") == api.value).select(checkpoints.columns)
        out[api] = Growth(
            boundary_span=_int(mine, (pl.col("end") - pl.col("first_estimate")).sum()),
            compaction_removed=_int(
                observed, (pl.col("tokens_before") - pl.col("tokens_after")).sum()
            ),
            checkpoints=observed,
        )
    return out


def trigger_evidence(
    boundaries: pl.DataFrame, checkpoints: pl.DataFrame, observed: pl.DataFrame
) -> tuple[list[int], int]:
    """What the route check reads (`models.route_check`) for one API: the tokensBefore of its
    observed threshold compactions that followed a request, and the overshoot, the largest
    growth of E between two adjacent counted boundaries of the API (turn t, then t + 1 in one
    journal) with no checkpoint between them and both estimates from recorded usage (a
    heuristic-only E misses the unrecorded system and tool overhead, R-SIM-1, so growth from it
    is no growth); 0 with none. `boundaries` and `observed` are the API's; `checkpoints` any
    API's."""
    pairs = (
        boundaries.select("journal", "turn", "estimate", "usage_based")
        .sort("journal", "turn")
        .with_columns(
            pl.col("turn").shift(1).over("journal").alias("previous_turn"),
            pl.col("estimate").shift(1).over("journal").alias("previous_estimate"),
            pl.col("usage_based").shift(1).over("journal").alias("previous_usage_based"),
        )
        .filter(
            (pl.col("previous_turn") == pl.col("turn") - 1)
            & pl.col("usage_based")
            & pl.col("previous_usage_based")
        )
    )
    cut = checkpoints.select("journal", pl.col("before_turn").alias("turn")).unique()
    uncut = pairs.join(cut, on=["journal", "turn"], how="anti")
    overshoot = max(0, _int(uncut, (pl.col("estimate") - pl.col("previous_estimate")).max()))
    threshold = observed.filter((pl.col("trigger") == "THRESHOLD") & pl.col("after_request"))
    return [int(t) for t in threshold.get_column("tokens_before").to_list()], overshoot


__all__ = ["Growth", "cohort_growth", "trigger_evidence"]
