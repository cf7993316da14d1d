"""A hand-written corpus on disk that reaches every gate outcome with exact numbers.

Three logical conversations, each nine prompt turns (see `write_conversation`):

- t0: a read of 80,112 characters (20,028 tokens, 20,000 net of the 28-token placeholder);
- t1: ten 100-character reads (keeps the "ten latest tool starts" window off t0);
- t2, t3: quiet; E at t3 is 100,000, at t4 160,000;
- t4..t7: cold (400 s gaps) and pressured (E 160,000, then 170,000 three times). t4 clears t0's
  read (20,000 admitted); t5..t7 have effective occupancy 150,000 (in the band) but the batch
  gate is closed (fewer than five completed prompt runs since t4): 0 admitted;
- t8: warm, E 100,000.

So per API: 12 pressured and 12 cold pressured boundaries across 3 conversations; 3 admit
>= 20,000: share exactly 25%. G = 3 x (100,000 - 1) = 299,997 (E of the first boundary is the
heuristic of "hi", 1 token), S = 60,000, R = 3 x 20,029 (80,114 escaped characters / 4,
rounded up), summary tokens 3 x 500: pressure reduction at 5% is
1 - (299,997 + 0.05 x 60,087) / (160,000 + 60,000 / (299,997 / 160,000)) / (299,997 / 160,000).
Each variant changes one thing to reach one DEFER or STOP reason.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests._seed_route import SEED_ROUTE
from tests.replay.builder import SidecarBuilder
from tests.simulation.scenario import COLD, PERIOD, Conversation

BIG = 80_112
PADS = (100,) * 10


@dataclass
class Scenario:
    """What to write; each field is one knob a variant turns."""

    lineages: int = 3
    api: str = "anthropic-messages"
    cold_gap: int = COLD
    big: int = BIG
    retain: bool = True
    retain_share: int = 1  # retain every n-th result (2: half of them)
    agent_config: Any = field(default_factory=lambda: PERIOD)
    route: dict[str, Any] = field(default_factory=dict)
    failed_requests: int = 0  # extra error requests with no usage, per conversation
    final_estimate: int = 100_000  # E at t8 (the last boundary)
    busy: int = 9  # extra requests in t5, each carrying what t4 cleared


def write_conversation(scenario: Scenario, index: int) -> Conversation:
    """One conversation as described in the module docstring."""
    c = Conversation(physical=f"p{index}", logical=f"l{index}", journal_id=f"j{index}")
    c.turn("t0", reads=[scenario.big], e_next=100_000, api=scenario.api)
    c.turn("t1", reads=PADS, e_next=100_000, api=scenario.api)
    c.turn("t2", e_next=100_000, api=scenario.api)
    c.turn("t3", e_next=160_000, api=scenario.api)
    steps = (("t4", 170_000), ("t5", 170_000), ("t6", 170_000), ("t7", scenario.final_estimate))
    for name, e_next in steps:
        busy = scenario.busy if name == "t5" else 0
        c.turn(name, gap=scenario.cold_gap, e_next=e_next, api=scenario.api, busy=busy)
    c.turn("t8", e_next=100_000, api=scenario.api, failed=scenario.failed_requests)
    if scenario.retain_share > 1:
        c.retained = c.retained[:: scenario.retain_share]
    if not scenario.retain:
        c.retained = []
    return c


def write(scenario: Scenario, root: Path) -> dict[str, Path]:
    """Journals, sidecar, routes and agent config under `root`; returns the paths."""
    journals = root / "journals"
    journals.mkdir(parents=True)
    sidecar = SidecarBuilder(
        root / "history.sqlite",
        capture_enabled=tuple(f"p{i}" for i in range(scenario.lineages)),
    )
    for index in range(scenario.lineages):
        conversation = write_conversation(scenario, index)
        conversation.builder.close()
        conversation.builder.write(journals, f"{index:03d}.jsonl")
        for identity, text in conversation.retained:
            sidecar.retain(identity, text)
    sidecar.finish()
    routes = root / "routes.json"
    routes.write_text(json.dumps([{**SEED_ROUTE, "api": scenario.api, **scenario.route}]))
    paths = {"journals": journals, "sidecar": root / "history.sqlite", "routes": routes}
    if scenario.agent_config is not None:
        config = root / "agent-config.json"
        config.write_text(json.dumps(scenario.agent_config))
        paths["agent_config"] = config
    return paths
