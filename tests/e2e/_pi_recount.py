"""What the e2e recounts of real pi sessions share: the per-API tallies and the plain-text
byte rule, read with plain `json` and nothing of the reader under test."""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Recount:
    """What the documented rules say, counted by hand, per API."""

    requests: collections.Counter[str] = field(default_factory=collections.Counter)
    fallback: collections.Counter[str] = field(default_factory=collections.Counter)
    turns: collections.Counter[str] = field(default_factory=collections.Counter)
    usage: dict[str, collections.Counter[str]] = field(
        default_factory=lambda: collections.defaultdict(collections.Counter)
    )
    results: dict[str, collections.Counter[str]] = field(
        default_factory=lambda: collections.defaultdict(collections.Counter)
    )
    result_bytes: dict[str, collections.Counter[str]] = field(
        default_factory=lambda: collections.defaultdict(collections.Counter)
    )


def plain_text_bytes(content: list[dict[str, Any]]) -> int:
    """UTF-8 bytes of a single text block without a signature; 0 for any other shape."""
    if len(content) == 1 and content[0]["type"] == "text" and not content[0].get("textSignature"):
        return len(content[0]["text"].encode("utf-8"))
    return 0
