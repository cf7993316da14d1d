"""An honest corpus summary: what the journals contain, counted straight from decoding.

This is the inventory a user sees before any model runs: journals by decode outcome, and per
API the conversations, prompt turns, requests (assistant messages), tool results and bytes.
It deliberately makes no replay judgement (no boundary skips, no eligibility): those belong to
the replay stage. Only counts and byte totals are produced.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path

import msgspec
import polars as pl

from clearing_analysis.inputs.configs import Api
from clearing_analysis.journal.decode import DecodedJournal, RejectedJournal, decode_file
from clearing_analysis.journal.messages import AssistantMessage, TextContent, ToolResultMessage
from clearing_analysis.journal.records import MessageRecord, TurnStart

NO_REQUEST = "NO_REQUEST"
# An api label outside the four supported ones is arbitrary journal text: counted under this
# fixed code, never printed (seed: "No arbitrary route labels are echoed").
UNSUPPORTED_API = "UNSUPPORTED_API"
_SUPPORTED_APIS = frozenset(api.value for api in Api)


class _ApiTally(msgspec.Struct):
    conversations: set[int] = msgspec.field(default_factory=set)
    turns: int = 0
    requests: int = 0
    tool_results: int = 0
    tool_result_text_bytes: int = 0


class CorpusSummary(msgspec.Struct, frozen=True):
    """Journal outcomes plus a per-API table of counts."""

    journal_files: int
    journal_bytes: int
    outcomes: dict[str, int]
    per_api: pl.DataFrame


def _tally_journal(journal: DecodedJournal, index: int, tallies: dict[str, _ApiTally]) -> None:
    """Attribute a journal's turns, requests and results to APIs (the request's own api)."""
    current_api = NO_REQUEST
    pending_turns = 0
    for record in journal.records:
        if isinstance(record, TurnStart):
            pending_turns += 1
        elif isinstance(record, MessageRecord):
            message = record.message
            if isinstance(message, AssistantMessage):
                current_api = message.api if message.api in _SUPPORTED_APIS else UNSUPPORTED_API
                tally = tallies[current_api]
                tally.requests += 1
                tally.conversations.add(index)
                tally.turns += pending_turns
                pending_turns = 0
            elif isinstance(message, ToolResultMessage):
                tally = tallies[current_api]
                tally.tool_results += 1
                tally.tool_result_text_bytes += sum(
                    len(block.text.encode("utf-8"))
                    for block in message.content
                    if isinstance(block, TextContent)
                )
    if pending_turns:
        tallies[NO_REQUEST].turns += pending_turns


def summarize(paths: Iterable[Path]) -> CorpusSummary:
    """Decode every journal once and count; memory holds one journal at a time."""
    outcomes: Counter[str] = Counter()
    tallies: dict[str, _ApiTally] = defaultdict(_ApiTally)
    files = 0
    total_bytes = 0
    for index, path in enumerate(paths):
        files += 1
        result = decode_file(path)
        if isinstance(result, RejectedJournal):
            outcomes[result.outcome.value] += 1
            total_bytes += path.stat().st_size
            continue
        outcomes["DECODED"] += 1
        total_bytes += result.byte_size
        _tally_journal(result, index, tallies)
    rows = [
        {
            "api": api,
            "conversations": len(t.conversations),
            "turns": t.turns,
            "requests": t.requests,
            "toolResults": t.tool_results,
            "toolResultTextBytes": t.tool_result_text_bytes,
        }
        for api, t in sorted(tallies.items())
    ]
    schema = {
        "api": pl.String,
        "conversations": pl.Int64,
        "turns": pl.Int64,
        "requests": pl.Int64,
        "toolResults": pl.Int64,
        "toolResultTextBytes": pl.Int64,
    }
    return CorpusSummary(
        journal_files=files,
        journal_bytes=total_bytes,
        outcomes=dict(sorted(outcomes.items())),
        per_api=pl.DataFrame(rows, schema=schema),
    )
