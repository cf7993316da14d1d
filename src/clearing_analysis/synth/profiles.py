"""Corpus profiles: the knobs that steer a synthetic corpus toward or away from BUILD.

A profile is a frozen bundle of rates and distribution parameters; the generator never reads
anything else to decide what to plant. docs/synthetic-corpus.md describes each profile and
where the calibration figures come from. These are generator knobs for the project's own
tests and benchmarks, not analyzer policy, so they live here and not in `policy/`.
"""

from __future__ import annotations

import enum

import msgspec


class ProofMode(enum.StrEnum):
    """How DIR/agent-config.json proves (or fails to prove) built-in identities (R-EL-3)."""

    PERIOD = "period"  # one attestation object proving the read-only built-ins
    PER_RUN = "per_run"  # a per-run proof array; some runs deliberately have no proof
    UNPROVEN = "unproven"  # an attestation that enables no read-only built-in


class JournalPlan(enum.StrEnum):
    """What one logical conversation's journal file(s) are meant to be."""

    NORMAL = "normal"
    DUPLICATE_COPY = "duplicate_copy"  # normal + byte-identical copy (same journalId)
    RESUMED_COPY = "resumed_copy"  # normal + resumed copy (same physical id) of earlier turns
    FORK = "fork"  # normal + fork: new physical id, same lineage, copies earlier turns
    IMPORTED = "imported"
    INHERITED = "inherited"
    OPEN = "open"  # close record missing
    OPEN_TRUNCATED = "open_truncated"  # close missing and last line cut mid-write
    INTERRUPTED = "interrupted"  # last run ends with status interrupted
    UNENDED_RUN = "unended_run"  # a run never ended before close (also INTERRUPTED)
    INVALID_DECODE = "invalid_decode"  # a line that fails strict decoding
    INVALID_REFERENCE = "invalid_reference"  # a message for an already-ended run
    INVALID_TOOL_NAME = "invalid_tool_name"  # a toolResult naming another tool than its call
    UNSUPPORTED_VERSION = "unsupported_version"


# Every plan that writes a journal the replay stage should skip, with its skip outcome.
SKIP_OUTCOME: dict[JournalPlan, str] = {
    JournalPlan.IMPORTED: "IMPORTED",
    JournalPlan.INHERITED: "INHERITED",
    JournalPlan.OPEN: "OPEN",
    JournalPlan.OPEN_TRUNCATED: "OPEN",
    JournalPlan.INTERRUPTED: "INTERRUPTED",
    JournalPlan.UNENDED_RUN: "INTERRUPTED",
    JournalPlan.INVALID_DECODE: "INVALID",
    JournalPlan.INVALID_REFERENCE: "INVALID",
    JournalPlan.INVALID_TOOL_NAME: "INVALID",
    JournalPlan.UNSUPPORTED_VERSION: "UNSUPPORTED_VERSION",
}


class DefectRates(msgspec.Struct, frozen=True):
    """Per proven result: probability of each planted retention defect (mutually exclusive)."""

    missing: float = 0.0
    not_finalized: float = 0.0
    tombstone: float = 0.0
    integrity_mismatch: float = 0.0
    bytes_mismatch: float = 0.0
    digest_mismatch: float = 0.0
    text_mismatch: float = 0.0
    redacted: float = 0.0
    truncated: float = 0.0
    # The result's index entry points at a row whose identity columns are another call's.
    not_identity_linked: float = 0.0


class Phase(msgspec.Struct, frozen=True):
    """A stretch of prompt turns with its own tool mix and tool-loop length (`Profile.phases`).

    `turns` is how many prompt turns it lasts; the last phase of a profile lasts until the next
    compaction whatever its `turns`."""

    turns: int
    tool_weights: dict[str, float]
    steps_median: float


