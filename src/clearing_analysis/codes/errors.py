"""The error hierarchy: every failure the analyzer reports is a fixed code and a fixed detail.

Two roots, in the manner of python-tuf: `AnalysisError` for anything wrong with the user's
inputs, command line or environment, and plain `RuntimeError` for caller misuse. Each class
that names a `code` has its own `StrEnum` of detail codes (`detail_enum`) and its constructor
takes only a member of that enum: mypy checks it, and any other value is a `RuntimeError`
(misuse), so no error can carry input text, a path, a value or an exception message (R-OUT-1,
R-REL-1). All detail enums live here, one per class, so that the complete set of failures is
one page long; `clearing_analysis.codes.table` maps every (code, detail) to the one-line remedy
the terminal prints, and docs/exit-codes.md lists the same pairs.
"""

from __future__ import annotations

import enum
import re
from typing import ClassVar

EXIT_COMPLETE = 0
EXIT_FAULT = 1
EXIT_INCOMPLETE = 2


class FaultDetail(enum.StrEnum):
    """ANALYZER_FAULT: an unexpected internal error; no detail of it is ever shown."""

    INTERNAL_ERROR = "INTERNAL_ERROR"


class InputInvalidDetail(enum.StrEnum):
    """INPUT_INVALID: an input is missing, of the wrong kind, malformed or contradictory."""

    # Journal selection (inputs.paths).
    JOURNALS_MISSING = "JOURNALS_MISSING"
    JOURNALS_NOT_FILE_OR_DIRECTORY = "JOURNALS_NOT_FILE_OR_DIRECTORY"
    JOURNALS_UNREADABLE = "JOURNALS_UNREADABLE"
    NATIVE_ROOT_NOT_JOURNALS = "NATIVE_ROOT_NOT_JOURNALS"
    # Session selection of `explore --sessions` (the same walk, its own codes).
    SESSIONS_MISSING = "SESSIONS_MISSING"
    SESSIONS_NOT_FILE_OR_DIRECTORY = "SESSIONS_NOT_FILE_OR_DIRECTORY"
    SESSIONS_UNREADABLE = "SESSIONS_UNREADABLE"
    # Every other named input must be an existing regular file (inputs.session).
    SIDECAR_MISSING = "SIDECAR_MISSING"
    SIDECAR_NOT_FILE = "SIDECAR_NOT_FILE"
    ROUTES_MISSING = "ROUTES_MISSING"
    ROUTES_NOT_FILE = "ROUTES_NOT_FILE"
    QUALIFICATION_MISSING = "QUALIFICATION_MISSING"
    QUALIFICATION_NOT_FILE = "QUALIFICATION_NOT_FILE"
    AGENT_CONFIG_MISSING = "AGENT_CONFIG_MISSING"
    AGENT_CONFIG_NOT_FILE = "AGENT_CONFIG_NOT_FILE"
    APP_ALLOWLIST_MISSING = "APP_ALLOWLIST_MISSING"
    APP_ALLOWLIST_NOT_FILE = "APP_ALLOWLIST_NOT_FILE"
    # The sidecar database (inputs.sidecar).
    SIDECAR_UNREADABLE = "SIDECAR_UNREADABLE"
    SIDECAR_NOT_SQLITE = "SIDECAR_NOT_SQLITE"
    SIDECAR_SCHEMA = "SIDECAR_SCHEMA"
    SIDECAR_DAMAGED = "SIDECAR_DAMAGED"
    SIDECAR_COMPUTED_SCHEMA = "SIDECAR_COMPUTED_SCHEMA"
    SIDECAR_VALUE_TOO_LARGE = "SIDECAR_VALUE_TOO_LARGE"
    # Configuration files (inputs.configs): the same nine reading / JSON / shape codes under
    # each file's prefix, plus the rules a JSON Schema cannot state.
    ROUTES_UNREADABLE = "ROUTES_UNREADABLE"
    ROUTES_TOO_LARGE = "ROUTES_TOO_LARGE"
    ROUTES_INVALID_UTF8 = "ROUTES_INVALID_UTF8"
    ROUTES_MALFORMED_JSON = "ROUTES_MALFORMED_JSON"
    ROUTES_DUPLICATE_KEY = "ROUTES_DUPLICATE_KEY"
    ROUTES_NON_FINITE_NUMBER = "ROUTES_NON_FINITE_NUMBER"
    ROUTES_NUMBER_OUT_OF_RANGE = "ROUTES_NUMBER_OUT_OF_RANGE"
    ROUTES_NESTING_TOO_DEEP = "ROUTES_NESTING_TOO_DEEP"
    ROUTES_WRONG_SHAPE = "ROUTES_WRONG_SHAPE"
    ROUTES_EMPTY = "ROUTES_EMPTY"
    ROUTES_DUPLICATE_API = "ROUTES_DUPLICATE_API"
    # A number of the right type outside its stated range (clearing_analysis.ranges).
    ROUTES_VALUE_OUT_OF_RANGE = "ROUTES_VALUE_OUT_OF_RANGE"
    AGENT_CONFIG_UNREADABLE = "AGENT_CONFIG_UNREADABLE"
    AGENT_CONFIG_TOO_LARGE = "AGENT_CONFIG_TOO_LARGE"
    AGENT_CONFIG_INVALID_UTF8 = "AGENT_CONFIG_INVALID_UTF8"
    AGENT_CONFIG_MALFORMED_JSON = "AGENT_CONFIG_MALFORMED_JSON"
    AGENT_CONFIG_DUPLICATE_KEY = "AGENT_CONFIG_DUPLICATE_KEY"
    AGENT_CONFIG_NON_FINITE_NUMBER = "AGENT_CONFIG_NON_FINITE_NUMBER"
    AGENT_CONFIG_NUMBER_OUT_OF_RANGE = "AGENT_CONFIG_NUMBER_OUT_OF_RANGE"
    AGENT_CONFIG_NESTING_TOO_DEEP = "AGENT_CONFIG_NESTING_TOO_DEEP"
    AGENT_CONFIG_WRONG_SHAPE = "AGENT_CONFIG_WRONG_SHAPE"
    AGENT_CONFIG_EMPTY = "AGENT_CONFIG_EMPTY"
    AGENT_CONFIG_RUN_ID_MISSING = "AGENT_CONFIG_RUN_ID_MISSING"
    AGENT_CONFIG_RUN_ID_DUPLICATE = "AGENT_CONFIG_RUN_ID_DUPLICATE"
    AGENT_CONFIG_CONVERSATION_ID_MISSING = "AGENT_CONFIG_CONVERSATION_ID_MISSING"
    APP_ALLOWLIST_UNREADABLE = "APP_ALLOWLIST_UNREADABLE"
    APP_ALLOWLIST_TOO_LARGE = "APP_ALLOWLIST_TOO_LARGE"
    APP_ALLOWLIST_INVALID_UTF8 = "APP_ALLOWLIST_INVALID_UTF8"
    APP_ALLOWLIST_MALFORMED_JSON = "APP_ALLOWLIST_MALFORMED_JSON"
    APP_ALLOWLIST_DUPLICATE_KEY = "APP_ALLOWLIST_DUPLICATE_KEY"
    APP_ALLOWLIST_NON_FINITE_NUMBER = "APP_ALLOWLIST_NON_FINITE_NUMBER"
    APP_ALLOWLIST_NUMBER_OUT_OF_RANGE = "APP_ALLOWLIST_NUMBER_OUT_OF_RANGE"
    APP_ALLOWLIST_NESTING_TOO_DEEP = "APP_ALLOWLIST_NESTING_TOO_DEEP"
    APP_ALLOWLIST_WRONG_SHAPE = "APP_ALLOWLIST_WRONG_SHAPE"
    APP_ALLOWLIST_DUPLICATE = "APP_ALLOWLIST_DUPLICATE"
    # Analysis settings (--retrieval-rate) and saved reports read back.
    RETRIEVAL_RATE_OUT_OF_RANGE = "RETRIEVAL_RATE_OUT_OF_RANGE"
    # --since / --until (inputs.period): not an ISO-8601 date or date and time; no instant.
    PERIOD_NOT_A_DATE = "PERIOD_NOT_A_DATE"
    PERIOD_EMPTY = "PERIOD_EMPTY"
    REPORT_MISSING = "REPORT_MISSING"
    REPORT_UNREADABLE = "REPORT_UNREADABLE"
    REPORT_TOO_LARGE = "REPORT_TOO_LARGE"
    REPORT_MALFORMED = "REPORT_MALFORMED"
    REPORT_NOT_A_REPORT = "REPORT_NOT_A_REPORT"
    # A report about to be written would print an integer beyond ±(2^53 - 1): sums of values
    # each within its range, over more history than a report can state exactly.
    TOTALS_OUT_OF_RANGE = "TOTALS_OUT_OF_RANGE"


