"""Option values converted without pydantic (cli._values): every parameter the CLI declares is
covered, each rule gives what typer's own (pydantic) conversion gives on ordinary values, the
named invalid values are refused as `BAD_VALUE` naming the option, and a real run that
parses numbers, paths and choices loads no pydantic."""

from __future__ import annotations

import enum
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer._click import exceptions as click_errors
from typer._click.core import Command as ClickCommand
from typer._click.core import Context
from typer._coercion import build_runtime_param
from typer.core import TyperGroup, _TyperParameter

from clearing_analysis.cli._app import app
from clearing_analysis.cli._values import plain_runtime_param
from tests.cli._guarded import invoke, usage_line
from tests.cli._modules import loaded_after
from tests.e2e._cli import run_cli
from tests.synth.corpora import corpus_options


def _commands() -> Iterator[tuple[str, ClickCommand]]:
    """Every command of the CLI, the root and nested groups included, by its words."""
    pending: list[tuple[str, ClickCommand]] = [("", typer.main.get_command(app))]
    while pending:
        words, command = pending.pop()
        yield words, command
        if isinstance(command, TyperGroup):
            pending.extend((f"{words} {n}".strip(), c) for n, c in command.commands.items())


def _parameters() -> list[tuple[str, ClickCommand, _TyperParameter]]:
    found = []
    for words, command in _commands():
        params = command.get_params(Context(command))
        found.extend((words, command, p) for p in params if isinstance(p, _TyperParameter))
    return found


PARAMETERS = _parameters()

# Ordinary values of each leaf type, on which the plain rules and typer's own agree exactly.
SAMPLES: dict[Any, list[str]] = {
    int: ["3", "0", "-1", "+3", " 3 ", "1_000", "00012", "abc", "", "3.5", "1e3", "0x10", "٣"],
    float: [
        "0.5",
        ".5",
        "5.",
        "1e-3",
        "0",
        "-0",
        "+1",
        " 2 ",
        "1_0.5",
        "inf",
        "-inf",
        "nan",
        "Infinity",
        "1e400",
        "abc",
        "",
        "0x10",
        "1__0",
        "٣",
    ],
    str: ["2026-12-01", "", "-", "x y"],
    Path: ["a", "dir/b.jsonl", "", "-", " a", "/abs/path"],
}


def _leaf_type(param: _TyperParameter) -> Any:
    annotation = param.type_descriptor.annotation
    args = getattr(annotation, "__args__", None)
    return args[0] if getattr(annotation, "__origin__", None) is list and args else annotation


def _convert(runtime: Any, param: _TyperParameter, command: ClickCommand, value: Any) -> Any:
    """The converted value, or the marker "refused" for a BadParameter."""
    try:
        return runtime.coerce(value, param=param, ctx=Context(command))
    except click_errors.BadParameter:
        return "refused"


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return bool(type(a) is type(b) and a == b)


def test_every_declared_parameter_has_a_plain_converter() -> None:
    """No command falls back to typer's pydantic conversion: each parameter's type is one the
    plain rules cover (a new option of another type fails here, not at a user's start-up)."""
    assert len(PARAMETERS) > 60  # not vacuous: every command's options were found
    uncovered = [
        (words, p.name)
        for words, _, p in PARAMETERS
        if plain_runtime_param(p.type_descriptor) is None
    ]
    assert uncovered == []


@pytest.mark.parametrize(
    ("words", "command", "param"),
    PARAMETERS,
    ids=[f"{w or 'root'}:{p.name}" for w, _, p in PARAMETERS],
)
def test_plain_conversion_equals_typers_own(
    words: str, command: ClickCommand, param: _TyperParameter
) -> None:
    """For every parameter and every ordinary value of its type (a choice's values, one not
    among them, a flag's True and False), the plain converter gives typer's own result, or
    refuses where it refuses."""
    leaf = _leaf_type(param)
    if isinstance(leaf, type) and issubclass(leaf, enum.Enum):
        values: list[Any] = [member.value for member in leaf] + ["nope", ""]
    elif leaf is bool:
        values = [True, False]
    else:
        values = SAMPLES[leaf]
    is_list = getattr(param.type_descriptor.annotation, "__origin__", None) is list
    ours = plain_runtime_param(param.type_descriptor)
    theirs = build_runtime_param(param.type_descriptor)
    for value in values:
        given = (value,) if is_list else value
        mine, reference = (_convert(r, param, command, given) for r in (ours, theirs))
        if is_list and mine != "refused":
            assert isinstance(mine, list) and isinstance(reference, list)
            assert all(_same(a, b) for a, b in zip(mine, reference, strict=True)), value
        else:
            assert _same(mine, reference), (value, mine, reference)


