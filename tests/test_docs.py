"""Docs are tested: every command is documented and every linked doc exists."""

import re
from pathlib import Path

import typer.main
from typer.core import TyperGroup

from clearing_analysis.cli import app
from clearing_analysis.codes.errors import AnalysisError
from clearing_analysis.codes.table import CODE_MEANINGS, MEANINGS, REMEDIES, REPORT_CODES
from clearing_analysis.container.sealed import ContractStatus
from clearing_analysis.eligibility.identity import ToolClass
from clearing_analysis.eligibility.reasons import (
    Bound,
    EligibilityClass,
    ExclusionReason,
    Limitation,
)
from clearing_analysis.gate import CriterionDetail, DeferReason, StopReason, Verdict
from clearing_analysis.gate.criteria import Comparison, CriterionId
from clearing_analysis.models.rates import RateLabel
from clearing_analysis.models.undefined import UndefinedCause
from clearing_analysis.pisession.read import Unrecognized
from clearing_analysis.policy import TranscriptOnlyCode, WhatIfId
from clearing_analysis.qualify.verify import QualificationDetail
from clearing_analysis.replay.model import BoundarySkipReason, JournalSkipReason
from clearing_analysis.report.explore_model import (
    BoundarySkip,
    ExploreLimitation,
    ExploreStatement,
    SessionFormat,
    SessionSkip,
)
from clearing_analysis.report.model import ApiLimitation, QualificationStatusCode, Statement

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _command_names() -> list[str]:
    group = typer.main.get_command(app)
    return sorted(group.commands)  # type: ignore[attr-defined]


def _command_paths() -> dict[str, object]:
    """Every command and subcommand by its full name (`routes init`), groups included."""
    found: dict[str, object] = {}
    todo: list[tuple[str, object]] = [("", typer.main.get_command(app))]
    while todo:
        prefix, group = todo.pop()
        assert isinstance(group, TyperGroup)
        for name, command in group.commands.items():
            path = f"{prefix}{name}"
            found[path] = command
            if isinstance(command, TyperGroup):
                todo.append((f"{path} ", command))
    return found


def test_every_command_is_in_the_readme_table() -> None:
    """Each registered command, and each subcommand of a group (`routes init`), appears in the
    README's command table."""
    for name, command in _command_paths().items():
        if not isinstance(command, TyperGroup):
            assert f"`clearing-analysis {name}" in README, name


def test_readme_lists_no_command_that_does_not_exist() -> None:
    """The README does not advertise commands that are not exposed (only working ones are)."""
    listed = set(re.findall(r"^\| `clearing-analysis (\w+)", README, flags=re.MULTILINE))
    assert listed == set(_command_names())


def test_every_command_has_help_text() -> None:
    """Each command, group and subcommand carries a help text."""
    for name, command in _command_paths().items():
        assert getattr(command, "help", None), name


def test_readme_links_resolve() -> None:
    """Every relative link in the README names an existing file."""
    for target in re.findall(r"\]\(([^)#:]+)\)", README):
        assert (ROOT / target).is_file(), target


