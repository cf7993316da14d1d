"""The HTML page end to end (docs/report.md, "The HTML page"): written by the real command
(`show --html`, `analyze --html`, `explore --html`, `demo --html`), the same bytes in fresh
processes, created exclusively or refused with nothing written, and rendered by headless
Chromium with JavaScript disabled to a screenshot that is not blank, light and dark.

The browser test needs Debian's `chromium`: without it the test is skipped on a developer's
machine and fails in CI (CI=true), where .ci/run installs it before `make test`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clearing_analysis.codes.errors import OutputRefusedError
from clearing_analysis.inputs.requests import AnalyzeRequest, DemoRequest
from clearing_analysis.pipeline.demo import DEMO_PAGES, run_demo
from clearing_analysis.pipeline.jobs import analyze_job
from clearing_analysis.report.encode import decode_report
from clearing_analysis.report.html import render
from clearing_analysis.report.html.charts import Tone
from clearing_analysis.synth import generate
from clearing_analysis.synth.pi_export import export_sessions
from tests.e2e._chromium import decode_png, screenshot, widths
from tests.e2e._cli import fixed_line, run_cli
from tests.synth.corpora import corpus_options

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
# The refusals asserted here by their exact line (tests/e2e/test_exit_status.py counts them).
COVERED = {("OUTPUT_REFUSED", "HTML_SAME_AS_OUTPUT"), ("OUTPUT_REFUSED", "HTML_SAME_AS_LOG")}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small mixed corpus (four APIs)."""
    root = tmp_path_factory.mktemp("html-corpus") / "corpus"
    generate(root, 20261129, conversations=6, profile="mixed")
    return root


