"""Option and argument values converted to their declared types without pydantic (start-up).

typer converts every value of a running command through a pydantic `TypeAdapter`, and
importing pydantic (with pydantic-core and annotated-types) costs every run about 0.065
CPU-s and 12 MiB of memory (docs/performance.md, "Start-up"). The values this CLI declares
are few and plain, so `Command` and `Group` (cli._command) give each of their parameters a
converter from `plain_runtime_param` before parsing; a parameter of any other type keeps
typer's own conversion.

The rules (docs/exit-codes.md, "What a value of the right kind is"), each a usage error
`BAD_VALUE` naming the option when it fails (cli._usage; the typed value is never shown):
- a path (`Path`): the text as a path; typer's own path checks follow (`coerce_cli_path`);
- text (`str`): the text;
- a flag (`bool`): only the parser's True or False (an absent flag, `--help` too, is None);
- a whole number (`int`): ASCII digits with an optional sign, surrounding blanks and `_`
  between digits (Python's `int`); `3.0` or `1e3` are not whole numbers;
- a number (`float`): ASCII only, then Python's `float` (`0.5`, `.5`, `1e-3`, `inf`, `nan`);
- a declared minimum or maximum holds only for a number that compares (`nan` fails it);
- a choice (`Enum`): one of its values, as typer compares them (`coerce_cli_choice`);
- a list of any of these: each item by its type.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args, get_origin

from typer._click import exceptions as click_errors
from typer._click.core import Context
from typer._coercion import RuntimeParam, TypeDescriptor
from typer._param_types import coerce_cli_choice, coerce_cli_path
from typer.core import _TyperParameter
from typer.models import ParameterInfo

# Converts one value or raises ValueError; a ValueError becomes the parameter's BadParameter.
_Leaf = Callable[[Any, Context], Any]


@dataclass(frozen=True)
class PlainRuntimeParam(RuntimeParam):
    """typer's per-parameter converter, made of `leaf` (one item) instead of a TypeAdapter."""

    leaf: _Leaf
    is_list_of_items: bool

    def _coerce_value(self, value: Any, param: _TyperParameter, ctx: Context) -> Any:
        try:
            if self.is_list_of_items:
                items = value if isinstance(value, (list, tuple)) else [value]
                return [self.leaf(item, ctx) for item in items]
            return self.leaf(value, ctx)
        except ValueError:
            raise click_errors.BadParameter("not a valid value", ctx=ctx, param=param) from None


def _ascii_text(value: Any) -> str:
    if not isinstance(value, str) or not value.isascii():
        raise ValueError("not ASCII text")
    return value


def _whole_number(value: Any, ctx: Context) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return int(_ascii_text(value))


def _number(value: Any, ctx: Context) -> float:
    if isinstance(value, float):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return float(_ascii_text(value))


def _within(leaf: _Leaf, minimum: float | None, maximum: float | None) -> _Leaf:
    def bounded(value: Any, ctx: Context) -> Any:
        number = leaf(value, ctx)
        # Written as "not inside" so that nan, which compares false, is refused.
        if minimum is not None and not number >= minimum:
            raise ValueError("below the minimum")
        if maximum is not None and not number <= maximum:
            raise ValueError("above the maximum")
        return number

    return bounded


def _flag(value: Any, ctx: Context) -> bool:
    if not isinstance(value, bool):
        raise ValueError("not a flag's value")
    return value


def _text(value: Any, ctx: Context) -> str:
    if not isinstance(value, str):
        raise ValueError("not text")
    return value


def _path(info: ParameterInfo) -> _Leaf:
    def to_path(value: Any, ctx: Context) -> Any:
        if not isinstance(value, (str, Path)):
            raise ValueError("not a path")
        # A Path value takes typer's checks without its pydantic conversion.
        return coerce_cli_path(Path(value), info, path_type=Path, ctx=ctx)

    return to_path


def _choice(choices: type[enum.Enum], info: ParameterInfo) -> _Leaf:
    def to_choice(value: Any, ctx: Context) -> Any:
        return coerce_cli_choice(
            value, choices=list(choices), case_sensitive=info.case_sensitive, ctx=ctx
        )

    return to_choice


def _leaf(annotation: Any, info: ParameterInfo) -> _Leaf | None:
    """The converter of one item of `annotation`, or None for a type these rules leave out."""
    if info.parser is not None or info.path_type is not None or info.clamp:
        return None
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return _choice(annotation, info)
    if annotation is Path:
        return _path(info)
    if annotation is str:
        return _text
    if annotation is bool:
        return _flag
    if annotation is int:
        return _within(_whole_number, info.min, info.max)
    if annotation is float:
        return _within(_number, info.min, info.max)
    return None


def plain_runtime_param(descriptor: TypeDescriptor) -> PlainRuntimeParam | None:
    """The converter of a parameter typed `descriptor`, or None to keep typer's own."""
    if descriptor.file_annotation is not None:
        return None
    annotation: Any = descriptor.annotation
    is_list_of_items = get_origin(annotation) is list
    if is_list_of_items:
        (annotation,) = get_args(annotation)
    leaf = _leaf(annotation, descriptor.parameter_info)
    if leaf is None:
        return None
    return PlainRuntimeParam(
        parameter_info=descriptor.parameter_info,
        annotation=descriptor.annotation,
        leaf=leaf,
        is_list_of_items=is_list_of_items,
    )


def install_plain_conversions(params: Iterable[Any]) -> None:
    """Give each typer parameter in `params` a plain converter where the rules cover its type
    (a parameter already converted once keeps what it has)."""
    for param in params:
        if isinstance(param, _TyperParameter) and param._runtime_param is None:
            param._runtime_param = plain_runtime_param(param.type_descriptor)
