"""Synthetic corpus generator: seeded, streaming, realistic pi-like native histories.

`generate` writes journals, a sidecar, routes, agent-config, app-allowlist and a ground-truth
manifest (docs/synthetic-corpus.md). Profiles steer the corpus toward or away from BUILD.
"""

from clearing_analysis.synth.corpus import CorpusSummary, generate
from clearing_analysis.synth.profiles import DEFAULT_PROFILE, PROFILES

__all__ = ["DEFAULT_PROFILE", "PROFILES", "CorpusSummary", "generate"]
