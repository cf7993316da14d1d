"""The reports' informational what-if part (docs/model.md, section 9): each reviewed pruning
policy's sums from the walk (`simulation.what_if`), priced by `models.what_if` with the API's
gated request sums, growth and route, rounded once.

Never gating: the gate is evaluated from the other parts (`assemble.analysis`), and nothing
here feeds it; the part's structs have no verdict field.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from clearing_analysis.inputs.configs import Api, Route
from clearing_analysis.models.cost import CostInputs, View
from clearing_analysis.models.pressure import PressureInputs
from clearing_analysis.models.undefined import UndefinedCause
from clearing_analysis.models.what_if import ClearedSums, WhatIfModel, what_if_model
from clearing_analysis.numbers import Rounded, rounded, share
from clearing_analysis.policy import WhatIf, WhatIfId, what_if_table
from clearing_analysis.report import model as rm
from clearing_analysis.simulation.what_if import PolicySums


def _row(
    policy: WhatIf, sums: PolicySums, model: WhatIfModel, causes: tuple[UndefinedCause, ...]
) -> rm.WhatIfPolicy:
    return rm.WhatIfPolicy(
        policy=policy.id,
        reference=policy.reference,
        clearing_events=sums.events,
        warm_clearing_events=sums.warm_events,
        warm_share=share(sums.warm_events, sums.events),
        cleared_results=sums.cleared,
        tokens_removed=sums.admitted,
        rewritten_prefix_tokens=sums.rewritten,
        list_price_rewrite=rounded(model.rewrite[View.LIST_PRICE]),
        quota_share_rewrite=rounded(model.rewrite[View.QUOTA_SHARE]),
        defined=model.defined,
        undefined_causes=() if model.defined else causes,
        compactions_off=None if model.off is None else rounded(model.off),
        sensitivities=tuple(
            rm.WhatIfAtRate(
                rate=rounded(at.sensitivity.rate),
                labels=at.sensitivity.labels,
                compactions_avoided=rounded(at.avoided),
                pressure_reduction=rounded(at.reduction),
                list_price_ratio=_ratio(at.ratios[View.LIST_PRICE]),
                quota_share_ratio=_ratio(at.ratios[View.QUOTA_SHARE]),
            )
            for at in model.at
        ),
    )


def _ratio(value: Fraction | None) -> Rounded | None:
    """A cost ratio rounded; None (unbounded) stays None."""
    return None if value is None else rounded(value)


def what_if_rows(
    sums: Mapping[WhatIfId, Mapping[Api, PolicySums]],
    api: Api,
    route: Route,
    cost_inputs: CostInputs,
    pressure_inputs: PressureInputs,
) -> tuple[rm.WhatIfPolicy, ...]:
    """Every policy of the reviewed table, in table order, on one API."""
    rows = []
    for policy in what_if_table().policies:
        policy_sums = sums[policy.id].get(api, PolicySums())
        cleared = ClearedSums(
            cleared=policy_sums.cleared,
            admitted=policy_sums.admitted,
            retrieved=policy_sums.retrieved,
            summary_cleared=policy_sums.summary_cleared,
            removed_observed=policy_sums.removed_observed,
            rewritten=policy_sums.rewritten,
        )
        model = what_if_model(cost_inputs, pressure_inputs, route, cleared)
        rows.append(_row(policy, policy_sums, model, pressure_inputs.undefined_causes))
    return tuple(rows)


def what_ifs_part(rows: Mapping[Api, tuple[rm.WhatIfPolicy, ...]]) -> rm.WhatIfs:
    """The part as both reports carry it."""
    return rm.WhatIfs(gating=False, per_api=dict(rows))


__all__ = ["what_if_rows", "what_ifs_part"]
