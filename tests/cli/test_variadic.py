"""`--journals P [P ...]` (R-CLI-1): one or more values after one flag, parsed by the real
replay command; and the reusable hook on another command, as a future `analyze` would use it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import pytest
import typer
import typer.main

from clearing_analysis.cli._command import Command
from clearing_analysis.cli.image import cli_commands
from clearing_analysis.inputs.requests import NoPathRequest
from tests.cli._guarded import invoke, usage_line

REST = ["--sidecar", "s", "--routes", "r"]


def _journals(*args: str) -> list[Path]:
    """The `journals` value the real replay command parses from `replay ARGS`."""
    context = cli_commands()["replay"].make_context("replay", list(args))
    value: list[Path] = context.params["journals"]
    return value


@pytest.mark.parametrize(
    "args",
    [
        ["--journals", "a", "b", "c", *REST],
        ["--journals", "a", "--journals", "b", "--journals", "c", *REST],
        ["--journals", "a", "b", "--journals", "c", *REST],
        ["--journals=a", "b", *REST, "--journals", "c"],
        [*REST, "--journals", "a", "b", "c"],
    ],
    ids=["variadic", "repeated", "mixed", "equals-then-more", "last-option"],
)
def test_variadic_and_repeated_forms_parse_alike(args: list[str]) -> None:
    """Every way of giving a, b and c yields [a, b, c], in command-line order."""
    assert _journals(*args) == [Path("a"), Path("b"), Path("c")]


def test_values_stop_at_the_next_dash_token() -> None:
    """Values are taken up to the next token starting with `-`: the following option is parsed
    as an option, not swallowed as a journal path."""
    assert _journals("--journals", "a", "b", "--workers", "2", *REST) == [Path("a"), Path("b")]
    assert (
        cli_commands()["replay"]
        .make_context("replay", ["--journals", "a", "b", "--workers", "2", *REST])
        .params["workers"]
        == 2
    )


def test_first_value_may_start_with_a_dash() -> None:
    """The first value is taken whatever it looks like (as for any option value); only the
    values after it stop at a dash."""
    assert _journals("--journals", "-odd", "b", *REST) == [Path("-odd"), Path("b")]


@pytest.mark.parametrize(
    ("args", "detail"),
    [
        (["replay", "--journals", "a", "--workers", "2", "b", *REST], "EXTRA_ARGUMENT"),
        (["replay", *REST, "--journals", "a", "--", "b"], "EXTRA_ARGUMENT"),
        (["replay", "--journals", "a", "-", *REST], "EXTRA_ARGUMENT"),
    ],
    ids=["after-another-option", "after-double-dash", "lone-dash"],
)
def test_words_after_a_dash_token_are_not_journals(
    args: list[str], detail: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A path after `--workers 2`, after `--` or after `-` belongs to no option: a usage error,
    never a silently added journal."""
    done = invoke(args, capsys)
    assert (done.status, done.stderr) == (2, usage_line(detail))


def _scan_commands(variadic: str, *, single: bool = False) -> Any:
    """The commands of a two-command app whose `scan` declares `--paths` as a list option (or,
    with `single`, as a one-value option) and names `variadic` as its variadic option."""
    app = typer.Typer()
    if single:

        @app.command(cls=Command.for_request(NoPathRequest, variadic))
        def scan(paths: Annotated[Path, typer.Option("--paths")]) -> None:
            """A command with a one-value option."""

    else:

        @app.command(cls=Command.for_request(NoPathRequest, variadic))
        def scan(paths: Annotated[list[Path], typer.Option("--paths")]) -> None:
            """A command with a list option."""

    @app.command(cls=Command)
    def other() -> None:
        """A second command, so the app is a group."""

    return typer.main.get_command(app).commands  # type: ignore[attr-defined]


def test_the_hook_is_reusable_by_another_command() -> None:
    """`Command.variadic` works for any declared list option of any command."""
    context = _scan_commands("--paths")["scan"].make_context("scan", ["--paths", "x", "y"])
    assert context.params["paths"] == [Path("x"), Path("y")]


@pytest.mark.parametrize(
    ("variadic", "single"),
    [("--paths", True), ("--elsewhere", False)],
    ids=["not-a-list-option", "not-an-option-of-the-command"],
)
def test_a_variadic_option_must_be_a_declared_list_option(variadic: str, single: bool) -> None:
    """Naming a one-value option, or an option the command does not declare, is caller misuse
    (RuntimeError), not a silently ignored declaration."""
    scan = _scan_commands(variadic, single=single)["scan"]
    with pytest.raises(RuntimeError):
        scan.make_context("scan", ["--paths", "x"])
