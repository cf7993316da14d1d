"""Which paths a command line names (R-CT-2): parsed by the CLI's own definitions into the
command's request (cli.image), whose fields the container classifies."""

from __future__ import annotations

import typing
from pathlib import Path, PurePath
from typing import Annotated

import msgspec
import pytest
import typer

from clearing_analysis.cli import app
from clearing_analysis.cli._command import Command
from clearing_analysis.cli.image import cli_commands
from clearing_analysis.cli.image import named_paths as contract_paths
from clearing_analysis.codes.errors import InputInvalidError, MountContractError
from clearing_analysis.container.arguments import contract_paths as classified
from clearing_analysis.inputs.requests import NoPathRequest, OutputRequest


def _path_annotated(annotation: object) -> bool:
    """Whether a parameter annotation is Path, Path | None or list[Path]."""
    if annotation is Path:
        return True
    return any(_path_annotated(arg) for arg in typing.get_args(annotation))


class TestHtml:
    """The --html page is an output; `demo --html DIR` names the pages it creates in DIR."""

    def test_html_pages_are_outputs(self) -> None:
        """`show R --html P`: R an input, P an output; `demo --html DIR`: DIR's two pages."""
        shown = contract_paths(["show", "/in/report.json", "--html", "/out/page.html"])
        assert (shown.inputs, shown.outputs) == (
            (Path("/in/report.json"),),
            (Path("/out/page.html"),),
        )
        demo = contract_paths(["demo", "--html", "/out/pages"])
        assert demo.inputs == ()
        assert set(demo.outputs) == {
            Path("/out/pages/demo-1-realistic-mix.html"),
            Path("/out/pages/demo-2-clearing-at-work.html"),
        }


class TestClassification:
    """Every path option of every command is classified."""

    def test_every_path_parameter_of_every_command_is_classified(self) -> None:
        """A new path option fails here until its command's request has a field for it, in
        every command and in every subcommand of a command group (`routes init`); a value
        given to each path option of each command is classified by the request's roles."""
        commands = dict(cli_commands())
        for group in list(commands.values()):
            if hasattr(group, "commands"):
                commands.update(group.commands)
        infos = list(app.registered_commands)
        for group_info in app.registered_groups:
            assert group_info.typer_instance is not None
            infos.extend(group_info.typer_instance.registered_commands)
        checked = 0
        for info in infos:
            assert info.callback is not None
            hints = typing.get_type_hints(info.callback)
            paths = [n for n, a in hints.items() if n != "return" and _path_annotated(a)]
            if not paths:
                continue
            command = commands[info.name or info.callback.__name__.replace("_", "-")]
            assert isinstance(command, Command)
            assert command.request_type is not NoPathRequest, info.callback.__name__
            fields = {field.name for field in msgspec.structs.fields(command.request_type)}
            assert set(paths) <= fields, info.callback.__name__
            checked += len(paths)
        assert checked >= 20


class TestExplore:
    """An explore command line names its sessions and routes as inputs, no sidecar."""

    def test_sessions_are_inputs(self) -> None:
        """Every `--sessions` path and the routes are inputs; --out and --log-file outputs."""
        paths = contract_paths(
            [
                "explore",
                "--sessions",
                "/in/a",
                "/in/b.jsonl",
                "--routes",
                "/in/r.json",
                "--out",
                "/out/explore.json",
                "--log-file",
                "/out/log.jsonl",
            ]
        )
        assert set(paths.inputs) == {Path("/in/a"), Path("/in/b.jsonl"), Path("/in/r.json")}
        assert set(paths.outputs) == {Path("/out/explore.json"), Path("/out/log.jsonl")}
        assert paths.sidecars == ()


