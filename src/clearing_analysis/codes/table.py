"""Every fixed code clearing-analysis prints, in one table: its kind, meaning and remedy.

Guarantees (R-OUT-1, R-CLI-3):
- A refusal is one class of the error hierarchy (`clearing_analysis.codes.errors`) with a code and a
  detail enum. `CODE_MEANINGS` gives each code's own meaning; `MEANINGS` and `REMEDIES` map
  every (code, detail) pair to one fixed sentence saying what happened and one saying what to
  do. A test proves they cover every member of every class's detail enum and nothing else;
  docs/exit-codes.md shows the same sentences (tests/test_docs.py checks both ways).
- `REPORT_CODES` gives each code a report, its human view or its log carries (verdicts, DEFER
  and STOP reasons, criterion details, qualification, limitations, skip and exclusion reasons,
  tool classes, retrieval-rate labels, ...) its meaning and what to do, keyed by (kind, code),
  as docs/model.md lists them ("Codes in the report").
- `RUN_LINES` explains the lines a run prints that are neither a refusal nor a report code:
  `INTERRUPTED` (Ctrl-C or SIGTERM, exit 130; docs/exit-codes.md).
- `TABLE` is the one table `explain` reads: every entry above as a `Code` (name as printed,
  kind, meaning, remedy), in the order docs list them.
- Every text is fixed: it names our own options, files and documentation pages, never a value
  from an input, an argument, a path, an id or an exception message. Text is Markdown as the
  pages show it: a code span stands for a literal word (`explain` prints it plain). In a
  USAGE_ERROR remedy, `<option>` stands for the options the error names
  (`UsageError.options`, taken from the command's own declaration, never from what was typed);
  without any, it reads "the option".
- `failure_line` is the only formatter of a failure: `clearing-analysis: <CODE> <DETAIL>:
  <remedy>` and a newline. The CLI (`cli._exit`) and the image's entrypoint
  (`container.entrypoint`) both print through it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import msgspec

from clearing_analysis.codes.errors import (
    AnalysisError,
    FaultDetail,
    InputInvalidDetail,
    InputInvalidError,
    MountContractDetail,
    MountContractError,
    NoJournalsDetail,
    NoJournalsError,
    OutputRefusedDetail,
    OutputRefusedError,
    QualificationDetail,
    QualificationError,
    SidecarNotOfflineDetail,
    SidecarNotOfflineError,
    SigningKeyDetail,
    SigningKeyError,
    SnapshotChangedDetail,
    SnapshotChangedError,
    UsageDetail,
    UsageError,
    VerifyDetail,
    VerifyError,
)

PROGRAM = "clearing-analysis"

_FAULT = AnalysisError.code
_INPUT = InputInvalidError.code
_NO_JOURNALS = NoJournalsError.code
_OFFLINE = SidecarNotOfflineError.code
_SNAPSHOT = SnapshotChangedError.code
_OUTPUT = OutputRefusedError.code
_QUALIFIER = QualificationError.code
_MOUNT = MountContractError.code
_USAGE = UsageError.code
_KEY = SigningKeyError.code
_VERIFY = VerifyError.code

_I = InputInvalidDetail  # a short alias: the table below is long

CODE_MEANINGS: Mapping[str, str] = {
    _INPUT: "An input is missing, of the wrong kind, malformed or contradictory.",
    _NO_JOURNALS: (
        "The journal (or, for `explore`, session) selection is empty, or none of its files replays."
    ),
    _OFFLINE: (
        "The sidecar is not a checkpointed offline copy (R-SC-1, R-SC-2), checked before "
        "SQLite opens it."
    ),
    _SNAPSHOT: (
        "An input changed between the snapshot taken before replay and the one after (R-FS-7)."
    ),
    _OUTPUT: (
        "`--out`, `--log-file`, `synth --out`, `keygen --out` (and its `.pub`) or a signed "
        "report's attestation (`--out` plus `.intoto.jsonl`) cannot be created safely "
        "(R-FS-1..6)."
    ),
    _QUALIFIER: "The qualifier could not run the installed pi-ai builders (qualification.md).",
    _MOUNT: (
        "The image's entrypoint found, before running any command, that the container breaks "
        "the mount contract (R-CT-2; container.md)."
    ),
    _KEY: "The private key given to `--sign-key` cannot sign (attestation.md).",
    _VERIFY: "`verify` does not accept the report (attestation.md).",
    _USAGE: "The command line does not fit the command (any command, the root included).",
    _FAULT: "An unexpected internal error.",
}

MEANINGS: Mapping[tuple[str, str], str] = {
    # INPUT_INVALID.
    (
        _INPUT,
        _I.JOURNALS_MISSING,
    ): "a `--journals` argument does not exist (or is a dangling symlink)",
    (
        _INPUT,
        _I.JOURNALS_NOT_FILE_OR_DIRECTORY,
    ): "a `--journals` argument is a FIFO, device or socket",
    (_INPUT, _I.JOURNALS_UNREADABLE): (
        "a selected journal file cannot be opened for reading, or a directory inside the walk"
        " cannot be listed or stat'ed"
    ),
    (
        _INPUT,
        _I.NATIVE_ROOT_NOT_JOURNALS,
    ): (
        "a walked `--journals` directory holds native-root state: `legacy-imports`, "
        "`aliases`, `retired`, `history.sqlite` or its companions"
    ),
    (
        _INPUT,
        _I.SESSIONS_MISSING,
    ): "a `--sessions` argument does not exist (or is a dangling symlink)",
    (
        _INPUT,
        _I.SESSIONS_NOT_FILE_OR_DIRECTORY,
    ): "a `--sessions` argument is a FIFO, device or socket",
    (_INPUT, _I.SESSIONS_UNREADABLE): (
        "a selected session file cannot be opened for reading, or a directory inside the walk"
        " cannot be listed or stat'ed"
    ),
    (_INPUT, _I.SIDECAR_MISSING): "the `--sidecar` path does not exist (or is a dangling symlink)",
    (
        _INPUT,
        _I.SIDECAR_NOT_FILE,
    ): "the `--sidecar` path is not a regular file (a directory, FIFO, …)",
    (_INPUT, _I.ROUTES_MISSING): "the `--routes` path does not exist (or is a dangling symlink)",
    (
        _INPUT,
        _I.ROUTES_NOT_FILE,
    ): "the `--routes` path is not a regular file (a directory, FIFO, …)",
    (
        _INPUT,
        _I.QUALIFICATION_MISSING,
    ): "the `--qualification` path does not exist (or is a dangling symlink)",
    (
        _INPUT,
        _I.QUALIFICATION_NOT_FILE,
    ): "the `--qualification` path is not a regular file (a directory, FIFO, …)",
    (
        _INPUT,
        _I.AGENT_CONFIG_MISSING,
    ): "the `--agent-config` path does not exist (or is a dangling symlink)",
    (
        _INPUT,
        _I.AGENT_CONFIG_NOT_FILE,
    ): "the `--agent-config` path is not a regular file (a directory, FIFO, …)",
    (
        _INPUT,
        _I.APP_ALLOWLIST_MISSING,
    ): "the `--app-allowlist` path does not exist (or is a dangling symlink)",
    (
        _INPUT,
        _I.APP_ALLOWLIST_NOT_FILE,
    ): "the `--app-allowlist` path is not a regular file (a directory, FIFO, …)",
    (_INPUT, _I.SIDECAR_UNREADABLE): "the sidecar or its directory cannot be read",
    (_INPUT, _I.SIDECAR_NOT_SQLITE): "shorter than 100 bytes, or no `SQLite format 3` header",
    (
        _INPUT,
        _I.SIDECAR_SCHEMA,
    ): (
        "a required table or the schema-version row is missing, the body is corrupt, or a "
        "value breaks the DDL's types"
    ),
    (_INPUT, _I.SIDECAR_DAMAGED): (
        "the schema is there but the file's structure is damaged: `PRAGMA quick_check` (pages,"
        " cells, freelist, record formats) does not answer `ok`"
    ),
    (_INPUT, _I.SIDECAR_COMPUTED_SCHEMA): (
        "the schema has a view, a trigger, a virtual table or a generated column: something"
        " that computes values when read, which no sidecar writer makes"
    ),
    (_INPUT, _I.SIDECAR_VALUE_TOO_LARGE): (
        "a value read from the sidecar is longer than `maxSidecarValueBytes` (64 MiB), the"
        " longest text a journal line can hold"
    ),
    (_INPUT, _I.ROUTES_UNREADABLE): "the `--routes` file cannot be opened or read",
    (
        _INPUT,
        _I.ROUTES_TOO_LARGE,
    ): "the `--routes` file is larger than `maxConfigFileBytes` (16 MiB)",
    (
        _INPUT,
        _I.ROUTES_INVALID_UTF8,
    ): "the `--routes` file is not valid UTF-8, or escapes a lone surrogate",
    (
        _INPUT,
        _I.ROUTES_MALFORMED_JSON,
    ): "the `--routes` file is not one JSON document (syntax, empty, BOM, trailing data)",
    (_INPUT, _I.ROUTES_DUPLICATE_KEY): "an object in the `--routes` file repeats a key",
    (
        _INPUT,
        _I.ROUTES_NON_FINITE_NUMBER,
    ): "the `--routes` file holds `NaN`, `Infinity` or an overflowing number",
    (
        _INPUT,
        _I.ROUTES_NUMBER_OUT_OF_RANGE,
    ): "the `--routes` file holds an integer literal too long to convert",
    (
        _INPUT,
        _I.ROUTES_NESTING_TOO_DEEP,
    ): "the `--routes` file nests deeper than `maxNestingDepth` (64)",
    (_INPUT, _I.ROUTES_WRONG_SHAPE): "the `--routes` file does not have the documented shape",
    (_INPUT, _I.ROUTES_EMPTY): "the routes array is empty",
    (_INPUT, _I.ROUTES_DUPLICATE_API): "two routes entries name the same `api`",
    (_INPUT, _I.ROUTES_VALUE_OUT_OF_RANGE): (
        "a number of the `--routes` file lies outside the range routes.md states for it (tokens"
        " at most 10^9, durations at most 10^12 ms, each weight 0 or from 10^-12 to 10^12,"
        " quotaBudget from 10^-12 to 10^18)"
    ),
    (_INPUT, _I.AGENT_CONFIG_UNREADABLE): "the `--agent-config` file cannot be opened or read",
    (
        _INPUT,
        _I.AGENT_CONFIG_TOO_LARGE,
    ): "the `--agent-config` file is larger than `maxConfigFileBytes` (16 MiB)",
    (
        _INPUT,
        _I.AGENT_CONFIG_INVALID_UTF8,
    ): "the `--agent-config` file is not valid UTF-8, or escapes a lone surrogate",
    (
        _INPUT,
        _I.AGENT_CONFIG_MALFORMED_JSON,
    ): "the `--agent-config` file is not one JSON document (syntax, empty, BOM, trailing data)",
    (_INPUT, _I.AGENT_CONFIG_DUPLICATE_KEY): "an object in the `--agent-config` file repeats a key",
    (
        _INPUT,
        _I.AGENT_CONFIG_NON_FINITE_NUMBER,
    ): "the `--agent-config` file holds `NaN`, `Infinity` or an overflowing number",
    (
        _INPUT,
        _I.AGENT_CONFIG_NUMBER_OUT_OF_RANGE,
    ): "the `--agent-config` file holds an integer literal too long to convert",
    (
        _INPUT,
        _I.AGENT_CONFIG_NESTING_TOO_DEEP,
    ): "the `--agent-config` file nests deeper than `maxNestingDepth` (64)",
    (
        _INPUT,
        _I.AGENT_CONFIG_WRONG_SHAPE,
    ): "the `--agent-config` file does not have the documented shape",
    (_INPUT, _I.AGENT_CONFIG_EMPTY): "the per-run proof array is empty",
    (
        _INPUT,
        _I.AGENT_CONFIG_RUN_ID_MISSING,
    ): "a per-run proof lacks a non-empty `runId`, or an entry is not an object",
    (
        _INPUT,
        _I.AGENT_CONFIG_RUN_ID_DUPLICATE,
    ): "two per-run proofs name the same run (identical or contradictory)",
    (
        _INPUT,
        _I.AGENT_CONFIG_CONVERSATION_ID_MISSING,
    ): "a per-run proof entry lacks a non-empty `physicalConversationId`",
    (_INPUT, _I.APP_ALLOWLIST_UNREADABLE): "the `--app-allowlist` file cannot be opened or read",
    (
        _INPUT,
        _I.APP_ALLOWLIST_TOO_LARGE,
    ): "the `--app-allowlist` file is larger than `maxConfigFileBytes` (16 MiB)",
    (
        _INPUT,
        _I.APP_ALLOWLIST_INVALID_UTF8,
    ): "the `--app-allowlist` file is not valid UTF-8, or escapes a lone surrogate",
    (
        _INPUT,
        _I.APP_ALLOWLIST_MALFORMED_JSON,
    ): "the `--app-allowlist` file is not one JSON document (syntax, empty, BOM, trailing data)",
    (
        _INPUT,
        _I.APP_ALLOWLIST_DUPLICATE_KEY,
    ): "an object in the `--app-allowlist` file repeats a key",
    (
        _INPUT,
        _I.APP_ALLOWLIST_NON_FINITE_NUMBER,
    ): "the `--app-allowlist` file holds `NaN`, `Infinity` or an overflowing number",
    (
        _INPUT,
        _I.APP_ALLOWLIST_NUMBER_OUT_OF_RANGE,
    ): "the `--app-allowlist` file holds an integer literal too long to convert",
    (
        _INPUT,
        _I.APP_ALLOWLIST_NESTING_TOO_DEEP,
    ): "the `--app-allowlist` file nests deeper than `maxNestingDepth` (64)",
    (
        _INPUT,
        _I.APP_ALLOWLIST_WRONG_SHAPE,
    ): "the `--app-allowlist` file does not have the documented shape",
    (_INPUT, _I.APP_ALLOWLIST_DUPLICATE): "two allowlist declarations are identical",
    (
        _INPUT,
        _I.RETRIEVAL_RATE_OUT_OF_RANGE,
    ): "`--retrieval-rate` is not a finite number from 0 to 1",
    (
        _INPUT,
        _I.PERIOD_NOT_A_DATE,
    ): "`--since` or `--until` is not an ISO-8601 date or date and time from 1970 on",
    (
        _INPUT,
        _I.PERIOD_EMPTY,
    ): "`--since` is not earlier than `--until`: the period holds no instant",
    (
        _INPUT,
        _I.REPORT_MISSING,
    ): "the report given to `show` does not exist or is not a regular file",
    (_INPUT, _I.REPORT_UNREADABLE): (
        "the report given to `show` exists but cannot be opened or read"
    ),
    (_INPUT, _I.REPORT_TOO_LARGE): "a saved report is larger than `maxConfigFileBytes` (16 MiB)",
    (_INPUT, _I.REPORT_MALFORMED): (
        "a saved report is not strict JSON: not UTF-8, a syntax error, `NaN` or `Infinity`, a"
        " repeated key, nesting deeper than `maxNestingDepth` (64)"
    ),
    (_INPUT, _I.REPORT_NOT_A_REPORT): (
        "a saved report does not match this version's report schema, or breaks what the schema"
        " cannot state: an integer beyond 2^53 - 1 in magnitude, a histogram without edges, with"
        " unordered edges or with other than one count per edge (`report/validate.py`;"
        " validated whole before anything renders it)"
    ),
    (_INPUT, _I.TOTALS_OUT_OF_RANGE): (
        "the report would print an integer beyond 2^53 - 1 in magnitude: a sum of values each"
        " within its stated range (tokens at most 10^9 a request) over more history than a"
        " report states exactly, so nothing is written"
    ),
    # NO_JOURNALS.
    (
        _NO_JOURNALS,
        NoJournalsDetail.NO_JOURNAL_FILES,
    ): (
        "no `*.jsonl` regular file under the given directories (symlinked entries are not "
        "followed) and no file argument"
    ),
    (
        _NO_JOURNALS,
        NoJournalsDetail.NO_SESSION_FILES,
    ): (
        "`explore`: no `*.jsonl` regular file under the given `--sessions` directories and no"
        " file argument"
    ),
    (_NO_JOURNALS, NoJournalsDetail.PI_SESSION_FILES): (
        "`analyze`: nothing replayed, and most files are pi session files (first line "
        '`{"type": "session", …}`)'
    ),
    (_NO_JOURNALS, NoJournalsDetail.NATIVE_JOURNAL_FILES): (
        "`explore`: nothing was read, and most files are native journals (first line the v2 "
        "`header`)"
    ),
    (_NO_JOURNALS, NoJournalsDetail.CLAUDE_CODE_TRANSCRIPTS): (
        "nothing replayed, and most files are Claude Code transcripts (`sessionId` with "
        "`uuid`, or a leading `summary` with `leafUuid`)"
    ),
    (_NO_JOURNALS, NoJournalsDetail.CODEX_TRANSCRIPTS): (
        "`analyze`: nothing replayed, and most files are OpenAI Codex CLI rollouts "
        "(`session_meta`, or the older `id` / `timestamp` / `instructions` line)"
    ),
    (_NO_JOURNALS, NoJournalsDetail.NONE_REPLAYED_UNSUPPORTED_VERSION): (
        "`analyze`: no journal replayed; UNSUPPORTED_VERSION is the most frequent skip reason"
    ),
    (_NO_JOURNALS, NoJournalsDetail.NONE_REPLAYED_IMPORTED): (
        "`analyze`: no journal replayed; IMPORTED is the most frequent skip reason"
    ),
    (_NO_JOURNALS, NoJournalsDetail.NONE_REPLAYED_INHERITED): (
        "`analyze`: no journal replayed; INHERITED is the most frequent skip reason"
    ),
    (_NO_JOURNALS, NoJournalsDetail.NONE_REPLAYED_INTERRUPTED): (
        "`analyze`: no journal replayed; INTERRUPTED is the most frequent skip reason"
    ),
    (_NO_JOURNALS, NoJournalsDetail.NONE_REPLAYED_INVALID): (
        "`analyze`: no journal replayed; INVALID is the most frequent skip reason"
    ),
    (_NO_JOURNALS, NoJournalsDetail.NONE_REPLAYED_OPEN): (
        "`analyze`: no journal replayed; OPEN (no close record) is the most frequent skip reason"
    ),
    (_NO_JOURNALS, NoJournalsDetail.NONE_READ_UNSUPPORTED_VERSION): (
        "`explore`: no session was read; UNSUPPORTED_VERSION (a pi format above version 3) "
        "is the most frequent skip reason"
    ),
    (_NO_JOURNALS, NoJournalsDetail.NONE_READ_INVALID): (
        "`explore`: no session was read; INVALID is the most frequent skip reason"
    ),
    (_NO_JOURNALS, NoJournalsDetail.NONE_READ_OPEN): (
        "`explore`: no session was read; OPEN (the last line lacks its newline) is the most "
        "frequent skip reason"
    ),
    # SIDECAR_NOT_OFFLINE.
    (
        _OFFLINE,
        SidecarNotOfflineDetail.COMPANION_PRESENT,
    ): (
        "a `-wal`, `-shm` or `-journal` companion exists next to it (name compared "
        "case-insensitively)"
    ),
    (
        _OFFLINE,
        SidecarNotOfflineDetail.WAL_MODE,
    ): "header bytes 18-19 say WAL mode, even with no companion present",
    # SNAPSHOT_CHANGED.
    (
        _SNAPSHOT,
        SnapshotChangedDetail.SELECTION_CHANGED,
    ): (
        "a watched input vanished, or the journal selection changed, while the first snapshot"
        " was being taken"
    ),
    (
        _SNAPSHOT,
        SnapshotChangedDetail.FILE_CHANGED,
    ): "size, mtime, ctime, device, inode or type of an input file changed (or it vanished)",
    (
        _SNAPSHOT,
        SnapshotChangedDetail.DIRECTORY_CHANGED,
    ): "a walked directory changed (stamp or list of entry names)",
    (
        _SNAPSHOT,
        SnapshotChangedDetail.COMPANION_CHANGED,
    ): "a sidecar companion appeared (or the sidecar's directory became unlistable)",
    # OUTPUT_REFUSED.
    (
        _OUTPUT,
        OutputRefusedDetail.OUTPUT_NAME_INVALID,
    ): (
        "the final component is empty, `.` or `..`; or, with `--sign-key`, not UTF-8 (the "
        "attestation names the report)"
    ),
    (
        _OUTPUT,
        OutputRefusedDetail.OUTPUT_PARENT_MISSING,
    ): "the parent directory does not exist (or vanished during the run)",
    (_OUTPUT, OutputRefusedDetail.OUTPUT_PARENT_NOT_DIRECTORY): "the parent is not a directory",
    (
        _OUTPUT,
        OutputRefusedDetail.OUTPUT_PARENT_UNREADABLE,
    ): "an ancestor of the parent cannot be stat'ed",
    (
        _OUTPUT,
        OutputRefusedDetail.OUTPUT_INSIDE_INPUT,
    ): (
        "the canonical parent, or one of its ancestors, is (by device/inode) a walked "
        "`--journals` or `--sessions` directory or, for `qualify`, the harness or policy "
        "directory"
    ),
    (
        _OUTPUT,
        OutputRefusedDetail.OUTPUT_NAME_COLLIDES,
    ): (
        "the parent is (by device/inode) the directory of an input file and the name equals, "
        "ignoring case, an input file name there or a sidecar companion name"
    ),
    (_OUTPUT, OutputRefusedDetail.OUTPUT_IS_SYMLINK): "the path is a symlink, dangling or not",
    (
        _OUTPUT,
        OutputRefusedDetail.OUTPUT_IS_INPUT,
    ): "the path is an input file or a hard link to one",
    (_OUTPUT, OutputRefusedDetail.OUTPUT_EXISTS): "the path exists",
    (
        _OUTPUT,
        OutputRefusedDetail.OUTPUT_SAME_AS_LOG,
    ): "`--out` and `--log-file` name the same new file",
    (
        _OUTPUT,
        OutputRefusedDetail.SIGNATURE_SAME_AS_LOG,
    ): (
        "with `--sign-key`, `--log-file` names the file the attestation takes: the `--out` "
        "name plus `.intoto.jsonl`"
    ),
    (_OUTPUT, OutputRefusedDetail.HTML_SAME_AS_OUTPUT): (
        "`--html` and `--out` name the same new file"
    ),
    (_OUTPUT, OutputRefusedDetail.HTML_SAME_AS_LOG): (
        "`--html` and `--log-file` name the same new file"
    ),
    (_OUTPUT, OutputRefusedDetail.HTML_SAME_AS_SIGNATURE): (
        "with `--sign-key`, `--html` names the file the attestation takes: the `--out` name "
        "plus `.intoto.jsonl`"
    ),
    (
        _OUTPUT,
        OutputRefusedDetail.OUTPUT_PARENT_CHANGED,
    ): "the parent was replaced between the check and the creation",
    (
        _OUTPUT,
        OutputRefusedDetail.OUTPUT_CREATE_FAILED,
    ): (
        "exclusive creation failed (e.g. the name appeared before the file was linked into"
        " place, no permission)"
    ),
    (
        _OUTPUT,
        OutputRefusedDetail.OUTPUT_WRITE_FAILED,
    ): (
        "writing failed (e.g. disk full); the file never got its name (or, on a file system"
        " without `O_TMPFILE`, the partial file was removed; security.md)"
    ),
    (_OUTPUT, OutputRefusedDetail.STDOUT_FAILED): (
        "stdout was closed when the command started, or writing to it failed (a full disk, a"
        " reader gone); no file of the run was created"
    ),
    (
        _OUTPUT,
        OutputRefusedDetail.SYNTH_OUT_EXISTS,
    ): "`synth --out` exists already, or cannot be created (missing parent, no permission)",
    # QUALIFIER_FAILED.
    (_QUALIFIER, QualificationDetail.NODE_NOT_FOUND): "no `node` on PATH",
    (_QUALIFIER, QualificationDetail.NODE_NOT_IN_IMAGE): (
        "`qualify` ran in the analyzer image, which carries no Node and no pi-ai by design"
        " (container.md)"
    ),
    (_QUALIFIER, QualificationDetail.HARNESS_NOT_INSTALLED): (
        "`qualify/node_modules` (the pinned pi-ai) or a harness source is missing or unreadable"
        " where this installation looks: `$CLEARING_QUALIFY_HARNESS`, else `qualify/` beside"
        " the checkout's `src/`, which a copy installed by pip or uv tool does not have"
    ),
    (
        _QUALIFIER,
        QualificationDetail.HARNESS_NOT_RUN,
    ): "the `node` process could not be started, or did not finish in time",
    (
        _QUALIFIER,
        QualificationDetail.HARNESS_FAILED,
    ): "the harness exited with an error and no known code",
    (
        _QUALIFIER,
        QualificationDetail.HARNESS_OUTPUT_INVALID,
    ): "the harness's output does not decode, or covers the wrong APIs or fault mode",
    (
        _QUALIFIER,
        QualificationDetail.HARNESS_CHANGED,
    ): "the harness sources changed while `qualify` ran",
    (
        _QUALIFIER,
        QualificationDetail.PI_AI_INCONSISTENT,
    ): "the pi-ai the harness imported is not the installed one",
    (_QUALIFIER, QualificationDetail.USAGE): "the harness was started with wrong arguments",
    (_QUALIFIER, QualificationDetail.NODE_TOO_OLD): "`node` is older than 20",
    (_QUALIFIER, QualificationDetail.PLACEHOLDER_EMPTY): "`policy/placeholder.txt` is empty",
    (
        _QUALIFIER,
        QualificationDetail.PI_AI_MANIFEST,
    ): "the installed pi-ai's `package.json` is not the pinned package",
    (
        _QUALIFIER,
        QualificationDetail.MODEL_MISSING,
    ): "the installed pi-ai lacks a model the fixtures use",
    (
        _QUALIFIER,
        QualificationDetail.CAPTURE_FAILED,
    ): "a builder did not produce the payload the harness captures",
    (
        _QUALIFIER,
        QualificationDetail.NETWORK_ATTEMPTED,
    ): "a builder tried to reach the network (each attempt is counted and refused)",
    (
        _QUALIFIER,
        QualificationDetail.HARNESS_FAULT,
    ): "an unexpected error inside the harness (no message is kept)",
    # MOUNT_CONTRACT_VIOLATED.
    (_MOUNT, MountContractDetail.MOUNTINFO_UNREADABLE): "`/proc/self/mountinfo` cannot be read",
    (_MOUNT, MountContractDetail.MOUNTINFO_INVALID): "`/proc/self/mountinfo` cannot be parsed",
    (
        _MOUNT,
        MountContractDetail.ARGUMENT_UNCLASSIFIED,
    ): "a path option is not known to the contract",
    (_MOUNT, MountContractDetail.ARGUMENT_UNPARSED): "the command line could not be parsed",
    (_MOUNT, MountContractDetail.PATH_NOT_MOUNTED): (
        "an input or output path does not exist in the container and lies below no mount"
        " given for it (its nearest existing directory is on the image's own root or a"
        " runtime tmpfs): typically a host path instead of its `/in/...` or `/out/...` path"
    ),
    (
        _MOUNT,
        MountContractDetail.INPUT_NOT_READ_ONLY,
    ): (
        "an input, `--sign-key` included (after resolving symlinks inside the container) lies"
        " on a writable mount"
    ),
    (
        _MOUNT,
        MountContractDetail.OUTPUT_NOT_WRITABLE,
    ): "the directory of `--out` / `--log-file` (or of `synth --out`) is on a read-only mount",
    (
        _MOUNT,
        MountContractDetail.OUTPUT_NOT_WRITABLE_BY_USER,
    ): (
        "that directory is on a writable mount, but the user the container runs as (65534 in "
        "the image) may not create files in it, typically a root-owned host directory"
    ),
    (
        _MOUNT,
        MountContractDetail.OUTPUT_NOT_SEPARATE_MOUNT,
    ): "that directory is on the container's root file system, not on a mount of its own",
    (
        _MOUNT,
        MountContractDetail.OUTPUT_CONTAINS_INPUT,
    ): (
        "an input is reachable through the output mount (same file system, output root at or "
        "above it)"
    ),
    (
        _MOUNT,
        MountContractDetail.OUTPUT_INSIDE_INPUT,
    ): "the output mount lies inside an input directory or the directory of an input file",
    (
        _MOUNT,
        MountContractDetail.NETWORK_NOT_ISOLATED,
    ): "the network namespace has an interface other than loopback",
    (_MOUNT, MountContractDetail.NETWORK_UNVERIFIABLE): "`/sys/class/net` cannot be read",
    # SIGNING_KEY_REFUSED.
    (
        _KEY,
        SigningKeyDetail.KEY_MISSING,
    ): "the `--sign-key` path does not exist (or is a dangling symlink)",
    (
        _KEY,
        SigningKeyDetail.KEY_NOT_FILE,
    ): "the path is not a regular file (a directory, FIFO, ...)",
    (_KEY, SigningKeyDetail.KEY_IS_PUBLIC): (
        "the file is a PEM public key (such as the `.pub` file keygen writes), not the private key"
    ),
    (
        _KEY,
        SigningKeyDetail.KEY_UNREADABLE,
    ): (
        "the user the command runs as may not open or read it; typically a root-owned 0600 "
        "key in the image, which runs as 65534"
    ),
    (
        _KEY,
        SigningKeyDetail.KEY_PERMISSIONS_TOO_OPEN,
    ): "the file (after symlinks) grants its group or others any permission (mode & 0077)",
    (_KEY, SigningKeyDetail.KEY_MALFORMED): "not a PEM private key (or larger than 16 KiB)",
    (_KEY, SigningKeyDetail.KEY_ENCRYPTED): "a passphrase-protected PEM key",
    (
        _KEY,
        SigningKeyDetail.KEY_NOT_ED25519,
    ): "a valid private key of another algorithm (RSA, EC, ...)",
    # VERIFY_FAILED.
    (
        _VERIFY,
        VerifyDetail.PUBKEY_MISSING,
    ): "the `--pubkey` path does not exist, is not a regular file or cannot be read",
    (
        _VERIFY,
        VerifyDetail.PUBKEY_INVALID,
    ): "it is not a PEM Ed25519 public key (a private key, another algorithm, anything else)",
    (
        _VERIFY,
        VerifyDetail.REPORT_MISSING,
    ): "the report does not exist, is not a regular file or cannot be read",
    (
        _VERIFY,
        VerifyDetail.ATTESTATION_MISSING,
    ): "no readable regular file `<report>.intoto.jsonl` beside the report",
    (
        _VERIFY,
        VerifyDetail.ENVELOPE_MALFORMED,
    ): (
        "that file is not exactly one line holding one DSSE envelope of the documented shape "
        "(one signature, strict JSON, valid base64)"
    ),
    (
        _VERIFY,
        VerifyDetail.WRONG_KEY,
    ): "the signature does not verify with this key, and the envelope's `keyid` names another key",
    (
        _VERIFY,
        VerifyDetail.PAYLOAD_CHANGED,
    ): (
        "the signature does not verify with this key, the `keyid` is this key's (or absent), "
        "and the payload no longer reads as this product's statement about this report "
        "(another payload type, not a run statement, another subject digest): the signed "
        "statement was changed"
    ),
    (
        _VERIFY,
        VerifyDetail.BAD_SIGNATURE,
    ): (
        "the signature does not verify with this key, the `keyid` is this key's (or absent), "
        "and the payload still reads as a statement about this report: the signature was "
        "changed (or made by another key without a `keyid`), or the statement only where it "
        "still reads as one (the subject's name)"
    ),
    (
        _VERIFY,
        VerifyDetail.STATEMENT_INVALID,
    ): (
        "the signature holds, but the payload is not an in-toto Statement v1 with one subject"
        " and this product's run predicate (or its type is not in-toto's)"
    ),
    (
        _VERIFY,
        VerifyDetail.REPORT_CHANGED,
    ): "the signature holds, but the report's SHA-256 is not the one signed",
    (
        _VERIFY,
        VerifyDetail.CONTRACT_NOT_HELD,
    ): (
        "with `--require-sealed`: every other check holds, but the predicate's "
        "`mountContract` is not `HELD`"
    ),
    # USAGE_ERROR.
    (_USAGE, UsageDetail.UNKNOWN_COMMAND): "the word in the command position names no command",
    (_USAGE, UsageDetail.MISSING_COMMAND): "options but no command were given (e.g. a lone `--`)",
    (_USAGE, UsageDetail.UNKNOWN_OPTION): "an option the command does not define",
    (_USAGE, UsageDetail.MISTYPED_OPTION): (
        "an option the command does not define, close to one it does: the remedy names that"
        " one (what was typed is not repeated)"
    ),
    (
        _USAGE,
        UsageDetail.MISSING_OPTION,
    ): "a required option is absent (also `--out` when `analyze` has `--sign-key`)",
    (_USAGE, UsageDetail.MISSING_VALUE): "an option that takes a value ends the command line",
    (_USAGE, UsageDetail.UNEXPECTED_VALUE): "a flag was given a value (`--help=x`)",
    (
        _USAGE,
        UsageDetail.BAD_VALUE,
    ): "a value of the wrong kind (`--workers abc`, `--workers 0`, an unknown `--profile`)",
    (
        _USAGE,
        UsageDetail.EXTRA_ARGUMENT,
    ): "a word no option takes (a second value after an option that takes one)",
    (
        _USAGE,
        UsageDetail.EXCLUSIVE_OPTIONS,
    ): (
        "`synth` needs exactly one of `--conversations` and `--size-mb`; `routes init` "
        "exactly one of `--list` and `--model`"
    ),
    (
        _USAGE,
        UsageDetail.MODEL_UNKNOWN,
    ): (
        "`routes init --model` names no model of the pinned pi-ai catalog "
        "(`policy/pi-ai-models.json`), or has no `/`"
    ),
    (
        _USAGE,
        UsageDetail.MODEL_API_MISMATCH,
    ): "the `--model` exists in the catalog but uses another API than `--api`",
    (
        _USAGE,
        UsageDetail.MODEL_AGENT_MISMATCH,
    ): "`routes init --agent claude-code` was given a model of another API than"
    " anthropic-messages, the only API Claude Code speaks",
    (
        _USAGE,
        UsageDetail.MODEL_CODEX_MISMATCH,
    ): "`routes init --agent codex` was given a model of another API than the two OpenAI"
    " Responses APIs Codex speaks (openai-codex-responses signed in with ChatGPT,"
    " openai-responses with an API key)",
    (
        _USAGE,
        UsageDetail.MODEL_API_REPEATED,
    ): "two `routes init --model` values name models of the same API",
    (
        _USAGE,
        UsageDetail.CACHE_LIFETIME_INVALID,
    ): "a `routes init --cache-lifetime-ms` value is not PROVIDER/ID=MS with MS a whole number"
    " of milliseconds",
    (
        _USAGE,
        UsageDetail.CACHE_LIFETIME_MODEL_NOT_GIVEN,
    ): "a `routes init --cache-lifetime-ms` value names a model no `--model` gives",
    (
        _USAGE,
        UsageDetail.CACHE_LIFETIME_REPEATED,
    ): "two `routes init --cache-lifetime-ms` values name the same model",
    (
        _USAGE,
        UsageDetail.MODEL_UNPRICED,
    ): (
        "the catalog gives the model no price (input and output 0, e.g. a free tier, or "
        "pi-ai's routing-dependent price): both cost views would be zero and the cost "
        "criterion meaningless"
    ),
    (
        _USAGE,
        UsageDetail.MODEL_WINDOW_TOO_SMALL,
    ): (
        "the model's context window minus pi's compaction reserve (16,384) is not above the "
        "drain (20,000 kept + 13,107 summary), so T ≤ P"
    ),
    (_USAGE, UsageDetail.UNKNOWN_CODE): (
        "`explain` was given a word that is no code of this program"
    ),
    (_USAGE, UsageDetail.INVALID_COMMAND_LINE): "any other command line the parser refuses",
    # ANALYZER_FAULT.
    (
        _FAULT,
        FaultDetail.INTERNAL_ERROR,
    ): "an unexpected exception; its message is never printed, since it could carry input text",
}


# The kinds of code a report and its human view carry, in the order docs/model.md lists them.
VERDICT = "verdict"
DEFER_REASON = "DEFER reason"
STOP_REASON = "STOP reason"
CRITERION_DETAIL = "criterion detail"
QUALIFICATION = "qualification"
QUALIFICATION_DETAIL = "qualification detail"
LIMITATION = "limitation"
API_LIMITATION = "API limitation"
EXPLORE_LIMITATION = "explore limitation"
SKIPPED_JOURNAL = "skipped journal"
SKIPPED_BOUNDARY = "skipped boundary"
SKIPPED_SESSION = "skipped session"
SKIPPED_SESSION_BOUNDARY = "skipped session boundary"
UNRECOGNIZED = "unrecognized in a pi session"
TOOL_CLASS = "tool class"
RATE_LABEL = "retrieval rate label"
WHAT_IF_POLICY = "what-if policy"
UNDEFINED_CAUSE = "undefined model cause"
TRANSCRIPT_ONLY = "not a request in a pi session"
EXCLUSION_REASON = "exclusion reason"
ELIGIBILITY_CLASS = "eligibility class"
CRITERION = "criterion"
COMPARISON = "criterion comparison"
STATEMENT = "statement"
EXPLORE_STATEMENT = "explore statement"
SESSION_FORMAT = "session format"
BOUND = "bound"
MOUNT_CONTRACT = "mount contract status"

_NOTHING = "nothing to change: it is reported for completeness"
_WHAT_IF = (
    "nothing to change: informational, never gating; its defaults and sources are in"
    " policy/what-ifs.json (docs/model.md, section 9)"
)
_QUALIFY = "run clearing-analysis qualify --out qualification.json and pass it to --qualification"
_MORE_HISTORY = "analyze more of this API's history: longer sessions, more conversations"
_CAPTURE_PERIOD = "restrict --journals to the period when continuity capture was enabled"
_PERIOD = (
    "nothing to change: it lies outside the period asked for; widen --since / --until to count it"
)
_ROUTE_LIMITS = "check triggerTokens and drainTokens in routes.json (docs/formats/routes.md)"
_ANALYZE_INSTEAD = "for a verdict, run analyze on native journals with the tool-history sidecar"
_NEVER_CLEARED = "nothing to change: such a result is never cleared (R-EL-1, R-EL-2)"
_PROTECTED = (
    "nothing to change: the result is protected at this boundary only and may be cleared at a"
    " later one (R-EL-2, R-SIM-8)"
)
_RETAINED_COPY = (
    "pass a sidecar copied from the stopped agent whose retained results are complete; the"
    " result counts in the upper bound only (R-RT-2)"
)

# The kind `explain` prints for a run line; 130 is `cli._exit.EXIT_INTERRUPTED` (a test holds
# the two equal: this table sits below the CLI and cannot import it).
INTERRUPTED_RUN = "interrupted run, exit 130"

# code -> (kind, meaning, what to do), for the lines a run prints that are not refusals.
RUN_LINES: Mapping[str, tuple[str, str, str]] = {
    "INTERRUPTED": (
        INTERRUPTED_RUN,
        "the run was stopped with Ctrl-C (SIGINT) or SIGTERM before it finished: it wrote no"
        " file, and whatever reached stdout before the line does not count",
        "run the command again and let it finish; a stopped run leaves nothing to clean up",
    ),
}

# (kind, code) -> (meaning, what to do).
REPORT_CODES: Mapping[tuple[str, str], tuple[str, str]] = {
    (VERDICT, "BUILD"): (
        "every criterion passed on sufficient evidence: by the modeled figures, clearing is"
        " worth building for this API",
        "build it for this API; the figures are modeled, so measure after the change",
    ),
    (VERDICT, "DEFER"): (
        "the evidence does not suffice to decide: a DEFER reason applies (never a STOP)",
        "read the DEFER reasons: each names the evidence that is missing",
    ),
    (VERDICT, "STOP"): (
        "on sufficient evidence a criterion failed: by the modeled figures clearing does not"
        " pay off for this API",
        "do not build it for this API now; the STOP reasons say which criteria failed and by"
        " how much",
    ),
    (DEFER_REASON, "REPRESENTATIVENESS_LOW"): (
        "criterion 1 fails: fewer than 10 pressured pre-turn boundaries (0.75 T <= E < T), or"
        " fewer than 3 logical conversations with them",
        f"{_MORE_HISTORY}; check that triggerTokens is the agent's own compaction trigger",
    ),
    (DEFER_REASON, "COLD_EVIDENCE_LOW"): (
        "criterion 2 fails: fewer than 10 cold pressured boundaries (a gap longer than the"
        " cache lifetime plus margin), or fewer than 3 logical conversations with them; an"
        " `unknown` cache lifetime is never cold",
        "analyze more history with breaks longer than the cache lifetime; set cacheLifetimeMs"
        " from the provider's documentation where routes.json says `unknown`",
    ),
    (DEFER_REASON, "IDENTITY_UNPROVEN"): (
        "there are plain-text results to clear, but none has a proven read-only identity",
        "pass the owner's attestation of the built-ins with --agent-config"
        " (docs/formats/agent-config.md), and reviewed app tools with --app-allowlist",
    ),
    (DEFER_REASON, "PAYLOAD_UNQUALIFIED"): (
        "no valid, current qualification record covers this API, so criterion 6 was not"
        " evaluated; the qualification detail says why",
        _QUALIFY,
    ),
    (DEFER_REASON, "RETENTION_UNMATCHED"): (
        "results have a proven identity, but none matched a retained result in the sidecar",
        "pass a sidecar copy of the same agent's history.sqlite; " + _CAPTURE_PERIOD,
    ),
    (DEFER_REASON, "RETENTION_COVERAGE_LOW"): (
        "fewer than 50% of the results with a proven identity matched their retained copy",
        _CAPTURE_PERIOD + "; copy the sidecar again from the stopped agent",
    ),
    (DEFER_REASON, "USAGE_FALLBACK_EXCESSIVE"): (
        "more than 5% of the requests carry no usage, so their cost is the labeled uncached"
        " character heuristic, which could inflate the baseline",
        "analyze history from an agent that records usage; leave out the period before it did",
    ),
    (DEFER_REASON, "CODEX_WIRE_UNPROVEN"): (
        "openai-codex-responses always DEFERs: an offline payload comparison cannot establish"
        " acceptance, signatures or delivery over any Codex transport",
        "nothing in the inputs changes it: decide for this API on other evidence",
    ),
    (STOP_REASON, "ADMITTING_SHARE_LOW"): (
        "criterion 3 fails: fewer than 25% of the cold pressured boundaries admit 20,000 or"
        " more new lower-bound net tokens",
        "see with --details what stays uncleared at those boundaries: categories, protection,"
        " retention",
    ),
    (STOP_REASON, "PRESSURE_REDUCTION_LOW"): (
        "criterion 4 fails: the modeled compaction pressure falls by less than 15% at the"
        " supplied retrieval rate",
        "compare the cleared net tokens S with the growth G in --details: clearing frees too"
        " little of what the history adds",
    ),
    (STOP_REASON, "PRESSURE_MODEL_UNDEFINED"): (
        "criterion 4 fails: the pressure model is undefined (no native growth G, or"
        " triggerTokens not above drainTokens)",
        _ROUTE_LIMITS,
    ),
    (STOP_REASON, "COST_INCREASE_HIGH"): (
        "criterion 5 fails: the modeled total cost rises by more than 5% at some retrieval"
        " rate in the list-price or the quota-share view, or the ratio is unbounded",
        "the cost waterfall in --details shows which component decides; check the route's"
        " prices and quota weights",
    ),
    (STOP_REASON, "UNINTENDED_PAYLOAD_DIFFERENCES"): (
        "criterion 6 fails: the qualification found payload differences besides the targeted"
        " result-text leaves",
        "do not build clearing on this pi-ai version; report the difference to pi-ai",
    ),
    (CRITERION_DETAIL, "PRESSURE_MODEL_UNDEFINED"): (
        "the pressure model is undefined (G = 0 or T <= P): criterion 4 fails and the cost"
        " model is undefined too",
        _ROUTE_LIMITS,
    ),
    (CRITERION_DETAIL, "SUMMARY_DOES_NOT_FIT"): (
        "the summary's input per cycle would not fit within the trigger, so no pressure"
        " reduction is credited (R-PM-2)",
        "check summaryInputTokens and triggerTokens in routes.json (docs/formats/routes.md)",
    ),
    (CRITERION_DETAIL, "COST_MODEL_UNDEFINED"): (
        "the cost model is undefined with the pressure model: criterion 5 is not evaluated",
        _ROUTE_LIMITS,
    ),
    (CRITERION_DETAIL, "COST_RATIO_UNBOUNDED"): (
        "a view's off-arm cost is zero while its on arm costs something: the ratio is"
        " unbounded and criterion 5 fails",
        "check the route's prices and quota weights: a view priced at zero measures nothing",
    ),
    (CRITERION_DETAIL, "PAYLOAD_UNQUALIFIED"): (
        "no valid, current qualification record: criterion 6 is not evaluated",
        _QUALIFY,
    ),
    (QUALIFICATION, "QUALIFIED"): (
        "a valid record made with the installed pi-ai and harness covers this API",
        _NOTHING,
    ),
    (QUALIFICATION, "PAYLOAD_UNQUALIFIED"): (
        "no valid, current qualification record covers this API; the detail says why",
        _QUALIFY,
    ),
    (QUALIFICATION_DETAIL, "MISSING"): (
        "no --qualification was given, or the file does not exist",
        _QUALIFY,
    ),
    (QUALIFICATION_DETAIL, "MALFORMED"): (
        "the record is not a regular file, is too large, or is not a valid qualification record",
        "write it again with clearing-analysis qualify and pass it unedited",
    ),
    (QUALIFICATION_DETAIL, "HARNESS_UNAVAILABLE"): (
        "this installation cannot read the qualification harness or its installed pi-ai: it"
        " looks in `$CLEARING_QUALIFY_HARNESS`, else in `qualify/` beside the checkout's"
        " `src/`, which a copy installed by pip or uv tool does not have",
        "run the checkout's .venv/bin/clearing-analysis after make setup, or set"
        " CLEARING_QUALIFY_HARNESS to the checkout's qualify directory",
    ),
    (QUALIFICATION_DETAIL, "VERSION_MISMATCH"): (
        "the record names another pi-ai version than the one installed",
        "run clearing-analysis qualify again with the installed pi-ai",
    ),
    (QUALIFICATION_DETAIL, "DIGEST_MISMATCH"): (
        "the harness sources differ from those the record was made with",
        "run clearing-analysis qualify again with these harness sources",
    ),
    (LIMITATION, "APPROVAL_STATE_UNATTESTED"): (
        "approval and unresolved-effect state is not recorded natively, so the analyzer cannot"
        " attest that clearing would leave it intact (R-EL-7)",
        "keep results tied to approvals or unresolved effects protected in what you build",
    ),
    (API_LIMITATION, "ROUTE_TRIGGER_CONTRADICTED"): (
        "this API's observed threshold compactions contradict the route's triggerTokens T:"
        " some came below 0.75 T or below T by more than 2% of T (T too high), or beyond T"
        " plus one turn's growth (T too low),"
        " so the pressured boundaries are counted against the wrong trigger; never gating",
        "set triggerTokens from the agent's real compaction trigger: the report's routeTrigger"
        " gives the trigger the compactions imply (docs/model.md)",
    ),
    (API_LIMITATION, "CACHE_LIFETIME_UNKNOWN"): (
        "the route's cacheLifetimeMs is unknown, so no gap can be cold and criterion 2"
        " (COLD_EVIDENCE_LOW) cannot pass",
        "set cacheLifetimeMs in routes.json from the provider's documentation"
        " (docs/formats/routes.md)",
    ),
    (API_LIMITATION, "OUTPUT_TOKENS_PLACEHOLDER"): (
        "some of this API's requests recorded streaming placeholders as their output tokens"
        " (Claude Code writes a response's lines with the usage of the stream's start), so"
        " the recorded output and its cost are undercounted; never gating",
        'read the output figures as a lower bound (docs/formats/claude-code.md, "Counting")',
    ),
    (EXPLORE_LIMITATION, "IDENTITY_UNPROVEN"): (
        "session histories prove no tool's identity: every result that passes the fixed exclusions"
        " counts in the upper bound",
        _ANALYZE_INSTEAD,
    ),
    (EXPLORE_LIMITATION, "RETENTION_UNPROVEN"): (
        "session histories prove no retention: every result is assumed retained",
        _ANALYZE_INSTEAD,
    ),
    (EXPLORE_LIMITATION, "RUN_OUTCOMES_UNRECORDED"): (
        "session histories record no run owner or outcome, no tool status beyond an error flag"
        " and not whether a result was returned and placed",
        _ANALYZE_INSTEAD,
    ),
    (EXPLORE_LIMITATION, "APPROVAL_STATE_UNATTESTED"): (
        "approval and unresolved-effect state is not recorded, so it cannot be attested",
        "keep results tied to approvals or unresolved effects protected in what you build",
    ),
    (SKIPPED_JOURNAL, "UNSUPPORTED_VERSION"): (
        "the journal's format version is not 2",
        "pass journals the agent wrote in the native v2 format (docs/formats/journal-v2.md)",
    ),
    (SKIPPED_JOURNAL, "IMPORTED"): (
        "the journal's origin is imported: it is not this agent's own history",
        _NOTHING,
    ),
    (SKIPPED_JOURNAL, "INHERITED"): (
        "the journal's origin is inherited: it is not this agent's own history",
        _NOTHING,
    ),
    (SKIPPED_JOURNAL, "INTERRUPTED"): (
        "a run of the journal ended interrupted, or never ended before its close record",
        _NOTHING,
    ),
    (SKIPPED_JOURNAL, "INVALID"): (
        "the journal does not decode strictly or breaks a reference; the report's"
        " invalidJournalDetails give each fixed reason",
        "see docs/formats/reason-codes.md for each reason; fix the writer or leave the file out",
    ),
    (SKIPPED_JOURNAL, "OPEN"): (
        "the journal has no close record: still being written, or cut",
        "analyze copies of closed sessions",
    ),
    (SKIPPED_JOURNAL, "DUPLICATE"): (
        "a journal with the same journal id was replayed already: each counts once",
        _NOTHING,
    ),
    (SKIPPED_BOUNDARY, "OWNER_MISSING"): (
        "the boundary's run names no owner",
        _NOTHING,
    ),
    (SKIPPED_BOUNDARY, "UNSUPPORTED_API"): (
        "the boundary's API is not one of the four supported, or routes.json has no entry for it",
        "add a routes.json entry for the API if it is one of the four (clearing-analysis"
        " routes init)",
    ),
    (SKIPPED_BOUNDARY, "DUPLICATE"): (
        "a matching boundary was seen first in another journal (a resumed copy or a fork)",
        _NOTHING,
    ),
    (SKIPPED_BOUNDARY, "OUTSIDE_CAPTURE_WINDOW"): (
        "the boundary lies before its conversation's capture_enabled_since, or the"
        " conversation has no capture policy row",
        _CAPTURE_PERIOD,
    ),
    (SKIPPED_BOUNDARY, "OUTSIDE_PERIOD"): (
        "the boundary's request lies outside the period --since / --until asked for",
        _PERIOD,
    ),
    (SKIPPED_SESSION, "UNSUPPORTED_VERSION"): (
        "the pi session's header version is above 3",
        "explore sessions of pi format versions 1 to 3 (docs/formats/pi-sessions.md)",
    ),
    (SKIPPED_SESSION, "OPEN"): (
        "the session file's last line lacks its newline: pi may still be writing it",
        "explore copies of finished sessions",
    ),
    (SKIPPED_SESSION, "INVALID"): (
        "the session file breaks the strict reading rules; the report's invalidSessionDetails"
        " give each fixed reason",
        "see docs/formats/pi-sessions.md for each reason; leave the file out",
    ),
    (SKIPPED_SESSION, "DUPLICATE"): (
        "a session with the same session id was read already: each counts once",
        _NOTHING,
    ),
    (SKIPPED_SESSION_BOUNDARY, "UNSUPPORTED_API"): (
        "the prompt turn's API is not one of the four supported, or routes.json has no entry"
        " for it",
        "add a routes.json entry for the API if it is one of the four (clearing-analysis"
        " routes init)",
    ),
    (SKIPPED_SESSION_BOUNDARY, "DUPLICATE"): (
        "the same turn of the same lineage was seen first in another file (a copy or a fork)",
        _NOTHING,
    ),
    (SKIPPED_SESSION_BOUNDARY, "OUTSIDE_PERIOD"): (
        "the prompt turn's request lies outside the period --since / --until asked for",
        _PERIOD,
    ),
    (UNRECOGNIZED, "ENTRY_TYPE"): (
        "session entries of a type the reader does not know, counted and left out",
        _NOTHING,
    ),
    (UNRECOGNIZED, "MESSAGE_ROLE"): (
        "messages of a role the reader does not know, counted and left out",
        _NOTHING,
    ),
    (UNRECOGNIZED, "ORPHAN_TOOL_RESULT"): (
        "tool results whose call no assistant message of their turn requested (real OpenClaw"
        " sessions hold them): kept in the context with a call of their own, and counted",
        _NOTHING,
    ),
    (TOOL_CLASS, "READ_ONLY_BUILTIN"): (
        "a built-in tool that only reads (policy/tools.json): clearable once its identity is"
        " proven",
        "prove the built-ins with --agent-config (docs/formats/agent-config.md)",
    ),
    (TOOL_CLASS, "EFFECTFUL_BUILTIN"): (
        "a built-in tool with effects (bash, edit, write, OpenClaw's exec): never cleared (R-EL-6)",
        _NOTHING,
    ),
    (TOOL_CLASS, "INSTRUCTION_BUILTIN"): (
        "a built-in tool whose result instructs the agent: never cleared (R-EL-6)",
        _NOTHING,
    ),
    (TOOL_CLASS, "HISTORY_BUILTIN"): (
        "a built-in tool that reads the history back: never cleared (R-EL-6)",
        _NOTHING,
    ),
    (TOOL_CLASS, "APP"): (
        "an app (MCP) tool: clearable when its captured origin matches a reviewed allowlist entry",
        "review it into --app-allowlist (docs/formats/app-allowlist.md)",
    ),
    (TOOL_CLASS, "UNKNOWN"): (
        "in a pi session, a tool name no reviewed pi-family table has (policy/tools.json):"
        " nothing says what it does, so it is left out of the upper bound",
        "add the tool with its kind and source to policy/tools.json (docs/formats/tools.md)",
    ),
    (RATE_LABEL, "ZERO"): (
        "retrieval rate 0%: no cleared result is retrieved again",
        _NOTHING,
    ),
    (RATE_LABEL, "DEFAULT"): (
        "the default retrieval rate, 5%, pending lookup-pilot evidence",
        "pass --retrieval-rate once a lookup pilot has measured it",
    ),
    (RATE_LABEL, "HIGH"): (
        "retrieval rate 20%: a pessimistic sensitivity",
        _NOTHING,
    ),
    (RATE_LABEL, "SUPPLIED"): (
        "the rate given with --retrieval-rate: criterion 4 is gated at it",
        _NOTHING,
    ),
    (WHAT_IF_POLICY, "SEED_COLD_PRE_TURN"): (
        "the reference what-if: the seed's own policy, cold pre-turn batches in the pressure band;"
        " its figures are the gated simulation's",
        _WHAT_IF,
    ),
    (WHAT_IF_POLICY, "ANTHROPIC_CLEAR_TOOL_USES"): (
        "what-if: Anthropic's server-side context editing (clear_tool_uses) with its documented "
        "defaults: from 100,000 input tokens, every result but the last 3 tool uses",
        _WHAT_IF,
    ),
    (WHAT_IF_POLICY, "HAYSTACK_TOOL_RESULT_PRUNING"): (
        "what-if: haystack's ToolResultPruningCompactor defaults: at 70% of the window, oldest "
        "results first down to 40%, keeping the last tool step and small results",
        _WHAT_IF,
    ),
    (WHAT_IF_POLICY, "OPENCODE_PRUNE"): (
        "what-if: opencode's prune of old tool outputs: once 20,000 tokens are prunable, "
        "everything but the last 2 prompt turns and the newest 40,000 tokens of results",
        _WHAT_IF,
    ),
    (WHAT_IF_POLICY, "JETBRAINS_OBSERVATION_MASKING"): (
        "what-if: observation masking (The Complexity Trap): every observation but the last 10 and"
        " the first, at every request",
        _WHAT_IF,
    ),
    (WHAT_IF_POLICY, "INPUT_THRESHOLD_COMPACTOR"): (
        "what-if: a per-request input threshold compactor as released (kimchi): from 35,000"
        " input tokens, every result older than a tail of the last 15 results or the newest"
        " 25,000 tokens, whichever ends first",
        _WHAT_IF,
    ),
    (WHAT_IF_POLICY, "OPENCLAW_CACHE_TTL"): (
        "what-if: OpenClaw's session pruning in cache-ttl mode: once the cache has expired and the"
        " context is half the window, oldest results down to half, keeping the last 3",
        _WHAT_IF,
    ),
    (WHAT_IF_POLICY, "CLAUDE_CODE_MICROCOMPACT"): (
        "what-if: Claude Code's microcompact (reverse-engineered defaults): within 20,000 tokens"
        " of the trigger, when it saves at least 20,000, the oldest read, search and web results"
        " beyond the newest 40,000 result tokens and the last 3, at every request",
        _WHAT_IF,
    ),
    (UNDEFINED_CAUSE, "NO_GROWTH"): (
        "the pressure model (and with it the cost model and the what-ifs) is undefined: the"
        " API's native growth G is not above 0 (one counted boundary and no compaction, or E"
        " never grew)",
        _MORE_HISTORY,
    ),
    (UNDEFINED_CAUSE, "TRIGGER_NOT_ABOVE_DRAIN"): (
        "the pressure model (and with it the cost model and the what-ifs) is undefined: the"
        " route's triggerTokens T is not above its drainTokens P, so no growth fits between"
        " compactions",
        _ROUTE_LIMITS,
    ),
    (TRANSCRIPT_ONLY, "OPENCLAW_DELIVERY_MIRROR"): (
        "assistant messages OpenClaw wrote as copies of replies it delivered to a channel"
        " (provider openclaw, model delivery-mirror): no request, no fallback, counted apart",
        _NOTHING,
    ),
    (TRANSCRIPT_ONLY, "OPENCLAW_CLI_MIRROR"): (
        "assistant messages OpenClaw wrote to mirror a turn an external CLI answered (provider"
        " openclaw, model cli-mirror): no request, no fallback, counted apart",
        _NOTHING,
    ),
    (TRANSCRIPT_ONLY, "OPENCLAW_GATEWAY_INJECTED"): (
        "assistant messages OpenClaw's gateway injected as notices (provider openclaw, model"
        " gateway-injected): no request, no fallback, counted apart",
        _NOTHING,
    ),
    (EXCLUSION_REASON, "INSTRUCTION_BUILTIN"): (
        "the result comes from a built-in tool whose result instructs the agent: excluded from"
        " both bounds (R-EL-6)",
        _NEVER_CLEARED,
    ),
    (EXCLUSION_REASON, "HISTORY_BUILTIN"): (
        "the result comes from a built-in tool that reads the history back: excluded from both"
        " bounds (R-EL-6)",
        _NEVER_CLEARED,
    ),
    (EXCLUSION_REASON, "EFFECTFUL_BUILTIN"): (
        "the result comes from a built-in tool with effects (bash, edit, write, OpenClaw's"
        " exec): excluded from both bounds (R-EL-6)",
        _NEVER_CLEARED,
    ),
    (EXCLUSION_REASON, "UNKNOWN_TOOL"): (
        "in a session history, the tool's name is in no reviewed table (policy/tools.json):"
        " nothing says what it does, so it is excluded from the upper bound too",
        "add the tool with its kind and source to policy/tools.json (docs/formats/tools.md)",
    ),
    (EXCLUSION_REASON, "DESTRUCTIVE_HINT"): (
        "the app tool's captured origin declares it destructive (its MCP destructive hint):"
        " excluded whatever an allowlist says",
        _NEVER_CLEARED,
    ),
    (EXCLUSION_REASON, "ERROR_RESULT"): (
        "the tool result is flagged as an error: excluded from both bounds (R-EL-1)",
        _NEVER_CLEARED,
    ),
    (EXCLUSION_REASON, "UNKNOWN_OUTCOME"): (
        "the imported history states no outcome for the tool call (a Codex output without a"
        " documented exit status): whether it succeeded is unknown, so it is excluded from both"
        " bounds (R-SRC-3)",
        _NEVER_CLEARED,
    ),
    (EXCLUSION_REASON, "NOT_SUCCESSFUL"): (
        "the tool call's recorded status is not success: excluded from both bounds (R-EL-1)",
        _NEVER_CLEARED,
    ),
    (EXCLUSION_REASON, "RUN_NOT_COMPLETED"): (
        "the run that produced the result did not complete: excluded from both bounds (R-EL-1)",
        _NEVER_CLEARED,
    ),
    (EXCLUSION_REASON, "NOT_RETURNED_AND_PLACED"): (
        "the result was not both returned to the agent and placed in its context: excluded"
        " from both bounds (R-EL-1)",
        _NEVER_CLEARED,
    ),
    (EXCLUSION_REASON, "IMAGE_RESULT"): (
        "the result is an image, not plain text: excluded from both bounds (R-EL-1)",
        _NEVER_CLEARED,
    ),
    (EXCLUSION_REASON, "OPAQUE_OR_MIXED_BLOCKS"): (
        "the result holds opaque blocks or mixes text with other blocks, so it is not plain"
        " text: excluded from both bounds (R-EL-1)",
        _NEVER_CLEARED,
    ),
    (EXCLUSION_REASON, "PROTECTED_CURRENT_TURN"): (
        "the result belongs to the prompt turn the boundary opens or continues: protected at"
        " this boundary",
        _PROTECTED,
    ),
    (EXCLUSION_REASON, "PROTECTED_RECENT_PROMPT_TURN"): (
        "the result belongs to one of the three latest prompt turns: protected at this boundary",
        _PROTECTED,
    ),
    (EXCLUSION_REASON, "PROTECTED_RECENT_TOOL_START"): (
        "the result's call is one of the ten latest tool starts: protected at this boundary",
        _PROTECTED,
    ),
    (EXCLUSION_REASON, "IDENTITY_AMBIGUOUS"): (
        "the tool's identity cannot be proven one way: a built-in name with a captured app"
        " origin, or an attestation that does not prove this built-in: upper bound only"
        " (R-EL-3..6)",
        "check --agent-config and --app-allowlist against the tools the agent really ran"
        " (docs/formats/agent-config.md, docs/formats/app-allowlist.md)",
    ),
    (EXCLUSION_REASON, "IDENTITY_UNPROVEN"): (
        "nothing proves the tool's read-only identity (no attestation of the built-in, no"
        " reviewed allowlist entry for the app tool): upper bound only (R-EL-3..6)",
        "pass the owner's attestation of the built-ins with --agent-config"
        " (docs/formats/agent-config.md), and reviewed app tools with --app-allowlist",
    ),
    (EXCLUSION_REASON, "RETENTION_MISSING"): (
        "the sidecar holds no finalized retained copy linked to the result's identity (no index"
        " entry, another identity, or not finalized): upper bound only (R-RT-2)",
        "pass a sidecar copy of the same agent's history.sqlite; " + _CAPTURE_PERIOD,
    ),
    (EXCLUSION_REASON, "RETENTION_TOMBSTONED"): (
        "the sidecar's retained copy of the result was deleted (tombstoned): upper bound only"
        " (R-RT-2)",
        _RETAINED_COPY,
    ),
    (EXCLUSION_REASON, "RETENTION_INTEGRITY_MISMATCH"): (
        "the sidecar's retained row fails its own integrity check: upper bound only (R-RT-2)",
        _RETAINED_COPY,
    ),
    (EXCLUSION_REASON, "RETENTION_REDACTED"): (
        "the sidecar retained the result only in redacted form, so it cannot be restored"
        " byte for byte: upper bound only (R-RT-2)",
        _RETAINED_COPY,
    ),
    (EXCLUSION_REASON, "RETENTION_TRUNCATED"): (
        "the sidecar retained the result only truncated, so it cannot be restored byte for"
        " byte: upper bound only (R-RT-2)",
        _RETAINED_COPY,
    ),
    (EXCLUSION_REASON, "RETENTION_BYTES_MISMATCH"): (
        "the retained copy's byte count differs from the result's: upper bound only (R-RT-2)",
        _RETAINED_COPY,
    ),
    (EXCLUSION_REASON, "RETENTION_DIGEST_MISMATCH"): (
        "the retained copy's digest differs from the result's: upper bound only (R-RT-2)",
        _RETAINED_COPY,
    ),
    (EXCLUSION_REASON, "RETENTION_TEXT_MISMATCH"): (
        "the retained copy's text differs from the result's: upper bound only (R-RT-2)",
        _RETAINED_COPY,
    ),
    (ELIGIBILITY_CLASS, "LOWER_BOUND"): (
        "results with a proven identity and a byte-identical retained copy that pass every"
        " exclusion: what the gated simulation may clear",
        _NOTHING,
    ),
    (ELIGIBILITY_CLASS, "UPPER_BOUND_ONLY"): (
        "results excluded only for unproven identity or retention: counted in the upper bound,"
        " never gated",
        "the exclusion reasons say what is missing; proving it moves a result to the lower bound",
    ),
    (ELIGIBILITY_CLASS, "EXCLUDED"): (
        "results a fixed exclusion or a protection keeps out of both bounds",
        "the exclusion reasons say which rule applies",
    ),
    (CRITERION, "PRESSURED_BOUNDARIES"): (
        "criterion 1: enough pressured pre-turn boundaries in enough logical conversations"
        " (REPRESENTATIVENESS_LOW when not)",
        "explain REPRESENTATIVENESS_LOW for what to do when it fails",
    ),
    (CRITERION, "COLD_PRESSURED_BOUNDARIES"): (
        "criterion 2: enough cold pressured boundaries in enough logical conversations"
        " (COLD_EVIDENCE_LOW when not)",
        "explain COLD_EVIDENCE_LOW for what to do when it fails",
    ),
    (CRITERION, "ADMITTING_SHARE"): (
        "criterion 3: the share of cold pressured boundaries that admit 20,000 or more new"
        " lower-bound net tokens (ADMITTING_SHARE_LOW when too small)",
        "explain ADMITTING_SHARE_LOW for what to do when it fails",
    ),
    (CRITERION, "PRESSURE_REDUCTION"): (
        "criterion 4: how much the modeled compaction pressure falls at the supplied retrieval"
        " rate (PRESSURE_REDUCTION_LOW when too little)",
        "explain PRESSURE_REDUCTION_LOW for what to do when it fails",
    ),
    (CRITERION, "COST_INCREASE"): (
        "criterion 5: the worst modeled rise of total cost over the retrieval rates and views"
        " (COST_INCREASE_HIGH when too large)",
        "explain COST_INCREASE_HIGH for what to do when it fails",
    ),
    (CRITERION, "PAYLOAD_DIFFERENCES"): (
        "criterion 6: the qualification found no payload differences besides the targeted"
        " result-text leaves (UNINTENDED_PAYLOAD_DIFFERENCES when it did)",
        "explain UNINTENDED_PAYLOAD_DIFFERENCES for what to do when it fails",
    ),
    (COMPARISON, "AT_LEAST"): (
        "the criterion passes when its measured value is at least its threshold",
        _NOTHING,
    ),
    (COMPARISON, "AT_MOST"): (
        "the criterion passes when its measured value is at most its threshold",
        _NOTHING,
    ),
    (STATEMENT, "MODELED_NOT_OBSERVED"): (
        "all opportunity, pressure and cost figures are modeled, not observed savings",
        _NOTHING,
    ),
    (STATEMENT, "NO_QUALITY_INFERENCE"): ("no quality improvement is inferred", _NOTHING),
    (STATEMENT, "FROZEN_CONTINUATIONS"): (
        "the models replay frozen continuations: no alternate assistant behaviour",
        _NOTHING,
    ),
    (STATEMENT, "UPPER_BOUNDS_INFORMATIONAL"): (
        "per-boundary upper bounds (unproven identity included) are informational only, never"
        " gating",
        _NOTHING,
    ),
    (STATEMENT, "DEFAULT_RETRIEVAL_RATE_PENDING"): (
        "the default 5% retrieval rate is pending lookup-pilot evidence: 0%, 5%, 20% and the"
        " supplied rate are all reported and cost-gated",
        "pass --retrieval-rate once a lookup pilot has measured it",
    ),
    (EXPLORE_STATEMENT, "NEVER_A_VERDICT"): (
        "exploration only, never a verdict: session histories prove neither a tool's identity"
        " nor the retention of its result, which the decision gate needs",
        _ANALYZE_INSTEAD,
    ),
    (EXPLORE_STATEMENT, "UPPER_BOUND_ONLY"): (
        "every opportunity, pressure and cost figure is an upper bound: identity and retention"
        " are assumed, and what the history does not record is taken in the favourable"
        " direction",
        _ANALYZE_INSTEAD,
    ),
    (EXPLORE_STATEMENT, "MODELED_NOT_OBSERVED"): (
        "all opportunity, pressure and cost figures are modeled, not observed savings",
        _NOTHING,
    ),
    (EXPLORE_STATEMENT, "NO_QUALITY_INFERENCE"): ("no quality improvement is inferred", _NOTHING),
    (EXPLORE_STATEMENT, "FROZEN_CONTINUATIONS"): (
        "the models replay frozen continuations: no alternate assistant behaviour",
        _NOTHING,
    ),
    (EXPLORE_STATEMENT, "DRAINS_ESTIMATED"): (
        "session histories record no tokens after a compaction: drains are estimates of the"
        " compacted context",
        _NOTHING,
    ),
    (EXPLORE_STATEMENT, "DEFAULT_RETRIEVAL_RATE_PENDING"): (
        "the default 5% retrieval rate is pending lookup-pilot evidence: 0%, 5%, 20% and the"
        " supplied rate are all reported",
        "pass --retrieval-rate once a lookup pilot has measured it",
    ),
    (SESSION_FORMAT, "PI_SESSION"): (
        "the sessions read as pi session files (docs/formats/pi-sessions.md)",
        _NOTHING,
    ),
    (SESSION_FORMAT, "CLAUDE_CODE"): (
        "the sessions read as Claude Code transcripts (docs/formats/claude-code.md)",
        _NOTHING,
    ),
    (SESSION_FORMAT, "CODEX"): (
        "the sessions read as OpenAI Codex CLI rollouts (docs/formats/codex.md)",
        _NOTHING,
    ),
    (BOUND, "LOWER"): (
        "the simulation clears only results with a proven identity and a byte-identical"
        " retained copy (`analyze`): the gated figures",
        _NOTHING,
    ),
    (BOUND, "UPPER"): (
        "the simulation clears every result that passes the fixed exclusions and is"
        " unprotected, identity and retention assumed (`explore`): never gated",
        _ANALYZE_INSTEAD,
    ),
    (MOUNT_CONTRACT, "HELD"): (
        "the image's entrypoint checked the mount contract and the signing process checked it"
        " again: it holds (docs/attestation.md)",
        _NOTHING,
    ),
    (MOUNT_CONTRACT, "NOT_CHECKED"): (
        "the signed run did not start through the image's entrypoint, so nothing checked the"
        " mount contract (docs/attestation.md)",
        "run the analyzer image with its own entrypoint for an attested mount contract"
        " (docs/container.md)",
    ),
}


_REPORT_BUG = "a bug: please report the command shape, not your data"
_COPY_NOTHING_WRITES = "analyze a copy that nothing writes to while the command runs"
# One remedy for a sidecar that is not offline, whatever the reason (docs/formats/sidecar.md).
_OFFLINE_COPY = "stop the agent and pass a copy made with VACUUM INTO (docs/formats/sidecar.md)"
_NEW_NAME = "choose a new file name in a directory that is not an input directory"
_SETUP_AGAIN = "run make setup again to reinstall the pinned harness and pi-ai"
_DO_NOT_TRUST = "do not trust this report"


def _named_input(file_code: str, option: str, what: str) -> dict[tuple[str, str], str]:
    """Remedies of an input named by one option: `<FILE>_MISSING` and `<FILE>_NOT_FILE`."""
    return {
        (
            _INPUT,
            _I(f"{file_code}_MISSING"),
        ): f"check the {option} path: it must name an existing file",
        (_INPUT, _I(f"{file_code}_NOT_FILE")): f"pass the {what} file itself to {option}",
    }


def _config_file(file_code: str, option: str, page: str) -> dict[tuple[str, str], str]:
    """Remedies of the nine reading, JSON and shape codes every configuration file has."""
    suffixes = {
        "UNREADABLE": f"pass an existing, readable regular file to {option}",
        "TOO_LARGE": f"check that {option} names the right file: configuration files are small",
        "INVALID_UTF8": f"save the {option} file as UTF-8, without escapes of lone surrogates",
        "MALFORMED_JSON": f"fix the JSON syntax of the {option} file; save it without a BOM",
        "DUPLICATE_KEY": f"keep each key once per object in the {option} file",
        "NON_FINITE_NUMBER": f"write only finite numbers in the {option} file",
        "NUMBER_OUT_OF_RANGE": f"write numbers of ordinary size in the {option} file",
        "NESTING_TOO_DEEP": f"give the {option} file the documented shape ({page})",
        "WRONG_SHAPE": f"compare the {option} file with {page} and its schema",
    }
    return {(_INPUT, _I(f"{file_code}_{suffix}")): text for suffix, text in suffixes.items()}


REMEDIES: Mapping[tuple[str, str], str] = {
    (_FAULT, FaultDetail.INTERNAL_ERROR): (
        "an internal error: please report the command shape, not your data"
    ),
    # INPUT_INVALID: journal selection.
    (_INPUT, _I.JOURNALS_MISSING): "check every --journals path: each must exist",
    (_INPUT, _I.JOURNALS_NOT_FILE_OR_DIRECTORY): (
        "pass journal files or directories to --journals, not a FIFO, device or socket"
    ),
    (_INPUT, _I.JOURNALS_UNREADABLE): "make every file and directory under --journals readable",
    (_INPUT, _I.NATIVE_ROOT_NOT_JOURNALS): "pass <root>/journals, not the root",
    (_INPUT, _I.SESSIONS_MISSING): "check every --sessions path: each must exist",
    (_INPUT, _I.SESSIONS_NOT_FILE_OR_DIRECTORY): (
        "pass pi session files or directories to --sessions, not a FIFO, device or socket"
    ),
    (_INPUT, _I.SESSIONS_UNREADABLE): "make every file and directory under --sessions readable",
    # INPUT_INVALID: the other named inputs.
    **_named_input("SIDECAR", "--sidecar", "sidecar database"),
    **_named_input("ROUTES", "--routes", "routes"),
    **_named_input("QUALIFICATION", "--qualification", "qualification record"),
    **_named_input("AGENT_CONFIG", "--agent-config", "agent configuration"),
    **_named_input("APP_ALLOWLIST", "--app-allowlist", "app allowlist"),
    # INPUT_INVALID: the sidecar database.
    (_INPUT, _I.SIDECAR_UNREADABLE): "make the --sidecar file and its directory readable",
    (
        _INPUT,
        _I.SIDECAR_NOT_SQLITE,
    ): "pass the agent's history.sqlite, copied offline, to --sidecar",
    (_INPUT, _I.SIDECAR_SCHEMA): (
        "copy the sidecar again from a stopped agent that writes schema version 1"
    ),
    (_INPUT, _I.SIDECAR_DAMAGED): (
        "this copy is damaged: copy the sidecar again with VACUUM INTO (docs/formats/sidecar.md)"
    ),
    (_INPUT, _I.SIDECAR_COMPUTED_SCHEMA): (
        "pass the agent's own sidecar: no views, triggers, virtual tables or generated columns"
    ),
    (_INPUT, _I.SIDECAR_VALUE_TOO_LARGE): (
        "no retained text is that long: copy the sidecar again from the agent that wrote it"
    ),
    # INPUT_INVALID: configuration files.
    **_config_file("ROUTES", "--routes", "docs/formats/routes.md"),
    **_config_file("AGENT_CONFIG", "--agent-config", "docs/formats/agent-config.md"),
    **_config_file("APP_ALLOWLIST", "--app-allowlist", "docs/formats/app-allowlist.md"),
    (_INPUT, _I.ROUTES_EMPTY): "give one routes entry per API to analyze",
    (_INPUT, _I.ROUTES_DUPLICATE_API): (
        "keep one routes entry per API; analyze incompatible cohorts separately"
    ),
    (_INPUT, _I.ROUTES_VALUE_OUT_OF_RANGE): (
        "keep every number of the --routes file within the range docs/formats/routes.md states"
    ),
    (_INPUT, _I.AGENT_CONFIG_EMPTY): "give at least one per-run proof, or use the period form",
    (_INPUT, _I.AGENT_CONFIG_RUN_ID_MISSING): "give every per-run proof a non-empty runId",
    (_INPUT, _I.AGENT_CONFIG_RUN_ID_DUPLICATE): "keep exactly one per-run proof per run",
    (_INPUT, _I.AGENT_CONFIG_CONVERSATION_ID_MISSING): (
        "name the journal header's physicalConversationId in every per-run proof"
    ),
    (_INPUT, _I.APP_ALLOWLIST_DUPLICATE): "keep each reviewed (server, tool, digest) entry once",
    # INPUT_INVALID: analysis settings and saved reports.
    (_INPUT, _I.RETRIEVAL_RATE_OUT_OF_RANGE): "give --retrieval-rate a number from 0 to 1",
    (_INPUT, _I.PERIOD_NOT_A_DATE): (
        "give --since and --until an ISO-8601 date (2026-06-01) or date and time (2026-06-01T09:30)"
    ),
    (_INPUT, _I.PERIOD_EMPTY): "give a --since earlier than --until",
    (_INPUT, _I.REPORT_MISSING): "pass the path of an existing report file",
    (_INPUT, _I.REPORT_UNREADABLE): "make the report file readable by the user running show",
    (_INPUT, _I.REPORT_TOO_LARGE): "pass a report file clearing-analysis wrote: reports are small",
    (_INPUT, _I.REPORT_MALFORMED): "pass a report file clearing-analysis wrote, unedited",
    (_INPUT, _I.REPORT_NOT_A_REPORT): "pass a report written by this version of clearing-analysis",
    (_INPUT, _I.TOTALS_OUT_OF_RANGE): (
        "analyze the history in parts (fewer journals or sessions per run)"
    ),
    # NO_JOURNALS.
    (_NO_JOURNALS, NoJournalsDetail.NO_JOURNAL_FILES): (
        "pass the directory that holds the .jsonl journals (<root>/journals) or the files"
    ),
    (_NO_JOURNALS, NoJournalsDetail.NO_SESSION_FILES): (
        "pass the directory that holds the session .jsonl files (pi, Claude Code, Codex), or"
        " the files"
    ),
    (_NO_JOURNALS, NoJournalsDetail.PI_SESSION_FILES): (
        "these are pi session files: explore them with clearing-analysis explore --sessions"
    ),
    (_NO_JOURNALS, NoJournalsDetail.NATIVE_JOURNAL_FILES): (
        "these are native journals: analyze them with clearing-analysis analyze --journals"
    ),
    (_NO_JOURNALS, NoJournalsDetail.CLAUDE_CODE_TRANSCRIPTS): (
        "these are Claude Code transcripts: explore them with clearing-analysis explore --sessions"
    ),
    (_NO_JOURNALS, NoJournalsDetail.CODEX_TRANSCRIPTS): (
        "these are Codex CLI rollouts: explore them with clearing-analysis explore --sessions"
    ),
    (_NO_JOURNALS, NoJournalsDetail.NONE_REPLAYED_UNSUPPORTED_VERSION): (
        "these journals are not format version 2: write them with a v2 journal writer"
    ),
    (_NO_JOURNALS, NoJournalsDetail.NONE_REPLAYED_IMPORTED): (
        "these journals hold imported history: pass the agent's own native journals"
    ),
    (_NO_JOURNALS, NoJournalsDetail.NONE_REPLAYED_INHERITED): (
        "these journals hold inherited history: pass the agent's own native journals"
    ),
    (_NO_JOURNALS, NoJournalsDetail.NONE_REPLAYED_INTERRUPTED): (
        "these journals hold interrupted runs: pass journals of runs that ended"
    ),
    (_NO_JOURNALS, NoJournalsDetail.NONE_REPLAYED_INVALID): (
        "these journals are invalid: clearing-analysis replay counts their fixed details"
    ),
    (_NO_JOURNALS, NoJournalsDetail.NONE_REPLAYED_OPEN): (
        "these journals are still open: copy them after the agent closed the sessions"
    ),
    (_NO_JOURNALS, NoJournalsDetail.NONE_READ_UNSUPPORTED_VERSION): (
        "these sessions are of a pi format newer than version 3: update clearing-analysis"
    ),
    (_NO_JOURNALS, NoJournalsDetail.NONE_READ_INVALID): (
        "these session files are invalid: check they are unedited pi, Claude Code or Codex files"
    ),
    (_NO_JOURNALS, NoJournalsDetail.NONE_READ_OPEN): (
        "these sessions are still being written: copy them after the agent has stopped"
    ),
    # SIDECAR_NOT_OFFLINE: one remedy for both reasons.
    (_OFFLINE, SidecarNotOfflineDetail.COMPANION_PRESENT): _OFFLINE_COPY,
    (_OFFLINE, SidecarNotOfflineDetail.WAL_MODE): _OFFLINE_COPY,
    # SNAPSHOT_CHANGED.
    (_SNAPSHOT, SnapshotChangedDetail.SELECTION_CHANGED): _COPY_NOTHING_WRITES,
    (_SNAPSHOT, SnapshotChangedDetail.FILE_CHANGED): _COPY_NOTHING_WRITES,
    (_SNAPSHOT, SnapshotChangedDetail.DIRECTORY_CHANGED): _COPY_NOTHING_WRITES,
    (_SNAPSHOT, SnapshotChangedDetail.COMPANION_CHANGED): (
        "analyze a sidecar copy that no agent opens while the command runs"
    ),
    # OUTPUT_REFUSED.
    (
        _OUTPUT,
        OutputRefusedDetail.OUTPUT_NAME_INVALID,
    ): "end the output path with a new file's name, not . or .. or a slash",
    (_OUTPUT, OutputRefusedDetail.OUTPUT_PARENT_MISSING): (
        "create the output's directory first, or choose an existing one"
    ),
    (_OUTPUT, OutputRefusedDetail.OUTPUT_PARENT_NOT_DIRECTORY): (
        "choose an output path whose parent is a directory"
    ),
    (_OUTPUT, OutputRefusedDetail.OUTPUT_PARENT_UNREADABLE): (
        "choose an output directory whose every ancestor you can read"
    ),
    (_OUTPUT, OutputRefusedDetail.OUTPUT_INSIDE_INPUT): (
        "write outside the input directories (--journals, --sessions; for qualify, the harness"
        " and policy)"
    ),
    (_OUTPUT, OutputRefusedDetail.OUTPUT_NAME_COLLIDES): (
        "choose a name that no input, nor a sidecar companion, has in that directory"
    ),
    (_OUTPUT, OutputRefusedDetail.OUTPUT_IS_SYMLINK): _NEW_NAME,
    (_OUTPUT, OutputRefusedDetail.OUTPUT_IS_INPUT): _NEW_NAME,
    (_OUTPUT, OutputRefusedDetail.OUTPUT_EXISTS): _NEW_NAME,
    (_OUTPUT, OutputRefusedDetail.OUTPUT_SAME_AS_LOG): "give --out and --log-file different names",
    (_OUTPUT, OutputRefusedDetail.SIGNATURE_SAME_AS_LOG): (
        "give --log-file another name than the --out name plus .intoto.jsonl"
    ),
    (_OUTPUT, OutputRefusedDetail.HTML_SAME_AS_OUTPUT): "give --html and --out different names",
    (_OUTPUT, OutputRefusedDetail.HTML_SAME_AS_LOG): "give --html and --log-file different names",
    (_OUTPUT, OutputRefusedDetail.HTML_SAME_AS_SIGNATURE): (
        "give --html another name than the --out name plus .intoto.jsonl"
    ),
    (_OUTPUT, OutputRefusedDetail.OUTPUT_PARENT_CHANGED): (
        "keep the output directory in place while the command runs"
    ),
    (_OUTPUT, OutputRefusedDetail.OUTPUT_CREATE_FAILED): (
        "choose a directory where you may create files"
    ),
    (_OUTPUT, OutputRefusedDetail.OUTPUT_WRITE_FAILED): (
        "free space on that file system, or write elsewhere"
    ),
    (_OUTPUT, OutputRefusedDetail.STDOUT_FAILED): (
        "give the command a stdout that stays open and writable until it ends, or use --out"
    ),
    (_OUTPUT, OutputRefusedDetail.SYNTH_OUT_EXISTS): (
        "name a directory that does not exist yet, in an existing writable parent"
    ),
    # QUALIFIER_FAILED.
    (_QUALIFIER, QualificationDetail.NODE_NOT_FOUND): "install Node 20 or newer and put it on PATH",
    (_QUALIFIER, QualificationDetail.NODE_NOT_IN_IMAGE): (
        "run qualify in the qualifier image; analyze here accepts the record it writes"
    ),
    (_QUALIFIER, QualificationDetail.HARNESS_NOT_INSTALLED): (
        "run make setup and the checkout's .venv/bin/clearing-analysis, or set"
        " CLEARING_QUALIFY_HARNESS"
    ),
    (_QUALIFIER, QualificationDetail.HARNESS_NOT_RUN): (
        "check that the node on PATH starts, then run qualify again"
    ),
    (_QUALIFIER, QualificationDetail.HARNESS_FAILED): _SETUP_AGAIN,
    (_QUALIFIER, QualificationDetail.HARNESS_OUTPUT_INVALID): _REPORT_BUG,
    (_QUALIFIER, QualificationDetail.HARNESS_CHANGED): (
        "leave the harness sources alone while qualify runs, then run it again"
    ),
    (_QUALIFIER, QualificationDetail.PI_AI_INCONSISTENT): _SETUP_AGAIN,
    (_QUALIFIER, QualificationDetail.USAGE): _REPORT_BUG,
    (_QUALIFIER, QualificationDetail.NODE_TOO_OLD): "install Node 20 or newer and put it on PATH",
    (_QUALIFIER, QualificationDetail.PLACEHOLDER_EMPTY): (
        "restore policy/placeholder.txt from the release"
    ),
    (_QUALIFIER, QualificationDetail.PI_AI_MANIFEST): _SETUP_AGAIN,
    (_QUALIFIER, QualificationDetail.MODEL_MISSING): _SETUP_AGAIN,
    (_QUALIFIER, QualificationDetail.CAPTURE_FAILED): _SETUP_AGAIN,
    (_QUALIFIER, QualificationDetail.NETWORK_ATTEMPTED): (
        "report it: a pinned builder tried to reach the network, so the run was refused"
    ),
    (_QUALIFIER, QualificationDetail.HARNESS_FAULT): _REPORT_BUG,
    # MOUNT_CONTRACT_VIOLATED (the image's entrypoint, docs/container.md).
    (_MOUNT, MountContractDetail.MOUNTINFO_UNREADABLE): "run under a standard Linux runtime",
    (_MOUNT, MountContractDetail.MOUNTINFO_INVALID): "run under a standard Linux runtime",
    (_MOUNT, MountContractDetail.ARGUMENT_UNCLASSIFIED): _REPORT_BUG,
    (_MOUNT, MountContractDetail.ARGUMENT_UNPARSED): _REPORT_BUG,
    (_MOUNT, MountContractDetail.PATH_NOT_MOUNTED): (
        "pass the container's paths of the mounted directories (/in/..., /out/...), not the host's"
    ),
    (_MOUNT, MountContractDetail.INPUT_NOT_READ_ONLY): "mount every input with :ro",
    (_MOUNT, MountContractDetail.OUTPUT_NOT_WRITABLE): (
        "mount an output directory with :rw and write there"
    ),
    (_MOUNT, MountContractDetail.OUTPUT_NOT_WRITABLE_BY_USER): (
        "chown the output directory to 65534:65534 (the image's user) or run as its owner"
    ),
    (_MOUNT, MountContractDetail.OUTPUT_NOT_SEPARATE_MOUNT): (
        "mount an output directory of its own (-v OUT:/out:rw) and write there"
    ),
    (_MOUNT, MountContractDetail.OUTPUT_CONTAINS_INPUT): (
        "use an output directory that holds no input"
    ),
    (_MOUNT, MountContractDetail.OUTPUT_INSIDE_INPUT): "use an output directory outside the inputs",
    (_MOUNT, MountContractDetail.NETWORK_NOT_ISOLATED): (
        "run with --network=none (compose: network_mode: none)"
    ),
    (_MOUNT, MountContractDetail.NETWORK_UNVERIFIABLE): "run with podman's default sysfs mount",
    # SIGNING_KEY_REFUSED (analyze --sign-key, docs/attestation.md).
    (_KEY, SigningKeyDetail.KEY_MISSING): (
        "check the --sign-key path: it must name an existing key file"
    ),
    (_KEY, SigningKeyDetail.KEY_NOT_FILE): "pass the private key file itself to --sign-key",
    (_KEY, SigningKeyDetail.KEY_IS_PUBLIC): (
        "pass the private key keygen wrote (KEY, not KEY.pub) to --sign-key"
    ),
    (_KEY, SigningKeyDetail.KEY_UNREADABLE): (
        "let the user the command runs as read the key (in the image: owner 65534, mode 0400)"
    ),
    (_KEY, SigningKeyDetail.KEY_PERMISSIONS_TOO_OPEN): (
        "remove every group and other permission from the key file (chmod 0400 or 0600)"
    ),
    (_KEY, SigningKeyDetail.KEY_MALFORMED): (
        "pass the PEM private key file that clearing-analysis keygen wrote"
    ),
    (_KEY, SigningKeyDetail.KEY_ENCRYPTED): (
        "pass an unencrypted key, protected by its file mode and a read-only mount"
    ),
    (_KEY, SigningKeyDetail.KEY_NOT_ED25519): (
        "pass an Ed25519 private key (clearing-analysis keygen writes one)"
    ),
    # VERIFY_FAILED (verify, docs/attestation.md).
    (_VERIFY, VerifyDetail.REPORT_MISSING): "pass the path of an existing report file",
    (_VERIFY, VerifyDetail.ATTESTATION_MISSING): (
        "keep the report's .intoto.jsonl file beside it, named after the report"
    ),
    (_VERIFY, VerifyDetail.PUBKEY_MISSING): (
        "check the --pubkey path: it must name the signer's public key file"
    ),
    (_VERIFY, VerifyDetail.PUBKEY_INVALID): (
        "pass the signer's Ed25519 public key in PEM (the .pub file keygen wrote)"
    ),
    (_VERIFY, VerifyDetail.ENVELOPE_MALFORMED): (
        f"{_DO_NOT_TRUST}: its .intoto.jsonl file is not an envelope analyze wrote"
    ),
    (_VERIFY, VerifyDetail.WRONG_KEY): (
        f"{_DO_NOT_TRUST} unless you trust the other key that signed it"
    ),
    (_VERIFY, VerifyDetail.PAYLOAD_CHANGED): (f"{_DO_NOT_TRUST}: its signed statement was altered"),
    (_VERIFY, VerifyDetail.BAD_SIGNATURE): (
        f"{_DO_NOT_TRUST}: its signature was altered or made by another key"
    ),
    (_VERIFY, VerifyDetail.STATEMENT_INVALID): (
        f"{_DO_NOT_TRUST}: the key signed something other than a run attestation"
    ),
    (_VERIFY, VerifyDetail.REPORT_CHANGED): f"{_DO_NOT_TRUST}: it is not the file that was signed",
    (_VERIFY, VerifyDetail.CONTRACT_NOT_HELD): (
        "the run was signed outside the sealed image: run analyze sealed to get such a report"
    ),
    # USAGE_ERROR (any command; `<option>` is filled in by failure_line).
    (_USAGE, UsageDetail.UNKNOWN_COMMAND): "use one of the commands clearing-analysis --help lists",
    (
        _USAGE,
        UsageDetail.MISSING_COMMAND,
    ): "name one of the commands clearing-analysis --help lists",
    (_USAGE, UsageDetail.UNKNOWN_OPTION): "use only the options the command's --help lists",
    (_USAGE, UsageDetail.MISTYPED_OPTION): (
        "did you mean <option>? the command's --help lists its options"
    ),
    (
        _USAGE,
        UsageDetail.MISSING_OPTION,
    ): "give <option>; the command's --help lists what it requires",
    (_USAGE, UsageDetail.MISSING_VALUE): "give <option> its value right after it",
    (_USAGE, UsageDetail.UNEXPECTED_VALUE): "give <option> alone: it takes no value",
    (_USAGE, UsageDetail.BAD_VALUE): "give <option> a value of the kind the command's --help shows",
    (_USAGE, UsageDetail.EXTRA_ARGUMENT): (
        "put each value right after its option (only --journals takes several); quote spaces"
    ),
    (_USAGE, UsageDetail.EXCLUSIVE_OPTIONS): "give exactly one of <option>",
    (_USAGE, UsageDetail.MODEL_UNKNOWN): (
        "give <option> one of the PROVIDER/ID names routes init --list prints for the API"
    ),
    (_USAGE, UsageDetail.MODEL_API_MISMATCH): (
        "give <option> the API the model uses (routes init --list prints each API's models)"
    ),
    (_USAGE, UsageDetail.MODEL_AGENT_MISMATCH): (
        "give <option> an anthropic-messages model (routes init --api anthropic-messages --list)"
    ),
    (_USAGE, UsageDetail.MODEL_CODEX_MISMATCH): (
        "give <option> a model of openai-codex-responses or openai-responses (routes init --list)"
    ),
    (_USAGE, UsageDetail.MODEL_API_REPEATED): (
        "give <option> one model per API: a routes file holds one route per API"
    ),
    (_USAGE, UsageDetail.MODEL_UNPRICED): (
        "the catalog has no price for this model: write its route by hand (docs/formats/routes.md)"
    ),
    (_USAGE, UsageDetail.MODEL_WINDOW_TOO_SMALL): (
        "pi's default compaction does not fit this model's window: write its route by hand"
    ),
    (_USAGE, UsageDetail.CACHE_LIFETIME_INVALID): (
        "give <option> as PROVIDER/ID=MS, MS the cache lifetime in whole milliseconds"
    ),
    (_USAGE, UsageDetail.CACHE_LIFETIME_MODEL_NOT_GIVEN): (
        "name in <option> a model given with --model, exactly as given there"
    ),
    (_USAGE, UsageDetail.CACHE_LIFETIME_REPEATED): ("give <option> once per model"),
    (_USAGE, UsageDetail.UNKNOWN_CODE): (
        "give a code as a view or a failure line prints it; explain alone lists them all"
    ),
    (
        _USAGE,
        UsageDetail.INVALID_COMMAND_LINE,
    ): "compare the command line with the command's --help",
}


OPTION_PLACEHOLDER = "<option>"


def remedy(error: AnalysisError) -> str:
    """The fixed remedy of `error`'s (code, detail), naming a usage error's declared options."""
    text = REMEDIES[(error.code, error.detail)]
    if isinstance(error, UsageError) and error.options:
        return text.replace(OPTION_PLACEHOLDER, " or ".join(error.options))
    return text.replace(OPTION_PLACEHOLDER, "the option")


def failure_line(error: AnalysisError) -> str:
    """The one stderr line of a failure: program, code, detail and remedy, all fixed text."""
    return f"{PROGRAM}: {error.code} {error.detail.value}: {remedy(error)}\n"


class Code(msgspec.Struct, frozen=True):
    """One code's explanation: its name as printed, what kind of code it is, what it means
    and what to do (None for a refusal code, whose details each say)."""

    name: str
    kind: str
    meaning: str
    remedy: str | None
    details: tuple[str, ...] = ()


def _error_classes() -> Iterator[type[AnalysisError]]:
    """Every class with a code of its own, in the order docs/exit-codes.md lists them."""
    by_code: dict[str, type[AnalysisError]] = {}
    todo: list[type[AnalysisError]] = [AnalysisError]
    while todo:
        cls = todo.pop()
        if "code" in vars(cls):
            by_code[cls.code] = cls
        todo.extend(cls.__subclasses__())
    for code in CODE_MEANINGS:
        yield by_code[code]


def _refusal_kind(cls: type[AnalysisError]) -> str:
    return f"refusal, exit {cls.exit_status}"


def _table() -> Iterator[Code]:
    """Every entry: each run line (INTERRUPTED), each refusal code and its details, then
    every report code."""
    for code, (kind, meaning, todo) in RUN_LINES.items():
        yield Code(code, kind, meaning, todo)
    for cls in _error_classes():
        details = tuple(detail.value for detail in cls.detail_enum)
        yield Code(cls.code, _refusal_kind(cls), CODE_MEANINGS[cls.code], None, details)
        for detail in cls.detail_enum:
            text = REMEDIES[(cls.code, detail)].replace(OPTION_PLACEHOLDER, "the option")
            yield Code(
                f"{cls.code} {detail.value}",
                _refusal_kind(cls),
                MEANINGS[(cls.code, detail)],
                text,
            )
    for (kind, code), (meaning, todo) in REPORT_CODES.items():
        yield Code(code, kind, meaning, todo)


TABLE: tuple[Code, ...] = tuple(_table())
