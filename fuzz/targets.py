"""One fuzz target per parser of untrusted input: the bytes in, only fixed outcomes out.

Each target hands the bytes to the parser as the CLI does and lets through exactly what that
parser may answer: a decoded value (which must then be usable: a saved report must render, a
pi session must map) or its own fixed refusal (a `RejectedJournal`, an `INPUT_INVALID` detail of
that file's prefix, ...). Any other exception escapes, and the fuzzer reports it as a crash.
`TARGETS` names them with the shape of their input (a JSON document or JSON lines), which
chooses the structure-aware mutation (`fuzz.mutate`).
"""

from __future__ import annotations

import functools
import io
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from clearing_analysis.attest.dsse import decode_envelope
from clearing_analysis.attest.statement import decode_statement
from clearing_analysis.codes.errors import InputInvalidError, VerifyDetail, VerifyError
from clearing_analysis.inputs import configs
from clearing_analysis.inputs.requests import ShowRequest
from clearing_analysis.journal import DecodedJournal, RejectedJournal, decode_bytes
from clearing_analysis.pipeline.saved import read_saved_report
from clearing_analysis.pisession import ReadSession, RejectedSession, read_stream
from clearing_analysis.pisession.mapping import map_session
from clearing_analysis.pisession.read import stream_grouping_keys
from clearing_analysis.qualify.record import RecordRejected, decode_record
from clearing_analysis.report.encode import decode_report
from clearing_analysis.report.formats import ReportFormat, render
from clearing_analysis.report.text.view import render_text


class UnexpectedOutcomeError(AssertionError):
    """A parser answered with something outside its fixed outcomes."""


def _expect(condition: bool) -> None:
    if not condition:
        raise UnexpectedOutcomeError("outside the parser's fixed outcomes")


def journal(data: bytes) -> None:
    """A native journal: decoded whole, or rejected whole with a fixed outcome."""
    _expect(isinstance(decode_bytes(data), DecodedJournal | RejectedJournal))


def pisession(data: bytes) -> None:
    """A pi session file: grouped (explore's unit planning), read and mapped to a journal, or
    rejected with a fixed detail."""
    _expect(all(isinstance(key, str) for key in stream_grouping_keys(io.BytesIO(data))))
    read = read_stream(io.BytesIO(data))
    _expect(isinstance(read, ReadSession | RejectedSession))
    if isinstance(read, ReadSession):
        _expect(isinstance(map_session(read), DecodedJournal | RejectedSession))


def _config(decode: Callable[[bytes], object], prefix: str) -> Callable[[bytes], None]:
    def target(data: bytes) -> None:
        try:
            decode(data)
        except InputInvalidError as refused:
            _expect(refused.detail.value.startswith(prefix))

    target.__doc__ = f"A configuration file: decoded, or INPUT_INVALID {prefix}*."
    return target


routes = _config(configs.decode_routes, "ROUTES_")
agent_config = _config(configs.decode_agent_config, "AGENT_CONFIG_")
app_allowlist = _config(configs.decode_app_allowlist, "APP_ALLOWLIST_")


def qualification(data: bytes) -> None:
    """A qualification record: decoded and consistent, or rejected with a fixed reason."""
    try:
        decode_record(data)
    except RecordRejected as rejected:
        _expect(rejected.reason.isupper())


def report(data: bytes) -> None:
    """A saved report of either kind: validated whole and rendered, or INPUT_INVALID REPORT_*."""
    try:
        decoded = decode_report(data)
    except InputInvalidError as refused:
        _expect(refused.detail.value.startswith("REPORT_"))
        return
    # Every renderer reads what was validated: the terminal view with its details, the page.
    _expect(bool(render_text(decoded, details=True)))
    _expect(bool(render(decoded, ReportFormat.HTML)))


@functools.cache
def _scratch() -> Path:
    """One directory for every run of `show_html` (in memory where the machine has /dev/shm:
    the page is synced to disk as every output is, thousands of times a minute)."""
    memory = Path("/dev/shm")  # noqa: S108  (mkdtemp makes a new private directory in it)
    return Path(tempfile.mkdtemp(prefix="fuzz-show-html-", dir=memory if memory.is_dir() else None))


def show_html(data: bytes) -> None:
    """`show REPORT --html PAGE` as the command runs it: the report read strictly with the
    page's path checked first (`jobs.read_saved_report`), then the page rendered and created
    exclusively; or INPUT_INVALID REPORT_*, and then no page."""
    report, page = _scratch() / "report.json", _scratch() / "page.html"
    report.write_bytes(data)
    try:
        read_saved_report(ShowRequest(report=report, html=page)).write_page(page)
    except InputInvalidError as refused:
        _expect(refused.detail.value.startswith("REPORT_") and not page.exists())
        return
    finally:
        report.unlink()
    _expect(page.read_bytes().startswith(b"<!DOCTYPE html>"))
    page.unlink()


def envelope(data: bytes) -> None:
    """An attestation envelope and its statement: decoded, or their fixed VERIFY_FAILED."""
    try:
        decoded = decode_envelope(data)
    except VerifyError as refused:
        _expect(refused.detail is VerifyDetail.ENVELOPE_MALFORMED)
        return
    try:
        decode_statement(decoded.payload)
    except VerifyError as refused:
        _expect(refused.detail is VerifyDetail.STATEMENT_INVALID)


@dataclass(frozen=True, slots=True)
class Target:
    """A fuzz target and the shape of its input."""

    run: Callable[[bytes], None]
    lines: bool  # JSON lines (journal, session, envelope file) or one JSON document


TARGETS: dict[str, Target] = {
    "journal": Target(journal, lines=True),
    "pisession": Target(pisession, lines=True),
    "routes": Target(routes, lines=False),
    "agent_config": Target(agent_config, lines=False),
    "app_allowlist": Target(app_allowlist, lines=False),
    "qualification": Target(qualification, lines=False),
    "report": Target(report, lines=False),
    "show_html": Target(show_html, lines=False),
    "envelope": Target(envelope, lines=True),
}

__all__ = ["TARGETS", "Target", "UnexpectedOutcomeError"]
