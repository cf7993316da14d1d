"""A request's fields classified by the roles they declare (container.arguments, R-CT-2)."""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Annotated

import msgspec
import pytest

from clearing_analysis.codes.errors import MountContractError
from clearing_analysis.container.arguments import contract_paths
from clearing_analysis.inputs import requests
from clearing_analysis.inputs.requests import (
    DEMO_PAGES,
    AnalyzeRequest,
    DemoRequest,
    ExploreRequest,
    NoPathRequest,
    OutputRequest,
    PathRole,
    ShowRequest,
    VerifyRequest,
)


class TestRoles:
    """Each declared role lands where the contract checks it."""

    def test_an_analyze_request(self) -> None:
        """Journals, routes, the optional inputs and the key are inputs; the sidecar is an
        input and a sidecar; --out, --log-file and --html are outputs."""
        request = AnalyzeRequest(
            journals=(Path("/in/a"), Path("/in/b")),
            sidecar=Path("/in/h.sqlite"),
            routes=Path("/in/r.json"),
            qualification=Path("/in/q.json"),
            agent_config=Path("/in/c.json"),
            app_allowlist=Path("/in/l.json"),
            out=Path("/out/r.json"),
            log_file=Path("/out/log"),
            html=Path("/out/p.html"),
            sign_key=Path("/key/k"),
        )
        paths = contract_paths(request)
        inputs = {"/in/a", "/in/b", "/in/h.sqlite", "/in/r.json", "/in/q.json", "/in/c.json"}
        assert set(paths.inputs) == {Path(p) for p in (*inputs, "/in/l.json", "/key/k")}
        assert len(paths.inputs) == 8
        assert set(paths.outputs) == {Path("/out/r.json"), Path("/out/log"), Path("/out/p.html")}
        assert paths.sidecars == (Path("/in/h.sqlite"),)

    def test_absent_optional_paths_name_nothing(self) -> None:
        """An explore request to stdout names its sessions and routes only, and no sidecar."""
        request = ExploreRequest(sessions=(Path("/in/s"),), routes=Path("/in/r"))
        paths = contract_paths(request)
        assert (paths.inputs, paths.outputs, paths.sidecars) == (
            (Path("/in/r"), Path("/in/s")),
            (),
            (),
        )

    def test_an_output_directory_names_the_files_created_in_it(self) -> None:
        """`demo --html DIR`: the two pages in DIR are the outputs, not DIR itself."""
        request = DemoRequest(seed=1, conversations=1, profile="mixed", html_dir=Path("/out/d"))
        assert contract_paths(request).outputs == tuple(Path("/out/d") / n for n in DEMO_PAGES)

    @pytest.mark.parametrize(
        ("request_value", "inputs", "outputs"),
        [
            (ShowRequest(report=Path("/in/r"), html=Path("/out/p")), ("/in/r",), ("/out/p",)),
            (VerifyRequest(report=Path("/in/r"), pubkey=Path("/k/p")), ("/k/p", "/in/r"), ()),
            (OutputRequest(out=Path("/out/q")), (), ("/out/q",)),
            (OutputRequest(), (), ()),
            (NoPathRequest(), (), ()),
        ],
        ids=["show", "verify", "out", "stdout", "no-path"],
    )
    def test_the_other_requests(
        self, request_value: object, inputs: tuple[str, ...], outputs: tuple[str, ...]
    ) -> None:
        """Each other command's request, classified field by field (sorted by field name)."""
        paths = contract_paths(request_value)  # type: ignore[arg-type]
        assert paths.inputs == tuple(Path(p) for p in inputs)
        assert paths.outputs == tuple(Path(p) for p in outputs)


class TestFailClosed:
    """A path that declares no role refuses the run."""

    def test_a_path_field_without_a_role(self) -> None:
        """A request type with a path field that declares no role is ARGUMENT_UNCLASSIFIED."""

        class Loose(msgspec.Struct, frozen=True):
            target: Path | None = None

        with pytest.raises(MountContractError) as caught:
            contract_paths(Loose(Path("/x")))  # type: ignore[arg-type]
        assert caught.value.detail == "ARGUMENT_UNCLASSIFIED"
        # Absent, it names nothing, so nothing is refused.
        assert contract_paths(Loose()) == contract_paths(NoPathRequest())  # type: ignore[arg-type]

    def test_every_path_field_of_every_request_declares_a_role(self) -> None:
        """Every field of every request type that can hold a path declares exactly one role
        (a new path field without one fails here, before any command line is classified)."""
        kinds = [
            getattr(requests, name)
            for name in requests.__all__
            if name.endswith("Request")
            and isinstance(getattr(requests, name), type)
            and issubclass(getattr(requests, name), msgspec.Struct)
        ]
        assert len(kinds) == 8
        for kind in kinds:
            hints = typing.get_type_hints(kind, vars(requests), include_extras=True)
            for field in msgspec.structs.fields(kind):
                text = repr(hints[field.name])
                if "Path" in text:
                    markers = [
                        m
                        for m in getattr(hints[field.name], "__metadata__", ())
                        if isinstance(m, PathRole | requests.CreatesIn)
                    ]
                    assert len(markers) == 1, (kind.__name__, field.name)

    def test_the_roles_are_read_from_the_annotation(self) -> None:
        """The same path in a field annotated as an input is an input (no name table)."""

        class Named(msgspec.Struct, frozen=True):
            anything: Annotated[Path, PathRole.INPUT]

        assert contract_paths(Named(Path("/in/x"))).inputs == (Path("/in/x"),)  # type: ignore[arg-type]
