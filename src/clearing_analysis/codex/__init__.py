"""OpenAI Codex CLI rollouts: the typed lines, the reader and the outcome of a tool result
(explore only). docs/formats/codex.md is the reference.

`read_rollout` reads one rollout into its requests (R-SRC-3), context, tool results and
compactions, or refuses it whole with a fixed outcome and detail.
"""

from clearing_analysis.codex.outcome import Outcome, outcome_of
from clearing_analysis.codex.read import (
    Api,
    ReadRollout,
    RejectedRollout,
    RolloutCount,
    RolloutInvalid,
    RolloutOutcome,
    RolloutRead,
    read_rollout,
    read_stream,
)

__all__ = [
    "Api",
    "Outcome",
    "ReadRollout",
    "RejectedRollout",
    "RolloutCount",
    "RolloutInvalid",
    "RolloutOutcome",
    "RolloutRead",
    "outcome_of",
    "read_rollout",
    "read_stream",
]
