"""Computing apart from rendering (docs/report.md, "Where the code is"): one stage computes
the typed report, `report/` holds only the structs and their renderers, and no stage reaches
backwards. Read from the modules' own imports (their syntax trees), not from a picture."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "clearing_analysis"


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
            "clearing_analysis.units",
            "clearing_analysis.jobs",
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
            f"clearing_analysis.report.{name}"
            for name in (
                "encode",
                "view",
                "html",
                "human",
                "summary",
                "explore_human",
                "explore_summary",
                "formats",
                "table",
            )
        )
        assert _reaching("assemble", renderers) == {}

    @pytest.mark.parametrize("stage", ["assemble", "models", "gate", "simulation"])
    def test_no_stage_reaches_forward(self, stage: str) -> None:
        """A stage never imports the commands or the jobs that run it."""
        assert _reaching(stage, ("clearing_analysis.jobs", "clearing_analysis.cli")) == {}

    def test_the_cli_only_calls_the_library(self) -> None:
        """cli/ imports neither the assembling, the models nor the gate: it parses arguments
        and calls `jobs` (or another library entry point)."""
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
            "clearing_analysis.report.what_ifs_view",
        )
        assert _reaching("gate", what_ifs) == {}
        for module in (
            "simulation/what_if.py",
            "models/what_if.py",
            "assemble/what_ifs.py",
            "report/what_ifs_view.py",
        ):
            imported = _imports(PACKAGE / module)
            assert not {name for name in imported if name.startswith("clearing_analysis.gate")}