def test_where_the_rules_differ_from_typers_own() -> None:
    """The one documented difference: a whole number written with a fraction of zero (`3.0`)
    is refused, where pydantic would take it as 3."""
    _, command, workers = next(
        (w, c, p) for w, c, p in PARAMETERS if w == "analyze" and p.name == "workers"
    )
    ours = plain_runtime_param(workers.type_descriptor)
    assert _convert(ours, workers, command, "3.0") == "refused"
    assert _convert(build_runtime_param(workers.type_descriptor), workers, command, "3.0") == 3


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["synth", "--size-mb", "nan", "--out", "x"], "--size-mb"),  # nan is below no minimum
        (["synth", "--size-mb", "0", "--out", "x"], "--size-mb"),  # below the minimum 0.001
        (["synth", "--conversations", "0", "--out", "x"], "--conversations"),
        (
            ["analyze", "--journals", "j", "--sidecar", "s", "--routes", "r", "--workers", "3.0"],
            "--workers",
        ),
        (
            ["analyze", "--journals", "j", "--sidecar", "s", "--routes", "r", "--workers", "٣"],
            "--workers",
        ),
        (
            [
                "analyze",
                "--journals",
                "j",
                "--sidecar",
                "s",
                "--routes",
                "r",
                "--retrieval-rate",
                "0x10",
            ],
            "--retrieval-rate",
        ),
        (
            ["analyze", "--journals", "j", "--sidecar", "s", "--routes", "r", "--fail-on", "STOP"],
            "--fail-on",
        ),
    ],
    ids=[
        "nan-minimum",
        "below-minimum",
        "zero-conversations",
        "fraction-workers",
        "non-ascii-digit",
        "hex-rate",
        "choice-case",
    ],
)
def test_named_invalid_values_are_bad_value(
    args: list[str], option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each is `USAGE_ERROR BAD_VALUE` naming the option as declared, exit 2, nothing on
    stdout (the fixed line does not echo the typed value)."""
    done = invoke(args, capsys)
    assert (done.status, done.stdout, done.stderr) == (2, "", usage_line("BAD_VALUE", option))


def test_a_run_parsing_numbers_paths_and_choices_loads_no_pydantic(tmp_path: Path) -> None:
    """An analyze given a whole number, a number, paths, a list of paths and a choice converts
    them all and loads no pydantic; the values given are the defaults (0.05 is the policy's
    rate), so its report is byte for byte the one of the same run without them."""
    from clearing_analysis.synth import generate

    (tmp_path / "in").mkdir()
    corpus = tmp_path / "in" / "corpus"
    generate(corpus, seed=2, conversations=3, profile="build")
    given = tmp_path / "given.json"
    loaded = loaded_after(
        [
            "analyze",
            *corpus_options(corpus),
            "--workers",
            "1",
            "--retrieval-rate",
            "0.05",
            "--fail-on",
            "stop",
            "--by",
            "day",
            "--out",
            str(given),
        ],
        tmp_path,
        "modules",
        statuses=(0, 4),
    )
    assert "clearing_analysis.assemble.analysis" in loaded  # not vacuous: the run finished
    assert [m for m in loaded if m.split(".")[0] in ("pydantic", "pydantic_core")] == []
    defaults = tmp_path / "defaults.json"
    run_cli(["analyze", *corpus_options(corpus), "--by", "day", "--out", str(defaults)])
    assert given.read_bytes() == defaults.read_bytes()
