"""Write a whole synthetic corpus directory, one logical conversation at a time.

Layout (docs/synthetic-corpus.md): DIR/journals/*.jsonl (a native root), DIR/history.sqlite,
DIR/routes.json, DIR/agent-config.json, DIR/app-allowlist.json, DIR/ground-truth.json.
Guarantees: DIR must not exist (OUTPUT_REFUSED otherwise, R-FS-6); output is a pure function of
(seed, size, profile) because every random draw comes from streams seeded by `seed` alone (the
main one, capture plans, the R-SIM-9 shapes); memory stays flat because only the current
conversation's lines (and a copy's) are held.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from clearing_analysis.codes.errors import OutputRefusedDetail, OutputRefusedError
from clearing_analysis.inputs.configs import Api
from clearing_analysis.synth.apis import CACHE_LIFETIME_MS, CACHE_MARGIN_MS, SUPPORTED, ApiSpec
from clearing_analysis.synth.manifest import GroundTruth
from clearing_analysis.synth.profiles import PROFILES, SKIP_OUTCOME, JournalPlan, Profile
from clearing_analysis.synth.proofs import ProofWriter
from clearing_analysis.synth.retention import DefectPlanter
from clearing_analysis.synth.session import Session, Shared, Snapshot
from clearing_analysis.synth.sidecar import SidecarWriter
from clearing_analysis.synth.textpool import TextPools
from clearing_analysis.synth.toolmix import ToolRunner

CORPUS_EPOCH_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z: capture enabled from here on
BUDGET_BYTES = 8 * 1024 * 1024  # the per-conversation retention budget (R-SIM-4)
SKIPPED_JOURNAL_TURNS = 6
# Plans whose journals replay (their boundaries count).
REPLAYED_PLANS = (
    JournalPlan.NORMAL,
    JournalPlan.DUPLICATE_COPY,
    JournalPlan.RESUMED_COPY,
    JournalPlan.FORK,
)


class CorpusSummary(msgspec.Struct, frozen=True):
    """Counts only: safe to print (R-OUT-1)."""

    conversations: int
    journal_files: int
    replayed_journals: int
    journal_bytes: int


def _route(spec: ApiSpec) -> dict[str, Any]:
    p_in, p_read, p_write, p_out = spec.prices
    return {
        "api": spec.api,
        "triggerTokens": int(spec.window * 0.8),
        "drainTokens": 30_000,
        "summaryInputTokens": 40_000,
        "summaryOutputTokens": 2_000,
        "cacheLifetimeMs": CACHE_LIFETIME_MS,
        "cacheMarginMs": CACHE_MARGIN_MS,
        "prices": {"input": p_in, "cacheRead": p_read, "cacheWrite": p_write, "output": p_out},
        "quota": {"input": 1, "cacheRead": 0.1, "cacheWrite": 1.25, "output": 5},
        "quotaBudget": 100_000_000,
    }


def _plans(profile: Profile, rng: random.Random) -> Iterator[JournalPlan]:
    """Guaranteed plans interleaved with normal ones, then plans drawn by weight."""
    for plan in profile.guaranteed_plans:
        yield JournalPlan.NORMAL
        yield plan
    names = list(profile.plan_weights)
    weights = list(profile.plan_weights.values())
    while True:
        yield rng.choices(names, weights=weights)[0]


def _corrupt(lines: list[bytes], rng: random.Random) -> None:
    """Break one middle line so that strict decoding fails (INVALID)."""
    index = rng.randint(1, len(lines) - 2)
    variant = rng.randrange(4)
    line = lines[index]
    if variant == 0:
        lines[index] = b'{"seq":%d,' % index + line[1:]  # DUPLICATE_KEY
    elif variant == 1:
        del lines[index]  # SEQ_NOT_MONOTONIC
    elif variant == 2:
        lines[index] = line[: len(line) // 2] + b"\n"  # MALFORMED_JSON
    else:
        lines[index] = b'{"kind":"telemetry","seq":%d}\n' % index  # UNKNOWN_RECORD_KIND


class CorpusWriter:
    """Holds the corpus-wide writers and the clock; writes conversation after conversation."""

    def __init__(self, out: Path, seed: int, profile: Profile) -> None:
        self.out = out
        self.profile = profile
        # One seeded stream for everything (not for security): same seed, same bytes.
        self.rng = random.Random(seed)  # noqa: S311
        # Capture plans draw from their own stream, so adding them left every other draw of
        # existing corpora unchanged (their golden counts change only where capture does).
        self.capture_rng = random.Random(f"{seed}:capture")  # noqa: S311
        # Likewise for the shapes added for R-SIM-9 (forks, numbered ids, credential
        # envelopes, a forced compaction): profiles without them never draw from it.
        self.shape_rng = random.Random(f"{seed}:shapes")  # noqa: S311
        rng = self.rng
        pools = TextPools.build(rng)
        tools = ToolRunner(
            rng,
            pools,
            weights=profile.tool_weights,
            sizes=profile.result_sizes,
            scale=profile.result_scale,
            error_rate=profile.error_result_rate,
            image_rate=profile.image_read_rate,
            origin_rate=profile.origin_capture_rate,
            repointed_rate=profile.repointed_digest_rate,
            shape_rng=self.shape_rng,
            reread_rate=profile.reread_rate,
            # The re-read habit draws from its own stream: every other draw stays as it was.
            habit_rng=random.Random(f"{seed}:habit"),  # noqa: S311
        )
        self.proofs = ProofWriter(out, profile, rng)
        planter = DefectPlanter(rng, profile.defects, profile.guaranteed_defects)
        self.shared = Shared(rng, self.shape_rng, pools, profile, tools, self.proofs, planter)
        self.shared.force_owner_missing = profile.guaranteed_boundary_skips
        self.shared.force_unsupported_api = profile.guaranteed_boundary_skips
        self.shared.force_late_capture = profile.guaranteed_boundary_skips
        self.shared.force_credential = profile.guaranteed_shapes
        self.shared.force_manual_compaction = profile.guaranteed_shapes
        self.sidecar = SidecarWriter(out / "history.sqlite")
        self.truth = GroundTruth(seed=seed, profile=profile.name)
        self.apis = list(SUPPORTED)
        rng.shuffle(self.apis)
        if profile.apis:
            # Filtered after the shuffle, so that profiles using all four draw as before.
            self.apis = [spec for spec in self.apis if spec.api in profile.apis]
        self.plans = _plans(profile, rng)
        self.clock = CORPUS_EPOCH_MS + rng.randint(3_600_000, 86_400_000)
        self.conversations = 0
        self.journal_bytes = 0
        self.numbered_conversations = 0

    def _write(self, name: str, lines: list[bytes]) -> None:
        with (self.out / "journals" / name).open("xb") as stream:
            stream.writelines(lines)
        self.journal_bytes += sum(len(line) for line in lines)

    def _plan_capture(self, session: Session, plan: JournalPlan, turns: int) -> None:
        """When continuity capture starts for this conversation (R-SIM-9, planted skips)."""
        profile, rng = self.profile, self.capture_rng
        if plan not in REPLAYED_PLANS or turns < 2:
            return
        if self.shared.force_late_capture:
            self.shared.force_late_capture = False
            session.capture_from_turn = 2
        elif profile.uncaptured_rate and rng.random() < profile.uncaptured_rate:
            session.capture_from_turn = None
        elif profile.late_capture_rate and rng.random() < profile.late_capture_rate:
            session.capture_from_turn = rng.randint(1, turns - 1)

    def _plan_ids(self, session: Session, plan: JournalPlan) -> None:
        """Whether this conversation's writer numbers turns and runs per journal (R-SIM-9).

        Only conversations without a same-physical-id copy: a resumed copy numbering its own
        runs per file would repeat its parent's run ids within one physical conversation.
        """
        profile = self.profile
        if plan not in (JournalPlan.NORMAL, JournalPlan.FORK) or not profile.numbered_ids_rate:
            return
        forced = profile.guaranteed_shapes and self.numbered_conversations < 2
        if forced or self.shape_rng.random() < profile.numbered_ids_rate:
            session.numbered = True
            # The first one has no per-run proof: a proof found by run id alone would then
            # prove its runs through another conversation's proof of the same run id.
            session.withhold_proofs = forced and self.numbered_conversations == 0
            self.numbered_conversations += 1

    def conversation(self) -> None:
        """Simulate and write one logical conversation (1 or 2 journal files)."""
        rng, profile, index = self.rng, self.profile, self.conversations
        self.conversations += 1
        # Every block of four conversations covers the four APIs once, in a rotating order,
        # so any 4k conversations hold k per API (and skip plans land on every API).
        spec = self.apis[(index + index // 4) % len(self.apis)]
        plan = next(self.plans)
        self.truth.apis_present.add(spec.api)
        self.clock += int(rng.lognormvariate(math.log(3_600_000), 1.2))
        ids = (
            f"journal-{rng.getrandbits(96):024x}",
            f"pc-{rng.getrandbits(96):024x}",
            f"lc-{rng.getrandbits(96):024x}",
        )
        session = Session(self.shared, spec, ids, self.clock)
        session.counting = plan in REPLAYED_PLANS
        origin = {JournalPlan.IMPORTED: "imported", JournalPlan.INHERITED: "inherited"}
        version = 3 if plan is JournalPlan.UNSUPPORTED_VERSION else 2
        session.start(origin.get(plan, "native"), version)
        turns = int(rng.lognormvariate(math.log(profile.turns_median), profile.turns_sigma))
        turns = max(profile.turns_min, min(profile.turns_max, turns))
        if plan not in REPLAYED_PLANS:
            turns = min(turns, SKIPPED_JOURNAL_TURNS)  # they only need to exist, not be long
        self._plan_capture(session, plan, turns)
        self._plan_ids(session, plan)
        fork_after = -1
        if plan is JournalPlan.RESUMED_COPY:
            fork_after = rng.randint(1, turns - 3)
        elif plan is JournalPlan.FORK:
            fork_after = self.shape_rng.randint(1, turns - 3)
        snapshot = None
        for turn in range(turns):
            session.turn(plan, last=turn == turns - 1)
            if turn == fork_after:
                snapshot = session.snapshot()
        if plan not in (JournalPlan.OPEN, JournalPlan.OPEN_TRUNCATED):
            session.close()
        lines = session.lines
        if plan is JournalPlan.OPEN_TRUNCATED:
            lines[-1] = lines[-1][: max(1, len(lines[-1]) // 2)]
        elif plan is JournalPlan.INVALID_DECODE:
            _corrupt(lines, rng)
        stem = f"{index:06d}"
        self._write(f"{stem}-0.jsonl", lines)
        if plan in REPLAYED_PLANS:
            self.truth.replayed(session.tally)
        else:
            self.truth.skipped(SKIP_OUTCOME[plan])
        self.sidecar.add(session.rows)
        if session.capture_from_turn is not None:
            since = CORPUS_EPOCH_MS if session.capture_from_turn == 0 else session.capture_since
            assert since is not None  # set when the session reached capture_from_turn
            self.sidecar.policy(session.physical_id, since, BUDGET_BYTES)
        if plan is JournalPlan.DUPLICATE_COPY:
            self._write(f"{stem}-1.jsonl", lines)
            self.truth.skipped("DUPLICATE")
        elif snapshot is not None:
            self._copy(session, plan, snapshot, stem)
        self.clock = max(self.clock, session.now)

    def _copy(self, session: Session, plan: JournalPlan, snapshot: Snapshot, stem: str) -> None:
        """The second journal of a resumed copy or a fork, continued with 2-8 own turns."""
        physical_id = None
        if plan is JournalPlan.RESUMED_COPY:
            rng = self.rng
            journal_id = f"journal-{rng.getrandbits(96):024x}"
        else:
            rng = self.shape_rng
            journal_id = f"journal-{rng.getrandbits(96):024x}"
            physical_id = f"pc-{rng.getrandbits(96):024x}"
        session.fork(snapshot, journal_id, rng, physical_id)
        for turn in range(extra := rng.randint(2, 8)):
            session.turn(plan, last=turn == extra - 1)
        session.close()
        self._write(f"{stem}-1.jsonl", session.lines)
        self.truth.replayed(session.tally)
        self.sidecar.add(session.rows)
        if physical_id is not None:
            # The fork's own capture policy starts when the fork does.
            assert session.capture_since is not None  # set by fork()
            self.sidecar.policy(physical_id, session.capture_since, BUDGET_BYTES)

    def finish(self) -> CorpusSummary:
        """Close the sidecar and proofs; write routes.json and ground-truth.json."""
        self.sidecar.close()
        self.proofs.close()
        encoder = msgspec.json.Encoder()
        routes = [_route(spec) for api in Api for spec in SUPPORTED if spec.api == api.value]
        routes = [route for route in routes if route["api"] in self.truth.apis_present]
        (self.out / "routes.json").write_bytes(encoder.encode(routes) + b"\n")
        truth = msgspec.json.format(encoder.encode(self.truth.to_json()), indent=2)
        (self.out / "ground-truth.json").write_bytes(truth + b"\n")
        return CorpusSummary(
            conversations=self.conversations,
            journal_files=self.truth.journal_files,
            replayed_journals=self.truth.replayed_journals,
            journal_bytes=self.journal_bytes,
        )


def generate(
    out: Path,
    seed: int,
    *,
    conversations: int | None = None,
    size_mb: float | None = None,
    profile: str = "mixed",
) -> CorpusSummary:
    """Write a corpus to the new directory `out`; exactly one of conversations / size_mb."""
    if (conversations is None) == (size_mb is None):
        raise RuntimeError("give exactly one of conversations or size_mb")
    chosen = PROFILES.get(profile)
    if chosen is None:
        raise RuntimeError("unknown profile")
    try:
        out.mkdir()  # exclusive: an existing path (or symlink) is refused, never reused
        (out / "journals").mkdir()
    except OSError:
        raise OutputRefusedError(OutputRefusedDetail.SYNTH_OUT_EXISTS) from None
    writer = CorpusWriter(out, seed, chosen)
    target = None if size_mb is None else int(size_mb * 1_000_000)
    while (
        writer.conversations < conversations
        if conversations is not None
        else writer.journal_bytes < (target or 0)
    ):
        writer.conversation()
    return writer.finish()
