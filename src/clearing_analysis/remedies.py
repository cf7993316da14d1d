"""The one table of remedies, and the one line a failure prints (R-CLI-3, R-OUT-1).

Guarantees:
- `REMEDIES` maps every (code, detail) pair of the error hierarchy (`clearing_analysis.errors`)
  to one fixed sentence telling the user what to do; a test proves it covers every member of
  every class's detail enum and nothing else, and docs/exit-codes.md lists the same pairs with
  the same text (tested both ways).
- A remedy is fixed text from this module: it may name our own options, files of this
  repository and documentation pages, never a value from an input, an argument, a path, an id
  or an exception message. In a USAGE_ERROR remedy, `<option>` stands for the options the
  error names (`UsageError.options`, taken from the command's own declaration, never from what
  was typed); without any, it reads "the option".
- `failure_line` is the only formatter of a failure: `clearing-analysis: <CODE> <DETAIL>:
  <remedy>` and a newline. The CLI (`cli._exit`) and the image's entrypoint
  (`container.entrypoint`) both print through it.
"""

from __future__ import annotations

from collections.abc import Mapping

from clearing_analysis.errors import (
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
