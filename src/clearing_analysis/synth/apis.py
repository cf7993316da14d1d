"""Provider API specs and the prompt-cache usage model of the synthetic corpus.

Usage is consistent with context growth: a request's prefix (input + cacheRead + cacheWrite)
is the unrecorded system/tool overhead plus the heuristic tokens of every message in context.
The cache lives 5 minutes (the lifetime routes.json declares): a request within it reads the
longest prefix it shares with the previous request; a colder one reads nothing. Anthropic
reports the newly cached part as cacheWrite; the OpenAI-style APIs cache implicitly in
128-token steps above 1,024 tokens and report no cacheWrite (docs/synthetic-corpus.md).
"""

from __future__ import annotations

import random
from typing import Any

import msgspec

CACHE_LIFETIME_MS = 300_000
CACHE_MARGIN_MS = 30_000
UNSUPPORTED_API = "google-generative-ai"


class ApiSpec(msgspec.Struct, frozen=True):
    """One provider API as a pi-ai model entry would describe it."""

    api: str
    provider: str
    model: str
    window: int
    reports_cache_write: bool
    prices: tuple[float, float, float, float]  # input, cacheRead, cacheWrite, output per 1e6


SUPPORTED: tuple[ApiSpec, ...] = (
    ApiSpec(
        "anthropic-messages", "anthropic", "claude-sonnet-4-5", 200_000, True, (3, 0.3, 3.75, 15)
    ),
    ApiSpec("openai-responses", "openai", "gpt-5", 272_000, False, (1.25, 0.125, 0, 10)),
    ApiSpec(
        "openai-codex-responses",
        "openai-codex",
        "gpt-5-codex",
        272_000,
        False,
        (1.25, 0.125, 0, 10),
    ),
    ApiSpec(
        "openai-completions", "deepseek", "deepseek-chat", 128_000, False, (0.27, 0.07, 0, 1.1)
    ),
)
GOOGLE = ApiSpec(UNSUPPORTED_API, "google", "gemini-2.5-pro", 1_000_000, False, (1.25, 0.31, 0, 10))
BY_NAME: dict[str, ApiSpec] = {spec.api: spec for spec in (*SUPPORTED, GOOGLE)}


class CacheModel:
    """Per-conversation prompt cache: turns a request's prefix size into a usage split."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._last_request_ms: int | None = None
        self._cached_prefix = 0  # tokens of the previous prompt that a warm request can reuse
        self._last_api = ""  # a cache belongs to one provider: switching models starts cold

    def reset_prefix(self, stable: int) -> None:
        """After a compaction only the system/tool overhead is still a shared prefix."""
        self._cached_prefix = min(self._cached_prefix, stable)

    def usage(self, spec: ApiSpec, prefix: int, output: int, at_ms: int) -> dict[str, Any]:
        """The usage record of a successful request with `prefix` prompt tokens."""
        warm = (
            self._last_request_ms is not None
            and at_ms - self._last_request_ms <= CACHE_LIFETIME_MS
            and spec.api == self._last_api
        )
        reusable = min(self._cached_prefix, prefix) if warm else 0
        if spec.reports_cache_write:
            # Breakpoint on the last message: a few tokens after it are plain input.
            plain = min(prefix - reusable, self._rng.randint(1, 12))
            cache_read = reusable
            cache_write = prefix - reusable - plain
        else:
            if self._rng.random() < 0.06:  # implicit caches are best effort: occasional miss
                reusable = 0
            cache_read = (reusable // 128) * 128 if reusable >= 1024 else 0
            cache_write = 0
            plain = prefix - cache_read
        self._last_request_ms = at_ms
        self._last_api = spec.api
        self._cached_prefix = prefix
        total = plain + output + cache_read + cache_write
        p_in, p_read, p_write, p_out = spec.prices
        costs = (
            plain * p_in / 1e6,
            output * p_out / 1e6,
            cache_read * p_read / 1e6,
            cache_write * p_write / 1e6,
        )
        return {
            "input": plain,
            "output": output,
            "cacheRead": cache_read,
            "cacheWrite": cache_write,
            "totalTokens": total,
            "cost": {
                "input": round(costs[0], 8),
                "output": round(costs[1], 8),
                "cacheRead": round(costs[2], 8),
                "cacheWrite": round(costs[3], 8),
                "total": round(sum(costs), 8),
            },
        }

    def failed(self, at_ms: int) -> dict[str, Any]:
        """A failed or aborted dispatch reports zero usage but still counts as a request.

        It neither reads nor refreshes the cache, so the cache clock keeps running from the
        last successful request.
        """
        del at_ms
        return {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}
