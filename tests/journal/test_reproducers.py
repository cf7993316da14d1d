"""No single journal line can end the run (R-REL-4): the fast path's failures are the strict
path's to decide.

The reproducers in fuzz/regressions/journal (a line of objects nested 1,000 deep; the
JSONTestSuite's n_structure_open_array_object as a tool call's arguments; deep arguments)
used to raise RecursionError out of the typed decoding. A line whose decoding runs out of
memory used to raise MemoryError. Each is now its journal's INVALID outcome with a fixed
detail, and the next journal decodes as before.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from clearing_analysis.journal import InvalidReason, JournalOutcome, RejectedJournal, decode_bytes
from clearing_analysis.journal.decode import _fast
from clearing_analysis.policy import limits
from tests.journal._build import valid

ROOT = Path(__file__).resolve().parents[2]
REPRODUCERS = sorted((ROOT / "fuzz" / "regressions" / "journal").glob("*.jsonl"))


@pytest.mark.parametrize("path", REPRODUCERS, ids=lambda p: p.name)
def test_reproducer_is_invalid_nesting_too_deep(path: Path) -> None:
    """Each reproducer is INVALID / NESTING_TOO_DEEP, as the strict path says."""
    assert decode_bytes(path.read_bytes()) == RejectedJournal(
        JournalOutcome.INVALID, InvalidReason.NESTING_TOO_DEEP
    )


@pytest.mark.parametrize("path", REPRODUCERS, ids=lambda p: p.name)
def test_fast_path_declines_every_line(path: Path) -> None:
    """The fast path vouches for the header and declines the deep line, without raising."""
    header, deep = path.read_bytes().splitlines()
    assert _fast(header, limits().max_nesting_depth) is not None
    assert _fast(deep, limits().max_nesting_depth) is None


def test_nested_arrays_alone_stay_nesting_too_deep() -> None:
    """Deep arrays, which never reached the typed decoder's recursion, keep their outcome."""
    line = b"[" * 1000 + b"]" * 1000
    result = decode_bytes(valid().replace(b"\n", b"\n" + line + b"\n", 1))
    assert result == RejectedJournal(JournalOutcome.INVALID, InvalidReason.NESTING_TOO_DEEP)


# A line of four million empty arrays as a tool call's arguments (12 MB, well under the line
# limit) decoded under an address-space limit 96 MiB above what the interpreter holds: both
# decoders run out of memory on it. Then a valid journal, in the same process.
_OUT_OF_MEMORY = textwrap.dedent(
    """
    import json, resource
    from clearing_analysis.journal.decode import decode_bytes
    from tests.journal._build import HEADER, line, valid

    def size():
        with open("/proc/self/status") as status:
            for entry in status:
                if entry.startswith("VmSize"):
                    return int(entry.split()[1]) * 1024

    arguments = b'{"a":[' + b"[]," * 3_999_999 + b"[]]}"
    record = {"seq": 1, "kind": "tool_call_start", "runId": "r", "callId": "c",
              "toolName": "t", "timestamp": 1, "arguments": {"a": 0}}
    start = json.dumps(record, separators=(",", ":")).encode()
    data = line(HEADER) + start.replace(b'{"a":0}', arguments) + b"\\n"
    resource.setrlimit(resource.RLIMIT_AS, (size() + 96 * 2**20, resource.RLIM_INFINITY))
    rejected = decode_bytes(data)
    print(rejected.outcome.value, rejected.reason.value)
    print(type(decode_bytes(valid())).__name__)
    """
)


def test_line_without_memory_to_decode_is_line_too_long() -> None:
    """MemoryError in either decoder makes the journal INVALID / LINE_TOO_LONG, and the same
    process decodes the next journal."""
    done = subprocess.run(
        [sys.executable, "-c", _OUT_OF_MEMORY],
        capture_output=True,
        check=False,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.decode().split("\n") == ["INVALID LINE_TOO_LONG", "DecodedJournal", ""]
