"""The demo job: embedded synthetic corpus -> corpus summary -> the analysis's human view ->
the same history exported as pi sessions and explored (the upper bound, never a verdict).

Kept in the library (not the CLI) so tests can run it and compare its output. The corpus is
generated from a fixed seed and the real qualifier runs on the pinned pi-ai, so the demo
prints the same verdicts and numbers on every machine.
"""

from __future__ import annotations

from pathlib import Path

from clearing_analysis.errors import QualificationError

# The CLI reads the constants below for its option defaults; everything heavy (polars, the
# generator, the analysis) loads only when the demo runs, so `--help` starts fast.
DEMO_SEED = 20261129
DEMO_CONVERSATIONS = 24
DEMO_PROFILE = "mixed"


def corpus_summary_text(journal_root: Path) -> str:
    """The corpus summary (journal outcomes and per-API counts) as plain tables."""
    from clearing_analysis.inputs.paths import select_journals  # noqa: PLC0415
    from clearing_analysis.journal.summary import summarize  # noqa: PLC0415
    from clearing_analysis.report.table import render_frame, render_rows  # noqa: PLC0415

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


def run_demo(scratch: Path, *, seed: int, conversations: int, profile: str) -> str:
    """Generate the corpus under `scratch` and return the text to print."""
    from clearing_analysis.jobs import analyze_job, explore_job  # noqa: PLC0415
    from clearing_analysis.qualify.record import encode_record  # noqa: PLC0415
    from clearing_analysis.qualify.runner import qualify  # noqa: PLC0415
    from clearing_analysis.synth import generate  # noqa: PLC0415

    corpus = scratch / "corpus"
    generate(corpus, seed, conversations=conversations, size_mb=None, profile=profile)
    record: Path | None = scratch / "qualification.json"
    try:
        (scratch / "qualification.json").write_bytes(encode_record(qualify()))
    except QualificationError:
        record = None  # Node or the harness is missing: shown as PAYLOAD_UNQUALIFIED / MISSING
    header = (
        f"clearing-analysis demo: synthetic corpus, profile {profile}, seed {seed},"
        f" {conversations} conversations\n"
    )
    analysis = analyze_job(
        [corpus / "journals"],
        sidecar=corpus / "history.sqlite",
        routes=corpus / "routes.json",
        qualification=record,
        agent_config=corpus / "agent-config.json",
        app_allowlist=corpus / "app-allowlist.json",
    )
    # The same history as pi session files, as a pi user would explore their own sessions
    # (docs/explore.md): explore's figures are an upper bound beside analyze's verdicts.
    from clearing_analysis.synth.pi_export import export_sessions  # noqa: PLC0415

    sessions = scratch / "pi-sessions"
    export_sessions(sorted((corpus / "journals").glob("*.jsonl")), sessions)
    explored = explore_job([sessions], routes=corpus / "routes.json")
    # The human views load rich and the reports only here, after the analysis.
    from clearing_analysis.report.explore_human import render_explore_text  # noqa: PLC0415
    from clearing_analysis.report.human import render_text  # noqa: PLC0415

    return "\n".join(
        [
            header,
            corpus_summary_text(corpus / "journals"),
            render_text(analysis.report),
            "The same history as pi session files (`explore`: an upper bound, never a verdict)\n",
            render_explore_text(explored.report),
        ]
    )
