"""The command classes every `clearing-analysis` command uses (parser hooks, R-CLI-1, R-OUT-1).

Guarantees:
- `Command` (each command passes `cls=Command` or `cls=Command.variadic(...)`) attaches its
  context to any usage error raised while parsing, so `cli._usage` can tell which declared
  option an error concerns without reading what was typed.
- `Command.for_request(AnalyzeRequest, "--journals")` names the request the command's parsed
  values make (`request_type`, read by cli._requests and the image's entrypoint) and makes the
  named list options take one or more values after one flag:
  after the first value (taken as click takes any option value), following tokens are taken
  greedily until the next token that starts with `-` (an option, `--` or `-`). Repeating the
  flag still works and accumulates, so `--journals a b` and `--journals a --journals b` parse
  to the same list. The image's entrypoint (cli.image) parses with these same classes, so the
  mount contract sees every value the CLI will read.
- `Group`, the root command group, reports an unknown command as `UnknownCommand`, a usage
  error of its own type, so that `cli._usage` maps it without parsing a message.
- `Command` and `Group` convert their values by the plain rules of `cli._values` (no pydantic
  import at start-up) wherever they cover a parameter's type, and by typer's own conversion
  elsewhere.

The hooks use the option parser that typer vendors (`typer._click`, pinned through uv.lock);
tests exercise every hook, so an upgrade that changes those internals fails them loudly.
"""

from __future__ import annotations

from typing import Any, ClassVar

from typer._click import exceptions as click_errors
from typer._click.core import Command as ClickCommand
from typer._click.core import Context
from typer._click.parser import _Option, _OptionParser, _ParsingState
from typer.core import TyperCommand, TyperGroup

from clearing_analysis.cli._values import install_plain_conversions
from clearing_analysis.inputs.requests import NoPathRequest, Request


class UnknownCommand(click_errors.UsageError):
    """The word in the command position names no command (the word itself is not kept)."""


class Group(TyperGroup):
    """The root group: unknown commands are `UnknownCommand`, everything else as typer does."""

    def resolve_command(
        self, ctx: Context, args: list[str]
    ) -> tuple[str | None, ClickCommand | None, list[str]]:
        if args and not ctx.resilient_parsing and self.get_command(ctx, args[0]) is None:
            raise UnknownCommand("unknown command", ctx)
        return super().resolve_command(ctx, args)

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        install_plain_conversions(self.get_params(ctx))
        return super().parse_args(ctx, args)


class _GreedyOption(_Option):
    """A list option's parser entry that also takes the values following its first one."""

    def process(self, value: Any, state: _ParsingState) -> None:
        super().process(value, state)
        while state.rargs and not state.rargs[0].startswith("-"):
            super().process(state.rargs.pop(0), state)


class Command(TyperCommand):
    """A command of this CLI; `variadic_options` are list options that take several values;
    `request_type` is the request its parsed values make (cli._requests)."""

    variadic_options: ClassVar[frozenset[str]] = frozenset()
    request_type: ClassVar[type[Request]] = NoPathRequest

    @classmethod
    def for_request(cls, request_type: type[Request], *variadic: str) -> type[Command]:
        """A `Command` class whose parsed values make a `request_type`, and whose named list
        options (`variadic`) take one or more values after one flag."""
        attributes = {"request_type": request_type, "variadic_options": frozenset(variadic)}
        return type(f"{request_type.__name__}Command", (cls,), attributes)

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        install_plain_conversions(self.get_params(ctx))
        try:
            return super().parse_args(ctx, args)
        except click_errors.UsageError as error:
            # The parser raises some usage errors without a context (a missing value, say);
            # attach ours, as click does for parameter errors, so the declaration is at hand.
            if error.ctx is None:
                error.ctx = ctx
                error.cmd = self
            raise

    def make_parser(self, ctx: Context) -> _OptionParser:
        parser = super().make_parser(ctx)
        for name in self.variadic_options:
            option = parser._long_opt.get(name)
            if option is None or option.action != "append":
                raise RuntimeError("a variadic option must be a declared list option")
            greedy = _GreedyOption(
                option.obj,
                [*option._long_opts, *option._short_opts],
                option.dest,
                action=option.action,
                nargs=option.nargs,
                const=option.const,
            )
            for opt in option._long_opts:
                parser._long_opt[opt] = greedy
            for opt in option._short_opts:
                parser._short_opt[opt] = greedy
        return parser
