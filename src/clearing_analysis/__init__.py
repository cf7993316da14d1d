"""clearing-analysis: is tool-result clearing worth building? An offline evidence gate.

The pipeline, one package per stage, no stage reaching backwards:

    inputs (paths, snapshot, sidecar, configs) -> journal (decoding) -> replay
    -> eligibility -> simulation -> models -> gate -> report

`synth` writes synthetic corpora in the same formats; `qualify` drives the real pi-ai payload
builders. The CLI (`clearing_analysis.cli`) only parses arguments and calls these packages.
"""

__version__ = "0.1.0"
