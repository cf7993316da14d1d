"""Why a model figure is undefined: the codes the pressure model states and the report carries.

An enum of its own (as the rate labels are, `models.rates`), so that the report's structs name
the causes without importing the models' arithmetic.
"""

from __future__ import annotations

import enum


class UndefinedCause(enum.StrEnum):
    """Why the pressure model (and with it the cost model and the what-ifs) is undefined."""

    # G <= 0: no native growth over the window (one counted boundary and no compaction, or
    # E never grew), so there is no compaction cycle to lengthen.
    NO_GROWTH = "NO_GROWTH"
    # T <= P: the route's trigger is not above its drain, so no growth fits between
    # compactions.
    TRIGGER_NOT_ABOVE_DRAIN = "TRIGGER_NOT_ABOVE_DRAIN"


__all__ = ["UndefinedCause"]
