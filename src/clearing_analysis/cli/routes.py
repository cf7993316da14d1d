"""`clearing-analysis routes init`: a routes.json template from the pinned pi-ai catalog.

`routes` is a command group (the CLI's own `Group`, so an unknown subcommand is a fixed
USAGE_ERROR) with one subcommand, `init`:
- `routes init --model PROVIDER/ID [--model PROVIDER/ID ...] [--api A]
  [--agent pi|claude-code|codex] [--cache-lifetime-ms PROVIDER/ID=MS ...] [--out F]` writes
  one routes.json array holding one entry per model (`route_template.template_routes`), each
  model of another API (a second model of one API is refused: one route per API), to stdout
  or to a new file created exclusively, as every `--out` is (R-FS); there are no input files
  to protect, so the input identities are empty. With `--api`, every model must use that API;
  `--cache-lifetime-ms` states a model's cache lifetime where the catalog's provider has none
  documented; `--agent` says whose compaction the routes describe (pi's defaults, Claude
  Code's auto-compaction and cache request, of anthropic-messages models only, or Codex's
  auto-compaction limit, of the OpenAI Responses APIs only). When a route it writes keeps
  cacheLifetimeMs "unknown", one fixed line per such route on stderr says so, with the remedy
  (its API is a fixed enum; nothing typed is printed).
- `routes init --api A --list [--out F]` prints the catalog's PROVIDER/ID names for that API,
  one a line: catalog data only, never anything typed.
A --model the catalog refuses is a fixed USAGE_ERROR detail; the typed value is never printed.
Nothing is read but the reviewed policy files, so the command needs neither Node nor network.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from clearing_analysis.cli._app import app
from clearing_analysis.cli._command import Command, Group
from clearing_analysis.cli._exit import fatal
from clearing_analysis.cli._requests import request_from
from clearing_analysis.codes.errors import AnalysisError, UsageDetail, UsageError
from clearing_analysis.codes.table import API_LIMITATION, PROGRAM, REPORT_CODES
from clearing_analysis.inputs.configs import Api
from clearing_analysis.inputs.output import NO_INPUTS, create_exclusive, write_stdout
from clearing_analysis.inputs.requests import OutputRequest
from clearing_analysis.route_template import (
    AGENT_OPTION,
    LIFETIME_OPTION,
    Agent,
    encode_names,
    encode_routes,
    model_names,
    template_routes,
    unknown_lifetimes,
)

_UNKNOWN = "CACHE_LIFETIME_UNKNOWN"


def unknown_lifetime_line(api: Api) -> str:
    """The fixed stderr line for a route written with cacheLifetimeMs "unknown"."""
    meaning, _ = REPORT_CODES[(API_LIMITATION, _UNKNOWN)]
    return (
        f"{PROGRAM}: {_UNKNOWN} {api.value}: {meaning}: set cacheLifetimeMs from the provider's"
        f" documentation, or give {LIFETIME_OPTION} PROVIDER/ID=MS for the model"
        " (docs/formats/routes.md)\n"
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


@routes_app.command("init", cls=Command.for_request(OutputRequest))
def init(  # noqa: PLR0917  (typer maps each option to a parameter)
    ctx: typer.Context,
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
    lifetimes: Annotated[
        list[str] | None,
        typer.Option(
            LIFETIME_OPTION,
            metavar="PROVIDER/ID=MS",
            help="The cache lifetime (ms) of one --model's provider, where the catalog"
            " documents none; repeat it per model.",
        ),
    ] = None,
    agent: Annotated[
        Agent,
        typer.Option(
            AGENT_OPTION,
            help="Whose compaction the routes describe: pi's defaults, Claude Code's"
            " auto-compaction threshold and cache lifetime (anthropic-messages models only), or"
            " Codex's auto-compaction limit (OpenAI Responses models only).",
            show_choices=True,
        ),
    ] = Agent.PI,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", readable=False, help="Create this new file (exclusively) instead of stdout."
        ),
    ] = None,
) -> None:
    """Write routes.json entries for pi-ai catalog models, one per API: prices from the
    catalog, T and P from the agent's compaction defaults (pi's, Claude Code's with --agent
    claude-code, Codex's with --agent codex), an estimated summary size and a documented
    cache lifetime. A template to review, not the truth about your agent
    (docs/formats/routes.md)."""
    out = request_from(OutputRequest, ctx.params).out
    if (not models) == (not list_models):
        raise UsageError(UsageDetail.EXCLUSIVE_OPTIONS, ("--list", "--model"))
    try:
        # The models are resolved first: a refused --model is a usage error, which comes before
        # any look at the output path; the output is then checked and created in one step.
        unknown: list[Api] = []
        if not models:
            if api is None:
                raise UsageError(UsageDetail.MISSING_OPTION, ("--api",))
            if lifetimes:
                raise UsageError(UsageDetail.EXCLUSIVE_OPTIONS, ("--list", LIFETIME_OPTION))
            data = encode_names(model_names(api))
        else:
            routes = template_routes(models, api, lifetimes, agent)
            unknown = unknown_lifetimes(routes)
            data = encode_routes(routes)
        if out is None:
            write_stdout(data)
        else:
            create_exclusive(out, data, NO_INPUTS)
        for unknown_api in unknown:
            sys.stderr.write(unknown_lifetime_line(unknown_api))
    except AnalysisError as error:
        fatal(error)
