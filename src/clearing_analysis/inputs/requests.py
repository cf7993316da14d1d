"""What a command asks for: one frozen request per command, its values checked once.

A request is built once, by the CLI from the options it declares (`cli._options`), or by a
caller of the library, and then read by every stage that needs it: the pipeline
(`pipeline.jobs`), `InputSession.open` (which inputs to select and check, which outputs to
guard), the signed run (`attest.sign`) and the image's mount contract (`container.arguments`,
which classifies a request's fields). Nothing downstream spells the options again.

Guarantees:
- Constructing a request checks its values, each failure a fixed code, never an echo of the
  value: a retrieval rate outside [0, 1] or not finite is INPUT_INVALID
  RETRIEVAL_RATE_OUT_OF_RANGE (R-CLI-4); `--since` / `--until` are parsed into a `Period`
  (INPUT_INVALID PERIOD_*, inputs.period); a worker count below one is a programming error.
  The default retrieval rate is the policy's (`policy/gate.json`, `defaultRetrievalRate`).
- Every path a request holds sits in a field whose annotation declares its role: read
  (`PathRole.INPUT`), read and checked offline (`PathRole.SIDECAR`), created
  (`PathRole.OUTPUT`), or a directory the command creates named files in (`CreatesIn`). The
  mount contract reads these roles and refuses a path-valued field that declares none
  (`container.arguments`).
- A request reads nothing, touches no file and holds no environment: building one is free
  of side effects, so a refused value leaves nothing behind.
"""

from __future__ import annotations

import enum
import math
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Final, Literal

import msgspec

from clearing_analysis.codes.errors import InputInvalidDetail, InputInvalidError
from clearing_analysis.inputs.paths import JOURNAL_RULES, SESSION_RULES, SelectionRules
from clearing_analysis.inputs.period import EVERYTHING, Period
from clearing_analysis.policy import gate_policy


class PathRole(enum.Enum):
    """What a command does with the paths of one field (R-CT-2)."""

    INPUT = "input"  # read only
    SIDECAR = "sidecar"  # read only, and its companions must be absent (R-SC-1)
    OUTPUT = "output"  # created, exclusively (R-FS-1)


class CreatesIn(msgspec.Struct, frozen=True):
    """The role of a directory the command creates `names` in (an output directory)."""

    names: tuple[str, ...]


# The annotations that declare a field's role; `container.arguments` reads them
# (`typing.get_type_hints(..., include_extras=True)`).
InputPath = Annotated[Path, PathRole.INPUT]
InputPaths = Annotated[tuple[Path, ...], PathRole.INPUT]
OptionalInput = Annotated[Path | None, PathRole.INPUT]
SidecarPath = Annotated[Path, PathRole.SIDECAR]
OutputPath = Annotated[Path | None, PathRole.OUTPUT]


def parse_retrieval_rate(rate: float | None) -> Fraction:
    """The supplied rate, or the policy's default for None, as an exact decimal fraction in
    [0, 1] (R-CLI-4); anything else is INPUT_INVALID RETRIEVAL_RATE_OUT_OF_RANGE."""
    if rate is None:
        rate = gate_policy().default_retrieval_rate
    if not math.isfinite(rate) or not 0 <= rate <= 1:
        raise InputInvalidError(InputInvalidDetail.RETRIEVAL_RATE_OUT_OF_RANGE)
    return Fraction(repr(rate))


def _check_workers(workers: int | None) -> None:
    if workers is not None and workers < 1:
        raise ValueError("workers must be at least 1")


UsageBy = Literal["session", "day", "model"]
"""The usage tables `--by` names (report.text.usage)."""


class _JournalRequest(msgspec.Struct, frozen=True, kw_only=True):
    """What `replay` and `analyze` share: native journals replayed against the sidecar."""

    journals: InputPaths
    sidecar: SidecarPath
    routes: InputPath
    qualification: OptionalInput = None
    agent_config: OptionalInput = None
    app_allowlist: OptionalInput = None
    out: OutputPath = None
    log_file: OutputPath = None
    # None: one per core, or one for a small snapshot (pipeline.units.default_workers).
    workers: int | None = None
    period: Period = EVERYTHING

    def __post_init__(self) -> None:
        _check_workers(self.workers)

    @property
    def histories(self) -> tuple[Path, ...]:
        """The files or directories that select the histories (`--journals`)."""
        return self.journals

    @property
    def rules(self) -> SelectionRules:
        """How the histories are selected (inputs.paths)."""
        return JOURNAL_RULES


