"""Human view of a replay summary: the counts as tables (R-CLI-6), nothing the JSON lacks."""

from __future__ import annotations

from typing import Any

from clearing_analysis.report.text.table import render_rows


def _share(part: int, whole: int) -> str:
    return "-" if whole == 0 else f"{100.0 * part / whole:.1f}%"


def _qualification_text(qualification: dict[str, Any] | None) -> str:
    if qualification is None:
        return ""
    rows = [
        (
            api,
            verdict["status"],
            verdict.get("detail") or "-",
            "-" if verdict.get("cases") is None else verdict["cases"],
            "-"
            if verdict.get("unintendedDifferences") is None
            else verdict["unintendedDifferences"],
        )
        for api, verdict in sorted(qualification["perApi"].items())
    ]
    version = qualification["piAiVersion"] or "not installed"
    return f"Payload qualification (installed pi-ai {version})\n" + render_rows(
        ["api", "status", "detail", "cases", "unintended diffs"], rows
    )


def render_replay_summary(summary: dict[str, Any]) -> str:
    """Skipped journals and boundaries, then one row per API."""
    skipped_journals = summary["skippedJournals"]
    skipped_boundaries = summary["skippedBoundaries"]
    parts = [
        f"Replay: {summary['journalsReplayed']:,} journals replayed whole;"
        f" {summary['turnsWithoutRequest']:,} turns made no request",
        "",
        "Skipped journals (contribute nothing)",
        render_rows(["reason", "journals"], sorted(skipped_journals.items())),
        "Skipped boundaries",
        render_rows(["reason", "boundaries"], sorted(skipped_boundaries.items())),
    ]
    rows = []
    for api, per in sorted(summary["perApi"].items()):
        by_class = per["eligibility"]["byClass"]
        retention = per["retention"]
        rows.append(
            (
                api,
                per["boundaries"],
                per["requests"],
                per["toolResults"],
                by_class["LOWER_BOUND"],
                by_class["UPPER_BOUND_ONLY"],
                by_class["EXCLUDED"],
                retention["proven"],
                retention["matched"],
                _share(retention["matched"], retention["proven"]),
                " ".join(per["signals"]) or "-",
            )
        )
    parts += [
        "Per API (eligibility counts are result-boundary occurrences)",
        render_rows(
            [
                "api",
                "boundaries",
                "requests",
                "results",
                "lower",
                "upper only",
                "excluded",
                "proven",
                "matched",
                "coverage",
                "signals",
            ],
            rows,
        ),
        "Limitations: " + (" ".join(summary["limitations"]) or "-"),
        "",
        _qualification_text(summary.get("qualification")),
    ]
    return "\n".join(parts) + "\n"
