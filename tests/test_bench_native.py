"""The native replay core's prototype (bench/native_core) measures what the analyzer computes.

Its figures in docs/performance.md are honest only if it does the analyzer's work: these tests
hold its rows to the analyzer's decoder and token heuristic on journals built to reach every
branch of the heuristic (floats in each JavaScript layout, escapes, non-ASCII, images,
thinking, checkpoints, invalid usages), and hold its refusals to the decoder's on named
invalid lines. They need g++ and simdjson (Debian: libsimdjson-dev), which `.ci/run` installs.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clearing_analysis.journal.decode import DecodedJournal, JournalOutcome, decode_bytes
from tests._bench import run_bench
from tests.replay.builder import JournalBuilder, usage

BENCH = Path(__file__).resolve().parents[1] / "bench" / "native_core" / "bench_native.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_native", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = _bench()


@pytest.fixture(scope="module")
def core(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    try:
        return bench.build(tmp_path_factory.mktemp("native"))
    except bench.BuildError as error:
        pytest.skip(str(error).splitlines()[0])


def _agrees(core: ModuleType, data: bytes) -> None:
    decoded = decode_bytes(data)
    assert isinstance(decoded, DecodedJournal), decoded
    scanned = core.scan(data)
    assert bench.unvouched_lines(scanned) == []
    assert scanned["lines"] == len(decoded.records)
    requests, results = bench.prototype_rows(scanned)
    assert (requests, results) == bench.expected_rows(decoded)


def _hard_journal(pad: int = 0) -> JournalBuilder:
    journal = JournalBuilder()
    journal.turn("t1", content=[{"type": "text", "text": "see \U0001f600"}, _image()])
    journal.run("r1", "t1")
    arguments = {
        "floats": [1.0, -2.5, 1e21, 1e-7, 1.5e-7, 2.5e30, 0.1, -0.0, 1.2345678901234568e20, 5e-324],
        "text": 'quote " back \\ tab \t nul \x00 unit \x1f del \x7f \u2028 é \U0001f600',
        "nested": {"a": [None, True, False, 12, -3], "": {}},
    }
    journal.assistant(
        "r1",
        "",
        calls=[("c1", "read", arguments), ("c2", "bash", {"cmd": "ls"})],
        content=[{"type": "thinking", "thinking": "think \U0001f600" + "x" * pad}],
        use=usage(input_=10, output=5, read=3, write=2),
    )
    journal.call_start("r1", "c1", "read", arguments)
    journal.call_end("r1", "c1", status="error")
    journal.result("r1", "c1", "read", content=[{"type": "text", "text": "é" * 7}, _image()])
    journal.call_start("r1", "c2", "bash", {"cmd": "ls"})
    journal.call_end("r1", "c2", status="denied")
    journal.result("r1", "c2", "bash", text="denied", is_error=True)
    journal.assistant("r1", "retry", use=usage(total=99), stop="error")
    journal.assistant("r1", "zero", use=usage())
    kept = journal.user("r1", "steer")
    journal.assistant("r1", "after", use=usage(total=700))
    journal.checkpoint("summary \u00e9", first_kept=kept)
    journal.assistant("r1", "compacted", use=usage(total=300))
    journal.checkpoint("all gone", first_kept=None)
    journal.assistant("r1", "again", use=usage(total=50), stop="aborted")
    journal.run_end("r1")
    journal.close()
    return journal


def _image() -> dict[str, str]:
    return {"type": "image", "data": "AAAA", "mimeType": "image/png"}


@pytest.mark.parametrize("pad", range(4))
def test_rows_equal_the_analyzers_on_every_heuristic_branch(core: ModuleType, pad: int) -> None:
    """Requests (context estimate, valid usage or -1) and results (tokens, bytes, is_error,
    the call's end status) equal the analyzer's walk of the decoded journal. A message's
    tokens are ceil(units / 4), which hides a count off by less than 4 units in three cases
    of four: padding the message by 0 to 3 units brings every such count across a boundary."""
    _agrees(core, _hard_journal(pad).to_bytes())


def test_a_planted_difference_is_seen(core: ModuleType) -> None:
    """The comparison can fail: rows of another journal are not this journal's rows."""
    one = _hard_journal()
    other = _hard_journal()
    other.records[6]["message"]["content"][0]["text"] = "é" * 8
    scanned = core.scan(other.to_bytes())
    decoded = decode_bytes(one.to_bytes())
    assert isinstance(decoded, DecodedJournal)
    assert bench.prototype_rows(scanned) != bench.expected_rows(decoded)


_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
_floats = st.floats(allow_nan=False, allow_infinity=False)
_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | _floats
    | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(arguments=st.dictionaries(_text, _values, max_size=4), text=_text)
def test_any_arguments_and_text_measure_alike(
    core: ModuleType, arguments: dict[str, Any], text: str
) -> None:
    """Any tool-call arguments and any text: the prototype's heuristic is the analyzer's."""
    journal = JournalBuilder()
    journal.turn("t1", text=text)
    journal.run("r1", "t1")
    journal.assistant("r1", text, calls=[("c1", "tool", arguments)], use=usage(total=5))
    journal.call_start("r1", "c1", "tool", arguments)
    journal.call_end("r1", "c1")
    journal.result("r1", "c1", "tool", text=text)
    journal.run_end("r1")
    journal.close()
    _agrees(core, journal.to_bytes())


def _invalid(journal: JournalBuilder, name: str) -> tuple[bytes, int]:
    """One named invalid line planted in a valid journal: (bytes, the line's index)."""
    lines = [json.dumps(record, ensure_ascii=False) for record in journal.records]
    index = 3  # the first assistant message
    match name:
        case "duplicate key":
            lines[index] = lines[index].replace('"runId": "r1"', '"runId": "r1", "runId": "r1"')
        case "unknown field":
            lines[index] = lines[index].replace('"runId": "r1"', '"runId": "r1", "extra": 1')
        case "escaped lone surrogate":
            lines[index] = lines[index].replace('"api": ', '"api": "\\ud800", "x": ', 1)
            lines[index] = lines[index].replace(', "x": "anthropic-messages"', "")
        case "nesting beyond the limit":
            deep = "[" * 70 + "]" * 70
            lines[index] = lines[index].replace('"cmd": "ls"', f'"cmd": {deep}')
        case "seq out of order":
            lines[index] = lines[index].replace(f'"seq": {index}', f'"seq": {index + 1}')
        case "wrong role":
            lines[index] = lines[index].replace('"role": "assistant"', '"role": "robot"')
        case "usage beyond the token limit":
            lines[index] = lines[index].replace('"input": 10', '"input": 1000000001')
        case "invalid UTF-8":
            return ("\n".join(lines).encode()).replace(b"think", b"th\xffnk") + b"\n", index
    return ("\n".join(lines) + "\n").encode(), index


INVALID_LINES = [
    "duplicate key",
    "unknown field",
    "escaped lone surrogate",
    "nesting beyond the limit",
    "seq out of order",
    "wrong role",
    "usage beyond the token limit",
    "invalid UTF-8",
]


@pytest.mark.parametrize("name", INVALID_LINES)
def test_an_invalid_line_is_left_to_the_strict_path(core: ModuleType, name: str) -> None:
    """The analyzer refuses the journal as INVALID, and the prototype vouches for no line
    the analyzer refuses: it leaves that line (and only lines from there on) to the strict
    path."""
    data, index = _invalid(_hard_journal(), name)
    decoded = decode_bytes(data)
    assert not isinstance(decoded, DecodedJournal)
    assert decoded.outcome is JournalOutcome.INVALID
    unvouched = bench.unvouched_lines(core.scan(data))
    assert unvouched and unvouched[0] == index


@pytest.mark.slow
def test_the_benchmark_runs_on_a_generated_corpus(core: ModuleType) -> None:
    """`make bench-native` end to end on a tiny corpus: the agreement line (every journal the
    analyzer accepts vouched for) and one row of figures, which are not asserted at this size;
    the generated corpus is deleted afterwards."""
    lines = run_bench(BENCH, "--size-mb", "1", "--repeats", "1").splitlines()
    assert lines[0].endswith("the prototype left 0 lines of accepted journals to the strict path")
    assert len([line for line in lines if line.startswith("| ")]) == 2