class NoJournalsDetail(enum.StrEnum):
    """NO_JOURNALS: the selection is empty (journals for `analyze`, sessions for `explore`), or
    nothing in it replays, so there is no evidence to give a verdict on (R-RP-5 decision). Then
    the detail names what the files are when their first line shows it (`histories.recognize`),
    else the most frequent skip reason."""

    NO_JOURNAL_FILES = "NO_JOURNAL_FILES"
    NO_SESSION_FILES = "NO_SESSION_FILES"
    # Nothing replayed, and most files are of another kind.
    PI_SESSION_FILES = "PI_SESSION_FILES"  # given to analyze
    NATIVE_JOURNAL_FILES = "NATIVE_JOURNAL_FILES"  # given to explore
    CLAUDE_CODE_TRANSCRIPTS = "CLAUDE_CODE_TRANSCRIPTS"
    CODEX_TRANSCRIPTS = "CODEX_TRANSCRIPTS"
    # Nothing replayed: the most frequent reason a journal was skipped (analyze) ...
    NONE_REPLAYED_UNSUPPORTED_VERSION = "NONE_REPLAYED_UNSUPPORTED_VERSION"
    NONE_REPLAYED_IMPORTED = "NONE_REPLAYED_IMPORTED"
    NONE_REPLAYED_INHERITED = "NONE_REPLAYED_INHERITED"
    NONE_REPLAYED_INTERRUPTED = "NONE_REPLAYED_INTERRUPTED"
    NONE_REPLAYED_INVALID = "NONE_REPLAYED_INVALID"
    NONE_REPLAYED_OPEN = "NONE_REPLAYED_OPEN"
    # ... or a session file was skipped (explore).
    NONE_READ_UNSUPPORTED_VERSION = "NONE_READ_UNSUPPORTED_VERSION"
    NONE_READ_INVALID = "NONE_READ_INVALID"
    NONE_READ_OPEN = "NONE_READ_OPEN"


