"""Synthetic corpus generator: seeded, streaming, realistic pi-like native histories.

`generate` writes journals, a sidecar, routes, agent-config, app-allowlist and a ground-truth
manifest (docs/synthetic-corpus.md). Profiles steer the corpus toward or away from BUILD.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from clearing_analysis.synth.profiles import DEFAULT_PROFILE, PROFILES

if TYPE_CHECKING:
    from clearing_analysis.synth.corpus import CorpusSummary, generate


def __getattr__(name: str) -> Any:
    # The generator (and what it imports) loads on first use, not with the profiles that the
    # CLI needs for its option choices (PEP 562).
    if name in ("CorpusSummary", "generate"):
        from clearing_analysis.synth import corpus  # noqa: PLC0415

        return getattr(corpus, name)
    raise AttributeError(name)


__all__ = ["DEFAULT_PROFILE", "PROFILES", "CorpusSummary", "generate"]
