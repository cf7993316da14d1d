"""The command classes every `clearing-analysis` command uses (parser hooks, R-CLI-1, R-OUT-1).

Guarantees:
- `Command` (each command passes `cls=Command`) attaches its context to any usage error
  raised while parsing, so `cli._usage` can tell which declared option an error concerns
  without reading what was typed.
- `Group`, the root command group, reports an unknown command as `UnknownCommand`, a usage
  error of its own type, so that `cli._usage` maps it without parsing a message.

The hooks use the classes that typer vendors (`typer._click`, pinned through uv.lock); tests
exercise every hook, so an upgrade that changes those internals fails them loudly.
"""

from __future__ import annotations

from typer._click import exceptions as click_errors
from typer._click.core import Command as ClickCommand
from typer._click.core import Context
from typer.core import TyperCommand, TyperGroup


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


class Command(TyperCommand):
    """A command of this CLI."""

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click_errors.UsageError as error:
            # The parser raises some usage errors without a context (a missing value, say);
            # attach ours, as click does for parameter errors, so the declaration is at hand.
            if error.ctx is None:
                error.ctx = ctx
                error.cmd = self
            raise
