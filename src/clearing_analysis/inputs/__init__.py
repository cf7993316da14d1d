"""Inputs: explicit paths, the snapshot, the sidecar and the configuration files.

Everything the analyzer reads enters through this package; nothing is discovered.
"""
