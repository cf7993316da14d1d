"""Fuzzing of every parser of untrusted input (docs/security.md, "Fuzzing").

`mutate` rewrites valid files field by field (wrong types, NaN, huge numbers, deep nesting, bad
timestamps; keys and lines deleted, added, repeated and reordered), the kind of structure-aware
mutation that found the crash classes byte-level fuzzing missed. `targets` holds one entry
point per parser: it feeds the bytes to the parser and lets only that parser's fixed outcomes
through, so anything else is a crash. The hypothesis property tests (tests/) and the atheris
driver (`python -m fuzz.run`, `make fuzz`) share both.
"""
