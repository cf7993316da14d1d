"""The real command line in a fresh interpreter: usage errors and `--journals P [P ...]`.

Usage errors (R-OUT-1): a unique canary typed as an unknown option, a bad `--workers` value, an
extra argument and an unknown command never reaches stdout or stderr; the one stderr line is
exactly the USAGE_ERROR line of the remedy table; nothing is created. The same holds for a
canary `routes init --model`, whose catalog lookup fails without repeating it.

`--journals` (R-CLI-1) takes one or more paths after one flag, greedily up to the next token
that starts with `-`: the variadic form replays byte for byte what the repeated-flag form
does, and a canary-named missing path among the values is INPUT_INVALID JOURNALS_MISSING.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from clearing_analysis.inputs.configs import Api, load_routes
from clearing_analysis.synth import generate
from tests.e2e._canary import Canaries, leaks
from tests.e2e._canary_inputs import CanaryInputs
from tests.e2e._cli import fixed_line, listing, run_cli

C = Canaries(seed=20260302)
OPTION, VALUE, WORD, COMMAND = C("option"), C("value"), C("word"), C("command")


def _rest(inputs: CanaryInputs) -> list[str]:
    """The canary replay arguments after the `--journals` pair (journals come first)."""
    args = inputs.args()
    assert args[0] == "--journals"
    return args[2:]


@pytest.mark.parametrize(
    ("tail", "detail", "option"),
    [
        ([f"--{OPTION}", VALUE], "UNKNOWN_OPTION", None),
        (["--workers", VALUE], "BAD_VALUE", "--workers"),
        (["--workers", "2", WORD], "EXTRA_ARGUMENT", None),
    ],
    ids=["unknown-option", "bad-workers-value", "extra-argument"],
)
def test_replay_usage_error_echoes_nothing(
    tail: list[str],
    detail: str,
    option: str | None,
    canary_inputs: CanaryInputs,
    tmp_path: Path,
) -> None:
    """A usage error in an otherwise complete replay command line: exit 2, the fixed line,
    no canary (typed or planted in the inputs), no --out or --log-file, inputs untouched."""
    out, log = tmp_path / "out.json", tmp_path / "log.jsonl"
    before = listing(canary_inputs.root)
    args = [*canary_inputs.args(), "--out", str(out), "--log-file", str(log), *tail]
    done = run_cli(["replay", *args])
    expected = fixed_line("USAGE_ERROR", detail)
    if option is not None:
        expected = expected.replace(b"<option>", option.encode())
    assert (done.returncode, done.stderr, done.stdout) == (2, expected, b"")
    canary_inputs.assert_private(done.stderr, C.values)
    assert not out.exists()
    assert not log.exists()
    assert listing(canary_inputs.root) == before


def test_unknown_command_echoes_nothing(tmp_path: Path) -> None:
    """An unknown command (a canary) with canary arguments: exit 2, the fixed line only."""
    done = run_cli([COMMAND, "--out", str(tmp_path / WORD)], cwd=tmp_path)
    assert (done.returncode, done.stderr, done.stdout) == (
        2,
        fixed_line("USAGE_ERROR", "UNKNOWN_COMMAND"),
        b"",
    )
    assert leaks(done.stderr + done.stdout, C.values) == []
    assert list(tmp_path.iterdir()) == []


def test_routes_init_unknown_model_echoes_nothing(tmp_path: Path) -> None:
    """`routes init --model CANARY/CANARY --out F`: exit 2, the fixed MODEL_UNKNOWN line naming
    only the declared option, no canary, F not created."""
    out = tmp_path / "routes.json"
    args = ["--api", "anthropic-messages", "--model", f"{VALUE}/{WORD}", "--out", str(out)]
    done = run_cli(["routes", "init", *args], cwd=tmp_path)
    expected = fixed_line("USAGE_ERROR", "MODEL_UNKNOWN").replace(b"<option>", b"--model")
    assert (done.returncode, done.stderr, done.stdout) == (2, expected, b"")
    assert leaks(done.stderr + done.stdout, C.values) == []
    assert list(tmp_path.iterdir()) == []


def test_routes_init_writes_a_loadable_routes_file(tmp_path: Path) -> None:
    """The console entry writes a routes file the analyzer's decoder accepts; nothing else is
    printed."""
    out = tmp_path / "routes.json"
    args = ["--api", "openai-responses", "--model", "openai/gpt-5.1", "--out", str(out)]
    done = run_cli(["routes", "init", *args], cwd=tmp_path)
    assert (done.returncode, done.stderr, done.stdout) == (0, b"", b"")
    assert list(load_routes(out).by_api) == [Api.OPENAI_RESPONSES]


def test_missing_path_among_variadic_journals(canary_inputs: CanaryInputs, tmp_path: Path) -> None:
    """`--journals A CANARY B`: all three are taken as journal paths (the variadic form is
    accepted), and the missing canary-named one is INPUT_INVALID JOURNALS_MISSING, with no
    canary on stdout or stderr and nothing created."""
    missing = tmp_path / C("journals.missing")
    explicit = sorted(canary_inputs.journals.rglob("*.jsonl"))[0]
    out = tmp_path / "out.json"
    journals = [str(canary_inputs.journals), str(missing), str(explicit)]
    done = run_cli(["replay", "--journals", *journals, *_rest(canary_inputs), "--out", str(out)])
    assert (done.returncode, done.stderr, done.stdout) == (
        2,
        fixed_line("INPUT_INVALID", "JOURNALS_MISSING"),
        b"",
    )
    canary_inputs.assert_private(done.stderr, C.values)
    assert not out.exists()


@pytest.fixture(scope="module")
def split_corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A synthetic corpus whose journals are split over two directories: (root, one, two)."""
    root = tmp_path_factory.mktemp("variadic") / "corpus"
    generate(root, 11, conversations=4, size_mb=None, profile="mixed")
    journals = sorted((root / "journals").glob("*.jsonl"))
    one, two = root / "one", root / "two"
    one.mkdir()
    two.mkdir()
    for index, journal in enumerate(journals):
        shutil.copy2(journal, (one if index % 2 == 0 else two) / journal.name)
    shutil.rmtree(root / "journals")
    return root, one, two


def test_variadic_journals_equal_the_repeated_flag(split_corpus: tuple[Path, Path, Path]) -> None:
    """`--journals ONE TWO` and `--journals ONE --journals TWO` (and the `=` form) print the
    same bytes, exit 0; both directories were read (one alone replays fewer journals)."""
    root, one, two = split_corpus
    rest = ["--sidecar", str(root / "history.sqlite"), "--routes", str(root / "routes.json")]
    variadic = run_cli(["replay", "--journals", str(one), str(two), *rest])
    repeated = run_cli(["replay", "--journals", str(one), "--journals", str(two), *rest])
    with_equals = run_cli(["replay", f"--journals={one}", str(two), *rest, "--workers", "2"])
    alone = run_cli(["replay", "--journals", str(one), *rest])
    for done in (variadic, repeated, with_equals, alone):
        assert (done.returncode, done.stderr) == (0, b"")
    assert variadic.stdout == repeated.stdout == with_equals.stdout
    assert variadic.stdout != alone.stdout