class SidecarNotOfflineDetail(enum.StrEnum):
    """SIDECAR_NOT_OFFLINE: the sidecar is not a checkpointed offline copy (R-SC-1, R-SC-2)."""

    COMPANION_PRESENT = "COMPANION_PRESENT"
    WAL_MODE = "WAL_MODE"


class SnapshotChangedDetail(enum.StrEnum):
    """SNAPSHOT_CHANGED: an input changed between the two snapshots (R-FS-7)."""

    SELECTION_CHANGED = "SELECTION_CHANGED"
    FILE_CHANGED = "FILE_CHANGED"
    DIRECTORY_CHANGED = "DIRECTORY_CHANGED"
    COMPANION_CHANGED = "COMPANION_CHANGED"


class OutputRefusedDetail(enum.StrEnum):
    """OUTPUT_REFUSED: an output cannot be created safely (R-FS-1..6)."""

    OUTPUT_NAME_INVALID = "OUTPUT_NAME_INVALID"
    OUTPUT_PARENT_MISSING = "OUTPUT_PARENT_MISSING"
    OUTPUT_PARENT_NOT_DIRECTORY = "OUTPUT_PARENT_NOT_DIRECTORY"
    OUTPUT_PARENT_UNREADABLE = "OUTPUT_PARENT_UNREADABLE"
    OUTPUT_INSIDE_INPUT = "OUTPUT_INSIDE_INPUT"
    OUTPUT_NAME_COLLIDES = "OUTPUT_NAME_COLLIDES"
    OUTPUT_IS_SYMLINK = "OUTPUT_IS_SYMLINK"
    OUTPUT_IS_INPUT = "OUTPUT_IS_INPUT"
    OUTPUT_EXISTS = "OUTPUT_EXISTS"
    OUTPUT_SAME_AS_LOG = "OUTPUT_SAME_AS_LOG"
    SIGNATURE_SAME_AS_LOG = "SIGNATURE_SAME_AS_LOG"
    HTML_SAME_AS_OUTPUT = "HTML_SAME_AS_OUTPUT"
    HTML_SAME_AS_LOG = "HTML_SAME_AS_LOG"
    HTML_SAME_AS_SIGNATURE = "HTML_SAME_AS_SIGNATURE"
    OUTPUT_PARENT_CHANGED = "OUTPUT_PARENT_CHANGED"
    OUTPUT_CREATE_FAILED = "OUTPUT_CREATE_FAILED"
    OUTPUT_WRITE_FAILED = "OUTPUT_WRITE_FAILED"
    STDOUT_FAILED = "STDOUT_FAILED"
    SYNTH_OUT_EXISTS = "SYNTH_OUT_EXISTS"


