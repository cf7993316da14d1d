"""The image's entrypoint (R-CT-2): `python -m clearing_analysis.cli.image ARGS` checks the
mount contract for the paths `clearing-analysis ARGS` will read and write, then becomes it.

Guarantees:
- The command line is parsed by the CLI's own command definitions (typer's command objects,
  `make_context` in resilient mode: nothing runs, no callback fires), so no second parser can
  drift from the real one; the same command classes (cli._command) parse here, so every path
  of `--journals P [P ...]` is seen exactly as the CLI will read it. A command group (`routes`)
  is descended: the subcommand it names parses the rest. The parsed values make the command's
  request (cli._requests, the same function the command calls), and the container classifies
  the request's fields by the roles they declare (container.arguments).
- Before any command runs, the contract (container.contract) is checked for those paths. On a
  violation one line goes to stderr, the CLI's own failure line, and the process exits with
  the code's status (2); a value the request refuses (a retrieval rate out of range, say) is
  refused here exactly as the CLI would refuse it. A path option that maps to no request
  field, or a request field that declares no role, fails closed (`ARGUMENT_UNCLASSIFIED`); a
  parse that raises fails closed too (`ARGUMENT_UNPARSED`). Any other failure is
  `ANALYZER_FAULT INTERNAL_ERROR`, exit 1, with no message text.
- Arguments the parser does not bind (unknown options, extra words, a missing required
  option) name no path here, and the real CLI, parsing the same words strictly, rejects them
  before it reads or writes anything.
- Otherwise the process becomes the CLI (container.entrypoint.exec_cli), with the marker that
  makes a signed `analyze` check the contract again (container.sealed).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

import typer.main
from typer.core import TyperGroup

from clearing_analysis.cli import app
from clearing_analysis.cli._requests import UnmappedPathError, request_from
from clearing_analysis.codes.errors import (
    AnalysisError,
    FaultDetail,
    MountContractDetail,
    MountContractError,
)
from clearing_analysis.container import entrypoint
from clearing_analysis.container.arguments import contract_paths
from clearing_analysis.container.contract import ContractPaths, check_this_container
from clearing_analysis.inputs.requests import NoPathRequest, Request


def cli_commands(cli: typer.Typer | None = None) -> dict[str, Any]:
    """A typer app's command objects by name (default: the real CLI's)."""
    if cli is None:
        cli = app
    # Typer's command group exposes its commands as `commands`.
    commands = getattr(typer.main.get_command(cli), "commands", None)
    if not isinstance(commands, dict):
        raise RuntimeError("the CLI is expected to be a command group")
    return commands


def request_of(argv: Sequence[str], commands: Mapping[str, Any] | None = None) -> Request:
    """The request `clearing-analysis ARGV` makes, parsed as the CLI parses it (module
    docstring); a `NoPathRequest` for help or an unknown command, which the CLI handles.
    `commands` defaults to the real CLI's; tests pass others."""
    commands = cli_commands() if commands is None else commands
    if not argv or argv[0] not in commands:
        return NoPathRequest()
    try:
        name, command, rest = argv[0], commands[argv[0]], list(argv[1:])
        context = command.make_context(name, rest, resilient_parsing=True)
        # A group keeps the words after its own options for the subcommand they name: the first
        # in `_protected_args`, the others in `args` (typer's vendored click; tests pin it).
        while isinstance(command, TyperGroup):
            words = [*context._protected_args, *context.args]
            sub = command.get_command(context, words[0]) if words else None
            if sub is None:
                return NoPathRequest()  # help, or a missing or unknown subcommand
            name, command = words[0], sub
            context = command.make_context(name, words[1:], parent=context, resilient_parsing=True)
        params: dict[str, object] = dict(context.params)
    except Exception:  # any parser failure fails closed, as a fixed code
        raise MountContractError(MountContractDetail.ARGUMENT_UNPARSED) from None
    kind: type[Request] = getattr(command, "request_type", NoPathRequest)
    try:
        return request_from(kind, params)
    except UnmappedPathError:
        raise MountContractError(MountContractDetail.ARGUMENT_UNCLASSIFIED) from None


def named_paths(argv: Sequence[str], commands: Mapping[str, Any] | None = None) -> ContractPaths:
    """The inputs, outputs and sidecars `clearing-analysis ARGV` names."""
    return contract_paths(request_of(argv, commands))


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """Check the contract for `argv` (default: this process's arguments), then exec the CLI."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        check_this_container(named_paths(arguments))
        executable = entrypoint.cli_executable()
    except AnalysisError as error:
        entrypoint.fail(error)
    except Exception:  # the fault code replaces any message
        entrypoint.fail(AnalysisError(FaultDetail.INTERNAL_ERROR))
    entrypoint.exec_cli(executable, arguments)


if __name__ == "__main__":
    main()


__all__ = ["cli_commands", "main", "named_paths", "request_of"]