class Profile(msgspec.Struct, frozen=True):
    """All knobs of one corpus profile."""

    name: str
    # Prompt turns per conversation: lognormal median and sigma, clamped to [min, max].
    turns_median: float
    turns_sigma: float
    turns_min: int
    turns_max: int
    # Share of inter-turn user gaps longer than the 5-minute cache lifetime plus margin.
    cold_turn_gap_share: float
    # Tool weights (names from policy/tools.json classes, apps resolved in `toolmix`).
    tool_weights: dict[str, float]
    # Per tool with a sized result: median characters and lognormal sigma.
    result_sizes: dict[str, tuple[float, float]]
    # Multiplier on every tool's median result size.
    result_scale: float
    defects: DefectRates
    proof_mode: ProofMode
    # Journal plans drawn per conversation after the guaranteed ones (weights).
    plan_weights: dict[JournalPlan, float]
    # Plans placed first (interleaved with normal conversations) so small corpora have them.
    guaranteed_plans: tuple[JournalPlan, ...] = ()
    # Per-turn probabilities inside replayed journals.
    owner_missing_rate: float = 0.0
    unsupported_api_rate: float = 0.0
    reprompt_rate: float = 0.03
    no_request_turn_rate: float = 0.02
    failed_run_rate: float = 0.03
    aborted_run_rate: float = 0.03
    image_read_rate: float = 0.02
    error_result_rate: float = 0.05
    # Compaction threshold as a fraction of the context window, drawn per conversation.
    compaction_low: float = 0.75
    compaction_high: float = 0.85
    # App (MCP) tools: share with captured payload.origin, and among those the planted kinds.
    origin_capture_rate: float = 0.6
    repointed_digest_rate: float = 0.15
    # Per-run proofs: share of runs with no proof; share of proofs naming an MCP "grep".
    missing_proof_rate: float = 0.1
    colliding_proof_rate: float = 0.05
    guaranteed_boundary_skips: bool = False
    # Replayed conversations whose continuity capture starts mid-session, or never (no policy
    # row): their early (or all) boundaries lie outside the capture window (R-SIM-9).
    late_capture_rate: float = 0.0
    uncaptured_rate: float = 0.0
    guaranteed_defects: bool = False
    # Share of conversations without a same-physical-id copy (normal ones and forks) whose
    # writer numbers turns and runs per journal ("turn-1", "run-1", ...): run ids then repeat
    # across conversations, and per-run proofs must name their conversation (R-SIM-9).
    numbered_ids_rate: float = 0.0
    # Share of successful web results (web_fetch, web_search) whose envelope holds a fake
    # credential, and the share of those the writer redacts as web_envelope / json: replay
    # counts the redacted ones the guard still trips on as structuredScanLosses (R-SIM-9).
    credential_envelope_rate: float = 0.0
    credential_redaction_rate: float = 0.0
    # Small corpora get every R-SIM-9 shape at least once: the first two eligible conversations
    # number their ids (the first with no per-run proof at all, so that a proof matched by run
    # id alone would change the proven counts); the first web result of a counted boundary
    # holds a credential and is redacted.
    guaranteed_shapes: bool = False
    # The re-read habit (R-RF-1): the probability that a fetching call (read, grep, find, ls,
    # web_fetch) repeats the arguments of one of the session's earlier calls of that tool,
    # chosen uniformly. Calibrated on the public real pi sessions: 5 re-fetches of 216
    # comparable results, 2.3% (docs/synthetic-corpus.md). Other repeats are not left to
    # chance: a call drawn equal to an earlier one gets a fresh path (ToolRunner).
    reread_rate: float = 0.023
    # Tool-loop length per run: lognormal median steps (sigma 0.9), clamped to [1, 60].
    steps_median: float = 4.0
    # A bash call's run time: lognormal median (ms) and sigma; other tools take under a second.
    bash_ms_median: float = 2_500.0
    bash_ms_sigma: float = 1.5
    # Sessions that work in phases: from the session's start and again after every compaction,
    # its prompt turns go through these phases in order (e.g. read what the task needs, then
    # edit and test until the context fills up); each phase's tool mix and loop length replace
    # `tool_weights` and `steps_median` for its turns. Empty: every turn draws from those two.
    phases: tuple[Phase, ...] = ()
    # The APIs conversations use (all four when empty), in the corpus's rotating order.
    apis: tuple[str, ...] = ()


_CODING_MIX: dict[str, float] = {
    "read": 30.0,
    "grep": 12.0,
    "find": 5.0,
    "ls": 5.0,
    "bash": 22.0,
    "edit": 12.0,
    "write": 4.0,
    "web_fetch": 3.0,
    "app": 7.0,
}

# `mixed` follows real pi history (docs/synthetic-corpus.md, "Calibration against real
# history"): 81% of the real results come from bash, edit and write, 19% from read, none from
# tools outside pi's default set. Those tools keep a small weight, since `mixed` must still
# plant every shape that needs them (grep collisions, proven find/ls, web envelopes, MCP
# origins).
_MIXED_MIX: dict[str, float] = {
    "read": 15.0,
    "grep": 2.0,
    "find": 1.0,
    "ls": 1.0,
    "bash": 46.0,
    "edit": 29.0,
    "write": 2.0,
    "web_fetch": 1.0,
    "app": 3.0,
}