class QualificationDetail(enum.StrEnum):
    """QUALIFIER_FAILED: the qualifier could not run the installed pi-ai builders."""

    # Found by the runner (qualify.runner).
    NODE_NOT_FOUND = "NODE_NOT_FOUND"
    NODE_NOT_IN_IMAGE = "NODE_NOT_IN_IMAGE"
    HARNESS_NOT_INSTALLED = "HARNESS_NOT_INSTALLED"
    HARNESS_NOT_RUN = "HARNESS_NOT_RUN"
    HARNESS_FAILED = "HARNESS_FAILED"
    HARNESS_OUTPUT_INVALID = "HARNESS_OUTPUT_INVALID"
    HARNESS_CHANGED = "HARNESS_CHANGED"
    PI_AI_INCONSISTENT = "PI_AI_INCONSISTENT"
    # Printed by qualify/capture.mjs on stderr and passed on as they are.
    USAGE = "USAGE"
    NODE_TOO_OLD = "NODE_TOO_OLD"
    PLACEHOLDER_EMPTY = "PLACEHOLDER_EMPTY"
    PI_AI_MANIFEST = "PI_AI_MANIFEST"
    MODEL_MISSING = "MODEL_MISSING"
    CAPTURE_FAILED = "CAPTURE_FAILED"
    NETWORK_ATTEMPTED = "NETWORK_ATTEMPTED"
    HARNESS_FAULT = "HARNESS_FAULT"


class MountContractDetail(enum.StrEnum):
    """MOUNT_CONTRACT_VIOLATED: the container breaks the mount contract (R-CT-2)."""

    MOUNTINFO_UNREADABLE = "MOUNTINFO_UNREADABLE"
    MOUNTINFO_INVALID = "MOUNTINFO_INVALID"
    ARGUMENT_UNCLASSIFIED = "ARGUMENT_UNCLASSIFIED"
    ARGUMENT_UNPARSED = "ARGUMENT_UNPARSED"
    # A path that does not exist in the container, below no mount given for it: a host path.
    PATH_NOT_MOUNTED = "PATH_NOT_MOUNTED"
    INPUT_NOT_READ_ONLY = "INPUT_NOT_READ_ONLY"
    OUTPUT_NOT_WRITABLE = "OUTPUT_NOT_WRITABLE"
    OUTPUT_NOT_WRITABLE_BY_USER = "OUTPUT_NOT_WRITABLE_BY_USER"
    OUTPUT_NOT_SEPARATE_MOUNT = "OUTPUT_NOT_SEPARATE_MOUNT"
    OUTPUT_CONTAINS_INPUT = "OUTPUT_CONTAINS_INPUT"
    OUTPUT_INSIDE_INPUT = "OUTPUT_INSIDE_INPUT"
    NETWORK_NOT_ISOLATED = "NETWORK_NOT_ISOLATED"
    NETWORK_UNVERIFIABLE = "NETWORK_UNVERIFIABLE"


class SigningKeyDetail(enum.StrEnum):
    """SIGNING_KEY_REFUSED: the `analyze --sign-key` file cannot sign (docs/attestation.md)."""

    KEY_MISSING = "KEY_MISSING"
    KEY_NOT_FILE = "KEY_NOT_FILE"
    KEY_IS_PUBLIC = "KEY_IS_PUBLIC"
    KEY_UNREADABLE = "KEY_UNREADABLE"
    KEY_PERMISSIONS_TOO_OPEN = "KEY_PERMISSIONS_TOO_OPEN"
    KEY_MALFORMED = "KEY_MALFORMED"
    KEY_ENCRYPTED = "KEY_ENCRYPTED"
    KEY_NOT_ED25519 = "KEY_NOT_ED25519"


class VerifyDetail(enum.StrEnum):
    """VERIFY_FAILED: `verify` does not accept the report's attestation (docs/attestation.md)."""

    REPORT_MISSING = "REPORT_MISSING"
    ATTESTATION_MISSING = "ATTESTATION_MISSING"
    PUBKEY_MISSING = "PUBKEY_MISSING"
    PUBKEY_INVALID = "PUBKEY_INVALID"
    ENVELOPE_MALFORMED = "ENVELOPE_MALFORMED"
    WRONG_KEY = "WRONG_KEY"
    PAYLOAD_CHANGED = "PAYLOAD_CHANGED"
    BAD_SIGNATURE = "BAD_SIGNATURE"
    STATEMENT_INVALID = "STATEMENT_INVALID"
    REPORT_CHANGED = "REPORT_CHANGED"
    CONTRACT_NOT_HELD = "CONTRACT_NOT_HELD"


