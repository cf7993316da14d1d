"""The two paths of strictjson.loads agree (its module docstring): whatever msgspec's path
accepts, the strict standard-library parse accepts with the same value, and every document
the strict parse refuses, for whatever reason, is refused by `loads` with that reason."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clearing_analysis import strictjson
from clearing_analysis.strictjson import _DECLINED, _fast_loads, _strict_loads

SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAX_DEPTH = 8

_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
_documents = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=24,
)


def _strict(raw: bytes) -> tuple[str, Any]:
    try:
        return "ok", _strict_loads(raw, MAX_DEPTH)
    except strictjson.JsonRejected as rejected:
        return rejected.reason, None


def _same(a: Any, b: Any) -> bool:
    """Equal values, with the same types (1 and 1.0 differ; -0.0 and 0.0 too)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _agree(raw: bytes) -> None:
    fast = _fast_loads(raw, MAX_DEPTH)
    reason, strict = _strict(raw)
    if fast is not _DECLINED:
        assert reason == "ok", raw
        assert _same(fast, strict), raw
    if reason != "ok":
        with pytest.raises(strictjson.JsonRejected) as refused:
            strictjson.loads(raw, max_depth=MAX_DEPTH)
        assert refused.value.reason == reason


def _with_repeated_key(value: Any, position: int) -> bytes:
    """`value` as compact JSON, with one non-empty object (the `position`-th, cyclically)
    written with its first key repeated (value 0) before its members."""
    objects: list[int] = []

    def count(node: Any) -> None:
        if isinstance(node, dict):
            if node:
                objects.append(len(objects))
            for child in node.values():
                count(child)
        elif isinstance(node, list):
            for child in node:
                count(child)

    count(value)
    chosen = position % len(objects) if objects else -1
    seen = [0]

    def write(node: Any) -> str:
        if isinstance(node, list):
            return "[" + ",".join(write(child) for child in node) + "]"
        if not isinstance(node, dict):
            return json.dumps(node, ensure_ascii=False)
        members = [json.dumps(k, ensure_ascii=False) + ":" + write(v) for k, v in node.items()]
        if node:
            if seen[0] == chosen:
                members.insert(0, json.dumps(next(iter(node)), ensure_ascii=False) + ":0")
            seen[0] += 1
        return "{" + ",".join(members) + "}"

    return write(value).encode()


@SETTINGS
@given(_documents, st.sampled_from(["compact", "spaced", "ascii"]))
def test_documents_agree_however_written(value: Any, style: str) -> None:
    """Any JSON document, compact, spaced or ASCII-escaped."""
    if style == "compact":
        raw = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    elif style == "spaced":
        raw = json.dumps(value, indent=1).encode()
    else:
        raw = json.dumps(value).encode()
    _agree(raw)


@SETTINGS
@given(_documents, st.integers(0, 50))
def test_repeated_keys_are_refused_by_both(value: Any, position: int) -> None:
    """A key repeated in any object: DUPLICATE_KEY, never a silent last-wins value."""
    _agree(_with_repeated_key(value, position))


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a":1,"a":2}',
        b'{"b":{"a":1,"a":1}}',
        b"[" * 9 + b"]" * 9,
        b"[" * 100_000 + b"]" * 100_000,
        b"\xef\xbb\xbf{}",
        b'"\\ud800"',
        b"[NaN]",
        b"[1e400]",
        b"[" + b"9" * 4301 + b"]",
        b'{"a":1} x',
        b"\xff",
    ],
    ids=[
        "repeated key",
        "repeated key nested",
        "too deep",
        "past the recursion limit",
        "byte-order mark",
        "lone surrogate",
        "NaN",
        "overflowing number",
        "over-long integer",
        "trailing data",
        "invalid UTF-8",
    ],
)
def test_named_refusals_agree(raw: bytes) -> None:
    """Each rule's own example is declined by the fast path and refused by loads, with the
    strict parse's reason."""
    assert _fast_loads(raw, MAX_DEPTH) is _DECLINED
    assert _strict(raw)[0] != "ok"
    _agree(raw)


def test_fast_path_takes_ordinary_documents() -> None:
    """Not vacuous: compact and spaced documents are decided by msgspec's path."""
    assert _fast_loads(b'{"a":[1,2.5,"x",null,true]}', MAX_DEPTH) == {
        "a": [1, 2.5, "x", None, True]
    }
    assert _fast_loads(b'{ "a" : { "b" : 1 } }', MAX_DEPTH) == {"a": {"b": 1}}


# A document of four million empty arrays (12 MB) parsed under an address-space limit 96 MiB
# above what the interpreter holds: neither path has the memory for it. Each caller is asked in
# turn, in the same process, and names the refusal with its own size code.
_OUT_OF_MEMORY = """
import io, resource
from clearing_analysis import strictjson
from clearing_analysis.codes.errors import InputInvalidError
from clearing_analysis.inputs.configs import decode_routes
from clearing_analysis.journal import decode_bytes
from clearing_analysis.pisession import read_stream
from clearing_analysis.report.encode import decode_report
from tests.journal._build import valid

def size():
    with open("/proc/self/status") as status:
        for entry in status:
            if entry.startswith("VmSize"):
                return int(entry.split()[1]) * 1024

document = b"[" + b"[]," * 3_999_999 + b"[]]"
session = b'{"type":"session","id":"s","timestamp":"t"}\\n{"type":"x","v":' + document + b"}\\n"
start = b'{"seq":1,"kind":"tool_call_start","runId":"r","callId":"c","toolName":"t",'
start += b'"timestamp":1,"arguments":{"a":'
journal = valid().replace(b"\\n", b"\\n" + start + document + b"}}\\n", 1)
resource.setrlimit(resource.RLIMIT_AS, (size() + 96 * 2**20, resource.RLIM_INFINITY))
try:
    strictjson.loads(document, max_depth=64)
except strictjson.JsonRejected as rejected:
    print(rejected.reason)
for decode in (decode_routes, decode_report):
    try:
        decode(document)
    except InputInvalidError as refused:
        print(refused.detail.value)
print(read_stream(io.BytesIO(session)).detail.value)
print(decode_bytes(journal).reason.value)
print(type(decode_bytes(valid())).__name__)
print(strictjson.loads(b'{"a": [1]}', max_depth=64))
"""


def test_no_memory_to_parse_is_too_large_for_every_caller() -> None:
    """MemoryError in either path (the journal's typed fast path included) is TOO_LARGE, which
    routes, a saved report, a pi session and a journal name with their own size codes; the
    process decodes the next journal and parses the next document as before (R-REL-4)."""
    done = subprocess.run(
        [sys.executable, "-c", _OUT_OF_MEMORY],
        capture_output=True,
        check=False,
        timeout=120,
        cwd=Path(__file__).resolve().parents[1],  # the repository, for the tests' builders
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.decode().splitlines() == [
        "TOO_LARGE",
        "ROUTES_TOO_LARGE",
        "REPORT_TOO_LARGE",
        "LINE_TOO_LONG",
        "LINE_TOO_LONG",
        "DecodedJournal",
        "{'a': [1]}",
    ]
