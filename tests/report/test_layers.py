"""Computing apart from rendering (docs/report.md, "Where the code is"): one stage computes
the typed report, `report/` holds only the structs and their renderers, and no stage reaches
backwards. Read from the modules' own imports (their syntax trees), not from a picture."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests._imports import PACKAGE, cycles, folder_cycles


def _imports(path: Path) -> set[str]:
    """Every clearing_analysis module `path` imports (at any depth of the file), with the
    names it takes from each as `module.name`."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.startswith("clearing_analysis")}


def _modules(folder: str) -> list[Path]:
    return sorted((PACKAGE / folder).rglob("*.py"))


def _reaching(folder: str, forbidden: tuple[str, ...]) -> dict[str, list[str]]:
    return {
        str(path.relative_to(PACKAGE)): bad
        for path in _modules(folder)
        if (bad := sorted(n for n in _imports(path) if n.startswith(forbidden)))
    }


class TestLayers:
    """One class for the stage boundaries."""

    def test_report_holds_no_computation(self) -> None:
        """No module of report/ imports the assembling, the models (but the rate labels'
        enum), the simulation, the jobs or the CLI, nor the gate's evaluation."""
        forbidden = (
            "clearing_analysis.assemble",
            "clearing_analysis.models.cost",
            "clearing_analysis.models.pressure",
            "clearing_analysis.models.route_check",
            "clearing_analysis.simulation",
            "clearing_analysis.pipeline.units",
            "clearing_analysis.pipeline.jobs",
            "clearing_analysis.cli",
            "clearing_analysis.gate.evaluate",
            "clearing_analysis.gate.overall",
            "clearing_analysis.gate.verdict.evaluate",
        )
        assert _reaching("report", forbidden) == {}

    def test_the_gate_is_evaluated_in_one_place(self) -> None:
        """Only assemble/analysis.py imports the gate's `evaluate` and `overall`."""
        callers = sorted(
            str(path.relative_to(PACKAGE))
            for path in PACKAGE.rglob("*.py")
            if {"clearing_analysis.gate.evaluate", "clearing_analysis.gate.overall"}
            & _imports(path)
            and not path.is_relative_to(PACKAGE / "gate")
        )
        assert callers == ["assemble/analysis.py"]

    def test_assemble_renders_nothing(self) -> None:
        """assemble/ fills the structs and imports no renderer."""
        renderers = tuple(
            f"clearing_analysis.report.{name}" for name in ("encode", "formats", "text", "html")
        )
        assert _reaching("assemble", renderers) == {}

    @pytest.mark.parametrize("stage", ["assemble", "models", "gate", "simulation"])
    def test_no_stage_reaches_forward(self, stage: str) -> None:
        """A stage never imports the commands or the jobs that run it."""
        assert _reaching(stage, ("clearing_analysis.pipeline.jobs", "clearing_analysis.cli")) == {}

    def test_the_cli_only_calls_the_library(self) -> None:
        """cli/ imports neither the assembling, the models nor the gate: it parses arguments
        and calls the pipeline (or another library entry point)."""
        forbidden = (
            "clearing_analysis.assemble",
            "clearing_analysis.models",
            "clearing_analysis.gate",
            "clearing_analysis.simulation",
            "clearing_analysis.report.encode",
        )
        assert _reaching("cli", forbidden) == {}

    def test_the_gate_never_reads_the_what_ifs(self) -> None:
        """No module of gate/ imports the what-if policies' simulation, models or part, and
        the what-ifs' own modules import nothing of the gate: the informational part can
        neither decide a verdict nor be decided by one."""
        what_ifs = (
            "clearing_analysis.simulation.what_if",
            "clearing_analysis.models.what_if",
            "clearing_analysis.assemble.what_ifs",
            "clearing_analysis.report.text.what_ifs",
        )
        assert _reaching("gate", what_ifs) == {}
        for module in (
            "simulation/what_if.py",
            "models/what_if.py",
            "assemble/what_ifs.py",
            "report/text/what_ifs.py",
        ):
            imported = _imports(PACKAGE / module)
            assert not {name for name in imported if name.startswith("clearing_analysis.gate")}


# The stages in the order the data flows through them (docs/report.md, "Where the code is").
# `report/` holds the typed structs that `assemble/` fills, so it sits before `assemble/`;
# `container/` and `attest/` are the sealed contract that `pipeline/` checks before it runs.
# A module outside this list (policy, errors, numbers, ...) is a shared leaf, not a stage.
STAGE_ORDER = (
    "inputs",
    "journal",
    "codex",
    "pisession",
    "histories",
    "replay",
    "eligibility",
    "simulation",
    "models",
    "gate",
    "report",
    "assemble",
    "container",
    "attest",
    "pipeline",
    "cli",
    "entry",
)


