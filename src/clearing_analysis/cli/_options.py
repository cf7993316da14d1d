"""Every option the history commands share, declared once (analyze, explore, replay, show,
demo): its flag, its help and its default. A command's parameter is typed with one of these
names; the values reach the library only as the command's request (cli._requests).

Defaults with a meaning come from policy/: the retrieval rate's default and the rates always
reported are `policy/gate.json`'s, in the help text too.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated

import typer

from clearing_analysis.policy import gate_policy


def _percent(share: float) -> str:
    return f"{share * 100:g}%"


_GATE = gate_policy()
DEFAULT_RETRIEVAL_RATE = _GATE.default_retrieval_rate
_SENSITIVITIES = ", ".join(
    "0" if rate == 0 else _percent(rate) for rate in _GATE.retrieval_sensitivities[:-1]
)
_ALWAYS_REPORTED = f"{_SENSITIVITIES} and {_percent(_GATE.retrieval_sensitivities[-1])}"

Journals = Annotated[
    list[Path],
    typer.Option(
        "--journals",
        readable=False,
        metavar="<path>...",
        help="Journal files or directories (recursive *.jsonl): one or more after the"
        " flag, or the flag repeated. Pass <root>/journals, not the root.",
    ),
]
Sessions = Annotated[
    list[Path],
    typer.Option(
        "--sessions",
        readable=False,
        metavar="<path>...",
        help="pi session files, Codex CLI rollouts or directories (recursive *.jsonl),"
        " e.g. a copy of ~/.pi/agent/sessions or ~/.codex/sessions: one or more after the"
        " flag, or the flag repeated.",
    ),
]
Sidecar = Annotated[
    Path, typer.Option("--sidecar", readable=False, help="Checkpointed sidecar SQLite file.")
]
Routes = Annotated[
    Path, typer.Option("--routes", readable=False, help="routes.json: one entry per API.")
]
Qualification = Annotated[
    Path | None,
    typer.Option(
        "--qualification",
        readable=False,
        help="Record from `qualify`; absent = PAYLOAD_UNQUALIFIED.",
    ),
]
AgentConfig = Annotated[
    Path | None,
    typer.Option("--agent-config", readable=False, help="Owner attestation of built-ins."),
]
AppAllowlist = Annotated[
    Path | None,
    typer.Option("--app-allowlist", readable=False, help="Reviewed read-only MCP app tools."),
]
RetrievalRate = Annotated[
    float,
    typer.Option(
        "--retrieval-rate",
        help="Expected share of cleared results retrieved again, in [0, 1] (default"
        f" {DEFAULT_RETRIEVAL_RATE:g}, pending lookup-pilot evidence); {_ALWAYS_REPORTED}"
        " are always reported too.",
    ),
]
ReportOut = Annotated[
    Path | None,
    typer.Option(
        "--out",
        readable=False,
        help="Create this new file for the JSON report instead of stdout.",
    ),
]
LogFile = Annotated[
    Path | None,
    typer.Option(
        "--log-file",
        readable=False,
        help="Create this new file for the log (codes and counts).",
    ),
]
Workers = Annotated[
    int | None,
    typer.Option(
        "--workers",
        min=1,
        help="Processes analyzing independent journals or sessions in parallel (default: one"
        " per core).",
    ),
]
JsonOutput = Annotated[
    bool, typer.Option("--json", help="Print the JSON report even on a terminal.")
]
# `--details` of every command that prints a human view (analyze, explore, show, demo).
Details = Annotated[
    bool,
    typer.Option(
        "--details",
        help="In the human view, follow the one-screen summary with every criterion, the"
        " evidence and the models' tables.",
    ),
]


class UsageTable(enum.StrEnum):
    """The usage tables `--by` shows (report.text.usage): per session, UTC day or model."""

    SESSION = "session"
    DAY = "day"
    MODEL = "model"


# `--by` of every command that prints a human view (analyze, explore, show, demo).
By = Annotated[
    UsageTable | None,
    typer.Option(
        "--by",
        help="In the human view, add the recorded usage by session (by ordinal), UTC day or"
        " model; analyze and explore also store the three tables in the report.",
    ),
]
# `--html` of every command that yields or shows a report (analyze, explore, show).
Html = Annotated[
    Path | None,
    typer.Option(
        "--html",
        readable=False,
        help="Also create this new file: the report as one self-contained HTML page (charts"
        " and the numbers behind them; no script, nothing fetched).",
    ),
]
# `--since` and `--until` of every command that replays a history (analyze, explore,
# replay): the period to analyze (inputs.period parses them; a bad value is INPUT_INVALID,
# never echoed).
Since = Annotated[
    str | None,
    typer.Option(
        "--since",
        metavar="DATE",
        help="Leave out what came before this ISO date or date and time (UTC unless an offset"
        " is given): boundaries, requests and compactions are skipped and counted.",
    ),
]
Until = Annotated[
    str | None,
    typer.Option(
        "--until",
        metavar="DATE",
        help="Leave out what came from this ISO date and time on; a date alone includes that"
        " whole day (UTC unless an offset is given).",
    ),
]

__all__ = [
    "DEFAULT_RETRIEVAL_RATE",
    "AgentConfig",
    "AppAllowlist",
    "By",
    "Details",
    "Html",
    "Journals",
    "JsonOutput",
    "LogFile",
    "Qualification",
    "ReportOut",
    "RetrievalRate",
    "Routes",
    "Sessions",
    "Sidecar",
    "Since",
    "Until",
    "UsageTable",
    "Workers",
]
