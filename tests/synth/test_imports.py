"""The synthetic corpora's modules import one another without a circle, deferred and
type-checking imports included: the session writer calls the retention rows' writer, which
knows nothing of the session (read from the modules' syntax trees)."""

from __future__ import annotations

from tests._imports import folder_cycles, folder_graph

SYNTH = "clearing_analysis.synth"


def test_no_synth_module_imports_back_what_imports_it() -> None:
    """synth/ has no import cycle."""
    assert folder_cycles("synth") == []


def test_the_check_reads_the_real_imports() -> None:
    """The graph holds the imports the corpus is written through (corpus -> session ->
    retention -> sidecar) and the package's deferred import of corpus, so an empty list of
    cycles is not an empty graph."""
    graph = folder_graph("synth")
    assert f"{SYNTH}.session" in graph[f"{SYNTH}.corpus"]
    assert f"{SYNTH}.retention" in graph[f"{SYNTH}.session"]
    assert f"{SYNTH}.sidecar" in graph[f"{SYNTH}.retention"]
    assert f"{SYNTH}.corpus" in graph[SYNTH]
