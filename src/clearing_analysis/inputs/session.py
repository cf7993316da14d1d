"""The one entry point commands use to read inputs and write outputs safely.

`InputSession.open(request)` does, for the paths a run's request names (inputs.requests), in
this order (each step a fixed code on failure):
1. select the journals from the explicit `--journals` (or `--sessions`) arguments
   (inputs.paths);
2. require every other named input to be an existing regular file (INPUT_INVALID);
3. check `--out`, `--log-file`, `--html` and, for a signed analyze, the attestation beside
   `--out` (docs/attestation.md) against the inputs and each other up front, so a refused
   output fails before any work and creates nothing (OUTPUT_REFUSED);
4. take the first snapshot, then select the journals again: a selection that changed while
   the snapshot was taken is SNAPSHOT_CHANGED (so no journal can slip in unseen);
5. check the sidecar is offline (inputs.sidecar, SIDECAR_NOT_OFFLINE / INPUT_INVALID);
6. decode routes, agent config and app allowlist (inputs.configs).
The caller replays, then calls `finish()` (second snapshot, SNAPSHOT_CHANGED on any
difference), then `write_outputs` (every output of the run as one whole, R-REL-6) or, one
output at a time, `write_output` / `write_log`, which
create their files exclusively only now, after everything was validated, from bytes produced
in memory. Nothing here reads an environment variable, a home or state directory, or the
network.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import msgspec

from clearing_analysis.codes.errors import (
    InputInvalidDetail,
    InputInvalidError,
    OutputRefusedDetail,
    OutputRefusedError,
    SidecarNotOfflineDetail,
    SidecarNotOfflineError,
    SnapshotChangedDetail,
    SnapshotChangedError,
)
from clearing_analysis.inputs import configs, output, snapshot
from clearing_analysis.inputs.paths import Identity, JournalSelection, select_journals
from clearing_analysis.inputs.requests import RunRequest
from clearing_analysis.inputs.sidecar import (
    COMPANION_SUFFIXES,
    SidecarView,
    StructureCheck,
    check_offline,
    open_sidecar,
)


def _stat_input_file(path: Path, code: str) -> os.stat_result:
    """`path`'s status; `code` names the input (`<CODE>_MISSING`, `<CODE>_NOT_FILE` details)."""
    try:
        status = path.stat()
    except OSError:
        raise InputInvalidError(InputInvalidDetail(f"{code}_MISSING")) from None
    if not stat.S_ISREG(status.st_mode):
        raise InputInvalidError(InputInvalidDetail(f"{code}_NOT_FILE"))
    return status


def _directory_identity(directory: Path) -> Identity | None:
    try:
        status = directory.stat()
    except OSError:
        return None
    return (status.st_dev, status.st_ino)


def file_identities(path: Path, status: os.stat_result) -> output.InputIdentities:
    """What an output must not touch when one file is the only input (`show`'s report): the
    file itself, and its name in its lexical and its real directory."""
    protected: dict[Identity, set[str]] = {}
    _protect(protected, path)
    return output.InputIdentities(
        input_directories=frozenset(),
        protected_names={key: frozenset(value) for key, value in protected.items()},
        input_files=frozenset({(status.st_dev, status.st_ino)}),
    )


def _protect(names: dict[Identity, set[str]], path: Path, extra: Sequence[str] = ()) -> None:
    """Refuse `path`'s name (and `extra` names) in its lexical and its real directory."""
    real = Path(os.path.realpath(path))
    for location in (path, real):
        identity = _directory_identity(location.parent)
        if identity is None:
            continue
        bucket = names.setdefault(identity, set())
        bucket.add(output.fold_name(location.name))
        bucket.update(output.fold_name(location.name + suffix) for suffix in extra)


def _snapshot_plan(
    selection: JournalSelection, sidecar: Path | None, others: list[Path]
) -> snapshot.SnapshotPlan:
    # The journals come first, in replay order (`journal_sizes` reads their stamps).
    journals = snapshot.WatchedFiles(selection.paths, selection.followed())
    named: list[snapshot.WatchedPath] = []
    companion_dirs: set[tuple[Path, str]] = set()
    if sidecar is not None:
        named.append(snapshot.WatchedPath(sidecar, follow=True))
        real_sidecar = Path(os.path.realpath(sidecar))
        companion_dirs = {(sidecar.parent, sidecar.name), (real_sidecar.parent, real_sidecar.name)}
    named.extend(snapshot.WatchedPath(path, follow=True) for path in others)
    directories = [
        snapshot.WatchedPath(d.path, follow=d.followed) for d in selection.walked_directories
    ]
    return snapshot.SnapshotPlan(
        files=journals + snapshot.WatchedFiles.of(named),
        directories=tuple(directories),
        companion_directories=tuple(sorted(companion_dirs)),
    )


