"""Invariants of the simulation over generated corpora (every profile, several seeds).

Whatever the corpus: a result is counted at most once; the 8 MiB budget is never exceeded;
protected results are never cleared; clearing happens only at cold boundaries whose effective
occupancy is in the pressure band and whose batch gate is open; batches of one conversation
are at least five completed prompt runs apart; effective occupancy never exceeds E.
"""

from __future__ import annotations

import itertools

import polars as pl
import pytest

from clearing_analysis.policy import eligibility_policy, simulation_policy
from clearing_analysis.simulation import in_pressure_band
from clearing_analysis.simulation.run import Simulation, simulate
from tests.simulation.corpora import assessed_corpus

CASES = [("build", 3, 6), ("mixed", 5, 12), ("warm", 7, 6), ("redacted", 9, 6), ("build", 13, 6)]


@pytest.fixture(scope="module", params=CASES, ids=[f"{p}-{s}" for p, s, _ in CASES])
def simulated(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Simulation, dict[str, int]]:
    profile, seed, conversations = request.param
    root = tmp_path_factory.mktemp(f"{profile}-{seed}")
    assessment, routes = assessed_corpus(root, profile, seed, conversations)
    triggers = {api.value: route.trigger_tokens for api, route in routes.by_api.items()}
    return simulate(assessment, routes), triggers


def _with_boundaries(sim: Simulation) -> pl.DataFrame:
    rows = sim.boundaries.with_row_index("boundary").with_columns(pl.col("boundary").cast(pl.Int64))
    return sim.cleared.join(rows, on="boundary", suffix="_b")


def test_the_corpus_exercises_clearing(simulated: tuple[Simulation, dict[str, int]]) -> None:
    """Not vacuous: some boundaries are pressured, and build profiles clear results."""
    sim, _ = simulated
    assert sim.boundaries.height > 0
    assert sim.boundaries.get_column("pressured").sum() > 0


def test_each_result_is_counted_at_most_once(simulated: tuple[Simulation, dict[str, int]]) -> None:
    """No result key appears twice among cleared results."""
    sim, _ = simulated
    assert sim.cleared.get_column("result").n_unique() == sim.cleared.height


def test_budget_is_never_exceeded(simulated: tuple[Simulation, dict[str, int]]) -> None:
    """What is left of the per-conversation budget stays within [0, 8 MiB]."""
    sim, _ = simulated
    budget = simulation_policy().conversation_budget_bytes
    left = sim.boundaries.get_column("budget_left")
    assert left.min() >= 0  # type: ignore[operator]
    assert left.max() <= budget  # type: ignore[operator]


def test_protected_results_are_never_cleared(simulated: tuple[Simulation, dict[str, int]]) -> None:
    """A cleared result is older than the three prompt turns before its boundary and outside
    the ten latest tool starts."""
    sim, _ = simulated
    policy = eligibility_policy()
    joined = _with_boundaries(sim)
    assert (
        joined.filter(
            (pl.col("result_turn") >= pl.col("turn") - policy.protected_prompt_turns)
            | (
                pl.col("result_start")
                >= pl.col("tool_starts_before") - policy.protected_tool_starts
            )
        ).height
        == 0
    )


def test_clearing_only_at_clearing_points(simulated: tuple[Simulation, dict[str, int]]) -> None:
    """Every cleared result belongs to a cold boundary whose effective occupancy is in the
    band and whose batch gate is open."""
    sim, triggers = simulated
    for row in _with_boundaries(sim).iter_rows(named=True):
        assert row["clearing_point"] and row["cold"] and row["batch_open"]
        assert in_pressure_band(row["effective"], triggers[row["api"]])


def test_batches_are_five_prompt_runs_apart(simulated: tuple[Simulation, dict[str, int]]) -> None:
    """Within a conversation, consecutive batches are at least five completed prompt runs
    apart."""
    sim, _ = simulated
    separation = simulation_policy().batch_separation_prompt_runs
    batches = sim.boundaries.filter(pl.col("cleared_results") > 0)
    for (_,), group in batches.group_by(["conversation"], maintain_order=True):
        runs = group.get_column("prompt_runs_before").to_list()
        assert all(b - a >= separation for a, b in itertools.pairwise(runs))


def test_effective_occupancy_never_exceeds_the_estimate(
    simulated: tuple[Simulation, dict[str, int]],
) -> None:
    """Clearing only ever lowers occupancy."""
    sim, _ = simulated
    assert sim.boundaries.filter(pl.col("effective") > pl.col("estimate")).height == 0


def test_clearing_happens_in_build_corpora(
    simulated: tuple[Simulation, dict[str, int]], request: pytest.FixtureRequest
) -> None:
    """The build profile is meant to clear: its corpora have cleared results."""
    sim, _ = simulated
    if "build" in request.node.callspec.id:
        assert sim.cleared.height > 0
