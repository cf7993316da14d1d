"""Every fixed code clearing-analysis prints: one table of kind, meaning and remedy.

`codes.table` holds the text (`TABLE`, which `explain` reads) and the one formatter of a
failure line (`failure_line`).
"""
