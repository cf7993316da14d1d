"""Assemble stage: the typed report, computed from the combined totals of every unit, the
models and the gate (`analysis.build_report`; `explore.build_explore` never calls the gate).

It stands between the gate and the report: the report package holds only the structs this
stage fills and their renderers (JSON, terminal, HTML), which read nothing else.
"""
