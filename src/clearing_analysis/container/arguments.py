"""Which paths a `clearing-analysis` command line reads and writes (for R-CT-2).

Guarantees:
- The command line is parsed by the CLI's own command definitions (typer's command objects,
  `make_context` in resilient mode: nothing runs, no callback fires), so no second parser can
  drift from the real one. Typer converts path options to `pathlib.Path` values; those values
  are what is classified. The same command classes (`cli._command`) parse here, so every path
  of `--journals P [P ...]` is seen, exactly as the CLI will read them.
- Every path-valued parameter must be classified below as an input or an output; an
  unclassified one (a new option nobody classified) fails closed with `ARGUMENT_UNCLASSIFIED`,
  and a test checks the table against every command's signature. A parse that raises fails
  closed too (`ARGUMENT_UNPARSED`).
- A command group (`routes`) is descended: the group parses its own words, the subcommand it
  names parses the rest, so `routes init --out F` classifies F as the CLI will use it. A group
  left without a known subcommand names no path (the CLI prints help or refuses it).
- Arguments the parser does not bind (unknown options, extra words) name no path here, and the
  real CLI, parsing the same words strictly, rejects them before it reads or writes anything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any

import typer.main
from typer.core import TyperGroup

from clearing_analysis.codes.errors import MountContractDetail, MountContractError
from clearing_analysis.container.contract import ContractPaths
from clearing_analysis.demo import DEMO_PAGES

# Parameter names (python identifiers) of the commands' path options.
INPUT_PARAMETERS = frozenset(
    {
        "journals",
        "sessions",  # `explore` reads pi session files
        "sidecar",
        "routes",
        "qualification",
        "agent_config",
        "app_allowlist",
        "report",  # `show` and `verify` read a saved report
        "sign_key",  # `analyze --sign-key`: the private key, from a read-only mount
        "pubkey",  # `verify --pubkey`
    }
)
OUTPUT_PARAMETERS = frozenset({"out", "log_file", "html"})  # `html`: the --html page
# Output directories: the command creates these files in the directory the parameter names
# (`demo --html DIR`), and they are the outputs classified, so DIR itself is what must sit on
# the output mount.
OUTPUT_DIRECTORY_PARAMETERS: Mapping[str, tuple[str, ...]] = {"html_dir": DEMO_PAGES}
SIDECAR_PARAMETERS = frozenset({"sidecar"})


def cli_commands(cli: typer.Typer | None = None) -> dict[str, Any]:
    """A typer app's command objects by name (default: the real CLI's)."""
    if cli is None:
        # Imported here, not at module level: the CLI pulls in the Node runner, and the
        # analyzer-side import-isolation probe (R-SC-4) imports this package on its own.
        from clearing_analysis.cli import app  # noqa: PLC0415

        cli = app
    # Typer's command group exposes its commands as `commands`.
    commands = getattr(typer.main.get_command(cli), "commands", None)
    if not isinstance(commands, dict):
        raise RuntimeError("the CLI is expected to be a command group")
    return commands


def _path_values(value: object) -> list[PurePath] | None:
    """The paths a parsed parameter value holds, or None if it is not path-valued."""
    if isinstance(value, PurePath):
        return [value]
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, PurePath) for v in value):
        return list(value)
    return None


def contract_paths(argv: Sequence[str], commands: Mapping[str, Any] | None = None) -> ContractPaths:
    """The inputs, outputs and sidecars named by `clearing-analysis ARGV`.

    `commands` defaults to the real CLI's (`cli_commands()`); tests pass others.
    """
    commands = cli_commands() if commands is None else commands
    if not argv or argv[0] not in commands:
        return ContractPaths()  # --help, or an unknown command the CLI will reject
    try:
        name, command, rest = argv[0], commands[argv[0]], list(argv[1:])
        context = command.make_context(name, rest, resilient_parsing=True)
        # A group keeps the words after its own options for the subcommand they name: the first
        # in `_protected_args`, the others in `args` (typer's vendored click; tests pin it).
        while isinstance(command, TyperGroup):
            words = [*context._protected_args, *context.args]
            sub = command.get_command(context, words[0]) if words else None
            if sub is None:
                return ContractPaths()  # help, or a missing or unknown subcommand
            name, command = words[0], sub
            context = command.make_context(name, words[1:], parent=context, resilient_parsing=True)
        params: dict[str, object] = dict(context.params)
    except Exception:  # any parser failure fails closed, as a fixed code
        raise MountContractError(MountContractDetail.ARGUMENT_UNPARSED) from None
    inputs: list[PurePath] = []
    outputs: list[PurePath] = []
    sidecars: list[PurePath] = []
    for name, value in sorted(params.items()):
        paths = _path_values(value)
        if paths is None:
            continue
        if name in INPUT_PARAMETERS:
            inputs.extend(paths)
        elif name in OUTPUT_PARAMETERS:
            outputs.extend(paths)
        elif name in OUTPUT_DIRECTORY_PARAMETERS:
            outputs.extend(
                path / file for path in paths for file in OUTPUT_DIRECTORY_PARAMETERS[name]
            )
        else:
            raise MountContractError(MountContractDetail.ARGUMENT_UNCLASSIFIED)
        if name in SIDECAR_PARAMETERS:
            sidecars.extend(paths)
    return ContractPaths(tuple(inputs), tuple(outputs), tuple(sidecars))
