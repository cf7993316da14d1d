"""Finalized tool identity (R-RP-4): how a journal's tool call and a sidecar row are linked.

The id is reconstructed from the physical conversation, host turn, run and call identity,
never from text similarity. Writers (the agent, `synth`) and the replay stage share this one
definition; docs/formats/sidecar.md states it for other implementations.
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

import msgspec

_ENCODER = msgspec.json.Encoder()


class ToolIdentity(NamedTuple):
    """The four parts of a finalized tool identity."""

    physical_conversation_id: str
    host_turn_id: str
    run_id: str
    call_id: str


def finalized_tool_id(identity: ToolIdentity) -> str:
    """Lowercase hex SHA-256 of the compact UTF-8 JSON array of the four parts.

    msgspec writes exactly `json.dumps(parts, separators=(",", ":"), ensure_ascii=False)`
    (tested on arbitrary text), several times faster; it writes a named tuple as an array.
    """
    return hashlib.sha256(_ENCODER.encode(identity)).hexdigest()
