"""The reviewed what-if table (policy/what-ifs.json): every row parses strictly, cites a public
source, states what it assumes, and the seed's row is the one reference."""

from __future__ import annotations

import json

import msgspec
import pytest

from clearing_analysis.policy import (
    AllOlder,
    PressureBand,
    WhatIfId,
    WhatIfTable,
    read_policy_bytes,
    what_if_table,
)


def test_every_row_parses_and_cites_a_source() -> None:
    """Each policy id is in the table once; every row names where its defaults were read, and
    every row but the seed's (this project's own requirements) states assumptions."""
    table = what_if_table()
    assert [p.id for p in table.policies] == list(WhatIfId)
    for policy in table.policies:
        assert policy.sources and all(s.what and s.where for s in policy.sources), policy.id
        if policy.id is not WhatIfId.SEED_COLD_PRE_TURN:
            assert policy.assumptions, policy.id
            # A public source: a repository path with its commit or version, or an address.
            assert any(s.version for s in policy.sources), policy.id


def test_the_seed_row_is_the_reference() -> None:
    """The seed's row is the only reference and describes the gated simulation: cold only,
    the pressure band and batch gate, every clearable result, the seed's protection."""
    table = what_if_table()
    seed = table.get(WhatIfId.SEED_COLD_PRE_TURN)
    assert [p.id for p in table.policies if p.reference] == [seed.id]
    assert seed.only_cold and isinstance(seed.trigger, PressureBand)
    assert isinstance(seed.amount, AllOlder) and seed.keep.seed_protection


def _decode(document: dict[str, object]) -> WhatIfTable:
    return msgspec.json.decode(json.dumps(document).encode(), type=WhatIfTable)


@pytest.mark.parametrize(
    "breakage",
    ["unknown field", "second reference", "no source", "missing row", "bad fraction"],
)
def test_a_broken_table_is_refused(breakage: str) -> None:
    """A reviewer's mistake is a startup failure, not a silently different what-if."""
    document = json.loads(read_policy_bytes("what-ifs.json"))
    rows = document["policies"]
    if breakage == "unknown field":
        rows[1]["keep"]["lastToolSteps"] = 1
    elif breakage == "second reference":
        rows[1]["reference"] = True
    elif breakage == "no source":
        rows[2]["sources"] = []
    elif breakage == "missing row":
        del rows[3]
    else:
        rows[2]["trigger"]["fraction"] = 1.5
    with pytest.raises((msgspec.ValidationError, ValueError)):
        _decode(document)
    assert _decode(json.loads(read_policy_bytes("what-ifs.json"))) == what_if_table()
