"""A small on-disk input set for the input-safety tests (journals, sidecar, routes, out dir)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from clearing_analysis.policy import read_policy_bytes
from tests._seed_route import SEED_ROUTE

ROUTES = [SEED_ROUTE]


@dataclass(frozen=True)
class Corpus:
    """Paths of one input set; `out_dir` is an unrelated, empty, writable directory."""

    root: Path
    journals: Path
    sidecar: Path
    routes: Path
    out_dir: Path

    def listing(self) -> list[tuple[str, int, int]]:
        """Every entry under root with size and inode, to show that nothing was created."""
        return sorted(
            (str(p.relative_to(self.root)), p.lstat().st_size, p.lstat().st_ino)
            for p in self.root.rglob("*")
        )


def make_sidecar(path: Path) -> None:
    """A real rollback-journal-mode sidecar built from policy/sidecar.sql."""
    connection = sqlite3.connect(path)
    connection.executescript(read_policy_bytes("sidecar.sql").decode("utf-8"))
    connection.execute("INSERT INTO sidecar_meta VALUES ('schema_version', '1')")
    connection.commit()
    connection.close()


def make_corpus(root: Path) -> Corpus:
    """journals/{a.jsonl, sub/b.jsonl}, state/history.sqlite, cfg/routes.json, out/."""
    journals = root / "journals"
    (journals / "sub").mkdir(parents=True)
    (journals / "a.jsonl").write_bytes(b'{"kind":"header"}\n')
    (journals / "sub" / "b.jsonl").write_bytes(b'{"kind":"header"}\n')
    (root / "state").mkdir()
    sidecar = root / "state" / "history.sqlite"
    make_sidecar(sidecar)
    (root / "cfg").mkdir()
    routes = root / "cfg" / "routes.json"
    routes.write_text(json.dumps(ROUTES))
    out_dir = root / "out"
    out_dir.mkdir()
    return Corpus(root, journals, sidecar, routes, out_dir)
