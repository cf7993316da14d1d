"""Click's usage errors as fixed `USAGE_ERROR` details (R-OUT-1, R-CLI-3).

Click words its usage errors with what was typed (`No such option: --x`, `'abc' is not a
valid integer`, `Got unexpected extra argument (x)`) and adds a usage banner. None of that is
printed: `usage_error` maps the error's *type* (and, for a bare `UsageError`, the kind of
command it was raised for) to a `UsageDetail`, and names an option only from the parameter
our command declares (`param.opts`), never from the error's message or the typed token; a
mistyped option's suggestion is the closest of the command's own options.
"""

from __future__ import annotations

from typer._click import exceptions as click_errors
from typer._click.core import Context, Parameter
from typer.core import TyperGroup, TyperOption

from clearing_analysis.cli._command import UnknownCommand
from clearing_analysis.codes.errors import DECLARED_OPTION, UsageDetail, UsageError


def _declared(param: Parameter | None) -> tuple[str, ...]:
    """The long options `param` is declared with (an argument or no parameter names none)."""
    if not isinstance(param, TyperOption):
        return ()
    return tuple(opt for opt in param.opts if DECLARED_OPTION.fullmatch(opt))


def _parameter_of(ctx: Context | None, typed: str) -> Parameter | None:
    """The parameter of the failing command that declares the option `typed` matched."""
    if ctx is None:
        return None
    for param in ctx.command.get_params(ctx):
        if typed in param.opts or typed in param.secondary_opts:
            return param
    return None


def usage_error(error: click_errors.UsageError) -> UsageError:
    """The fixed USAGE_ERROR for a click usage error (nothing of its text is kept)."""
    if isinstance(error, UnknownCommand):
        return UsageError(UsageDetail.UNKNOWN_COMMAND)
    if isinstance(error, click_errors.MissingParameter):
        return UsageError(UsageDetail.MISSING_OPTION, _declared(error.param))
    if isinstance(error, click_errors.BadParameter):
        return UsageError(UsageDetail.BAD_VALUE, _declared(error.param))
    if isinstance(error, click_errors.NoSuchOption):
        # Click lists the command's own long options closest to what was typed, best first
        # (difflib over the parser's declared options): the closest one is named, never the
        # typed word.
        closest = [o for o in error.possibilities or () if DECLARED_OPTION.fullmatch(o)]
        if closest:
            return UsageError(UsageDetail.MISTYPED_OPTION, (closest[0],))
        return UsageError(UsageDetail.UNKNOWN_OPTION)
    if isinstance(error, click_errors.BadOptionUsage):
        # Raised only for an option the parser matched: it lacks its value, or it is a flag
        # given one (`--help=x`). The typed name is used to find the declaration, not shown.
        param = _parameter_of(error.ctx, error.option_name)
        if isinstance(param, TyperOption) and param.is_flag:
            return UsageError(UsageDetail.UNEXPECTED_VALUE, _declared(param))
        return UsageError(UsageDetail.MISSING_VALUE, _declared(param))
    if type(error) is click_errors.UsageError and error.ctx is not None:
        # Click's bare usage errors (`ctx.fail`): a group's is "no command was named" (an
        # unknown one is UnknownCommand); a command's is words no option or argument took.
        if isinstance(error.ctx.command, TyperGroup):
            return UsageError(UsageDetail.MISSING_COMMAND)
        return UsageError(UsageDetail.EXTRA_ARGUMENT)
    return UsageError(UsageDetail.INVALID_COMMAND_LINE)
