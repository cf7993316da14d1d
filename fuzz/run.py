"""Run one atheris (libFuzzer) target: `python -m fuzz.run TARGET [libFuzzer options]`.

The analyzer's modules are instrumented for coverage; the seed corpus (fuzz/corpus/TARGET) and
every kept reproducer (fuzz/regressions/TARGET) are read first, new inputs go to a working
corpus under `.fuzz/TARGET/` (not committed), and a crash is written there as `crash-*`.
Mutation is structure-aware (`fuzz.mutate`) three times in four, byte-level otherwise. The last
line printed is a summary: executions, coverage (libFuzzer's edge counter `cov` and feature
counter `ft`), corpus size and crashes; each crash follows on a line of its own, with what
the target raises when the input is run again (the exception and where, never the input).
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / ".fuzz"


def _fuzz(name: str, options: list[str]) -> None:
    """Inside the fuzzing process: instrument, set up the mutator, hand over to libFuzzer."""
    import atheris  # noqa: PLC0415  (only `make fuzz` needs it)

    with atheris.instrument_imports(include=["clearing_analysis"]):
        from fuzz import targets  # noqa: PLC0415
    from fuzz.mutate import RandomChooser, mutate_document, mutate_lines  # noqa: PLC0415

    target = targets.TARGETS[name]
    structural = mutate_lines if target.lines else mutate_document

    def mutator(data: bytes, max_size: int, seed: int) -> bytes:
        rng = random.Random(seed)
        if rng.randrange(4) != 0:
            try:
                mutated = structural(data, RandomChooser(rng))
            except (ValueError, RecursionError, MemoryError):
                mutated = b""  # a document the mutator cannot handle: mutate its bytes
            if 0 < len(mutated) <= max_size:
                return mutated
        return bytes(atheris.Mutate(data, max_size))

    atheris.Setup([sys.argv[0], *options], target.run, custom_mutator=mutator)
    atheris.Fuzz()


_STAT = re.compile(r"^#(\d+)\s+(?:DONE|pulse|NEW|REDUCE|INITED)\b.*?cov: (\d+) ft: (\d+)")
_CORPUS = re.compile(r"corp: (\d+)/")


def main(argv: list[str]) -> int:
    """Run the target in a child process and summarize what libFuzzer printed."""
    if os.environ.get("CLEARING_FUZZ_CHILD") == "1":
        # Nothing of the analyzer may be imported before atheris instruments it.
        _fuzz(argv[0], argv[1:])
        return 0
    from fuzz.targets import TARGETS  # noqa: PLC0415

    if not argv or argv[0] not in TARGETS:
        sys.stderr.write(f"usage: python -m fuzz.run {{{','.join(TARGETS)}}} [options]\n")
        return 2
    name, options = argv[0], argv[1:]
    work = WORK / name
    (work / "corpus").mkdir(parents=True, exist_ok=True)
    seeds = [ROOT / "fuzz" / part / name for part in ("corpus", "regressions")]
    largest = max((f.stat().st_size for s in seeds if s.is_dir() for f in s.iterdir()), default=0)
    if not any(option.startswith("-max_len=") for option in options):
        options = [f"-max_len={max(65536, largest)}", *options]
    command = [
        sys.executable,
        "-m",
        "fuzz.run",
        name,
        f"-artifact_prefix={work}/",
        "-print_final_stats=1",
        "-timeout=20",
        "-rss_limit_mb=4096",
        *options,
        str(work / "corpus"),
        *(str(seed) for seed in seeds if seed.is_dir()),
    ]
    env = {**os.environ, "CLEARING_FUZZ_CHILD": "1"}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    log = done.stderr
    (work / "last-run.log").write_text(log)
    executions = cov = ft = corpus = 0
    for line in log.splitlines():
        stat = _STAT.match(line)
        if stat:
            executions, cov, ft = (int(group) for group in stat.groups())
            found = _CORPUS.search(line)
            corpus = int(found.group(1)) if found else corpus
        elif line.startswith("stat::number_of_executed_units:"):
            executions = int(line.split(":")[-1])
    crashes = sorted(path.name for path in work.glob("crash-*"))
    crashes += sorted(path.name for path in work.glob("timeout-*"))
    crashes += sorted(path.name for path in work.glob("oom-*"))
    print(
        f"fuzz {name}: executions={executions} cov={cov} ft={ft} corpus={corpus} "
        f"crashes={len(crashes)} exit={done.returncode}"
    )
    for crash in crashes:
        print(f"  {crash}: {_replay(TARGETS[name].run, work / crash)}")
    return 0 if done.returncode == 0 and not crashes else 1


def _replay(run: Callable[[bytes], None], path: Path) -> str:
    """What the target raises on a saved crash input, run again here (uninstrumented)."""
    try:
        run(path.read_bytes())
    except Exception as error:  # the crash being described
        frame = traceback.extract_tb(error.__traceback__)[-1]
        return f"{type(error).__name__} at {Path(frame.filename).name}:{frame.lineno}"
    return "no exception when replayed (a timeout, an out-of-memory or a flaky crash)"


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
