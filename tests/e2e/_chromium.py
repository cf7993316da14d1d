"""Headless Chromium for the page tests: a screenshot of a local file with JavaScript
disabled, through the DevTools protocol on a pipe (no network port, no driver package).

Chromium runs as Debian's `chromium` with a fresh profile, no sandbox (the tests run as root),
no GPU, and every background service that could reach the network switched off. JavaScript
is disabled for the page (`Emulation.setScriptExecutionDisabled`) before it is loaded; the
screenshot is a PNG, decoded here without any imaging library.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import shutil
import struct
import subprocess
import tempfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--remote-debugging-pipe",
)
TIMEOUT_S = 60


def chromium() -> str:
    """Debian's chromium; missing, the test is skipped, but fails in CI (CI=true), where
    .ci/run installs it before `make test`."""
    path = shutil.which("chromium")
    if path is None:
        reason = "chromium is not installed (apt-get install chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}: .ci/run installs it before make test")
        pytest.skip(reason)
    return path


class _Pipe:
    """Chromium's DevTools pipe: it reads commands on fd 3 and writes answers on fd 4,
    each a JSON object ended by a NUL byte."""

    def __init__(self, binary: str, profile: Path) -> None:
        commands_read, self._commands = os.pipe()
        self._answers, answers_write = os.pipe()

        def descriptors() -> None:  # in the child, before exec
            # Out of the way first (a pipe end may itself be 3 or 4), then onto 3 and 4,
            # which dup2 leaves inheritable.
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (commands_read, answers_write)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,
            preexec_fn=descriptors,  # noqa: PLW1509 (single-threaded test process)
        )
        os.close(commands_read)
        os.close(answers_write)
        self._buffer = b""
        self._next = 0

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._answers, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed its DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        decoded: dict[str, Any] = json.loads(message)
        return decoded

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """Send a command and wait for its answer (events before it are dropped)."""
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                result: dict[str, Any] = answer.get("result", {})
                return result

    def wait_for(self, event: str) -> None:
        """Wait for an event of that name."""
        while self._read().get("method") != event:
            pass

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, OSError):
            self.call("Browser.close")
        try:
            self.process.wait(timeout=TIMEOUT_S)
        finally:
            if self.process.poll() is None:
                self.process.kill()
            os.close(self._commands)
            os.close(self._answers)


@contextlib.contextmanager
def _loaded(
    page: Path, *, width: int, height: int, dark: bool = False
) -> Iterator[tuple[_Pipe, str]]:
    """Chromium with `page` loaded at `width` x `height` CSS pixels, JavaScript disabled (and
    the system's dark theme emulated when `dark`): its DevTools pipe and the page's session."""
    binary = chromium()
    with tempfile.TemporaryDirectory(prefix="clearing-chromium-") as profile:
        pipe = _Pipe(binary, Path(profile))
        try:
            target = pipe.call("Target.createTarget", url="about:blank")["targetId"]
            session = pipe.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
            pipe.call("Emulation.setScriptExecutionDisabled", session, value=True)
            pipe.call(
                "Emulation.setDeviceMetricsOverride",
                session,
                width=width,
                height=height,
                deviceScaleFactor=1,
                mobile=False,
            )
            if dark:
                pipe.call(
                    "Emulation.setEmulatedMedia",
                    session,
                    features=[{"name": "prefers-color-scheme", "value": "dark"}],
                )
            pipe.call("Page.enable", session)
            pipe.call("Page.navigate", session, url=page.resolve().as_uri())
            pipe.wait_for("Page.loadEventFired")
            yield pipe, session
        finally:
            pipe.close()


def screenshot(page: Path, *, width: int = 1200, height: int = 1600, dark: bool = False) -> bytes:
    """A PNG of the page's top `height` CSS pixels at `width`, scaled by one half, JavaScript
    disabled (and the system's dark theme emulated when `dark`)."""
    with _loaded(page, width=width, height=height, dark=dark) as (pipe, session):
        shot = pipe.call(
            "Page.captureScreenshot",
            session,
            format="png",
            clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 0.5},
        )
    return base64.b64decode(shot["data"])


def widths(page: Path, *, width: int) -> tuple[int, int]:
    """The page's laid-out content width and the viewport's client width (without its
    scroll bar), in CSS pixels, in a window `width` wide: content wider than the client
    means the reader scrolls sideways. Read from the layout, no script run."""
    with _loaded(page, width=width, height=900) as (pipe, session):
        metrics = pipe.call("Page.getLayoutMetrics", session)
    return int(metrics["cssContentSize"]["width"]), int(metrics["cssLayoutViewport"]["clientWidth"])


@dataclass(frozen=True, slots=True)
class Pixels:
    """A decoded 8-bit RGB or RGBA PNG: rows of (r, g, b) tuples."""

    width: int
    height: int
    rows: list[list[tuple[int, int, int]]]

    def colours(self) -> set[tuple[int, int, int]]:
        """Every distinct colour."""
        return {pixel for row in self.rows for pixel in row}

    def share_unlike(self, background: tuple[int, int, int]) -> float:
        """The share of pixels that differ from `background`."""
        total = self.width * self.height
        other = sum(pixel != background for row in self.rows for pixel in row)
        return other / total


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def decode_png(data: bytes) -> Pixels:
    """The pixels of a non-interlaced 8-bit RGB or RGBA PNG (what Chromium writes)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    offset, idat = 8, b""
    width = height = channels = 0
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        body = data[offset + 8 : offset + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _c, _f, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError("only 8-bit RGB(A), non-interlaced")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        offset += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    rows: list[list[tuple[int, int, int]]] = []
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            corner = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                line[x] = (line[x] + _paeth(left, up, corner)) & 0xFF
        rows.append([(line[i], line[i + 1], line[i + 2]) for i in range(0, stride, channels)])
        previous = line
    return Pixels(width, height, rows)
