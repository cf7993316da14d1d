"""The demo job: two synthetic corpora, qualified and analyzed offline, as a newcomer's first
look (R-CLI-6, docs/synthetic-corpus.md).

1. A realistic mix (profile `mixed`): the four APIs, every skip and defect kind, few prompts
   after a break longer than the cache lifetime. It rightly DEFERs; its one-screen summary
   says why and how far each deciding figure is from its threshold.
2. Clearing at work (profile `read-then-edit`, one API): long sessions that read the large
   files a task needs, then edit and test in many small steps, with cold returns. It reaches
   BUILD on sufficient evidence, and the demo shows what the simulation cleared, the modeled
   pressure reduction and the cost waterfall.

By default the output stays under about 80 lines; `details` adds each corpus's decoding
summary, every table of both analyses and the first corpus explored as pi session files (an
upper bound, never a verdict). Kept in the library (not the CLI) so tests can run it and
compare its output. The corpora come from fixed seeds and the real qualifier runs on the
pinned pi-ai, so the demo prints the same verdicts and numbers on every machine.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from clearing_analysis.codes.errors import QualificationError
from clearing_analysis.inputs.requests import (
    DEMO_PAGES,
    AnalyzeRequest,
    DemoRequest,
    ExploreRequest,
)

if TYPE_CHECKING:
    from rich.console import RenderableType

    from clearing_analysis.inputs.output import NewFile
    from clearing_analysis.pipeline.jobs import CompletedReport
    from clearing_analysis.report.model import Report

# The CLI reads the constants below for its option defaults; everything heavy (polars, the
# generator, the analysis) loads only when the demo runs, so `--help` starts fast.
DEMO_SEED = 20261129
DEMO_CONVERSATIONS = 24
DEMO_PROFILE = "mixed"
# The second part is fixed: the profile whose history shape clearing helps, on 4 conversations
# (BUILD on every one of ten seeds measured, docs/synthetic-corpus.md).
BUILD_PROFILE = "read-then-edit"
BUILD_SEED = 20261129
BUILD_CONVERSATIONS = 4


class DemoCorpus(msgspec.Struct, frozen=True):
    """One part of the demo: which corpus, and what to say about the history it stands for."""

    title: str
    profile: str
    seed: int
    conversations: int
    stands_for: str


def corpus_summary_text(journal_root: Path) -> str:
    """The corpus summary (journal outcomes and per-API counts) as plain tables."""
    from clearing_analysis.inputs.paths import select_journals  # noqa: PLC0415
    from clearing_analysis.journal.summary import summarize  # noqa: PLC0415
    from clearing_analysis.report.text.table import render_frame, render_rows  # noqa: PLC0415

    selection = select_journals([journal_root])
    summary = summarize(journal.path for journal in selection.journals)
    outcome_rows = [(outcome, count) for outcome, count in summary.outcomes.items()]
    parts = [
        "Corpus summary (counted from decoding; no replay judgement yet)",
        f"journal files: {summary.journal_files:,}   journal bytes: {summary.journal_bytes:,}",
        "",
        "Journals by decode outcome",
        render_rows(["outcome", "journals"], outcome_rows),
        "Per API (decoded journals; a request is one assistant message)",
        render_frame(summary.per_api),
    ]
    return "\n".join(parts)


def analyze_part(
    scratch: Path, part: DemoCorpus, record: Path | None, *, usage_by: bool = False
) -> CompletedReport[Report]:
    """Generate the part's corpus under `scratch` and analyze it (`usage_by`: with the usage
    tables of `--by` stored in the report)."""
    from clearing_analysis.pipeline.jobs import analyze_job  # noqa: PLC0415
    from clearing_analysis.synth import generate  # noqa: PLC0415

    corpus = scratch / part.profile
    generate(
        corpus, part.seed, conversations=part.conversations, size_mb=None, profile=part.profile
    )
    return analyze_job(
        AnalyzeRequest(
            journals=(corpus / "journals",),
            sidecar=corpus / "history.sqlite",
            routes=corpus / "routes.json",
            qualification=record,
            agent_config=corpus / "agent-config.json",
            app_allowlist=corpus / "app-allowlist.json",
            usage_by=usage_by,
        )
    )


def _clearing_at_work(analysis: CompletedReport[Report]) -> list[RenderableType]:
    """What the simulation cleared, the pressure model and the cost waterfall, per API."""
    from clearing_analysis.report import model as rm  # noqa: PLC0415
    from clearing_analysis.report.text.tables import (  # noqa: PLC0415
        cost_waterfall,
        pairs_table,
        pressure_table,
    )
    from clearing_analysis.report.text.terminal import number  # noqa: PLC0415

    parts: list[RenderableType] = []
    for api, report in rm.in_api_order(analysis.report.per_api):
        sim, pressure = report.simulation, report.pressure
        parts.append(
            pairs_table(
                f"{api.value}: cleared (lower bound)",
                [
                    ("boundaries that cleared", number(sim.clearing_points)),
                    ("results cleared", number(sim.cleared_results)),
                    ("net tokens cleared S", number(sim.admitted_net_tokens)),
                ],
            )
        )
        parts.append(pressure_table("Pressure model (modeled compaction cycles)", pressure))
        parts.append(cost_waterfall(report.cost, pressure.gated_rate)[0])
    return parts


def _part_heading(position: int, part: DemoCorpus, width: int) -> list[RenderableType]:
    from rich.text import Text  # noqa: PLC0415

    from clearing_analysis.wrapping import wrap  # noqa: PLC0415

    heading = Text(f"Part {position} of 2: {part.title}", style="bold")
    about = (
        f"Profile {part.profile}, seed {part.seed}, {part.conversations} conversations."
        f" {part.stands_for}"
    )
    return [heading, *(Text(line) for line in wrap(about, width, rest=""))]


REALISTIC = DemoCorpus(
    title="a realistic mix",
    profile=DEMO_PROFILE,
    seed=DEMO_SEED,
    conversations=DEMO_CONVERSATIONS,
    stands_for=(
        "Four APIs, every skip and defect kind, and few prompts after a break longer than the"
        " cache lifetime, as in real pi sessions: too little cold pressured evidence, so DEFER."
    ),
)
CLEARING = DemoCorpus(
    title="clearing at work",
    profile=BUILD_PROFILE,
    seed=BUILD_SEED,
    conversations=BUILD_CONVERSATIONS,
    stands_for=(
        "One API (openai-responses). It stands for long sessions that read the large files a"
        " task needs (again after each compaction), then edit and test in many small steps,"
        " with breaks longer than the cache lifetime between most prompts."
    ),
)


class Demo(msgspec.Struct, frozen=True):
    """What the demo prints, and the pages `--html DIR` asked for (not created yet)."""

    text: str
    pages: list[NewFile]


def run_demo(scratch: Path, request: DemoRequest, *, width: int = 80) -> str:
    """Generate both corpora under `scratch`, analyze them and return the text to print, laid
    out for `width` columns (the request's `seed`, `conversations` and `profile` choose the
    first part's corpus); with `html_dir`, also create each part's HTML page there
    (`DEMO_PAGES`), checked before any work, both or neither."""
    from clearing_analysis.inputs.output import NO_INPUTS, create_all  # noqa: PLC0415

    demo = prepare_demo(scratch, request, width=width)
    create_all(demo.pages, NO_INPUTS)
    return demo.text


def prepare_demo(scratch: Path, request: DemoRequest, *, width: int = 80) -> Demo:
    """`run_demo` up to its outputs: the text and the pages, for the CLI to write as one
    whole (`inputs.output.create_all`, R-REL-6); the request's `by` adds each part's usage
    table (`--by`), `details` every table."""
    from rich.text import Text  # noqa: PLC0415

    from clearing_analysis.inputs.output import NO_INPUTS, check_output  # noqa: PLC0415
    from clearing_analysis.qualify.record import encode_record  # noqa: PLC0415
    from clearing_analysis.qualify.runner import qualify  # noqa: PLC0415
    from clearing_analysis.report.text.summary import summary  # noqa: PLC0415
    from clearing_analysis.report.text.terminal import plain_text  # noqa: PLC0415
    from clearing_analysis.report.text.usage import usage_by_table  # noqa: PLC0415
    from clearing_analysis.report.text.view import renderables  # noqa: PLC0415
    from clearing_analysis.wrapping import wrap  # noqa: PLC0415

    html_dir, details, by = request.html_dir, request.details, request.by
    pages = [] if html_dir is None else [html_dir / name for name in DEMO_PAGES]
    for page in pages:
        check_output(page, NO_INPUTS)
    realistic = msgspec.structs.replace(
        REALISTIC, profile=request.profile, seed=request.seed, conversations=request.conversations
    )
    record: Path | None = scratch / "qualification.json"
    try:
        (scratch / "qualification.json").write_bytes(encode_record(qualify()))
    except QualificationError:
        record = None  # Node or the harness is missing: shown as PAYLOAD_UNQUALIFIED / MISSING
    first = analyze_part(scratch, realistic, record, usage_by=by is not None)
    second = analyze_part(scratch, CLEARING, record, usage_by=by is not None)
    header = (
        "clearing-analysis demo: two synthetic corpora, generated, qualified and analyzed"
        " offline in a temporary directory. Every figure is modeled, not observed savings."
    )
    parts: list[RenderableType] = [*(Text(line) for line in wrap(header, width, rest=""))]
    parts.extend([Text(), *_part_heading(1, realistic, width), Text()])
    if details:
        parts.append(Text(corpus_summary_text(scratch / realistic.profile / "journals")))
    parts.extend(renderables(first.report, width, details=details, by=by))
    if details:
        parts.append(Text(_explored(scratch, realistic, width)))
    parts.extend([Text(), *_part_heading(2, CLEARING, width), Text()])
    if details:
        parts.append(Text(corpus_summary_text(scratch / CLEARING.profile / "journals")))
        parts.extend(renderables(second.report, width, details=True, by=by))
    else:
        parts.extend([*summary(second.report, width, notes=False), Text()])
        parts.extend(_clearing_at_work(second))
        if by is not None:
            parts.extend([usage_by_table(second.report.usage_by, by), Text()])
        nextsteps = (
            "Next: clearing-analysis demo --details (every table, and the first corpus explored"
            ' as pi session files); clearing-analysis explain CODE; README, "Analyzing your own'
            ' sessions".'
        )
        parts.extend(Text(line) for line in wrap(nextsteps, width, rest=""))
    files = []
    if pages:
        files = _pages([first.data, second.data], pages)
        written = (
            f"HTML pages: {DEMO_PAGES[0]} (part 1) and {DEMO_PAGES[1]} (part 2), in the"
            " --html directory."
        )
        parts.extend(Text(line) for line in wrap(written, width, rest=""))
    return Demo(plain_text(parts, width), files)


def _pages(reports: list[bytes], pages: list[Path]) -> list[NewFile]:
    """Each part's page, rendered from its report's JSON bytes."""
    from clearing_analysis.inputs.output import NewFile  # noqa: PLC0415
    from clearing_analysis.report.encode import decode_report  # noqa: PLC0415
    from clearing_analysis.report.formats import ReportFormat, render  # noqa: PLC0415

    return [
        NewFile(page, render(decode_report(data), ReportFormat.HTML))
        for data, page in zip(reports, pages, strict=True)
    ]


def _explored(scratch: Path, part: DemoCorpus, width: int) -> str:
    """The part's history as pi session files, explored: explore's figures are an upper bound
    beside analyze's verdicts (docs/explore.md)."""
    from clearing_analysis.pipeline.jobs import explore_job  # noqa: PLC0415
    from clearing_analysis.report.text.view import render_text  # noqa: PLC0415
    from clearing_analysis.synth.pi_export import export_sessions  # noqa: PLC0415

    corpus = scratch / part.profile
    sessions = scratch / "pi-sessions"
    export_sessions(sorted((corpus / "journals").glob("*.jsonl")), sessions)
    explored = explore_job(ExploreRequest(sessions=(sessions,), routes=corpus / "routes.json"))
    return "The same history as pi session files (explore: an upper bound, never a verdict)\n\n" + (
        render_text(explored.report, width=width, details=True)
    )