class UsageDetail(enum.StrEnum):
    """USAGE_ERROR: the command line does not fit the command (nothing of it is echoed)."""

    UNKNOWN_COMMAND = "UNKNOWN_COMMAND"
    MISSING_COMMAND = "MISSING_COMMAND"
    UNKNOWN_OPTION = "UNKNOWN_OPTION"
    # An unknown option close to one the command declares, which the remedy names.
    MISTYPED_OPTION = "MISTYPED_OPTION"
    MISSING_OPTION = "MISSING_OPTION"
    MISSING_VALUE = "MISSING_VALUE"
    UNEXPECTED_VALUE = "UNEXPECTED_VALUE"
    BAD_VALUE = "BAD_VALUE"
    EXTRA_ARGUMENT = "EXTRA_ARGUMENT"
    EXCLUSIVE_OPTIONS = "EXCLUSIVE_OPTIONS"
    # `routes init --model PROVIDER/ID`: the value is checked against the pinned pi-ai catalog
    # (policy/pi-ai-models.json), which is reviewed data, not user input.
    MODEL_UNKNOWN = "MODEL_UNKNOWN"
    MODEL_API_MISMATCH = "MODEL_API_MISMATCH"
    MODEL_AGENT_MISMATCH = "MODEL_AGENT_MISMATCH"  # --agent claude-code: not anthropic-messages
    # --agent codex: not openai-codex-responses nor openai-responses
    MODEL_CODEX_MISMATCH = "MODEL_CODEX_MISMATCH"
    MODEL_API_REPEATED = "MODEL_API_REPEATED"  # two --model values of one API
    MODEL_UNPRICED = "MODEL_UNPRICED"
    MODEL_WINDOW_TOO_SMALL = "MODEL_WINDOW_TOO_SMALL"
    # `routes init --cache-lifetime-ms`: not PROVIDER/ID=MS with MS whole milliseconds; a model
    # no --model names; a model given twice.
    CACHE_LIFETIME_INVALID = "CACHE_LIFETIME_INVALID"
    CACHE_LIFETIME_MODEL_NOT_GIVEN = "CACHE_LIFETIME_MODEL_NOT_GIVEN"
    CACHE_LIFETIME_REPEATED = "CACHE_LIFETIME_REPEATED"
    # `explain` was given a word that is no code of this program (the word is not kept).
    UNKNOWN_CODE = "UNKNOWN_CODE"
    INVALID_COMMAND_LINE = "INVALID_COMMAND_LINE"


class AnalysisError(Exception):
    """Base of all fixed-code failures; raised itself only as ANALYZER_FAULT."""

    code: ClassVar[str] = "ANALYZER_FAULT"
    exit_status: ClassVar[int] = EXIT_FAULT
    detail_enum: ClassVar[type[enum.StrEnum]] = FaultDetail

    detail: enum.StrEnum

    def __init__(self, detail: FaultDetail) -> None:
        self._set_detail(detail)

    def _set_detail(self, detail: enum.StrEnum) -> None:
        cls = type(self)
        # A grouping such as GloballyIncompleteError names no code: it is never raised itself.
        if "code" not in vars(cls) or "detail_enum" not in vars(cls):
            raise RuntimeError("only a class with its own code and detail enum is raised")
        if not isinstance(detail, cls.detail_enum):
            raise RuntimeError("an error's detail must be a member of its class's detail enum")
        super().__init__(f"{cls.code}:{detail.value}")
        self.detail = detail

    def __reduce__(self) -> tuple[type[AnalysisError], tuple[object, ...]]:
        # Errors cross process boundaries (replay workers): rebuild from the detail alone.
        return (type(self), (self.detail,))


class GloballyIncompleteError(AnalysisError):
    """The snapshot as a whole cannot be analyzed (R-RP-5): exit 2."""

    exit_status: ClassVar[int] = EXIT_INCOMPLETE


class InputInvalidError(GloballyIncompleteError):
    """An input file is malformed, contradictory or of the wrong kind."""

    code: ClassVar[str] = "INPUT_INVALID"
    detail_enum: ClassVar[type[enum.StrEnum]] = InputInvalidDetail

    def __init__(self, detail: InputInvalidDetail) -> None:
        self._set_detail(detail)


