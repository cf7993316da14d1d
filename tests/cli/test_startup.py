"""Start-up stays light (issue: `--help` and small runs start fast): the CLI loads the library,
polars, rich and structlog only when a command runs, not to parse arguments or print help."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli._modules import loaded_after
from tests.synth.corpora import corpus_options

HEAVY = (
    "polars",
    "rich",
    "structlog",
    "clearing_analysis.pipeline.jobs",
    "clearing_analysis.pipeline.units",
    "clearing_analysis.eligibility",
    "clearing_analysis.synth.corpus",
    "clearing_analysis.qualify.runner",
    "clearing_analysis.report",
    # Keys and signatures: only keygen, a signed analyze and verify load them.
    "cryptography",
    "clearing_analysis.attest",
    "clearing_analysis.pisession",
    "clearing_analysis.replay",
)


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["analyze", "--help"],
        ["replay", "--help"],
        ["demo", "--help"],
        ["synth"],
        ["keygen", "--help"],
        ["verify", "--help"],
        ["keygen"],
        ["verify"],
        ["explore", "--help"],
        ["explore"],
    ],
)
def test_help_and_usage_errors_load_nothing_heavy(args: list[str], tmp_path: Path) -> None:
    """The modules loaded by the time the process exits include none of the heavy ones."""
    loaded = loaded_after(args, tmp_path, "modules", statuses=(0, 2))
    assert "typer" in loaded  # not vacuous: the CLI did load
    assert [m for m in loaded if m.split(".")[0] in HEAVY or m.startswith(HEAVY)] == []


def test_only_keygen_signing_and_verify_load_cryptography(tmp_path: Path) -> None:
    """A complete unsigned analyze and a show never import cryptography; keygen, a signed
    analyze and verify do (the check is not vacuous)."""
    from clearing_analysis.synth import generate

    (tmp_path / "in").mkdir()
    corpus = tmp_path / "in" / "corpus"
    generate(corpus, seed=2, conversations=1, profile="mixed")
    analyze = ["analyze", *corpus_options(corpus)]

    def crypto(modules: list[str]) -> bool:
        return any(m == "cryptography" or m.startswith("cryptography.") for m in modules)

    unsigned = loaded_after([*analyze, "--out", str(tmp_path / "plain.json")], tmp_path, "a")
    shown = loaded_after(["show", str(tmp_path / "plain.json")], tmp_path, "s")
    assert "clearing_analysis.pipeline.jobs" in unsigned  # the analysis really ran
    assert not crypto(unsigned) and not crypto(shown)
    assert not any(m.startswith("clearing_analysis.attest") for m in unsigned + shown)
    key = tmp_path / "run.key"
    signed = [*analyze, "--out", str(tmp_path / "r.json"), "--sign-key", str(key)]
    verify = ["verify", str(tmp_path / "r.json"), "--pubkey", f"{key}.pub"]
    assert crypto(loaded_after(["keygen", "--out", str(key)], tmp_path, "k"))
    assert crypto(loaded_after(signed, tmp_path, "sa"))
    assert crypto(loaded_after(verify, tmp_path, "v"))


def test_a_run_in_a_pipe_loads_neither_rich_nor_structlog(tmp_path: Path) -> None:
    """An analyze whose stdout and stderr are pipes and that writes no --log-file draws no
    progress and no human view, and drops its log events without structlog: neither library
    loads. With --log-file, structlog does (the check is not vacuous)."""
    from clearing_analysis.synth import generate

    (tmp_path / "in").mkdir()
    corpus = tmp_path / "in" / "corpus"
    generate(corpus, seed=2, conversations=1, profile="mixed")
    analyze = ["analyze", *corpus_options(corpus)]

    def of(modules: list[str], library: str) -> bool:
        return any(m == library or m.startswith(f"{library}.") for m in modules)

    plain = loaded_after([*analyze, "--out", str(tmp_path / "plain.json")], tmp_path, "a")
    assert "clearing_analysis.pipeline.jobs" in plain  # the analysis really ran
    assert not of(plain, "rich") and not of(plain, "structlog")
    log = str(tmp_path / "run.log")
    logged = loaded_after(
        [*analyze, "--out", str(tmp_path / "l.json"), "--log-file", log], tmp_path, "l"
    )
    assert of(logged, "structlog")
    assert (tmp_path / "run.log").read_bytes()


@pytest.mark.parametrize(
    "args",
    [["--help"], ["analyze", "--help"], ["replay", "--help"], ["show", "--help"]],
)
def test_help_loads_no_pydantic(args: list[str], tmp_path: Path) -> None:
    """A command's `--help` answers without typer's pydantic coercion (the root's and the
    command's absent `--help` flags are converted by cli._values, not by typer's adapter)."""
    loaded = loaded_after(args, tmp_path, "help")
    assert "typer" in loaded  # not vacuous: the CLI did load
    assert [m for m in loaded if m == "pydantic" or m.startswith("pydantic.")] == []


# What a pool worker may not load: the CLI, rendering, the later stages, the heavy libraries.
WORKER_HEAVY = (
    "polars",
    "rich",
    "structlog",
    "cryptography",
    "typer",
    "pydantic",
    "clearing_analysis.cli",
    "clearing_analysis.report",
    "clearing_analysis.gate",
    "clearing_analysis.models",
    "clearing_analysis.assemble",
    "clearing_analysis.attest",
    "clearing_analysis.pipeline.jobs",
)


def test_pool_worker_loads_only_the_unit_path() -> None:
    """A spawned worker, once started as the unit pool starts it, has loaded the replay,
    eligibility and simulation of a unit, and none of the heavy or later modules."""
    import multiprocessing
    import os
    from concurrent.futures import ProcessPoolExecutor

    from clearing_analysis.pipeline import pool as unit_pool

    with ProcessPoolExecutor(
        max_workers=1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=unit_pool._init_worker,
        initargs=(os.getpid(),),
    ) as pool:
        loaded: list[str] = pool.submit(eval, "sorted(__import__('sys').modules)").result(60)
    assert "clearing_analysis.replay.journal_replay" in loaded  # not vacuous
    assert "clearing_analysis.simulation.unit" in loaded
    assert [
        m for m in loaded if m.split(".")[0] in WORKER_HEAVY or m.startswith(WORKER_HEAVY)
    ] == []


def test_analyze_and_show_load_no_polars(tmp_path: Path) -> None:
    """The units reduce their rows to fixed-size figures (`simulation.figures`), so neither a
    whole analyze, with one worker or two, nor a show of its report loads polars."""
    from clearing_analysis.synth import generate

    (tmp_path / "in").mkdir()
    corpus = tmp_path / "in" / "corpus"
    generate(corpus, seed=2, conversations=3, profile="build")
    analyze = ["analyze", *corpus_options(corpus)]

    def polars(modules: list[str]) -> bool:
        return any(m == "polars" or m.startswith("polars.") for m in modules)

    report = str(tmp_path / "report-one.json")
    one = loaded_after([*analyze, "--out", report, "--workers", "1"], tmp_path, "one")
    two = loaded_after(
        [*analyze, "--out", str(tmp_path / "report-two.json"), "--workers", "2"], tmp_path, "two"
    )
    shown = loaded_after(["show", report], tmp_path, "show")
    assert "clearing_analysis.assemble.analysis" in one  # the report really was assembled
    assert not polars(one) and not polars(two) and not polars(shown)


# What a run in one process does without (docs/performance.md, "Start-up"): the pool's
# machinery, the JSON Schema library (the report schemas are checked by schemacheck), and
# importlib.metadata (the version is the package's own).
ONE_PROCESS_NEVER = (
    "multiprocessing",
    "concurrent.futures",
    "ctypes",
    "jsonschema",
    "referencing",
    "attrs",
    "importlib.metadata",
)


def test_a_run_in_one_process_loads_no_pool_and_no_schema_library(tmp_path: Path) -> None:
    """A one-worker analyze and a show of its report load none of ONE_PROCESS_NEVER; a
    two-worker analyze does load the pool's machinery (not vacuous)."""
    from clearing_analysis.synth import generate

    (tmp_path / "in").mkdir()
    corpus = tmp_path / "in" / "corpus"
    generate(corpus, seed=3, conversations=2, profile="mixed")
    analyze = ["analyze", *corpus_options(corpus)]

    def of(modules: list[str]) -> list[str]:
        return [m for m in modules if m in ONE_PROCESS_NEVER or m.startswith(ONE_PROCESS_NEVER)]

    report = str(tmp_path / "report.json")
    one = loaded_after([*analyze, "--out", report, "--workers", "1"], tmp_path, "one")
    shown = loaded_after(["show", report], tmp_path, "show")
    two = loaded_after(
        [*analyze, "--out", str(tmp_path / "two.json"), "--workers", "2"], tmp_path, "two"
    )
    assert "clearing_analysis.report.encode" in one  # the report really was checked
    assert of(one) == [] and of(shown) == []
    assert {"multiprocessing", "concurrent.futures"} <= set(of(two))