class TestReplay:
    """A replay command line names inputs, a sidecar and outputs."""

    def test_all_options(self) -> None:
        """Repeated --journals, the --opt=value form and both outputs are found."""
        paths = contract_paths(
            [
                "replay",
                "--journals",
                "/in/a",
                "--journals=/in/b",
                "--sidecar",
                "/in/h.sqlite",
                "--routes",
                "/in/r.json",
                "--qualification",
                "/in/q.json",
                "--agent-config",
                "/in/c.json",
                "--app-allowlist",
                "/in/l.json",
                "--out",
                "/out/report.json",
                "--log-file",
                "/out/log.jsonl",
                "--workers",
                "2",
            ]
        )
        names = ("a", "b", "h.sqlite", "r.json", "q.json", "c.json", "l.json")
        assert set(paths.inputs) == {Path("/in") / name for name in names}
        assert set(paths.outputs) == {Path("/out/report.json"), Path("/out/log.jsonl")}
        assert paths.sidecars == (Path("/in/h.sqlite"),)

    @pytest.mark.parametrize(
        "journals",
        [
            ["--journals", "/in/a", "/in/b", "/in/c"],
            ["--journals", "/in/a", "--journals", "/in/b", "/in/c"],
            ["--journals=/in/a", "/in/b", "--journals", "/in/c"],
        ],
        ids=["variadic", "repeated-then-variadic", "equals-then-variadic"],
    )
    def test_every_variadic_journal_is_an_input(self, journals: list[str]) -> None:
        """`--journals P [P ...]` in every form: each path the CLI will read is classified as
        an input (a path missed here would escape the read-only check)."""
        argv = ["replay", *journals, "--sidecar", "/in/h.sqlite", "--routes", "/in/r.json"]
        paths = contract_paths(argv)
        expected = {Path("/in") / name for name in ("a", "b", "c", "h.sqlite", "r.json")}
        assert set(paths.inputs) == expected
        assert len(paths.inputs) == len(expected)

    def test_variadic_values_stop_at_the_next_option(self) -> None:
        """The value after `--out` stays an output even right after variadic journals."""
        paths = contract_paths(["replay", "--journals", "/in/a", "/in/b", "--out", "/out/r.json"])
        assert set(paths.inputs) == {Path("/in/a"), Path("/in/b")}
        assert paths.outputs == (Path("/out/r.json"),)

    def test_stdout_run_has_no_output(self) -> None:
        """Without --out / --log-file nothing is written to a file."""
        paths = contract_paths(["replay", "--journals", "j", "--sidecar", "s", "--routes", "r"])
        assert paths.outputs == ()
        assert len(paths.inputs) == 3


class TestOtherCommands:
    """Commands without inputs, and command lines that name nothing."""

    def test_synth_output_directory(self) -> None:
        """synth --out is an output (a new directory)."""
        paths = contract_paths(["synth", "--out", "/out/corpus", "--seed", "1"])
        assert paths.outputs == (Path("/out/corpus"),)
        assert paths.inputs == ()

    def test_qualify_out(self) -> None:
        """qualify --out is an output."""
        assert contract_paths(["qualify", "--out", "/out/q.json"]).outputs == (Path("/out/q.json"),)

    def test_routes_init_out(self) -> None:
        """routes init --out, inside the `routes` group, is an output; it reads no input."""
        argv = ["routes", "init", "--api", "anthropic-messages", "--model", "a/b"]
        paths = contract_paths([*argv, "--out", "/out/routes.json"])
        assert (paths.inputs, paths.outputs) == ((), (Path("/out/routes.json"),))
        assert contract_paths([*argv[:4], "--list", "--out=/out/l.txt"]).outputs == (
            Path("/out/l.txt"),
        )

    def test_keygen_out(self) -> None:
        """keygen --out is an output (its .pub lands in the same directory)."""
        paths = contract_paths(["keygen", "--out", "/out/run.key"])
        assert (paths.inputs, paths.outputs) == ((), (Path("/out/run.key"),))

    def test_verify_reads_the_report_and_the_public_key(self) -> None:
        """verify's report and --pubkey are inputs (read-only mounts); it writes nothing."""
        paths = contract_paths(["verify", "/in/r.json", "--pubkey", "/key/run.key.pub"])
        assert set(paths.inputs) == {Path("/in/r.json"), Path("/key/run.key.pub")}
        assert paths.outputs == ()

    def test_the_signing_key_is_an_input(self) -> None:
        """analyze --sign-key: the private key must come from a read-only mount, like any input;
        the attestation shares --out's directory, so --out's check covers it."""
        argv = ["analyze", "--journals", "/in/j", "--sidecar", "/in/h.sqlite", "--routes"]
        paths = contract_paths(
            [*argv, "/in/r.json", "--out", "/out/r.json", "--sign-key", "/key/run.key"]
        )
        assert Path("/key/run.key") in paths.inputs
        assert paths.outputs == (Path("/out/r.json"),)

    def test_routes_init_to_stdout(self) -> None:
        """Without --out, routes init names no path."""
        paths = contract_paths(["routes", "init", "--api", "anthropic-messages", "--list"])
        assert (paths.inputs, paths.outputs) == ((), ())

    @pytest.mark.parametrize(
        "argv",
        [
            [],
            ["--help"],
            ["nonsense", "--out", "/x"],
            ["demo"],
            ["replay", "--", "--out", "/x"],
            ["routes"],
            ["routes", "--help"],
            ["routes", "nonsense", "--out", "/x"],
        ],
    )
    def test_nothing_named(self, argv: list[str]) -> None:
        """Help, unknown commands and subcommands and words after `--` name no path (the CLI
        rejects them)."""
        paths = contract_paths(argv)
        assert (paths.inputs, paths.outputs) == ((), ())