class NoJournalsError(GloballyIncompleteError):
    """The selection holds no journal (session) file, or none of its files replays."""

    code: ClassVar[str] = "NO_JOURNALS"
    detail_enum: ClassVar[type[enum.StrEnum]] = NoJournalsDetail

    def __init__(self, detail: NoJournalsDetail) -> None:
        self._set_detail(detail)


class SidecarNotOfflineError(GloballyIncompleteError):
    """The sidecar is in WAL mode or has a companion file next to it."""

    code: ClassVar[str] = "SIDECAR_NOT_OFFLINE"
    detail_enum: ClassVar[type[enum.StrEnum]] = SidecarNotOfflineDetail

    def __init__(self, detail: SidecarNotOfflineDetail) -> None:
        self._set_detail(detail)


class SnapshotChangedError(GloballyIncompleteError):
    """An input changed between the snapshot taken before replay and the one after."""

    code: ClassVar[str] = "SNAPSHOT_CHANGED"
    detail_enum: ClassVar[type[enum.StrEnum]] = SnapshotChangedDetail

    def __init__(self, detail: SnapshotChangedDetail) -> None:
        self._set_detail(detail)


class OutputRefusedError(AnalysisError):
    """The requested output (report or log) cannot be created safely (R-FS-6)."""

    code: ClassVar[str] = "OUTPUT_REFUSED"
    exit_status: ClassVar[int] = EXIT_INCOMPLETE
    detail_enum: ClassVar[type[enum.StrEnum]] = OutputRefusedDetail

    def __init__(self, detail: OutputRefusedDetail) -> None:
        self._set_detail(detail)


class QualificationError(AnalysisError):
    """The qualifier could not run the installed pi-ai builders."""

    code: ClassVar[str] = "QUALIFIER_FAILED"
    exit_status: ClassVar[int] = EXIT_INCOMPLETE
    detail_enum: ClassVar[type[enum.StrEnum]] = QualificationDetail

    def __init__(self, detail: QualificationDetail) -> None:
        self._set_detail(detail)


class MountContractError(AnalysisError):
    """The container's mounts or network break the contract checked before replay (R-CT-2)."""

    code: ClassVar[str] = "MOUNT_CONTRACT_VIOLATED"
    exit_status: ClassVar[int] = EXIT_INCOMPLETE
    detail_enum: ClassVar[type[enum.StrEnum]] = MountContractDetail

    def __init__(self, detail: MountContractDetail) -> None:
        self._set_detail(detail)


class SigningKeyError(AnalysisError):
    """The private key given to `analyze --sign-key` is refused, before any analysis work."""

    code: ClassVar[str] = "SIGNING_KEY_REFUSED"
    exit_status: ClassVar[int] = EXIT_INCOMPLETE
    detail_enum: ClassVar[type[enum.StrEnum]] = SigningKeyDetail

    def __init__(self, detail: SigningKeyDetail) -> None:
        self._set_detail(detail)


class VerifyError(AnalysisError):
    """`verify` refuses a report: its attestation is missing, malformed, or does not hold."""

    code: ClassVar[str] = "VERIFY_FAILED"
    exit_status: ClassVar[int] = EXIT_INCOMPLETE
    detail_enum: ClassVar[type[enum.StrEnum]] = VerifyDetail

    def __init__(self, detail: VerifyDetail) -> None:
        self._set_detail(detail)


# An option as our own commands declare it (`--sidecar`, `--log-file`): the only text of a
# command line a usage error may carry, and only when taken from the command's declaration.
DECLARED_OPTION = re.compile(r"--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


class UsageError(AnalysisError):
    """The command line does not fit the command: exit 2, before anything is read or written.

    `options` names the options concerned, as the command declares them (never as typed: an
    unknown option, a value or an extra word is never kept); the remedy names them.
    """

    code: ClassVar[str] = "USAGE_ERROR"
    exit_status: ClassVar[int] = EXIT_INCOMPLETE
    detail_enum: ClassVar[type[enum.StrEnum]] = UsageDetail

    def __init__(self, detail: UsageDetail, options: tuple[str, ...] = ()) -> None:
        if not all(isinstance(o, str) and DECLARED_OPTION.fullmatch(o) for o in options):
            raise RuntimeError("a usage error names options only as the command declares them")
        self._set_detail(detail)
        self.options = tuple(options)

    def __reduce__(self) -> tuple[type[AnalysisError], tuple[object, ...]]:
        return (type(self), (self.detail, self.options))
