"""Local, allowlisted structured logging (R-OUT-1: logs obey the report's privacy rule).

`configure(enabled)` sets structlog up so that events go to an in-memory buffer of JSON lines
and nowhere else: never stdout or stderr, never the network. The command writes the buffer
to the exclusively created `--log-file` at the end of the run (inputs.session.write_log);
without `--log-file` every event is dropped, by a logger of this module that runs the same
allowlist and never imports structlog (whose import alone, with the console renderer it
loads, costs a run without a log about 0.1 CPU-s: docs/performance.md).

Every event passes `allowlist_fields` first: a key must be in `ALLOWED_FIELDS` and its value of
the type listed there; strings are accepted only as fixed codes (`UPPER_SNAKE`) or event names
(`lower.dotted_snake`), plus members of a `StrEnum` (API enums). Anything else raises
`LogFieldRejectedError` (caller misuse: a programming error, caught by the tests), so no input text,
path, id or exception message can reach a log.
"""

from __future__ import annotations

import enum
import io
import re
from collections.abc import Mapping, MutableMapping
from typing import Any

_CODE = re.compile(r"[A-Z][A-Z0-9_]{0,63}")
_EVENT = re.compile(r"[a-z][a-z0-9_.]{0,63}")


class _Kind(enum.Enum):
    EVENT_NAME = "event name"
    CODE = "fixed code or enum"
    COUNT = "int"
    NUMBER = "int or float"


ALLOWED_FIELDS: Mapping[str, _Kind] = {
    "event": _Kind.EVENT_NAME,
    "level": _Kind.EVENT_NAME,
    "code": _Kind.CODE,
    "detail": _Kind.CODE,
    "reason": _Kind.CODE,
    "phase": _Kind.CODE,
    "verdict": _Kind.CODE,
    "api": _Kind.CODE,
    "exit_status": _Kind.COUNT,
    "count": _Kind.COUNT,
    "journals_done": _Kind.COUNT,
    "journals_total": _Kind.COUNT,
    "sessions_total": _Kind.COUNT,
    "sessions_read": _Kind.COUNT,
    "requests": _Kind.COUNT,
    "admitted_net_tokens": _Kind.COUNT,
    "bytes": _Kind.COUNT,
    "workers": _Kind.COUNT,
    "seconds": _Kind.NUMBER,
    "ratio": _Kind.NUMBER,
}


class LogFieldRejectedError(RuntimeError):
    """An event carried a key or value outside the allowlist (a programming error)."""


def _accepts(kind: _Kind, value: object) -> bool:
    if kind is _Kind.EVENT_NAME:
        return type(value) is str and _EVENT.fullmatch(value) is not None
    if kind is _Kind.CODE:
        if isinstance(value, enum.StrEnum):
            return True
        return type(value) is str and _CODE.fullmatch(value) is not None
    if kind is _Kind.COUNT:
        return type(value) is int
    return type(value) in {int, float}


def allowlist_fields(
    _logger: object, _method: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """structlog processor: refuse any key or value the allowlist does not admit."""
    for key, value in event_dict.items():
        kind = ALLOWED_FIELDS.get(key)
        if kind is None or not _accepts(kind, value):
            # The message is fixed: neither the key nor the value is repeated anywhere.
            raise LogFieldRejectedError("log event field outside the allowlist")
    return event_dict


class _DroppingLogger:
    """The logger of a run without `--log-file`: every event passes the allowlist, then is
    dropped."""

    def _check(self, method: str, event: str, fields: dict[str, Any]) -> None:
        allowlist_fields(self, method, {"event": event, "level": method, **fields})

    def info(self, event: str, **fields: Any) -> None:
        """Check and drop an informational event."""
        self._check("info", event, fields)

    def warning(self, event: str, **fields: Any) -> None:
        """Check and drop a warning."""
        self._check("warning", event, fields)

    def error(self, event: str, **fields: Any) -> None:
        """Check and drop an error event."""
        self._check("error", event, fields)


_logger: Any = _DroppingLogger()


class LogBuffer:
    """The JSON lines logged so far, kept in memory until the run ends."""

    def __init__(self) -> None:
        self._stream = io.StringIO()

    @property
    def stream(self) -> io.StringIO:
        """The text stream structlog writes to."""
        return self._stream

    def to_bytes(self) -> bytes:
        """Everything logged, as UTF-8 JSON lines."""
        return self._stream.getvalue().encode("utf-8")


def configure(*, enabled: bool) -> LogBuffer | None:
    """Route the log to a new in-memory buffer through structlog (enabled) or drop everything
    (disabled, without importing structlog).

    The allowlist runs in both cases, so a leaking call fails the tests with or without a
    log file.
    """
    global _logger  # noqa: PLW0603  (the process's one log, as structlog's configuration is)
    if not enabled:
        _logger = _DroppingLogger()
        return None
    import structlog  # noqa: PLC0415  (loaded only for a --log-file)

    buffer = LogBuffer()
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            allowlist_fields,
            structlog.processors.JSONRenderer(sort_keys=True),
        ],
        logger_factory=structlog.WriteLoggerFactory(file=buffer.stream),
        cache_logger_on_first_use=False,
    )
    _logger = structlog.get_logger()
    return buffer


def get_logger() -> Any:
    """The configured logger (dropping every event until `configure(enabled=True)`)."""
    return _logger