@pytest.fixture(scope="module")
def sessions(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same history as pi session files."""
    out = tmp_path_factory.mktemp("html-sessions") / "sessions"
    export_sessions(sorted((corpus / "journals").glob("*.jsonl")), out)
    return out


def _hex(tone: Tone) -> tuple[int, int, int]:
    value = tone.value.lstrip("#")
    red, green, blue = (int(value[i : i + 2], 16) for i in (0, 2, 4))
    return red, green, blue


def _page_is_drawn(page: Path, *, dark: bool) -> None:
    """A screenshot of the page's top 3,000 CSS pixels, JavaScript disabled: many colours,
    much of it not background, the background of the theme asked for, and bars of the
    charts' own colours (so the inline SVG was drawn)."""
    pixels = decode_png(screenshot(page, height=3000, dark=dark))
    background = pixels.rows[2][2]
    luminance = sum(background) / 3
    assert (luminance < 64) if dark else (luminance > 240), background
    assert len(pixels.colours()) > 50
    assert pixels.share_unlike(background) > 0.05
    bars = {_hex(tone) for tone in Tone}
    assert pixels.colours() & bars, "no bar of the charts' colours was drawn"


def test_show_html_is_deterministic_and_prints_nothing(tmp_path: Path) -> None:
    """`show R --html P` creates P with the library's page of R, prints nothing, and a second
    fresh process makes the same bytes."""
    report = GOLDEN / "report-mixed.json"
    pages = [tmp_path / "a.html", tmp_path / "b.html"]
    for page in pages:
        done = run_cli(["show", str(report), "--html", str(page)])
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert pages[0].read_bytes() == pages[1].read_bytes()
    assert pages[0].read_bytes() == render(decode_report(report.read_bytes()))


@pytest.mark.parametrize(
    ("page", "detail"),
    [
        ("exists", "OUTPUT_EXISTS"),
        ("report", "OUTPUT_NAME_COLLIDES"),
        ("link/report.html", "OUTPUT_IS_INPUT"),
        ("missing/p.html", "OUTPUT_PARENT_MISSING"),
    ],
)
def test_show_html_refusals_write_nothing(tmp_path: Path, page: str, detail: str) -> None:
    """An existing page, the report itself, a hard link to it elsewhere or a missing
    directory: exit 2 with the fixed line, nothing created, nothing changed."""
    report = tmp_path / "report.json"
    report.write_bytes((GOLDEN / "report-build.json").read_bytes())
    (tmp_path / "exists").write_bytes(b"keep")
    (tmp_path / "link").mkdir()
    (tmp_path / "link" / "report.html").hardlink_to(report)
    target = report if page == "report" else tmp_path / page
    before = sorted((str(p), p.read_bytes()) for p in tmp_path.rglob("*") if p.is_file())
    done = run_cli(["show", str(report), "--html", str(target)])
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr == fixed_line("OUTPUT_REFUSED", detail)
    assert sorted((str(p), p.read_bytes()) for p in tmp_path.rglob("*") if p.is_file()) == before


def test_show_html_of_an_invalid_report_creates_no_page(tmp_path: Path) -> None:
    """A file that is not a report: INPUT_INVALID REPORT_MALFORMED, and no page."""
    report = tmp_path / "report.json"
    report.write_bytes(b"{not json")
    done = run_cli(["show", str(report), "--html", str(tmp_path / "p.html")])
    assert (done.returncode, done.stderr) == (2, fixed_line("INPUT_INVALID", "REPORT_MALFORMED"))
    assert not (tmp_path / "p.html").exists()


def test_analyze_and_explore_html_equal_show_html_of_their_reports(
    corpus: Path, sessions: Path, tmp_path: Path
) -> None:
    """`analyze --out R --html P` and `explore --out R --html P`: P is byte for byte the page
    `show R --html` makes of the saved report (rendered from the report alone)."""
    routes = corpus / "routes.json"
    runs = {
        "analyze": ["analyze", *corpus_options(corpus)],
        "explore": [
            "explore",
            "--sessions",
            str(sessions),
            "--routes",
            str(routes),
        ],
    }
    for name, args in runs.items():
        out, page, again = (
            tmp_path / f"{name}{suffix}" for suffix in (".json", ".html", "-show.html")
        )
        done = run_cli([*args, "--out", str(out), "--html", str(page)])
        assert (done.returncode, done.stderr) == (0, b""), name
        shown = run_cli(["show", str(out), "--html", str(again)])
        assert shown.returncode == 0
        assert page.read_bytes() == again.read_bytes(), name
        assert json.loads(out.read_bytes())["format"].startswith("clearing-analysis")


@pytest.mark.parametrize(
    ("same", "detail"), [("--out", "HTML_SAME_AS_OUTPUT"), ("--log-file", "HTML_SAME_AS_LOG")]
)
def test_html_colliding_with_another_output_is_refused_before_any_work(
    corpus: Path, tmp_path: Path, same: str, detail: str
) -> None:
    """--html naming the file --out or --log-file creates (in any case of the name): exit 2
    before any work, nothing created."""
    out = tmp_path / "out"
    out.mkdir()
    other = [] if same == "--out" else ["--out", str(out / "r.json")]
    done = run_cli(
        [
            "analyze",
            *corpus_options(corpus),
            *other,
            same,
            str(out / "page.html"),
            "--html",
            str(out / "PAGE.html"),
        ]
    )
    assert (done.returncode, done.stderr) == (2, fixed_line("OUTPUT_REFUSED", detail))
    assert list(out.iterdir()) == []


def test_a_page_that_cannot_be_created_takes_the_report_back(corpus: Path, tmp_path: Path) -> None:
    """The page's name is taken while the run works (after the up-front check): the run is
    refused (OUTPUT_EXISTS) and the --out report it had created is removed again, so no run
    is left half written."""
    out, page = tmp_path / "r.json", tmp_path / "p.html"
    job = analyze_job(
        AnalyzeRequest(
            journals=(corpus / "journals",),
            sidecar=corpus / "history.sqlite",
            routes=corpus / "routes.json",
            out=out,
            html=page,
        ),
        between_snapshots=lambda: page.write_bytes(b"someone else's"),
    )
    with pytest.raises(OutputRefusedError) as refused:
        job.write(out)
    assert refused.value.detail.value == "OUTPUT_EXISTS"
    assert not out.exists()
    assert page.read_bytes() == b"someone else's"


def test_demo_writes_both_pages_and_refuses_a_missing_directory(tmp_path: Path) -> None:
    """`demo --html DIR` creates the two parts' pages in DIR, each the page of that part's
    report, and says so; a DIR that does not exist is refused before any work."""
    pages = tmp_path / "pages"
    pages.mkdir()
    (tmp_path / "scratch").mkdir()
    text = run_demo(
        tmp_path / "scratch",
        DemoRequest(seed=20261129, conversations=24, profile="mixed", html_dir=pages),
    )
    assert sorted(p.name for p in pages.iterdir()) == sorted(DEMO_PAGES)
    assert f"HTML pages: {DEMO_PAGES[0]} (part 1) and" in text
    first, second = (pages / name for name in DEMO_PAGES)
    assert b"clearing-analysis: DEFER" in first.read_bytes()
    assert b"clearing-analysis: BUILD" in second.read_bytes()
    done = run_cli(["demo", "--html", str(tmp_path / "missing")])
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr == fixed_line("OUTPUT_REFUSED", "OUTPUT_PARENT_MISSING")


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_both_page_kinds_render_in_chromium_without_javascript(
    corpus: Path, sessions: Path, tmp_path: Path, dark: bool
) -> None:
    """An analysis page and an explore page, each opened by headless Chromium with
    JavaScript disabled: the screenshot is not blank and shows the charts' bars, in the
    light and in the dark system theme."""
    analysis = tmp_path / "analysis.html"
    explore = tmp_path / "explore.html"
    assert run_cli(["analyze", *corpus_options(corpus), "--html", str(analysis)]).returncode == 0
    done = run_cli(
        [
            "explore",
            "--sessions",
            str(sessions),
            "--routes",
            str(corpus / "routes.json"),
            "--html",
            str(explore),
        ]
    )
    assert done.returncode == 0
    for page in (analysis, explore):
        _page_is_drawn(page, dark=dark)


def test_no_page_scrolls_sideways_at_1280_pixels(
    corpus: Path, sessions: Path, tmp_path: Path
) -> None:
    """Both demo pages, an analysis page and an explore page, laid out by headless Chromium
    in a window 1,280 px wide: no content is wider than the viewport (before, the what-if
    table's last column was cut: the demo pages were 1,348 and 1,402 px wide)."""
    (tmp_path / "demo").mkdir()
    assert run_cli(["demo", "--html", str(tmp_path / "demo")]).returncode == 0
    pages = [tmp_path / "demo" / name for name in DEMO_PAGES]
    analysis, explore = tmp_path / "analysis.html", tmp_path / "explore.html"
    assert run_cli(["analyze", *corpus_options(corpus), "--html", str(analysis)]).returncode == 0
    routes = str(corpus / "routes.json")
    explored = ["explore", "--sessions", str(sessions), "--routes", routes, "--html", str(explore)]
    assert run_cli(explored).returncode == 0
    for page in [*pages, analysis, explore]:
        content, client = widths(page, width=1280)
        assert client > 1200, page.name
        assert content <= client, page.name