class ReplayRequest(_JournalRequest, frozen=True, kw_only=True):
    """`replay`: the evidence counts of the replay, no model and no gate."""

    @property
    def html(self) -> None:
        """The replay summary has no page."""
        return None


class AnalyzeRequest(_JournalRequest, frozen=True, kw_only=True):
    """`analyze`: the replay, simulated, modeled and gated; the report (R-CLI-1)."""

    retrieval_rate: Fraction = msgspec.field(default_factory=lambda: parse_retrieval_rate(None))
    html: OutputPath = None
    # Signs the report written to `out` (then required): the attestation goes beside it.
    sign_key: OptionalInput = None
    # Store the usage tables of `--by` in the report.
    usage_by: bool = False

    def __post_init__(self) -> None:
        _check_workers(self.workers)
        if self.sign_key is not None and self.out is None:
            raise ValueError("a signed run writes its report to a file")


class ExploreRequest(msgspec.Struct, frozen=True, kw_only=True):
    """`explore`: imported histories (pi, Claude Code, Codex) explored as an upper bound."""

    sessions: InputPaths
    routes: InputPath
    retrieval_rate: Fraction = msgspec.field(default_factory=lambda: parse_retrieval_rate(None))
    out: OutputPath = None
    log_file: OutputPath = None
    html: OutputPath = None
    workers: int | None = None
    period: Period = EVERYTHING
    usage_by: bool = False

    def __post_init__(self) -> None:
        _check_workers(self.workers)

    @property
    def histories(self) -> tuple[Path, ...]:
        """The files or directories that select the histories (`--sessions`)."""
        return self.sessions

    @property
    def rules(self) -> SelectionRules:
        """How the histories are selected (inputs.paths)."""
        return SESSION_RULES

    @property
    def sidecar(self) -> None:
        """Imported histories have no sidecar."""
        return None

    @property
    def qualification(self) -> None:
        """Explore gates nothing, so it reads no qualification record."""
        return None

    @property
    def agent_config(self) -> None:
        """Explore proves no identity: no attestation is read."""
        return None

    @property
    def app_allowlist(self) -> None:
        """Explore proves no identity: no allowlist is read."""
        return None


RunRequest = ReplayRequest | AnalyzeRequest | ExploreRequest
"""A request whose inputs an `InputSession` selects and checks."""


DEMO_PAGES: Final = ("demo-1-realistic-mix.html", "demo-2-clearing-at-work.html")
"""The pages `demo --html DIR` creates in DIR, one per part, in the parts' order."""


class DemoRequest(msgspec.Struct, frozen=True, kw_only=True):
    """`demo`: two synthetic corpora generated in a temporary directory and analyzed."""

    seed: int
    conversations: int
    profile: str
    details: bool = False
    by: UsageBy | None = None
    html_dir: Annotated[Path | None, CreatesIn(DEMO_PAGES)] = None


class ShowRequest(msgspec.Struct, frozen=True, kw_only=True):
    """`show`: a saved report rendered, or its page created (`html`)."""

    report: InputPath
    html: OutputPath = None


class VerifyRequest(msgspec.Struct, frozen=True, kw_only=True):
    """`verify`: a signed report checked against its attestation with a public key."""

    report: InputPath  # and its attestation beside it, in the same directory
    pubkey: InputPath
    require_sealed: bool = False


class OutputRequest(msgspec.Struct, frozen=True, kw_only=True):
    """A command whose only path is what it creates: `qualify`, `keygen`, `routes init`
    (None: stdout) and `synth` (a new directory)."""

    out: OutputPath = None


class NoPathRequest(msgspec.Struct, frozen=True, kw_only=True):
    """A command that names no path (`explain`)."""


Request = RunRequest | DemoRequest | ShowRequest | VerifyRequest | OutputRequest | NoPathRequest
"""Any command's request."""


__all__ = [
    "DEMO_PAGES",
    "AnalyzeRequest",
    "CreatesIn",
    "DemoRequest",
    "ExploreRequest",
    "InputPath",
    "InputPaths",
    "NoPathRequest",
    "OptionalInput",
    "OutputPath",
    "OutputRequest",
    "PathRole",
    "ReplayRequest",
    "Request",
    "RunRequest",
    "ShowRequest",
    "SidecarPath",
    "UsageBy",
    "VerifyRequest",
    "parse_retrieval_rate",
]
