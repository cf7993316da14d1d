"""bench/calibration/compare_profiles.py measures what docs/synthetic-corpus.md says it does."""

from __future__ import annotations

import datetime
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from clearing_analysis.pisession import ReadSession, read_session

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "calibration" / "compare_profiles.py"
T0 = 1_760_000_000_000  # milliseconds


@pytest.fixture(scope="module")
def script() -> ModuleType:
    """The script, loaded as a module (bench/ is not a package)."""
    spec = importlib.util.spec_from_file_location("compare_profiles", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _iso(millis: int) -> str:
    moment = datetime.datetime.fromtimestamp(millis / 1000, tz=datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _assistant(at_s: float, prefix: int, stop: str = "toolUse") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": "ok"}],
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "m",
        "usage": {"input": 10, "output": 5, "cacheRead": prefix - 10, "cacheWrite": 0},
        "stopReason": stop,
        "timestamp": T0 + int(at_s * 1000),
    }


def _result(at_s: float, tool: str, text: str) -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": f"call-{at_s}",
        "toolName": tool,
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "timestamp": T0 + int(at_s * 1000),
    }


def _user(at_s: float) -> dict[str, Any]:
    return {"role": "user", "content": "go", "timestamp": T0 + int(at_s * 1000)}


def _session(tmp_path: Path, messages: list[dict[str, Any]]) -> ReadSession:
    lines = [{"type": "session", "version": 3, "id": "s", "timestamp": _iso(T0), "cwd": "/"}]
    for index, message in enumerate(messages):
        lines.append(
            {
                "type": "message",
                "id": f"e{index}",
                "parentId": f"e{index - 1}" if index else None,
                "timestamp": _iso(message["timestamp"]),
                "message": message,
            }
        )
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    session = read_session(path)
    assert isinstance(session, ReadSession)
    return session


def test_distributions_of_a_hand_built_session(script: ModuleType, tmp_path: Path) -> None:
    """Two prompt turns: result bytes by class and tool, requests per turn, the gap before a
    turn's first request and within a loop, and the growth between the turns' first prefixes;
    a failed request (zero usage) neither counts as a prefix nor hides the next one."""
    session = _session(
        tmp_path,
        [
            _user(0),
            _assistant(10, 1_000),
            _result(11, "read", "x" * 100),
            _assistant(15, 1_500, "stop"),
            _user(100),
            {
                **_assistant(150, 0, "error"),
                "usage": dict.fromkeys(("input", "output", "cacheRead", "cacheWrite"), 0),
            },
            _assistant(160, 3_000),
            _result(161, "bash", "é" * 10),
            _assistant(170, 3_100, "stop"),
        ],
    )
    found = script.measure_session(session).samples
    assert found["result bytes: all"] == [100, 20]
    assert found["result bytes: read-only built-in"] == [100]
    assert found["result bytes: effectful built-in"] == [20]
    assert found["result bytes: read"] == [100] and found["result bytes: bash"] == [20]
    assert found["requests per prompt turn"] == [2, 3]
    assert found["gap before a turn's first request (s)"] == [135.0]
    assert found["gap in a loop (s)"] == [5.0, 10.0, 10.0]
    assert found["context growth per turn (tokens)"] == [2_000]
    assert found["prefix at a turn's first request (tokens)"] == [1_000, 3_000]


def test_stats_and_ratios(script: ModuleType) -> None:
    """Nearest-rank p90, and a ratio flagged only outside 0.5-2."""
    values = [float(v) for v in range(1, 11)]
    assert script.stat(values, "median") == 5.5
    assert script.stat(values, "p90") == 9.0
    assert script.stat(values, "mean") == 5.5
    assert script.stat(values, "count") == 10.0
    assert script._ratio(4.0, 2.0) == "2.00"
    assert script._ratio(4.1, 2.0) == "2.05 **"
    assert script._ratio(0.9, 2.0) == "0.45 **"