def test_quick_start_is_exactly_two_commands() -> None:
    """The quick start shows `make demo` and `make test`, nothing else."""
    block = README.split("## Quick start", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    commands = [line.split("#", 1)[0].strip() for line in block.strip().splitlines()]
    assert commands == ["make demo", "make test"]


def _error_classes() -> list[type[AnalysisError]]:
    found: list[type[AnalysisError]] = []
    todo: list[type[AnalysisError]] = [AnalysisError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


EXIT_CODES_PAGE = (ROOT / "docs" / "exit-codes.md").read_text(encoding="utf-8")
# A detail row: `DETAIL` | meaning | `remedy, verbatim in a code span` |
DETAIL_ROW = re.compile(r"^\| `([A-Z0-9_]+)` \| (.+) \| `([^`]+)` \|$")


def _documented_rows() -> dict[str, dict[str, tuple[str, str]]]:
    """Per `### CODE` section of docs/exit-codes.md: detail -> (meaning, remedy) cells, every
    row once."""
    sections: dict[str, dict[str, tuple[str, str]]] = {}
    code = None
    for line in EXIT_CODES_PAGE.splitlines():
        heading = re.match(r"^### `([A-Z_]+)` \(exit \d+", line)
        if heading:
            code = heading.group(1)
            sections[code] = {}
        elif line.startswith("## "):
            code = None
        elif code is not None and line.startswith("| `"):
            row = DETAIL_ROW.match(line)
            assert row, line  # a row the parser cannot read would silently drop a detail
            detail, meaning, remedy = row.groups()
            assert detail not in sections[code], detail
            assert meaning.strip(), detail
            sections[code][detail] = (meaning, remedy)
    return sections


def _documented_details() -> dict[str, dict[str, str]]:
    """Per `### CODE` section of docs/exit-codes.md: detail -> remedy cell."""
    return {
        code: {detail: remedy for detail, (_meaning, remedy) in rows.items()}
        for code, rows in _documented_rows().items()
    }


def _section_first_sentences() -> dict[str, str]:
    """Per `### CODE` section: the first sentence of its paragraph, links shown as their text."""
    found: dict[str, str] = {}
    lines = EXIT_CODES_PAGE.splitlines()
    for index, line in enumerate(lines):
        heading = re.match(r"^### `([A-Z_]+)` \(exit \d+", line)
        if heading:
            paragraph = []
            for following in lines[index + 1 :]:
                if not following.strip():
                    break
                paragraph.append(following)
            first = re.split(r"(?<=\.)\s", " ".join(paragraph), maxsplit=1)[0]
            found[heading.group(1)] = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", first)
    return found


def test_exit_codes_page_lists_exactly_the_codes_in_code() -> None:
    """docs/exit-codes.md has one section per fixed code, with the exit status the code has."""
    sections = dict(re.findall(r"^### `([A-Z_]+)` \(exit (\d+)", EXIT_CODES_PAGE, re.MULTILINE))
    # Groupings such as GloballyIncompleteError define no code of their own.
    in_code = {cls.code: str(cls.exit_status) for cls in _error_classes() if "code" in vars(cls)}
    assert sections == in_code


def test_exit_codes_page_lists_every_detail_with_the_printed_remedy() -> None:
    """Each code's section lists exactly its class's details, and each row's remedy is the text
    of the remedy table (what the terminal prints), both ways."""
    documented = _documented_details()
    for cls in _error_classes():
        if "code" not in vars(cls):
            continue
        expected = {detail.value: REMEDIES[(cls.code, detail)] for detail in cls.detail_enum}
        assert documented[cls.code] == expected, cls.code


def test_exit_codes_page_meanings_are_the_explained_ones() -> None:
    """Each row's Meaning is the text `explain` prints for it (clearing_analysis.codes.table),
    both ways, and each code's section opens with the code's own meaning."""
    documented = _documented_rows()
    for cls in _error_classes():
        if "code" not in vars(cls):
            continue
        expected = {detail.value: MEANINGS[(cls.code, detail)] for detail in cls.detail_enum}
        meanings = {detail: meaning for detail, (meaning, _r) in documented[cls.code].items()}
        assert meanings == expected, cls.code
    assert set(MEANINGS) == {
        (cls.code, detail)
        for cls in _error_classes()
        if "code" in vars(cls)
        for detail in cls.detail_enum
    }
    assert _section_first_sentences() == dict(CODE_MEANINGS)


MODEL_PAGE = (ROOT / "docs" / "model.md").read_text(encoding="utf-8")
REPORT_CODE_ROW = re.compile(r"^\| `([A-Z0-9_]+)` \| ([^|]+) \| ([^|]+) \| ([^|]+) \|$")
# Every enum whose codes a report or its human view carries, by the kind `explain` names.
REPORT_CODE_KINDS = {
    "verdict": Verdict,
    "DEFER reason": DeferReason,
    "STOP reason": StopReason,
    "criterion detail": CriterionDetail,
    "qualification": QualificationStatusCode,
    "qualification detail": QualificationDetail,
    "limitation": Limitation,
    "API limitation": ApiLimitation,
    "explore limitation": ExploreLimitation,
    "skipped journal": JournalSkipReason,
    "skipped boundary": BoundarySkipReason,
    "skipped session": SessionSkip,
    "skipped session boundary": BoundarySkip,
    "unrecognized in a pi session": Unrecognized,
    "tool class": ToolClass,
    "retrieval rate label": RateLabel,
    "what-if policy": WhatIfId,
    "undefined model cause": UndefinedCause,
    "not a request in a pi session": TranscriptOnlyCode,
    "exclusion reason": ExclusionReason,
    "eligibility class": EligibilityClass,
    "criterion": CriterionId,
    "criterion comparison": Comparison,
    "statement": Statement,
    "explore statement": ExploreStatement,
    "session format": SessionFormat,
    "bound": Bound,
    "mount contract status": ContractStatus,
}


def test_model_page_lists_every_report_code_as_explain_does() -> None:
    """docs/model.md's table of report codes is the `explain` table (code, kind, meaning,
    what to do), both ways, and holds every member of every enum a report carries."""
    section = MODEL_PAGE.split("## 8. Codes in the report", 1)[1]
    rows = {}
    for line in section.splitlines():
        row = REPORT_CODE_ROW.match(line)
        if row:
            code, kind, meaning, todo = row.groups()
            assert (kind, code) not in rows, (kind, code)
            rows[(kind, code)] = (meaning, todo)
    assert rows == dict(REPORT_CODES)
    expected = {(kind, m.value) for kind, enum in REPORT_CODE_KINDS.items() for m in enum}
    assert set(REPORT_CODES) == expected


def test_exit_codes_page_gives_one_sidecar_remedy() -> None:
    """The page recommends VACUUM INTO for a sidecar that is not offline, as
    docs/formats/sidecar.md does, and no checkpoint recipe that contradicts it."""
    sidecar_page = (ROOT / "docs" / "formats" / "sidecar.md").read_text(encoding="utf-8")
    for page in (EXIT_CODES_PAGE, sidecar_page):
        assert "VACUUM INTO" in page
        assert "wal_checkpoint" not in page


DOC_PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# Flags of other programs the docs name (podman, buildah, pip, mmdebstrap): never
# clearing-analysis options.
OTHER_TOOLS_FLAGS = {
    "--timestamp",
    "--secret",
    "--network",
    "--cap-drop",
    "--privileged",
    "--read-only",
    "--no-deps",
    "--rm",
    "--tmpfs",
    "--userns",
    "--variant",
    "--ulimit",
    "--runtime",
    "--digestfile",
    "--target",
}
# A command line: `clearing-analysis` at the start of a code span or of a (code block) line.
_COMMAND_LINE = re.compile(r"(?:^|`|\$ )\s*clearing-analysis\s+([a-z][a-z-]*)([^`\n]*)", re.M)


def _options_of(name: str, rest: str = "") -> set[str]:
    """Options of command `name`; for a command group, of the subcommand `rest` starts with."""
    group = typer.main.get_command(app)
    command = group.commands[name]  # type: ignore[attr-defined]
    subcommands = getattr(command, "commands", None)
    if subcommands:
        words = rest.split()
        command = subcommands[words[0]] if words and words[0] in subcommands else command
    options = {"--help"}
    for parameter in command.params:
        options.update(opt for opt in parameter.opts if opt.startswith("--"))
    return options


def _joined_lines(text: str) -> list[str]:
    """Lines with shell continuations (a trailing backslash) joined to the next line."""
    return text.replace("\\\n", " ").splitlines()


def test_commands_and_options_named_in_the_docs_exist() -> None:
    """Every `clearing-analysis COMMAND` in the README or docs/ is a real command, and every
    `--option` written after it on the same command line is one of that command's options."""
    commands = set(_command_names())
    checked = 0
    for page in DOC_PAGES:
        for line in _joined_lines(page.read_text(encoding="utf-8")):
            for name, rest in _COMMAND_LINE.findall(line):
                checked += 1
                assert name in commands, (page.name, name)
                for option in re.findall(r"(?<![\w-])--[a-z][a-z-]*", rest):
                    assert option in _options_of(name, rest), (page.name, name, option)
    assert checked >= 15  # the pages really show command lines


def _table_row(name: str) -> str:
    """The README's command-table row of `clearing-analysis NAME` (`routes init` included)."""
    rows = [line for line in README.splitlines() if line.startswith(f"| `clearing-analysis {name}")]
    assert len(rows) == 1, name
    return rows[0]


# The page that documents each command's options in full (besides the README table).
COMMAND_PAGES = {
    "analyze": "docs/report.md",
    "show": "docs/report.md",
    "explore": "docs/explore.md",
    "replay": "docs/replay.md",
    "synth": "docs/synthetic-corpus.md",
    "demo": "docs/synthetic-corpus.md",
    "qualify": "docs/qualification.md",
    "keygen": "docs/attestation.md",
    "verify": "docs/attestation.md",
    "routes init": "docs/formats/routes.md",
    "explain": "docs/exit-codes.md",
}


def test_readme_table_and_command_pages_list_every_option() -> None:
    """Every option of every command is in its README table row and on its command page: a
    CLI option the docs omit fails here (the other direction is the test below)."""
    commands = {
        name: command
        for name, command in _command_paths().items()
        if not isinstance(command, TyperGroup)
    }
    assert set(commands) == set(COMMAND_PAGES)
    for name in commands:
        options = _options_of(*name.split(" ", 1)) - {"--help"}
        row = _table_row(name)
        page = (ROOT / COMMAND_PAGES[name]).read_text(encoding="utf-8")
        for option in options:
            assert re.search(rf"{option}(?![\w-])", row), (name, option, "README")
            assert re.search(rf"(?<![\w-]){option}(?![\w-])", page), (
                name,
                option,
                COMMAND_PAGES[name],
            )


def test_every_option_named_in_the_docs_belongs_to_some_command() -> None:
    """A `--option` quoted anywhere in the README or docs/ is an option of some command (or a
    named flag of another tool the docs use): no page documents an option the CLI lacks."""
    group = typer.main.get_command(app)
    known: set[str] = set()
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        for sub in getattr(command, "commands", {None: None}):
            known |= _options_of(name, sub or "")
    for page in DOC_PAGES:
        for option in re.findall(r"`(--[a-z][a-z-]*)", page.read_text(encoding="utf-8")):
            assert option in known | OTHER_TOOLS_FLAGS, (page.name, option)
