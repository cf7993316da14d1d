"""`clearing-analysis routes init`: a routes.json template from the pinned pi-ai catalog.

`routes` is a command group (the CLI's own `Group`, so an unknown subcommand is a fixed
USAGE_ERROR) with one subcommand, `init`:
- `routes init --model PROVIDER/ID [--model PROVIDER/ID ...] [--api A] [--out F]` writes one
  routes.json array holding one entry per model (`route_template.template_routes`), each model
  of another API (a second model of one API is refused: one route per API), to stdout or to a
  new file created exclusively, as every `--out` is (R-FS); there are no input files to
  protect, so the input identities are empty. With `--api`, every model must use that API.
- `routes init --api A --list [--out F]` prints the catalog's PROVIDER/ID names for that API,
  one a line: catalog data only, never anything typed.
A --model the catalog refuses is a fixed USAGE_ERROR detail; the typed value is never printed.
Nothing is read but the reviewed policy files, so the command needs neither Node nor network.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from clearing_analysis.cli._app import app
from clearing_analysis.cli._command import Command, Group
from clearing_analysis.cli._exit import fatal
from clearing_analysis.errors import AnalysisError, UsageDetail, UsageError
from clearing_analysis.inputs.configs import Api
from clearing_analysis.inputs.output import NO_INPUTS, create_exclusive, write_stdout
from clearing_analysis.route_template import (
    encode_names,
    encode_routes,
    model_names,
    template_routes,
)

routes_app = typer.Typer(
    name="routes",
    help="Write routes.json templates from the pinned pi-ai model catalog.",
    cls=Group,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
app.add_typer(routes_app, name="routes")


@routes_app.callback()
def _routes() -> None:
    """Write routes.json templates from the pinned pi-ai model catalog (docs/formats/routes.md)."""


@routes_app.command("init", cls=Command)
def init(
    api: Annotated[
        Api | None,
        typer.Option(
            "--api",
            help="The provider API: required with --list; with --model, every model must use it.",
            show_choices=True,
        ),
    ] = None,
    models: Annotated[
        list[str] | None,
        typer.Option(
            "--model",
            metavar="PROVIDER/ID",
            help="A catalog model (see --list); repeat it, one model per API, for a routes "
            "file covering several APIs.",
        ),
    ] = None,
    list_models: Annotated[
        bool,
        typer.Option("--list", help="Print the catalog's PROVIDER/ID names for --api instead."),
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Create this new file (exclusively) instead of stdout."),
    ] = None,
) -> None:
    """Write routes.json entries for pi-ai catalog models, one per API: prices from the
    catalog, T and P from pi's compaction defaults, an estimated summary size and a documented
    cache lifetime. A template to review, not the truth about your agent
    (docs/formats/routes.md)."""
    if (not models) == (not list_models):
        raise UsageError(UsageDetail.EXCLUSIVE_OPTIONS, ("--list", "--model"))
    try:
        # The models are resolved first: a refused --model is a usage error, which comes before
        # any look at the output path; the output is then checked and created in one step.
        if not models:
            if api is None:
                raise UsageError(UsageDetail.MISSING_OPTION, ("--api",))
            data = encode_names(model_names(api))
        else:
            data = encode_routes(template_routes(models, api))
        if out is None:
            write_stdout(data)
        else:
            create_exclusive(out, data, NO_INPUTS)
    except AnalysisError as error:
        fatal(error)
