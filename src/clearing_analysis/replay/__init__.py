"""Replay: native journals to pre-turn boundaries and tool results (R-RP, R-SIM-1/3).

The pipeline is one-directional: journal -> replay -> eligibility. `replay_journal` turns one
journal into a self-contained contribution (or a skip); `replay_journals` replays many and
merges them in deterministic order. Nothing here prints or keeps message text.
"""

from clearing_analysis.replay.journal_replay import replay_decoded, replay_journal
from clearing_analysis.replay.merge import MergedJournal, ReplayResult, merge, replay_journals
from clearing_analysis.replay.model import (
    NATIVE_JOURNAL,
    BoundarySkipReason,
    CapturedOrigin,
    CheckpointObservation,
    CompletedPromptRun,
    HistorySource,
    JournalOutcome,
    JournalSkipReason,
    OriginSource,
    Protection,
    ReplayedBoundary,
    ReplayedJournal,
    RequestUsage,
    ResultShape,
    SkippedJournal,
    ToolResult,
    imported_history,
)
from clearing_analysis.replay.pi_replay import replay_pi_session
from clearing_analysis.replay.retention import MATCHED_STATUSES, RetentionStatus

__all__ = [
    "MATCHED_STATUSES",
    "NATIVE_JOURNAL",
    "BoundarySkipReason",
    "CapturedOrigin",
    "CheckpointObservation",
    "CompletedPromptRun",
    "HistorySource",
    "JournalOutcome",
    "JournalSkipReason",
    "MergedJournal",
    "OriginSource",
    "Protection",
    "ReplayResult",
    "ReplayedBoundary",
    "ReplayedJournal",
    "RequestUsage",
    "ResultShape",
    "RetentionStatus",
    "SkippedJournal",
    "ToolResult",
    "imported_history",
    "merge",
    "replay_decoded",
    "replay_journal",
    "replay_journals",
    "replay_pi_session",
]