class InputSession(msgspec.Struct):
    """Selected, validated inputs of one analysis, and the guard for its outputs."""

    selection: JournalSelection
    sidecar: Path | None  # None: explore's pi sessions, which have no sidecar
    routes: configs.Routes
    qualification: Path | None
    agent_config: configs.AgentConfig | None
    app_allowlist: configs.AppAllowlist | None
    identities: output.InputIdentities
    _plan: snapshot.SnapshotPlan
    _before: snapshot.Snapshot
    _between_snapshots: Callable[[], None] | None = None
    _finished: bool = msgspec.field(default=False)

    @property
    def journals(self) -> tuple[Path, ...]:
        """Journal paths in replay order (R-CLI-2), made on each call (`journal_paths` is
        what the session keeps)."""
        return tuple(Path(path) for path in self.selection.paths)

    @property
    def journal_paths(self) -> tuple[str, ...]:
        """Journal paths as text, in replay order (R-CLI-2)."""
        return self.selection.paths

    @property
    def journal_sizes(self) -> tuple[int, ...]:
        """Byte size of each selected file, as the first snapshot saw it (replay order; 0 for
        one it could not stat, which the first snapshot refuses)."""
        return tuple(self._before.files.size(index) for index in range(len(self.selection)))

    @classmethod
    def open(
        cls,
        request: RunRequest,
        *,
        signature: Path | None = None,
        between_snapshots: Callable[[], None] | None = None,
    ) -> InputSession:
        """Select and validate every input the request names, and check every output it will
        create (`signature`: a signed run's attestation, beside `--out`); `between_snapshots`
        is a test hook run by finish().

        An explore request has no sidecar (no sidecar file, companion or offline check) and
        its own selection rules; every other step is the same."""
        journal_args, rules = request.histories, request.rules
        sidecar, routes = request.sidecar, request.routes
        qualification, agent_config = request.qualification, request.agent_config
        app_allowlist = request.app_allowlist
        out, log_file, html = request.out, request.log_file, request.html
        selection = select_journals(journal_args, rules)
        named: list[tuple[Path, str]] = [(routes, "ROUTES")]
        if sidecar is not None:
            named.insert(0, (sidecar, "SIDECAR"))
        for optional, code in (
            (qualification, "QUALIFICATION"),
            (agent_config, "AGENT_CONFIG"),
            (app_allowlist, "APP_ALLOWLIST"),
        ):
            if optional is not None:
                named.append((optional, code))
        named_files: list[Identity] = []
        for path, code in named:
            status = _stat_input_file(path, code)
            named_files.append((status.st_dev, status.st_ino))

        protected: dict[Identity, set[str]] = {}
        for index in selection.explicit():  # walked journals sit in input directories,
            _protect(protected, Path(selection.paths[index]))  # which are refused wholesale
        others = [path for path, code in named if code != "SIDECAR"]
        for path in others:
            _protect(protected, path)
        if sidecar is not None:
            _protect(protected, sidecar, extra=COMPANION_SUFFIXES)
        identities = output.InputIdentities(
            input_directories=frozenset(d.identity for d in selection.walked_directories),
            protected_names={key: frozenset(value) for key, value in protected.items()},
            input_files=output.IdentityColumn.of(
                [*(selection.identity(index) for index in range(len(selection))), *named_files]
            ),
        )
        _check_outputs_up_front(
            {"out": out, "log": log_file, "signature": signature, "html": html}, identities
        )

        plan = _snapshot_plan(selection, sidecar, others)
        before = snapshot.take(plan)
        if before.has_missing_input() or select_journals(journal_args, rules) != selection:
            raise SnapshotChangedError(SnapshotChangedDetail.SELECTION_CHANGED)
        if before.has_companion():
            raise SidecarNotOfflineError(SidecarNotOfflineDetail.COMPANION_PRESENT)
        if sidecar is not None:
            check_offline(sidecar)
        return cls(
            selection=selection,
            sidecar=sidecar,
            routes=configs.load_routes(routes),
            qualification=qualification,
            agent_config=None if agent_config is None else configs.load_agent_config(agent_config),
            app_allowlist=(
                None if app_allowlist is None else configs.load_app_allowlist(app_allowlist)
            ),
            identities=identities,
            _plan=plan,
            _before=before,
            _between_snapshots=between_snapshots,
        )

    def open_sidecar(self) -> SidecarView:
        """The sidecar, checked offline again and opened read-only and immutable."""
        if self.sidecar is None:
            raise RuntimeError("this session has no sidecar")
        return open_sidecar(self.sidecar)

    @contextmanager
    def sidecar_checked_meanwhile(self) -> Iterator[SidecarView]:
        """The sidecar, checked offline again and opened read-only and immutable like
        `open_sidecar`, while its structure check (`PRAGMA quick_check`) runs in a thread
        during the block (`sidecar.StructureCheck`): the replay does not wait for it.

        Leaving the block waits for the check, and a damaged file is refused (INPUT_INVALID
        SIDECAR_DAMAGED) whatever else the block did: an error the block raised (a unit that
        read the damage, say) gives way to it, as when the check ran first. An interrupt stops
        the check instead."""
        if self.sidecar is None:
            raise RuntimeError("this session has no sidecar")
        with open_sidecar(self.sidecar, check_structure=False) as view:
            check = StructureCheck(self.sidecar)
            try:
                yield view
            except Exception:
                check.wait()  # SIDECAR_DAMAGED first, as when the check ran before the replay
                raise
            except BaseException:
                check.cancel()
                raise
            check.wait()

    def finish(self) -> None:
        """Take the second snapshot and refuse any difference (R-FS-7)."""
        if self._between_snapshots is not None:
            self._between_snapshots()
        snapshot.compare(self._before, snapshot.take(self._plan))
        self._finished = True

    def write_output(self, data: bytes, out: Path | None) -> output.CreatedFile | None:
        """Write the complete result: stdout by default, else an exclusively created file
        (which is returned)."""
        self._require_finished()
        if out is None:
            output.write_stdout(data)
            return None
        return output.create_exclusive(out, data, self.identities)

    def write_log(self, data: bytes, log_file: Path) -> None:
        """Write the buffered log lines to an exclusively created file (same rules as --out)."""
        self._require_finished()
        output.create_exclusive(log_file, data, self.identities)

    def write_outputs(self, files: Sequence[output.NewFile], stdout: bytes | None) -> None:
        """Write every output of the run as one whole (R-REL-6, `output.create_all`): the
        files, each created exclusively under the rules of --out, and what goes to stdout;
        the files are named only after all of them and stdout are written, or none is."""
        self._require_finished()
        output.create_all(files, self.identities, stdout=stdout)

    def _require_finished(self) -> None:
        if not self._finished:
            raise RuntimeError("outputs are written only after finish() validated the snapshot")