_BUILD_MIX: dict[str, float] = {
    "read": 48.0,
    "grep": 14.0,
    "find": 6.0,
    "ls": 6.0,
    "bash": 12.0,
    "edit": 8.0,
    "write": 2.0,
    "web_fetch": 1.0,
    "app": 3.0,
}

# Median result characters and lognormal sigma per tool (before the profile's `result_scale`),
# tuned so that tool results are ~81% of message tokens, the published figure
# (docs/synthetic-corpus.md, "Calibration"). Every profile but `mixed` keeps them.
_PUBLISHED_SIZES: dict[str, tuple[float, float]] = {
    "read": (5_000, 1.1),
    "grep": (1_400, 1.3),
    "find": (700, 1.0),
    "ls": (420, 0.8),
    "bash": (900, 1.6),
    "web_fetch": (6_000, 0.9),
    "docs_search": (2_500, 0.9),
    "issue_get": (1_800, 0.8),
    "web_search": (3_000, 0.7),
    "db_query": (1_500, 1.2),
}

# `mixed` on real pi history: the two public sessions' read results have a median of 1,985
# bytes, their bash results 180, with spreads the published sigmas already match; these
# medians make the generated ones land there (1,904 and 188 bytes on seed 1). The tools those
# sessions never call keep their published sizes.
_MIXED_SIZES: dict[str, tuple[float, float]] = {
    **_PUBLISHED_SIZES,
    "read": (2_200, 1.1),
    "bash": (190, 1.6),
}

_NO_PLANS: dict[JournalPlan, float] = {JournalPlan.NORMAL: 1.0}

# `read-then-edit`: a task starts (at the session's start and again after every compaction,
# when the summary has replaced the file contents) with turns that read the large files it
# needs, then turns that edit and test in many small steps until the context fills up.
_READING_MIX: dict[str, float] = {
    "read": 70.0,
    "grep": 12.0,
    "find": 4.0,
    "ls": 4.0,
    "bash": 6.0,
    "web_fetch": 2.0,
    "app": 2.0,
}
_EDITING_MIX: dict[str, float] = {
    "read": 4.0,
    "grep": 4.0,
    "ls": 2.0,
    "bash": 40.0,
    "edit": 45.0,
    "write": 5.0,
}
# Whole source files: a median read of 36,000 characters, most between 23,000 and 56,000
# (pi's read tool cuts at 50 KB, `toolmix.cap_output`).
_LARGE_READ_SIZES: dict[str, tuple[float, float]] = {**_PUBLISHED_SIZES, "read": (36_000, 0.35)}

_MIXED_PLANS: dict[JournalPlan, float] = {
    JournalPlan.NORMAL: 70.0,
    JournalPlan.DUPLICATE_COPY: 4.0,
    JournalPlan.RESUMED_COPY: 6.0,
    JournalPlan.FORK: 4.0,
    JournalPlan.IMPORTED: 2.0,
    JournalPlan.INHERITED: 2.0,
    JournalPlan.OPEN: 2.0,
    JournalPlan.OPEN_TRUNCATED: 2.0,
    JournalPlan.INTERRUPTED: 3.0,
    JournalPlan.UNENDED_RUN: 2.0,
    JournalPlan.INVALID_DECODE: 2.0,
    JournalPlan.INVALID_REFERENCE: 2.0,
    JournalPlan.INVALID_TOOL_NAME: 2.0,
    JournalPlan.UNSUPPORTED_VERSION: 3.0,
}

# The two copy shapes come first so that even a 4-conversation corpus has a resumed copy and a
# fork (the golden corpus of tests/golden has 6).
_GUARANTEED_PLANS: tuple[JournalPlan, ...] = (
    JournalPlan.RESUMED_COPY,
    JournalPlan.FORK,
    JournalPlan.DUPLICATE_COPY,
    JournalPlan.IMPORTED,
    JournalPlan.OPEN,
    JournalPlan.INTERRUPTED,
    JournalPlan.INVALID_DECODE,
    JournalPlan.UNSUPPORTED_VERSION,
    JournalPlan.INHERITED,
    JournalPlan.OPEN_TRUNCATED,
    JournalPlan.INVALID_REFERENCE,
    JournalPlan.UNENDED_RUN,
    JournalPlan.INVALID_TOOL_NAME,
)

