"""A per-run --agent-config decoded one entry at a time (inputs.configs): the same proofs as
the strict path, whatever the layout, and a peak memory near what the proofs keep."""

from __future__ import annotations

import json
import tracemalloc
from typing import Any

import pytest

from clearing_analysis.codes.errors import InputInvalidError
from clearing_analysis.inputs.configs import AgentConfig, decode_agent_config


def _entries(count: int, conversations: int = 7) -> list[dict[str, Any]]:
    """`count` per-run proofs over a few conversations and two inventories."""
    return [
        {
            "physicalConversationId": f"pc-{index % conversations:04d}",
            "runId": f"run-{index:08d}",
            "builtins": ["read", "grep"] if index % 3 else ["read", "grep", "bash"],
            "mcpTools": [{"exposedName": "docs_search"}] if index % 2 else "none",
        }
        for index in range(count)
    ]


def _canonical(entries: list[dict[str, Any]]) -> bytes:
    return json.dumps(entries, separators=(",", ":")).encode()


def _proofs(config: AgentConfig) -> dict[tuple[str, str], object]:
    assert config.per_run is not None
    return {
        (conversation, run): proof
        for conversation, runs in config.per_run.items()
        for run, proof in runs.items()
    }


@pytest.mark.parametrize(
    "layout",
    [
        lambda e: json.dumps(e, indent=2).encode(),  # pretty: the strict path
        lambda e: b"\n " + _canonical(e) + b"\n",  # surrounding whitespace: entry by entry
        lambda e: _canonical(e).replace(b"},{", b"}, {", 1),  # a space between two entries
        lambda e: _canonical(e).replace(b'{"physical', b'{ "physical', 1),  # one entry not
    ],
    ids=["pretty", "surrounding-whitespace", "space-between", "one-entry-spaced"],
)
def test_every_layout_gives_the_same_proofs(layout: Any) -> None:
    """Canonical, surrounded by whitespace, or written any other way: the same proofs, and
    equal inventories share one object."""
    entries = _entries(60)
    expected = _proofs(decode_agent_config(_canonical(entries)))
    found = _proofs(decode_agent_config(layout(entries)))
    assert found == expected and len(found) == 60
    assert len({id(proof) for proof in found.values()}) == 4


@pytest.mark.parametrize(
    ("raw", "detail"),
    [
        (b"[]", "AGENT_CONFIG_EMPTY"),
        (_canonical(_entries(3) + _entries(1)), "AGENT_CONFIG_RUN_ID_DUPLICATE"),
        (_canonical([{**_entries(1)[0], "runId": ""}]), "AGENT_CONFIG_RUN_ID_MISSING"),
        (_canonical([{**_entries(1)[0], "extra": 1}]), "WRONG_SHAPE"),
    ],
    ids=["empty", "duplicate-run", "empty-run-id", "unknown-field"],
)
def test_refusals_are_the_strict_paths(raw: bytes, detail: str) -> None:
    """An empty array, a repeated (conversation, run), an empty run id or an unknown field
    is refused with the same fixed code whichever path decoded it."""
    with pytest.raises(InputInvalidError) as caught:
        decode_agent_config(raw)
    assert caught.value.detail.endswith(detail)


def test_peak_memory_stays_near_the_file() -> None:
    """Decoding 20,000 canonical proofs peaks at under twice the file's size (every entry
    decoded at once peaked at about seven times it)."""
    raw = _canonical(_entries(20_000, conversations=400))
    decode_agent_config(raw)  # the decoders and the policy, made once
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        config = decode_agent_config(raw)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert len(_proofs(config)) == 20_000
    assert peak < 2 * len(raw), (peak, len(raw))
