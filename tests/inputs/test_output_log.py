"""The log sink: allowlisted JSON lines, buffered in memory, written only to --log-file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

from clearing_analysis import logsink
from clearing_analysis.inputs.configs import Api
from clearing_analysis.inputs.requests import ReplayRequest
from clearing_analysis.inputs.session import InputSession
from tests.inputs._safety_corpus import make_corpus


@pytest.fixture(autouse=True)
def _reset_structlog() -> Iterator[None]:
    yield
    structlog.reset_defaults()


def test_events_become_sorted_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    """Allowed fields are rendered as JSON lines in the buffer, nothing on stdout/stderr."""
    buffer = logsink.configure(enabled=True)
    assert buffer is not None
    log = logsink.get_logger()
    log.info("replay.done", journals_done=3, journals_total=4, api=Api.OPENAI_RESPONSES)
    log.warning("input.refused", code="INPUT_INVALID", detail="ROUTES_EMPTY", seconds=0.5)
    lines = [json.loads(line) for line in buffer.to_bytes().decode().splitlines()]
    assert lines == [
        {
            "api": "openai-responses",
            "event": "replay.done",
            "journals_done": 3,
            "journals_total": 4,
            "level": "info",
        },
        {
            "code": "INPUT_INVALID",
            "detail": "ROUTES_EMPTY",
            "event": "input.refused",
            "level": "warning",
            "seconds": 0.5,
        },
    ]
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize(
    "fields",
    [
        {"path": "x"},  # key outside the allowlist
        {"code": "/home/user/secret.jsonl"},  # text where a code is expected
        {"code": "lower case text"},
        {"detail": "TOOL_" + "A" * 64},  # longer than any fixed code
        {"count": "3"},  # a string where a count is expected
        {"count": 2.5},
        {"count": True},
        {"seconds": "0.5"},
        {"api": b"ANTHROPIC"},
        {"exc_info": True},
    ],
)
@pytest.mark.parametrize("enabled", [True, False])
def test_fields_outside_the_allowlist_are_refused(
    fields: dict[str, object], enabled: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    """Any key or value outside the allowlist raises, with or without a log file."""
    buffer = logsink.configure(enabled=enabled)
    with pytest.raises(logsink.LogFieldRejectedError) as caught:
        logsink.get_logger().info("replay.done", **fields)
    assert str(caught.value) == "log event field outside the allowlist"
    assert buffer is None or buffer.to_bytes() == b""
    assert capsys.readouterr() == ("", "")


def test_event_names_are_checked_too() -> None:
    """The event itself must be a fixed lower-case event name, not free text."""
    logsink.configure(enabled=True)
    with pytest.raises(logsink.LogFieldRejectedError):
        logsink.get_logger().info("journal /home/user/a.jsonl failed")


def test_disabled_logging_drops_everything(capsys: pytest.CaptureFixture[str]) -> None:
    """Without --log-file, allowed events go nowhere (not stdout, not stderr)."""
    assert logsink.configure(enabled=False) is None
    logsink.get_logger().info("replay.done", count=1)
    assert capsys.readouterr() == ("", "")


def test_log_written_exclusively_at_the_end(tmp_path: Path) -> None:
    """The buffer is written through the session with the same rules as --out."""
    corpus = make_corpus(tmp_path)
    log_file = corpus.out_dir / "run.log"
    buffer = logsink.configure(enabled=True)
    assert buffer is not None
    session = InputSession.open(
        ReplayRequest(
            journals=(corpus.journals,),
            sidecar=corpus.sidecar,
            routes=corpus.routes,
            log_file=log_file,
        )
    )
    logsink.get_logger().info("replay.done", count=2)
    assert not log_file.exists()
    session.finish()
    session.write_log(buffer.to_bytes(), log_file)
    assert json.loads(log_file.read_text()) == {"count": 2, "event": "replay.done", "level": "info"}