_MIXED_DEFECTS = DefectRates(
    missing=0.03,
    not_finalized=0.02,
    tombstone=0.02,
    integrity_mismatch=0.01,
    bytes_mismatch=0.01,
    digest_mismatch=0.01,
    text_mismatch=0.01,
    redacted=0.08,
    truncated=0.04,
    not_identity_linked=0.01,
)

# Ordinary coding sessions under a period attestation: the base the single-knob profiles vary.
_CODING_SESSIONS = Profile(
    name="coding",
    turns_median=14.0,
    turns_sigma=0.7,
    turns_min=6,
    turns_max=120,
    cold_turn_gap_share=0.5,
    tool_weights=_CODING_MIX,
    result_sizes=_PUBLISHED_SIZES,
    result_scale=1.0,
    defects=DefectRates(missing=0.02, redacted=0.03, truncated=0.02),
    proof_mode=ProofMode.PERIOD,
    plan_weights=_NO_PLANS,
)

# Long sessions of large proven reads, many cold gaps and few defects (docs/synthetic-corpus.md).
_BUILD = Profile(
    name="build",
    turns_median=34.0,
    turns_sigma=0.3,
    turns_min=26,
    turns_max=80,
    cold_turn_gap_share=0.7,
    tool_weights=_BUILD_MIX,
    result_sizes=_PUBLISHED_SIZES,
    result_scale=2.0,
    defects=DefectRates(missing=0.01, redacted=0.02, truncated=0.01),
    proof_mode=ProofMode.PERIOD,
    plan_weights=_NO_PLANS,
    reprompt_rate=0.01,
    no_request_turn_rate=0.0,
    failed_run_rate=0.01,
    aborted_run_rate=0.01,
    error_result_rate=0.03,
    compaction_low=0.795,
    compaction_high=0.8,
    origin_capture_rate=0.9,
    repointed_digest_rate=0.0,
    steps_median=5.5,
)

PROFILES: dict[str, Profile] = {
    "mixed": Profile(
        name="mixed",
        turns_median=14.0,
        turns_sigma=0.8,
        turns_min=6,
        turns_max=160,
        # 4 of the 140 real turn gaps outlive the prompt cache.
        cold_turn_gap_share=0.03,
        tool_weights=_MIXED_MIX,
        result_sizes=_MIXED_SIZES,
        result_scale=1.0,
        # Bash is half of the calls now: its run time keeps the loop gaps near the real ones.
        bash_ms_median=1_500.0,
        bash_ms_sigma=1.0,
        defects=_MIXED_DEFECTS,
        proof_mode=ProofMode.PER_RUN,
        plan_weights=_MIXED_PLANS,
        guaranteed_plans=_GUARANTEED_PLANS,
        owner_missing_rate=0.02,
        unsupported_api_rate=0.02,
        guaranteed_boundary_skips=True,
        late_capture_rate=0.08,
        uncaptured_rate=0.03,
        guaranteed_defects=True,
        numbered_ids_rate=0.3,
        credential_envelope_rate=0.15,
        credential_redaction_rate=0.6,
        guaranteed_shapes=True,
    ),
    "build": _BUILD,
    # Long single-API sessions that read large files for a task, then edit and test in many
    # small steps (docs/synthetic-corpus.md): the history shape that clearing helps, and the
    # demo's second part.
    "read-then-edit": msgspec.structs.replace(
        _BUILD,
        name="read-then-edit",
        turns_median=60.0,
        turns_min=42,
        turns_max=120,
        cold_turn_gap_share=0.8,
        tool_weights=_EDITING_MIX,
        result_sizes=_LARGE_READ_SIZES,
        result_scale=1.0,
        phases=(Phase(6, _READING_MIX, 1.5), Phase(1, _EDITING_MIX, 12.0)),
        apis=("openai-responses",),
    ),
    "warm": msgspec.structs.replace(_CODING_SESSIONS, name="warm", cold_turn_gap_share=0.02),
    "redacted": msgspec.structs.replace(
        _CODING_SESSIONS,
        name="redacted",
        defects=DefectRates(missing=0.02, redacted=0.8, truncated=0.04),
    ),
    "unproven": msgspec.structs.replace(
        _CODING_SESSIONS,
        name="unproven",
        proof_mode=ProofMode.UNPROVEN,
        origin_capture_rate=0.0,
    ),
}

DEFAULT_PROFILE = "mixed"
