"""The bare baseline: decode every line of every journal under a directory with msgspec, on
one core, and nothing else (each file read in one piece; sorted order like the analyzer's;
the invalid lines a synthetic corpus plants are counted, not fatal)."""

from __future__ import annotations

import sys
from pathlib import Path

import msgspec


def main() -> None:
    decode = msgspec.json.Decoder().decode
    lines = undecodable = 0
    for path in sorted(Path(sys.argv[1]).rglob("*.jsonl")):
        for line in path.read_bytes().splitlines():
            lines += 1
            try:
                decode(line)
            except msgspec.DecodeError:
                undecodable += 1  # the corpus plants invalid journals on purpose
    print(lines, undecodable)


if __name__ == "__main__":
    main()
