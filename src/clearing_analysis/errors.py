"""The error hierarchy: every failure the analyzer reports is a fixed code.

Two roots, in the manner of python-tuf: `AnalysisError` for anything wrong with the user's
inputs or environment (each leaf carries a fixed `code` and an exit status), and plain
`RuntimeError` for caller misuse. No error carries input text, a path, a value or an
underlying exception's message: the CLI prints `code` and nothing else (R-OUT-1, R-REL-1).
"""

from __future__ import annotations

from typing import ClassVar

EXIT_COMPLETE = 0
EXIT_FAULT = 1
EXIT_INCOMPLETE = 2


class AnalysisError(Exception):
    """Base of all fixed-code failures. `code` is the only thing ever printed."""

    code: ClassVar[str] = "ANALYZER_FAULT"
    exit_status: ClassVar[int] = EXIT_FAULT

    def __init__(self, detail: str | None = None) -> None:
        # `detail` is a fixed reason code (never input text), kept for tests and the log.
        super().__init__(self.code if detail is None else f"{self.code}:{detail}")
        self.detail = detail

    def __reduce__(self) -> tuple[type[AnalysisError], tuple[str | None]]:
        # Errors cross process boundaries (replay workers): rebuild from the detail alone.
        return (type(self), (self.detail,))


class GloballyIncompleteError(AnalysisError):
    """The snapshot as a whole cannot be analyzed (R-RP-5): exit 2."""

    exit_status: ClassVar[int] = EXIT_INCOMPLETE


class InputInvalidError(GloballyIncompleteError):
    """An input file is malformed, contradictory or of the wrong kind."""

    code: ClassVar[str] = "INPUT_INVALID"


class NoJournalsError(GloballyIncompleteError):
    """The journal selection holds no journal file."""

    code: ClassVar[str] = "NO_JOURNALS"


class SidecarNotOfflineError(GloballyIncompleteError):
    """The sidecar is in WAL mode or has a companion file next to it."""

    code: ClassVar[str] = "SIDECAR_NOT_OFFLINE"


class SnapshotChangedError(GloballyIncompleteError):
    """An input changed between the snapshot taken before replay and the one after."""

    code: ClassVar[str] = "SNAPSHOT_CHANGED"


class OutputRefusedError(AnalysisError):
    """The requested output (report or log) cannot be created safely (R-FS-6)."""

    code: ClassVar[str] = "OUTPUT_REFUSED"
    exit_status: ClassVar[int] = EXIT_INCOMPLETE


class QualificationError(AnalysisError):
    """The qualifier could not run the installed pi-ai builders."""

    code: ClassVar[str] = "QUALIFIER_FAILED"
    exit_status: ClassVar[int] = EXIT_INCOMPLETE


class MountContractError(AnalysisError):
    """The container's mounts or network break the contract checked before replay (R-CT-2)."""

    code: ClassVar[str] = "MOUNT_CONTRACT_VIOLATED"
    exit_status: ClassVar[int] = EXIT_INCOMPLETE
