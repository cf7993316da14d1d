"""InputSession: the one entry point that selects, validates and guards inputs and outputs."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from clearing_analysis.codes.errors import (
    InputInvalidError,
    NoJournalsError,
    OutputRefusedError,
    SidecarNotOfflineError,
)
from clearing_analysis.inputs.requests import ReplayRequest
from clearing_analysis.inputs.session import InputSession
from tests.inputs._safety_corpus import Corpus, make_corpus


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    return make_corpus(tmp_path)


def test_open_selects_loads_and_finishes(corpus: Corpus) -> None:
    """A valid input set opens: journals in order, configs decoded, optional paths kept."""
    agent_config = corpus.root / "cfg" / "agent.json"
    agent_config.write_text(json.dumps({"builtins": ["read"], "mcpTools": "none"}))
    allowlist = corpus.root / "cfg" / "allow.json"
    allowlist.write_text("[]")
    qualification = corpus.root / "cfg" / "qualification.json"
    qualification.write_text("{}")
    session = InputSession.open(
        ReplayRequest(
            journals=(corpus.journals,),
            sidecar=corpus.sidecar,
            routes=corpus.routes,
            qualification=qualification,
            agent_config=agent_config,
            app_allowlist=allowlist,
        )
    )
    assert session.journals == (corpus.journals / "a.jsonl", corpus.journals / "sub" / "b.jsonl")
    assert [str(api) for api in session.routes.by_api] == ["anthropic-messages"]
    assert session.agent_config is not None
    assert session.agent_config.period is not None
    assert session.app_allowlist is not None
    assert session.qualification == qualification
    session.finish()


def test_sidecar_opens_and_creates_nothing(corpus: Corpus) -> None:
    """The sidecar opens read-only through the session; nothing appears next to it."""
    session = InputSession.open(
        ReplayRequest(journals=(corpus.journals,), sidecar=corpus.sidecar, routes=corpus.routes)
    )
    before = sorted(corpus.sidecar.parent.iterdir())
    with session.open_sidecar() as view:
        assert view.conversation_policy("absent") is None
    assert sorted(corpus.sidecar.parent.iterdir()) == before
    session.finish()


@pytest.mark.parametrize(
    ("which", "detail"),
    [
        ("sidecar-missing", "SIDECAR_MISSING"),
        ("routes-missing", "ROUTES_MISSING"),
        ("routes-directory", "ROUTES_NOT_FILE"),
        ("qualification-missing", "QUALIFICATION_MISSING"),
        ("agent-config-missing", "AGENT_CONFIG_MISSING"),
        ("allowlist-missing", "APP_ALLOWLIST_MISSING"),
    ],
)
def test_named_inputs_must_be_regular_files(corpus: Corpus, which: str, detail: str) -> None:
    """Every named input must exist as a regular file: INPUT_INVALID otherwise."""
    nowhere = corpus.root / "nowhere.json"
    kwargs: dict[str, Path] = {"sidecar": corpus.sidecar, "routes": corpus.routes}
    if which == "sidecar-missing":
        kwargs["sidecar"] = nowhere
    elif which == "routes-missing":
        kwargs["routes"] = nowhere
    elif which == "routes-directory":
        kwargs["routes"] = corpus.out_dir
    elif which == "qualification-missing":
        kwargs["qualification"] = nowhere
    elif which == "agent-config-missing":
        kwargs["agent_config"] = nowhere
    else:
        kwargs["app_allowlist"] = nowhere
    with pytest.raises(InputInvalidError) as caught:
        InputSession.open(ReplayRequest(journals=(corpus.journals,), **kwargs))  # type: ignore[arg-type]
    assert caught.value.detail == detail


def test_invalid_routes_is_input_invalid(corpus: Corpus) -> None:
    """Config decoding errors surface as INPUT_INVALID from inputs.configs."""
    corpus.routes.write_text("[]")
    with pytest.raises(InputInvalidError) as caught:
        InputSession.open(
            ReplayRequest(journals=(corpus.journals,), sidecar=corpus.sidecar, routes=corpus.routes)
        )
    assert caught.value.detail == "ROUTES_EMPTY"


def test_refused_output_fails_before_config_decoding(corpus: Corpus) -> None:
    """A refused --out fails fast, before configs are read (here: invalid routes)."""
    corpus.routes.write_text("not json")
    with pytest.raises(OutputRefusedError):
        InputSession.open(
            ReplayRequest(
                journals=(corpus.journals,),
                sidecar=corpus.sidecar,
                routes=corpus.routes,
                out=corpus.journals / "r.json",
            )
        )


def test_no_journals_comes_first(corpus: Corpus) -> None:
    """An empty selection is NO_JOURNALS even when other inputs are also wrong."""
    (corpus.root / "empty").mkdir()
    with pytest.raises(NoJournalsError):
        InputSession.open(
            ReplayRequest(
                journals=(corpus.root / "empty",),
                sidecar=corpus.root / "nowhere",
                routes=corpus.routes,
                out=corpus.journals / "r.json",
            )
        )


@pytest.mark.parametrize("companions", [False, True])
def test_real_wal_database_is_not_offline(corpus: Corpus, companions: bool) -> None:
    """A WAL-mode database made with sqlite3 is SIDECAR_NOT_OFFLINE, with or without companions."""
    wal = corpus.root / "state" / "wal.sqlite"
    writer = sqlite3.connect(wal)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("CREATE TABLE t (x)")
    writer.execute("INSERT INTO t VALUES (1)")
    writer.commit()
    if not companions:
        writer.close()  # the last connection checkpoints and removes -wal and -shm
    try:
        present = sorted(p.name for p in wal.parent.iterdir() if p.name.startswith("wal."))
        assert present == (
            ["wal.sqlite", "wal.sqlite-shm", "wal.sqlite-wal"] if companions else ["wal.sqlite"]
        )
        with pytest.raises(SidecarNotOfflineError) as caught:
            InputSession.open(
                ReplayRequest(journals=(corpus.journals,), sidecar=wal, routes=corpus.routes)
            )
        assert caught.value.detail == ("COMPANION_PRESENT" if companions else "WAL_MODE")
    finally:
        writer.close()


def test_not_sqlite_sidecar_is_input_invalid(corpus: Corpus) -> None:
    """A sidecar that is not an SQLite 3 database is INPUT_INVALID."""
    corpus.sidecar.write_bytes(b"x" * 200)
    with pytest.raises(InputInvalidError) as caught:
        InputSession.open(
            ReplayRequest(journals=(corpus.journals,), sidecar=corpus.sidecar, routes=corpus.routes)
        )
    assert caught.value.detail == "SIDECAR_NOT_SQLITE"