class TestFailClosed:
    """What no request declares refuses the run."""

    def test_unclassified_path_option(self) -> None:
        """A command whose path option maps to no field of its request (here a command that
        declares none) is ARGUMENT_UNCLASSIFIED."""
        other = typer.Typer()

        @other.command()
        def export(target: Annotated[Path, typer.Option("--target")]) -> None:
            """A command with an unclassified path option."""

        @other.command()
        def spare() -> None:
            """A second command so the app is a group."""

        with pytest.raises(MountContractError) as caught:
            contract_paths(["export", "--target", "/x"], cli_commands(other))
        assert caught.value.detail == "ARGUMENT_UNCLASSIFIED"

    def test_unclassified_path_option_in_a_subcommand(self) -> None:
        """The classifier descends into command groups: a subcommand's unclassified path option
        is ARGUMENT_UNCLASSIFIED too, never skipped."""
        other = typer.Typer()
        nested = typer.Typer()

        @nested.command()
        def export(target: Annotated[Path, typer.Option("--target")]) -> None:
            """A subcommand with an unclassified path option."""

        @nested.command()
        def spare() -> None:
            """A second subcommand so the sub-app is a group."""

        @other.command()
        def top() -> None:
            """A top-level command beside the group."""

        other.add_typer(nested, name="group")
        with pytest.raises(MountContractError) as caught:
            contract_paths(["group", "export", "--target", "/x"], cli_commands(other))
        assert caught.value.detail == "ARGUMENT_UNCLASSIFIED"

    def test_parser_failure(self) -> None:
        """A parser that raises is ARGUMENT_UNPARSED, not a skipped check."""

        class Broken:
            def make_context(self, *args: object, **kwargs: object) -> object:
                raise ValueError

        with pytest.raises(MountContractError) as caught:
            contract_paths(["replay"], {"replay": Broken()})
        assert caught.value.detail == "ARGUMENT_UNPARSED"

    def test_a_request_field_without_a_role(self) -> None:
        """A command whose request holds a path in a field that declares no role is
        ARGUMENT_UNCLASSIFIED (container.arguments)."""
        other = typer.Typer()

        class Loose(msgspec.Struct, frozen=True):
            target: Path | None = None

        @other.command(cls=Command.for_request(Loose))  # type: ignore[arg-type]
        def export(target: Annotated[Path, typer.Option("--target")]) -> None:
            """A command whose request declares no role for its path."""

        @other.command()
        def spare() -> None:
            """A second command so the app is a group."""

        with pytest.raises(MountContractError) as caught:
            contract_paths(["export", "--target", "/x"], cli_commands(other))
        assert caught.value.detail == "ARGUMENT_UNCLASSIFIED"

    def test_a_refused_value_is_the_cli_refusal(self) -> None:
        """A value the request refuses is refused here as the CLI refuses it (a retrieval rate
        out of range: INPUT_INVALID RETRIEVAL_RATE_OUT_OF_RANGE), never classified."""
        argv = ["explore", "--sessions", "/in/s", "--routes", "/in/r", "--retrieval-rate", "2"]
        with pytest.raises(InputInvalidError) as caught:
            contract_paths(argv)
        assert caught.value.detail == "RETRIEVAL_RATE_OUT_OF_RANGE"

    def test_the_request_is_the_one_the_command_builds(self) -> None:
        """The classified request is an OutputRequest for `keygen`, classified as the
        container reads requests."""
        assert classified(OutputRequest(out=Path("/out/k"))) == contract_paths(
            ["keygen", "--out", "/out/k"]
        )

    def test_values_are_paths(self) -> None:
        """Parsed values are path objects, never strings (so classification sees them)."""
        paths = contract_paths(["qualify", "--out", "x"])
        assert all(isinstance(p, PurePath) for p in paths.outputs)