def _same_entry(first: output.OutputTarget, second: output.OutputTarget) -> bool:
    return (first.parent_identity, output.fold_name(first.name)) == (
        second.parent_identity,
        output.fold_name(second.name),
    )


# Two outputs of one run that name the same new file, and the refusal that says which.
_SAME_ENTRY = {
    ("out", "log"): OutputRefusedDetail.OUTPUT_SAME_AS_LOG,
    ("signature", "log"): OutputRefusedDetail.SIGNATURE_SAME_AS_LOG,
    ("html", "out"): OutputRefusedDetail.HTML_SAME_AS_OUTPUT,
    ("html", "log"): OutputRefusedDetail.HTML_SAME_AS_LOG,
    ("html", "signature"): OutputRefusedDetail.HTML_SAME_AS_SIGNATURE,
}


def _check_outputs_up_front(
    outputs: dict[str, Path | None], identities: output.InputIdentities
) -> None:
    """Every output may be created, and no two name the same new file (the signature's name
    is --out's plus a suffix, so those two never collide)."""
    checked = {
        role: output.check_output(path, identities)
        for role, path in outputs.items()
        if path is not None
    }
    for (first, second), detail in _SAME_ENTRY.items():
        if first in checked and second in checked and _same_entry(checked[first], checked[second]):
            raise OutputRefusedError(detail)
