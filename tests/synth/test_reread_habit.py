"""The synthetic re-read habit (Profile.reread_rate): the only source of repeated fetches."""

from __future__ import annotations

import random

import msgspec

from clearing_analysis.synth.profiles import PROFILES
from clearing_analysis.synth.textpool import TextPools
from clearing_analysis.synth.toolmix import FETCHING_TOOLS, ToolRunner


def _repeats(rate: float, calls: int = 2_000) -> tuple[int, int]:
    """(repeated fetching calls, fetching calls) of one session of `calls` calls."""
    rng = random.Random(3)
    profile = PROFILES["mixed"]
    runner = ToolRunner(
        rng,
        TextPools.build(rng),
        weights={"read": 5, "find": 2, "ls": 2, "grep": 1, "bash": 2},
        sizes=profile.result_sizes,
        scale=1.0,
        error_rate=0.0,
        image_rate=0.0,
        origin_rate=0.0,
        repointed_rate=0.0,
        shape_rng=random.Random(4),
        reread_rate=rate,
        habit_rng=random.Random(5),
    )
    runner.begin_session()
    seen: set[bytes] = set()
    repeated = fetching = 0
    for _ in range(calls):
        name = runner.choose()
        args = runner.arguments(name)
        if name in FETCHING_TOOLS:
            fetching += 1
            key = msgspec.json.encode([name, args], order="sorted")
            repeated += key in seen
            seen.add(key)
    return repeated, fetching


def test_no_habit_no_repeat_and_the_rate_tunes_it() -> None:
    """At rate 0 no fetching call repeats another (chance repeats get a fresh path, though the
    path pool is small); at 10% about a tenth of them do."""
    assert _repeats(0.0)[0] == 0
    repeated, fetching = _repeats(0.1)
    assert 0.07 < repeated / fetching < 0.13


def test_profiles_default_to_the_calibrated_rate() -> None:
    """Every profile re-reads at the rate measured on the public real pi sessions (2.3%)."""
    assert {profile.reread_rate for profile in PROFILES.values()} == {0.023}
