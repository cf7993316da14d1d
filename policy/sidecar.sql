-- Tool-history sidecar ("continuity storage"), schema version 1.
-- Normative description: docs/formats/sidecar.md. The analyzer opens it read-only and
-- immutable; it must be checkpointed (rollback-journal mode, no -wal/-shm/-journal companion).

CREATE TABLE sidecar_meta (
    key   TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
) STRICT;
-- Required row: ('schema_version', '1').

-- One row per physical conversation whose results the writer captures.
CREATE TABLE conversation_policy (
    physical_conversation_id TEXT PRIMARY KEY NOT NULL,
    capture_enabled_since    INTEGER NOT NULL CHECK (capture_enabled_since >= 0), -- ms epoch
    budget_bytes             INTEGER NOT NULL CHECK (budget_bytes >= 0)
) STRICT;

-- Retained tool results, keyed by finalized tool identity.
CREATE TABLE retained_result (
    row_id                   INTEGER PRIMARY KEY,
    physical_conversation_id TEXT NOT NULL,
    host_turn_id             TEXT NOT NULL,
    run_id                   TEXT NOT NULL,
    call_id                  TEXT NOT NULL,
    state                    TEXT NOT NULL CHECK (state IN ('committed', 'finalized')),
    byte_length              INTEGER NOT NULL CHECK (byte_length >= 0),  -- UTF-8 bytes of the original text
    sha256                   BLOB NOT NULL CHECK (length(sha256) = 32),  -- of the original text
    text                     TEXT,           -- complete retained text; NULL when tombstoned
    redacted                 INTEGER NOT NULL CHECK (redacted IN (0, 1)),
    truncated                INTEGER NOT NULL CHECK (truncated IN (0, 1)),
    tombstone                INTEGER NOT NULL CHECK (tombstone IN (0, 1)),
    integrity                TEXT NOT NULL CHECK (integrity IN ('ok', 'mismatch')),
    captured_at              INTEGER NOT NULL CHECK (captured_at >= 0),  -- ms epoch
    -- Captured MCP origin (all NULL when the writer captured none, as native writers do today).
    origin_server            TEXT,
    origin_tool              TEXT,
    origin_server_identity_digest TEXT,
    origin_read_only_hint    INTEGER CHECK (origin_read_only_hint IN (0, 1)),
    origin_destructive_hint  INTEGER CHECK (origin_destructive_hint IN (0, 1)),
    UNIQUE (physical_conversation_id, host_turn_id, run_id, call_id)
) STRICT;

-- Committed ID index: finalized tool id -> retained row.
-- finalized_id = lowercase hex SHA-256 of the UTF-8 JSON array
-- [physical_conversation_id, host_turn_id, run_id, call_id] (compact separators, no escaping
-- of non-ASCII); see clearing_analysis.identity.finalized_tool_id.
CREATE TABLE committed_id_index (
    finalized_id TEXT PRIMARY KEY NOT NULL CHECK (length(finalized_id) = 64),
    row_id       INTEGER NOT NULL REFERENCES retained_result (row_id)
) STRICT;