def _stage(name: str) -> str | None:
    """The stage a `clearing_analysis.x...` name belongs to, or None for a shared leaf."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in STAGE_ORDER else None


def _upward_imports(package: Path = PACKAGE) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        own = relative.parts[0].removesuffix(".py")
        for name in _imports(path):
            target = _stage(name)
            if own in STAGE_ORDER and target is not None:
                if STAGE_ORDER.index(target) > STAGE_ORDER.index(own):
                    found.add((str(relative), target))
            elif own not in STAGE_ORDER and target not in (None, "inputs", "journal"):
                found.add((str(relative), str(target)))
    return found


class TestStageOrder:
    """One class for the order of the stages."""

    def test_no_stage_imports_a_later_one(self) -> None:
        """No module imports a stage later than its own, and a shared leaf imports no stage
        past the journal: none at all, deferred imports included."""
        assert _upward_imports() == set()

    def test_every_stage_exists(self) -> None:
        """Each named stage is a package or module, so a rename cannot empty the check."""
        missing = [
            stage
            for stage in STAGE_ORDER
            if not (PACKAGE / stage).is_dir() and not (PACKAGE / f"{stage}.py").is_file()
        ]
        assert missing == []

    def test_the_order_is_checked(self, tmp_path: Path) -> None:
        """The check sees a real upward import, deferred or not (a guard against a vacuous
        test): a container module that reaches the CLI, a leaf that reaches the replay."""
        (tmp_path / "container").mkdir()
        (tmp_path / "container" / "parse.py").write_text(
            "def f():\n    from clearing_analysis.cli import app\n"
        )
        (tmp_path / "leaf.py").write_text("import clearing_analysis.replay.merge\n")
        (tmp_path / "pipeline").mkdir()
        (tmp_path / "pipeline" / "ok.py").write_text("import clearing_analysis.container\n")
        assert _upward_imports(tmp_path) == {
            ("container/parse.py", "cli"),
            ("leaf.py", "replay"),
        }

    def test_the_container_reaches_neither_the_cli_nor_the_pipeline(self) -> None:
        """container/ imports neither `clearing_analysis.cli` nor the pipeline, and of the
        stages below it only the inputs (it classifies a request's fields)."""
        assert _reaching("container", ("clearing_analysis.cli", "clearing_analysis.pipeline")) == {}
        internals = tuple(
            f"clearing_analysis.{stage}"
            for stage in STAGE_ORDER[1 : STAGE_ORDER.index("container")]
        )
        assert _reaching("container", internals) == {}


class TestRenderers:
    """The renderers' own structure (docs/report.md, "Where the code is")."""

    def test_no_two_report_modules_import_each_other(self) -> None:
        """report/ has no import cycle, deferred imports included: the views' shared figure
        formats live in report/text/terminal.py, which imports no view."""
        assert folder_cycles("report") == []

    def test_the_cycle_check_finds_a_cycle(self, tmp_path: Path) -> None:
        """The check sees a cycle through a deferred import (a guard against a vacuous test)."""
        (tmp_path / "a.py").write_text("import clearing_analysis.report.b\n")
        (tmp_path / "b.py").write_text("def f():\n    import clearing_analysis.report.a\n")
        imported = {path.stem: _imports(path) for path in sorted(tmp_path.glob("*.py"))}
        assert imported == {
            "a": {"clearing_analysis.report.b"},
            "b": {"clearing_analysis.report.a"},
        }
        graph = {name: sorted(targets) for name, targets in imported.items()}
        graph = {f"clearing_analysis.report.{k}": v for k, v in graph.items()}
        assert cycles(graph) == [
            [
                "clearing_analysis.report.a",
                "clearing_analysis.report.b",
                "clearing_analysis.report.a",
            ]
        ]

    def test_renderers_match_the_report_kind_exhaustively(self) -> None:
        """No renderer tells the two report kinds (or their per-API parts) apart with
        `isinstance`: where the kinds differ it matches on them with `match` and
        `assert_never`, so that a kind left unhandled fails the type check (report.kinds)."""
        kinds = {"Report", "ExploreReport", "ApiReport", "ApiExplore"}
        renderers = [
            PACKAGE / "report" / "encode.py",
            PACKAGE / "report" / "formats.py",
            *_modules("report/text"),
            *_modules("report/html"),
        ]
        found = []
        matching = []
        for path in renderers:
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id == "isinstance"
                    and {
                        n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", "")
                        for n in ast.walk(node.args[1])
                    }
                    & kinds
                ):
                    found.append(str(path.relative_to(PACKAGE)))
                if isinstance(node, ast.Match) and any(
                    isinstance(case.pattern, ast.MatchClass)
                    and getattr(case.pattern.cls, "attr", getattr(case.pattern.cls, "id", ""))
                    in kinds
                    for case in node.cases
                ):
                    matching.append(str(path.relative_to(PACKAGE)))
        assert found == []
        # The check is not vacuous: the renderers do match on the kinds.
        assert {"report/encode.py", "report/text/details.py", "report/html/page.py"} <= set(
            matching
        )

    def test_terminal_imports_no_view(self) -> None:
        """text/terminal.py imports only the structs and the models' enums, no renderer."""
        found = _imports(PACKAGE / "report" / "text" / "terminal.py")
        assert {n for n in found if n.startswith("clearing_analysis.report")} <= {
            "clearing_analysis.report",
            "clearing_analysis.report.model",
        }
