"""Usage errors of every command are one fixed USAGE_ERROR line, exit 2, echoing nothing typed.

Each case types a unique canary where click would echo it (an unknown option, a bad value, an
extra word, an unknown command); the line must be exactly the table's, naming at most an option
as the command declares it, and the canary must appear neither on stdout nor on stderr.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import typer.main
from typer._click import exceptions as click_errors

from clearing_analysis.cli import app
from clearing_analysis.cli._command import Command, Group
from clearing_analysis.cli._usage import usage_error
from clearing_analysis.codes.errors import UsageDetail
from clearing_analysis.policy import CatalogModel, pi_ai_catalog
from tests.cli._guarded import invoke, usage_line
from tests.e2e._canary import Canaries, leaks

C = Canaries(seed=20260301)
WORD, OPTION, VALUE, COMMAND = C("word"), C("option"), C("value"), C("command")
REPLAY = ["replay", "--journals", "j", "--sidecar", "s", "--routes", "r"]
SYNTH = ["synth", "--out", "o", "--seed", "1"]
INIT = ["routes", "init"]


def _init(model: CatalogModel) -> list[str]:
    """`routes init` for a catalog model, with an --out that must never be created."""
    return [*INIT, "--api", model.api, "--model", f"{model.provider}/{model.id}", "--out", "o"]


# Catalog models `routes init` refuses, picked from the catalog itself so that a regenerated
# catalog keeps the cases meaningful: one without a price, one whose window is too small.
UNPRICED = next(m for m in pi_ai_catalog().models if m.cost is None)
TOO_SMALL = next(m for m in pi_ai_catalog().models if m.cost and m.context_window < 40_000)
OTHER_API = "openai-responses" if UNPRICED.api != "openai-responses" else "openai-completions"

# (id, arguments, detail, the declared option the remedy names or None)
CASES: list[tuple[str, list[str], str, str | None]] = [
    ("root-unknown-command", [COMMAND], "UNKNOWN_COMMAND", None),
    ("root-unknown-command-after-dashes", ["--", COMMAND, WORD], "UNKNOWN_COMMAND", None),
    ("root-missing-command", ["--"], "MISSING_COMMAND", None),
    ("root-unknown-option", [f"--{OPTION}", WORD], "UNKNOWN_OPTION", None),
    ("demo-unknown-option", ["demo", f"--{OPTION}"], "UNKNOWN_OPTION", None),
    ("synth-unknown-option", [*SYNTH, f"--{OPTION}={VALUE}"], "UNKNOWN_OPTION", None),
    ("qualify-unknown-option", ["qualify", f"-{OPTION}"], "UNKNOWN_OPTION", None),
    ("replay-unknown-option", [*REPLAY, f"--{OPTION}", VALUE], "UNKNOWN_OPTION", None),
    (
        "replay-missing-sidecar",
        ["replay", "--journals", "j", "--routes", "r"],
        "MISSING_OPTION",
        "--sidecar",
    ),
    ("replay-missing-journals", ["replay"], "MISSING_OPTION", "--journals"),
    (
        "synth-missing-out",
        ["synth", "--seed", "1", "--conversations", "1"],
        "MISSING_OPTION",
        "--out",
    ),
    ("replay-missing-value", [*REPLAY, "--workers"], "MISSING_VALUE", "--workers"),
    ("replay-journals-without-value", ["replay", "--journals"], "MISSING_VALUE", "--journals"),
    ("qualify-missing-value", ["qualify", "--out"], "MISSING_VALUE", "--out"),
    ("demo-help-with-value", ["demo", f"--help={VALUE}"], "UNEXPECTED_VALUE", "--help"),
    ("replay-workers-not-a-number", [*REPLAY, "--workers", VALUE], "BAD_VALUE", "--workers"),
    ("replay-workers-zero", [*REPLAY, "--workers", "0"], "BAD_VALUE", "--workers"),
    (
        "analyze-fail-on-unknown",
        ["analyze", "--journals", "j", "--sidecar", "s", "--routes", "r", "--fail-on", VALUE],
        "BAD_VALUE",
        "--fail-on",
    ),
    ("demo-unknown-profile", ["demo", "--profile", VALUE], "BAD_VALUE", "--profile"),
    (
        "analyze-by-unknown",
        ["analyze", "--journals", "j", "--sidecar", "s", "--routes", "r", "--by", VALUE],
        "BAD_VALUE",
        "--by",
    ),
    (
        "explore-by-unknown",
        ["explore", "--sessions", "s", "--routes", "r", f"--by={VALUE}"],
        "BAD_VALUE",
        "--by",
    ),
    ("show-by-unknown", ["show", "r.json", "--by", VALUE], "BAD_VALUE", "--by"),
    ("demo-by-unknown", ["demo", "--by", VALUE], "BAD_VALUE", "--by"),
    ("demo-seed-not-a-number", ["demo", f"--seed={VALUE}"], "BAD_VALUE", "--seed"),
    ("synth-size-too-small", [*SYNTH, "--size-mb", "0"], "BAD_VALUE", "--size-mb"),
    ("demo-extra-argument", ["demo", WORD], "EXTRA_ARGUMENT", None),
    ("qualify-extra-argument", ["qualify", "--out", "o", WORD], "EXTRA_ARGUMENT", None),
    (
        "replay-extra-after-sidecar",
        ["replay", "--sidecar", "s", WORD, "--journals", "j", "--routes", "r"],
        "EXTRA_ARGUMENT",
        None,
    ),
    ("replay-extra-after-dashes", [*REPLAY, "--", WORD], "EXTRA_ARGUMENT", None),
    (
        "synth-both-sizes",
        [*SYNTH, "--conversations", "1", "--size-mb", "1"],
        "EXCLUSIVE_OPTIONS",
        "--conversations or --size-mb",
    ),
    ("synth-no-size", SYNTH, "EXCLUSIVE_OPTIONS", "--conversations or --size-mb"),
    ("keygen-missing-out", ["keygen"], "MISSING_OPTION", "--out"),
    ("keygen-extra-argument", ["keygen", "--out", "k", WORD], "EXTRA_ARGUMENT", None),
    ("verify-missing-pubkey", ["verify", "r.json"], "MISSING_OPTION", "--pubkey"),
    (
        "verify-sealed-with-value",
        ["verify", "r.json", "--pubkey", "k", f"--require-sealed={VALUE}"],
        "UNEXPECTED_VALUE",
        "--require-sealed",
    ),
    # --sign-key signs the --out file: without --out it is refused before anything is read.
    (
        "analyze-sign-key-without-out",
        ["analyze", *REPLAY[1:], "--sign-key", "k"],
        "MISSING_OPTION",
        "--out",
    ),
    ("routes-unknown-subcommand", ["routes", COMMAND, WORD], "UNKNOWN_COMMAND", None),
    ("routes-missing-subcommand", ["routes", "--"], "MISSING_COMMAND", None),
    ("routes-init-missing-api", [*INIT, "--list"], "MISSING_OPTION", "--api"),
    ("routes-init-unknown-api", [*INIT, "--api", VALUE, "--list"], "BAD_VALUE", "--api"),
    (
        "routes-init-list-and-model",
        [*INIT, "--api", "anthropic-messages", "--list", "--model", f"anthropic/{VALUE}"],
        "EXCLUSIVE_OPTIONS",
        "--list or --model",
    ),
    (
        "routes-init-neither-list-nor-model",
        [*INIT, "--api", "anthropic-messages", "--out", "o"],
        "EXCLUSIVE_OPTIONS",
        "--list or --model",
    ),
    (
        "routes-init-unknown-model",
        [*INIT, "--api", "anthropic-messages", "--model", f"{VALUE}/{WORD}", "--out", "o"],
        "MODEL_UNKNOWN",
        "--model",
    ),
    (
        "routes-init-unknown-id",
        [*INIT, "--api", "anthropic-messages", "--model", f"anthropic/{VALUE}", "--out", "o"],
        "MODEL_UNKNOWN",
        "--model",
    ),
    (
        "routes-init-model-without-slash",
        [*INIT, "--api", "anthropic-messages", "--model", VALUE, "--out", "o"],
        "MODEL_UNKNOWN",
        "--model",
    ),
    (
        "routes-init-api-mismatch",
        [*INIT, "--api", OTHER_API, "--model", f"{UNPRICED.provider}/{UNPRICED.id}"],
        "MODEL_API_MISMATCH",
        "--api",
    ),
    (
        "routes-init-claude-code-other-api",
        [*INIT, "--agent", "claude-code", "--model", "openai/gpt-5.1", "--out", "o"],
        "MODEL_AGENT_MISMATCH",
        "--model",
    ),
    (
        "routes-init-codex-other-api",
        [*INIT, "--agent", "codex", "--model", "anthropic/claude-sonnet-4-5", "--out", "o"],
        "MODEL_CODEX_MISMATCH",
        "--model",
    ),
    (
        "routes-init-unknown-agent",
        [*INIT, "--agent", VALUE, "--model", "anthropic/claude-sonnet-4-5", "--out", "o"],
        "BAD_VALUE",
        "--agent",
    ),
    (
        "routes-init-two-models-of-one-api",
        [
            *INIT,
            "--model",
            "anthropic/claude-sonnet-4-5",
            "--model",
            "anthropic/claude-3-5-haiku-20241022",
            "--out",
            "o",
        ],
        "MODEL_API_REPEATED",
        "--model",
    ),
    (
        "routes-init-lifetime-not-milliseconds",
        [
            *INIT,
            "--model",
            "anthropic/claude-sonnet-4-5",
            "--cache-lifetime-ms",
            f"anthropic/claude-sonnet-4-5={VALUE}",
            "--out",
            "o",
        ],
        "CACHE_LIFETIME_INVALID",
        "--cache-lifetime-ms",
    ),
    (
        "routes-init-lifetime-of-a-model-not-given",
        [
            *INIT,
            "--model",
            "anthropic/claude-sonnet-4-5",
            "--cache-lifetime-ms",
            f"anthropic/{VALUE}=300000",
            "--out",
            "o",
        ],
        "CACHE_LIFETIME_MODEL_NOT_GIVEN",
        "--cache-lifetime-ms",
    ),
    (
        "routes-init-lifetime-twice",
        [
            *INIT,
            "--model",
            "anthropic/claude-sonnet-4-5",
            "--cache-lifetime-ms",
            "anthropic/claude-sonnet-4-5=1",
            "--cache-lifetime-ms",
            "anthropic/claude-sonnet-4-5=2",
            "--out",
            "o",
        ],
        "CACHE_LIFETIME_REPEATED",
        "--cache-lifetime-ms",
    ),
    # A mistyped option names the closest option the command declares, not what was typed.
    (
        "analyze-mistyped-journals",
        ["analyze", "--journal", "j", "--sidecar", "s", "--routes", "r"],
        "MISTYPED_OPTION",
        "--journals",
    ),
    ("explore-mistyped-sessions", ["explore", "--session", WORD], "MISTYPED_OPTION", "--sessions"),
    ("show-mistyped-details", ["show", "r.json", "--detail"], "MISTYPED_OPTION", "--details"),
    ("explain-unknown-code", ["explain", WORD], "UNKNOWN_CODE", None),
    ("explain-three-words", ["explain", "INPUT_INVALID", "OPEN", WORD], "EXTRA_ARGUMENT", None),
    ("routes-init-unpriced-model", _init(UNPRICED), "MODEL_UNPRICED", None),
    ("routes-init-window-too-small", _init(TOO_SMALL), "MODEL_WINDOW_TOO_SMALL", None),
]


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working directory for the run: relative paths of a run would land here."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    ("args", "detail", "option"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_usage_error_is_one_fixed_line(
    args: list[str],
    detail: str,
    option: str | None,
    capsys: pytest.CaptureFixture[str],
    workdir: Path,
) -> None:
    """Exit 2, nothing on stdout, stderr exactly the USAGE_ERROR line, no typed token in it,
    and nothing created (the relative paths above would land in the working directory)."""
    done = invoke(args, capsys)
    assert (done.status, done.stdout, done.stderr) == (2, "", usage_line(detail, option))
    assert leaks((done.stdout + done.stderr).encode(), C.values) == []
    assert list(workdir.iterdir()) == []


def test_every_usage_detail_but_the_fallback_is_reached() -> None:
    """The cases above reach every USAGE_ERROR detail the parser can produce (the fallback is
    tested through the mapping below)."""
    reached = {case[2] for case in CASES}
    assert reached == {d.value for d in UsageDetail} - {"INVALID_COMMAND_LINE"}


@pytest.mark.parametrize(
    "error",
    [
        click_errors.BadArgumentUsage(f"Argument {WORD!r} takes 2 values."),
        click_errors.UsageError(f"Value {VALUE!r} is not valid."),  # no context
    ],
    ids=["positional-nargs", "bare-without-context"],
)
def test_other_parser_errors_are_the_fallback_detail(error: click_errors.UsageError) -> None:
    """A usage error no rule names (none of our commands can raise these) still maps to a fixed
    detail, INVALID_COMMAND_LINE, and keeps nothing of the message."""
    mapped = usage_error(error)
    assert (mapped.code, mapped.detail, mapped.options) == (
        "USAGE_ERROR",
        "INVALID_COMMAND_LINE",
        (),
    )
    assert leaks(str(mapped).encode(), C.values) == []


@pytest.mark.parametrize(
    "command",
    [
        [],
        ["demo"],
        ["synth"],
        ["qualify"],
        ["replay"],
        ["analyze"],
        ["show"],
        ["explore"],
        ["explain"],
        ["routes"],
        INIT,
        ["keygen"],
        ["verify"],
    ],
)
def test_help_works_everywhere(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """`--help` prints the help text on stdout and exits 0, for the root and every command."""
    done = invoke([*command, "--help"], capsys)
    assert (done.status, done.stderr) == (0, "")
    assert done.stdout.startswith("Usage: ")


def test_no_arguments_prints_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    """`clearing-analysis` alone prints the help text (on stderr, exit 2), not an error line."""
    done = invoke([], capsys)
    assert (done.status, done.stdout) == (2, "")
    assert done.stderr.startswith("Usage: ")
    assert "USAGE_ERROR" not in done.stderr


def test_every_command_uses_the_cli_classes() -> None:
    """The root and every command group are a Group and every command a Command, so each has
    the usage-error hooks."""
    group = typer.main.get_command(app)
    assert isinstance(group, Group)
    commands = dict(group.commands)  # type: ignore[attr-defined]  (a copy: edited below)
    assert set(commands) == {
        "demo",
        "synth",
        "qualify",
        "replay",
        "analyze",
        "explore",
        "show",
        "routes",
        "keygen",
        "verify",
        "explain",
    }
    routes = commands.pop("routes")
    assert isinstance(routes, Group)
    assert set(routes.commands) == {"init"}
    commands.update({f"routes {name}": command for name, command in routes.commands.items()})
    assert all(isinstance(command, Command) for command in commands.values())
