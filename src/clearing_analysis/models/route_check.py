"""Is the route's trigger T consistent with the compactions the history shows? (docs/model.md,
"The route's trigger against observed compactions"). Informational: never gating.

A route's `triggerTokens` T decides which boundaries are pressured, and users take it from
`routes init` or write it by hand. An automatic (threshold) compaction fires once the context
passes T, at the end of the turn that crossed it, so its `tokensBefore` lies in
(T, T + the growth of one turn]. Over the API's observed threshold compactions that followed a
request (a compaction right after another measures the summary alone):

- tokensBefore < 0.75·T (the pressure band's floor, `pressureLowFraction`): compaction fired
  well below T, so the route's trigger is too high;
- 0.75·T <= tokensBefore < T - tolerance, the tolerance being `routeTriggerTolerancePercent`
  (2%) of T, rounded down: compaction fired below T, which an automatic compaction cannot do,
  by more than the tolerance, so the trigger is too high;
- tokensBefore > T + the largest growth of E between two adjacent counted boundaries of the API
  with no checkpoint between them (`overshoot`, that side's tolerance): compaction fired far
  above T, so the trigger is too low.

Any is ROUTE_TRIGGER_CONTRADICTED. The trigger the compactions imply lies in
[max(tokensBefore) - overshoot, min(tokensBefore)): every compaction came past T, none later
than one turn's growth past it (an empty range means they imply no single trigger). Exact
integer and fraction arithmetic only.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import msgspec

from clearing_analysis.models.rates import exact
from clearing_analysis.policy import simulation_policy


class TriggerCheck(msgspec.Struct, frozen=True):
    """The route's trigger against the observed threshold compactions of one API."""

    compactions: int  # threshold compactions after a request
    below_band: int  # tokensBefore < 0.75·T: the trigger is too high
    below_trigger: int  # 0.75·T <= tokensBefore < T - tolerance: the trigger is too high
    beyond_overshoot: int  # tokensBefore > T + overshoot: the trigger is too low
    overshoot: int
    tolerance: int  # routeTriggerTolerancePercent of T, rounded down
    implied_at_least: int | None  # max(tokensBefore) - overshoot, floored at 0
    implied_below: int | None  # min(tokensBefore): T must lie below it

    @property
    def contradicted(self) -> bool:
        """Some compaction the route's trigger cannot explain."""
        return self.below_band + self.below_trigger + self.beyond_overshoot > 0


def check_trigger(trigger: int, tokens_before: Sequence[int], overshoot: int) -> TriggerCheck:
    """The rule of the module docstring."""
    policy = simulation_policy()
    floor = exact(policy.pressure_low_fraction) * trigger
    tolerance = trigger * policy.route_trigger_tolerance_percent // 100
    return TriggerCheck(
        compactions=len(tokens_before),
        below_band=sum(1 for t in tokens_before if Fraction(t) < floor),
        below_trigger=sum(1 for t in tokens_before if floor <= t < trigger - tolerance),
        beyond_overshoot=sum(1 for t in tokens_before if t > trigger + overshoot),
        overshoot=overshoot,
        tolerance=tolerance,
        implied_at_least=max(0, max(tokens_before) - overshoot) if tokens_before else None,
        implied_below=min(tokens_before) if tokens_before else None,
    )


__all__ = ["TriggerCheck", "check_trigger"]
