"""What a run keeps for each journal file (docs/performance.md, "Memory against the corpus
size"): the bytes of live Python objects that opening the inputs and planning the units add,
divided by the number of journal files.

Opens the inputs of a corpus directory (as `synth` writes it: journals/, history.sqlite,
routes.json; no agent config, whose proofs grow with the runs rather than the files) with
`InputSession.open`, as `replay` and `analyze` do, then plans the units as `analyze` does,
and reads `tracemalloc` (standard library) after a collection at each step; a first open
and plan, not measured, import what they import. The session
lives through the whole run (the second snapshot and the output checks need it) and so do
the units (a second pass may need them).

    python bench/inputs/bench_per_file.py CORPUS_DIR
"""

from __future__ import annotations

import argparse
import gc
import tracemalloc
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    corpus: Path = parser.parse_args().corpus

    from clearing_analysis.inputs.requests import ReplayRequest
    from clearing_analysis.inputs.session import InputSession
    from clearing_analysis.pipeline.units import plan_units

    request = ReplayRequest(
        journals=(corpus / "journals",),
        sidecar=corpus / "history.sqlite",
        routes=corpus / "routes.json",
    )
    # Once unmeasured, so that what the first open and plan import is not counted.
    warm = InputSession.open(request)
    plan_units(warm.journal_paths, warm.journal_sizes)
    del warm
    gc.collect()
    tracemalloc.start()
    session = InputSession.open(request)
    gc.collect()
    opened, opening_peak = tracemalloc.get_traced_memory()
    units = plan_units(session.journal_paths, session.journal_sizes)
    gc.collect()
    planned, planning_peak = tracemalloc.get_traced_memory()
    files = len(session.journal_paths)
    mib = 2**20
    print(f"journal files: {files}, units: {len(units)}")
    print(f"session kept: {opened / files:.0f} bytes a file ({opened / mib:.2f} MiB)")
    print(f"units kept: {(planned - opened) / files:.0f} bytes a file")
    print(f"session and units: {planned / files:.0f} bytes a file ({planned / mib:.2f} MiB)")
    print(
        f"traced peak while opening {opening_peak / mib:.2f} MiB,"
        f" while planning {planning_peak / mib:.2f} MiB"
    )


if __name__ == "__main__":
    main()
