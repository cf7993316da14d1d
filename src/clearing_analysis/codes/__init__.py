"""Every fixed code clearing-analysis prints, in one place.

`codes.errors` is the error hierarchy (each refusal's code, detail enum and exit status);
`codes.table` is the one table of every code's kind, meaning and remedy (`TABLE`, which
`explain` reads) and the one formatter of a failure line (`failure_line`).
"""
