"""Keyed digests of a tool call's canonical arguments, in memory only (R-RF-1).

A call that fetches something (a file read, a search, a web fetch) asks again for what it was
given when it is repeated with equal canonical arguments: policy/refetch.json names, per table
of tool names, which arguments are canonical for each such tool, which tools write a file (a
re-read after a write of that path is counted apart) and which are polling calls (never a
re-fetch). Replay keeps of the arguments only BLAKE2b digests keyed with a per-run random key
(`ArgumentKey`): the key is made in memory when a run starts, reaches pool workers inside the
pickled unit settings and is never written; a digest means nothing without it, and two runs
give the same counts with different keys because only equality of digests is ever used.
Nothing here is printed: the key's repr hides it, the digests stay on `ToolResult`.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import secrets
from collections.abc import Mapping
from typing import Annotated, Any

import msgspec

from clearing_analysis.policy import read_policy_bytes

_KEY_BYTES = 32
_DIGEST_BYTES = 16


class _Policy(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    pass


class FetchTool(_Policy, frozen=True):
    """One fetching tool: its canonical arguments, each with the names that may carry it."""

    arguments: dict[str, tuple[str, ...]]
    path: str | None

    def __post_init__(self) -> None:
        if not self.arguments or any(not names for names in self.arguments.values()):
            raise ValueError("a fetching tool has canonical arguments, each with a name")
        if self.path is not None and self.path not in self.arguments:
            raise ValueError("a fetching tool's path is one of its canonical arguments")


class ToolTable(_Policy, frozen=True):
    """The fetching, writing and polling tools of one table of tool names."""

    fetches: dict[str, FetchTool]
    writes: dict[str, tuple[str, ...]]
    polling: frozenset[str]

    def __post_init__(self) -> None:
        if set(self.fetches) & (set(self.writes) | self.polling):
            raise ValueError("a fetching tool is neither a writing nor a polling one")
        if any(not names for names in self.writes.values()):
            raise ValueError("a writing tool names its path argument")


class RefetchPolicy(_Policy, frozen=True):
    """policy/refetch.json."""

    comment: str
    interval_confidence: Annotated[float, msgspec.Meta(gt=0, lt=1)]
    distance_turn_edges: tuple[int, ...]
    tables: dict[str, ToolTable]

    def __post_init__(self) -> None:
        edges = self.distance_turn_edges
        if not edges or any(b <= a for a, b in itertools.pairwise(edges)):
            raise ValueError("distance edges must be non-empty and strictly increasing")


@functools.cache
def refetch_policy() -> RefetchPolicy:
    """policy/refetch.json, decoded once."""
    return msgspec.json.decode(read_policy_bytes("refetch.json"), type=RefetchPolicy)


class ArgumentKey:
    """A per-run random BLAKE2b key. Never printed (its repr says nothing of it), never
    written; it pickles, so that a pool worker gets it in memory with its unit's settings."""

    __slots__ = ("_key",)

    def __init__(self, key: bytes) -> None:
        if len(key) != _KEY_BYTES:
            raise ValueError("an argument key has 32 bytes")
        self._key = key

    @classmethod
    def generate(cls) -> ArgumentKey:
        """A fresh key from the system's CSPRNG."""
        return cls(secrets.token_bytes(_KEY_BYTES))

    def __repr__(self) -> str:
        return "ArgumentKey(<hidden>)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ArgumentKey) and secrets.compare_digest(self._key, other._key)

    def __hash__(self) -> int:
        return hash(ArgumentKey)

    def __reduce__(self) -> tuple[type[ArgumentKey], tuple[bytes]]:
        return ArgumentKey, (self._key,)

    def digest(self, kind: bytes, data: bytes) -> bytes:
        """The keyed digest of `data` in the domain `kind` (a call's arguments, a path)."""
        return hashlib.blake2b(
            data, key=self._key, digest_size=_DIGEST_BYTES, person=kind.ljust(16, b"\0")[:16]
        ).digest()


# Canonical values are encoded with sorted keys, so that an argument object written in another
# key order is the same argument.
_ENCODER = msgspec.json.Encoder(order="sorted")


def _first(arguments: Mapping[str, Any], names: tuple[str, ...]) -> tuple[bool, Any]:
    for name in names:
        if name in arguments:
            return True, arguments[name]
    return False, None


def _path_bytes(value: Any) -> bytes | None:
    if not isinstance(value, str) or not value:
        return None
    return value.encode("utf-8", "surrogatepass")


class CallDigests(msgspec.Struct, frozen=True, gc=False):
    """What replay keeps of one call's arguments: the digest of its canonical arguments (a
    fetching tool only), of the file path it reads (a file read) or writes (a writing tool)."""

    arguments: bytes | None = None
    read_path: bytes | None = None
    written_path: bytes | None = None


NO_DIGESTS = CallDigests()


def call_digests(
    key: ArgumentKey | None, table: str, tool_name: str, arguments: Mapping[str, Any]
) -> CallDigests:
    """The digests of a call of `tool_name` (named in the table `table`) with `arguments`;
    none without a key, for a table the policy does not list, or for a tool neither fetching
    nor writing (effectful, polling, unknown)."""
    if key is None:
        return NO_DIGESTS
    tools = refetch_policy().tables.get(table)
    if tools is None:
        return NO_DIGESTS
    fetch = tools.fetches.get(tool_name)
    if fetch is not None:
        canonical = []
        read_path = None
        for name, names in fetch.arguments.items():
            present, value = _first(arguments, names)
            canonical.append((name, present, value))
            if name == fetch.path and present:
                path = _path_bytes(value)
                read_path = None if path is None else key.digest(b"path", path)
        try:
            encoded = _ENCODER.encode([tool_name, canonical])
        except (msgspec.EncodeError, UnicodeEncodeError):  # a lone surrogate: no comparison
            return NO_DIGESTS
        return CallDigests(key.digest(b"arguments", encoded), read_path, None)
    written = tools.writes.get(tool_name)
    if written is not None:
        _, value = _first(arguments, written)
        path = _path_bytes(value)
        if path is not None:
            return CallDigests(None, None, key.digest(b"path", path))
    return NO_DIGESTS


__all__ = [
    "NO_DIGESTS",
    "ArgumentKey",
    "CallDigests",
    "FetchTool",
    "RefetchPolicy",
    "ToolTable",
    "call_digests",
    "refetch_policy",
]
