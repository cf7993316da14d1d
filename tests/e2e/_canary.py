"""Canary strings for the privacy tests (R-OUT-3).

`Canaries` hands out unique random-looking strings (letters only, or lowercase hex where a
format demands a SHA-256) and remembers each under a label; `leaks` finds any canary, or any
fragment of `FRAGMENT` or more characters of one, in a blob, ignoring case. Letters-only
canaries cannot collide with the numbers of a report, and the hex ones hold a letter in every
window, so a hit is a leak, not a coincidence.
"""

from __future__ import annotations

import random
import string

FRAGMENT = 8
_LETTERS = string.ascii_letters
_HEX = "0123456789abcdef"


class Canaries:
    """A registry of unique canary strings, deterministic for a seed."""

    def __init__(self, seed: int = 20261129) -> None:
        self._random = random.Random(seed)
        self.values: dict[str, str] = {}

    def __call__(self, label: str, length: int = 24) -> str:
        """A new letters-only canary for `label` (labels are unique)."""
        return self._add(label, "".join(self._random.choice(_LETTERS) for _ in range(length)))

    def hex(self, label: str) -> str:
        """A 64-char lowercase hex canary: every 8-window holds a letter (never a plain number)."""
        while True:
            value = "".join(self._random.choice(_HEX) for _ in range(64))
            windows = (value[i : i + FRAGMENT] for i in range(64 - FRAGMENT + 1))
            if all(any(c in "abcdef" for c in w) for w in windows):
                return self._add(label, value)

    def _add(self, label: str, value: str) -> str:
        if label in self.values:
            raise RuntimeError("canary labels must be unique")
        self.values[label] = value
        return value


def leaks(blob: bytes, canaries: dict[str, str]) -> list[str]:
    """Labels of canaries whose text, or any FRAGMENT-char fragment of it, occurs in `blob`."""
    folded = blob.lower()
    seen = {folded[i : i + FRAGMENT] for i in range(len(folded) - FRAGMENT + 1)}
    found = []
    for label, value in canaries.items():
        raw = value.lower().encode()
        if any(raw[i : i + FRAGMENT] in seen for i in range(len(raw) - FRAGMENT + 1)):
            found.append(label)
    return found
