"""Every mount-contract violation (R-CT-2), on hand-written mountinfo and fake /sys/class/net.

The paths are real directories under tmp_path (the contract resolves them on the file system,
as inside the container); the mount table saying which of them are mount points is text.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path

import pytest

from clearing_analysis.codes.errors import MountContractError, SidecarNotOfflineError
from clearing_analysis.container.contract import (
    ContractPaths,
    check_contract,
    check_mounts,
    check_network,
    check_output_access,
    check_sidecars,
)
from clearing_analysis.container.mountinfo import parse_mountinfo

HOST_DEVICE = "8:1"


def _escape(path: Path) -> str:
    return str(path).replace("\\", "\\134").replace(" ", "\\040")


def _line(ids: tuple[int, int], root: str, point: Path, options: str, device: str) -> str:
    mount_id, parent = ids
    where = _escape(point)
    return f"{mount_id} {parent} {device} {root} {where} {options},relatime - ext4 /dev/vda1 rw\n"


class Sandbox:
    """A container-like view: /in and /out directories under tmp_path, plus a root mount."""

    def __init__(self, tmp_path: Path) -> None:
        self.inside = tmp_path / "inside"
        self.input_dir = self.inside / "in"
        self.output_dir = self.inside / "out"
        for directory in (self.input_dir / "journals", self.output_dir):
            directory.mkdir(parents=True)
        for name in ("routes.json", "history.sqlite", "journals/a.jsonl"):
            (self.input_dir / name).write_bytes(b"x")
        self.lines = ["1 0 0:48 / / ro,relatime - overlay overlay rw\n"]
        self.points: list[Path] = [Path("/")]

    def mount(self, root: str, point: Path, options: str, device: str = HOST_DEVICE) -> None:
        """Add a bind of host `root` at `point`, on top of the mount it lands on (as the kernel
        records it: the parent is the latest mount at or above the point)."""
        parent = max(i for i, p in enumerate(self.points) if p == point or p in point.parents)
        self.lines.append(_line((len(self.lines) + 1, parent + 1), root, point, options, device))
        self.points.append(point)

    def table_text(self) -> str:
        """The mountinfo text."""
        return "".join(self.lines)

    def paths(self, out_name: str = "report.json") -> ContractPaths:
        """A replay command line: journals dir, sidecar, routes; --out in the output dir."""
        return ContractPaths(
            inputs=(
                self.input_dir / "journals",
                self.input_dir / "history.sqlite",
                self.input_dir / "routes.json",
            ),
            outputs=(self.output_dir / out_name,),
            sidecars=(self.input_dir / "history.sqlite",),
        )

    def check(self, paths: ContractPaths | None = None) -> None:
        """Run the mount part of the contract."""
        check_mounts(parse_mountinfo(self.table_text()), self.paths() if paths is None else paths)


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    return Sandbox(tmp_path)


def _detail(sandbox: Sandbox, paths: ContractPaths | None = None) -> str | None:
    with pytest.raises(MountContractError) as caught:
        sandbox.check(paths)
    return caught.value.detail


class TestSealedRun:
    """The layout the docs prescribe passes."""

    def test_read_only_input_and_separate_writable_output(self, sandbox: Sandbox) -> None:
        """-v IN:/in:ro -v OUT:/out:rw with disjoint host directories is accepted."""
        sandbox.mount("/srv/data/in", sandbox.input_dir, "ro")
        sandbox.mount("/srv/data/out", sandbox.output_dir, "rw")
        sandbox.check()

    def test_single_file_binds(self, sandbox: Sandbox) -> None:
        """Inputs bound file by file, read-only, are on read-only mounts."""
        sandbox.mount("/srv/data/in", sandbox.input_dir, "ro")
        sandbox.mount("/srv/cfg/routes.json", sandbox.input_dir / "routes.json", "ro")
        sandbox.mount("/srv/out", sandbox.output_dir, "rw")
        sandbox.check()

    def test_inputs_on_a_read_only_root_without_output(self, sandbox: Sandbox) -> None:
        """With no output file (stdout), inputs on the read-only root are enough."""
        sandbox.check(ContractPaths(inputs=sandbox.paths().inputs))

    def test_same_names_on_another_device_do_not_overlap(self, sandbox: Sandbox) -> None:
        """Overlap is judged within one file system: equal roots on other devices are fine."""
        sandbox.mount("/data", sandbox.input_dir, "ro", device="8:1")
        sandbox.mount("/data", sandbox.output_dir, "rw", device="8:2")
        sandbox.check()


class TestInputs:
    """Every input lies on a read-only mount."""

    def test_writable_input_mount(self, sandbox: Sandbox) -> None:
        """-v IN:/in:rw is INPUT_NOT_READ_ONLY."""
        sandbox.mount("/srv/data/in", sandbox.input_dir, "rw")
        sandbox.mount("/srv/data/out", sandbox.output_dir, "rw")
        assert _detail(sandbox) == "INPUT_NOT_READ_ONLY"

    def test_one_writable_file_bind_among_read_only(self, sandbox: Sandbox) -> None:
        """A single writable file bind over a read-only directory is found."""
        sandbox.mount("/srv/data/in", sandbox.input_dir, "ro")
        sandbox.mount("/srv/r.json", sandbox.input_dir / "routes.json", "rw")
        assert _detail(sandbox, ContractPaths(inputs=sandbox.paths().inputs)) == (
            "INPUT_NOT_READ_ONLY"
        )

    def test_writable_mount_below_an_input_directory(self, sandbox: Sandbox) -> None:
        """-v X:/in/journals/sub:rw under a read-only /in: the walk would read a writable tree."""
        sandbox.mount("/srv/data/in", sandbox.input_dir, "ro")
        sandbox.mount("/srv/x", sandbox.input_dir / "journals" / "sub", "rw")
        sandbox.mount("/srv/data/out", sandbox.output_dir, "rw")
        assert _detail(sandbox) == "INPUT_NOT_READ_ONLY"

    def test_read_only_mount_below_an_input_directory(self, sandbox: Sandbox) -> None:
        """A nested mount that is read-only as well is fine."""
        sandbox.mount("/srv/data/in", sandbox.input_dir, "ro")
        sandbox.mount("/srv/x", sandbox.input_dir / "journals" / "sub", "ro")
        sandbox.mount("/srv/data/out", sandbox.output_dir, "rw")
        sandbox.check()

    def test_writable_root_without_binds(self, sandbox: Sandbox) -> None:
        """Inputs on a writable root (no --read-only, no bind) are refused."""
        sandbox.lines[0] = "1 0 0:48 / / rw,relatime - overlay overlay rw\n"
        assert _detail(sandbox, ContractPaths(inputs=sandbox.paths().inputs)) == (
            "INPUT_NOT_READ_ONLY"
        )

    def test_symlink_is_resolved_before_lookup(self, sandbox: Sandbox) -> None:
        """An input path that is a symlink into the writable output mount is judged there."""
        sandbox.mount("/srv/data/in", sandbox.input_dir, "ro")
        sandbox.mount("/srv/data/out", sandbox.output_dir, "rw")
        (sandbox.output_dir / "routes.json").write_bytes(b"x")
        link = sandbox.inside / "routes-link.json"
        link.symlink_to(sandbox.output_dir / "routes.json")
        assert _detail(sandbox, ContractPaths(inputs=(link,))) == "INPUT_NOT_READ_ONLY"

    def test_missing_input_is_judged_by_its_would_be_mount(self, sandbox: Sandbox) -> None:
        """A missing input under a writable mount is still refused (it could appear)."""
        sandbox.mount("/srv/data/out", sandbox.output_dir, "rw")
        missing = sandbox.output_dir / "not-yet.jsonl"
        assert _detail(sandbox, ContractPaths(inputs=(missing,))) == "INPUT_NOT_READ_ONLY"


class TestHostPaths:
    """A path that does not exist in the container, below no mount given for it, is named for
    what it is (PATH_NOT_MOUNTED), whatever else would be said of where it lies."""

    def _tmpfs(self, sandbox: Sandbox, point: Path) -> None:
        """A writable tmpfs at `point`, as podman adds at /tmp for --read-only."""
        point.mkdir()
        sandbox.lines.append(f"{len(sandbox.lines) + 1} 1 0:77 / {point} rw - tmpfs tmpfs rw\n")
        sandbox.points.append(point)

    def test_host_input_path_with_inputs_mounted(self, sandbox: Sandbox) -> None:
        """The inputs mounted read-only at /in, but a host path given: PATH_NOT_MOUNTED."""
        sandbox.mount("/srv/data/in", sandbox.input_dir, "ro")
        sandbox.mount("/srv/data/out", sandbox.output_dir, "rw")
        host = sandbox.inside / "home" / "me" / "scratch" / "journals"
        paths = ContractPaths(inputs=(host, *sandbox.paths().inputs[1:]))
        assert _detail(sandbox, paths) == "PATH_NOT_MOUNTED"

    def test_host_input_path_under_a_runtime_tmpfs(self, sandbox: Sandbox) -> None:
        """A host path under /tmp lands on the runtime's writable tmpfs: PATH_NOT_MOUNTED, not
        INPUT_NOT_READ_ONLY (mounting with :ro would not help)."""
        sandbox.mount("/srv/data/in", sandbox.input_dir, "ro")
        sandbox.mount("/srv/data/out", sandbox.output_dir, "rw")
        self._tmpfs(sandbox, sandbox.inside / "tmp")
        host = sandbox.inside / "tmp" / "scratch" / "history.sqlite"
        assert _detail(sandbox, ContractPaths(inputs=(host,))) == "PATH_NOT_MOUNTED"

    def test_host_output_path(self, sandbox: Sandbox) -> None:
        """--out with a host directory that does not exist here: PATH_NOT_MOUNTED, not
        OUTPUT_NOT_WRITABLE."""
        sandbox.mount("/srv/data/in", sandbox.input_dir, "ro")
        sandbox.mount("/srv/data/out", sandbox.output_dir, "rw")
        host = sandbox.inside / "home" / "me" / "reports" / "report.json"
        paths = ContractPaths(inputs=sandbox.paths().inputs, outputs=(host,))
        assert _detail(sandbox, paths) == "PATH_NOT_MOUNTED"

    def test_a_missing_path_below_a_given_mount_is_left_to_the_command(
        self, sandbox: Sandbox
    ) -> None:
        """A mistyped /in/... path lies below the input mount: the contract holds and the
        command says JOURNALS_MISSING itself; likewise a missing directory below /out."""
        sandbox.mount("/srv/data/in", sandbox.input_dir, "ro")
        sandbox.mount("/srv/data/out", sandbox.output_dir, "rw")
        typo = sandbox.input_dir / "journls"
        missing_out = sandbox.output_dir / "sub" / "report.json"
        sandbox.check(ContractPaths(inputs=(typo,), outputs=(missing_out,)))

    def test_an_existing_path_on_a_tmpfs_is_still_writable(self, sandbox: Sandbox) -> None:
        """An input that exists on a writable tmpfs is INPUT_NOT_READ_ONLY: it is writable."""
        self._tmpfs(sandbox, sandbox.inside / "tmp")
        present = sandbox.inside / "tmp" / "routes.json"
        present.write_bytes(b"x")
        assert _detail(sandbox, ContractPaths(inputs=(present,))) == "INPUT_NOT_READ_ONLY"


class TestOutput:
    """The output directory is its own writable mount and exposes no input."""

    def test_read_only_output_mount(self, sandbox: Sandbox) -> None:
        """-v OUT:/out:ro is OUTPUT_NOT_WRITABLE."""
        sandbox.mount("/srv/data/in", sandbox.input_dir, "ro")
        sandbox.mount("/srv/data/out", sandbox.output_dir, "ro")
        assert _detail(sandbox) == "OUTPUT_NOT_WRITABLE"

    def test_output_on_the_writable_root(self, sandbox: Sandbox) -> None:
        """Without an output mount, a writable root is not a separate mount."""
        sandbox.lines[0] = "1 0 0:48 / / rw,relatime - overlay overlay rw\n"
        sandbox.mount("/srv/data/in", sandbox.input_dir, "ro")
        assert _detail(sandbox) == "OUTPUT_NOT_SEPARATE_MOUNT"

    def test_output_mount_is_a_parent_of_the_input(self, sandbox: Sandbox) -> None:
        """-v /srv/data:/out -v /srv/data/in:/in:ro: the input is writable via /out/in."""
        sandbox.mount("/srv/data/in", sandbox.input_dir, "ro")
        sandbox.mount("/srv/data", sandbox.output_dir, "rw")
        assert _detail(sandbox) == "OUTPUT_CONTAINS_INPUT"

    def test_output_mount_is_the_input_directory(self, sandbox: Sandbox) -> None:
        """The same host directory bound read-only and read-write is refused."""
        sandbox.mount("/srv/data/in", sandbox.input_dir, "ro")
        sandbox.mount("/srv/data/in", sandbox.output_dir, "rw")
        assert _detail(sandbox) == "OUTPUT_CONTAINS_INPUT"

    def test_output_mount_exposes_a_single_file_input(self, sandbox: Sandbox) -> None:
        """A file bound read-only elsewhere is still reachable through the output's root."""
        sandbox.mount("/srv/data/in", sandbox.input_dir, "ro")
        sandbox.mount("/srv/cfg/routes.json", sandbox.input_dir / "routes.json", "ro")
        sandbox.mount("/srv/cfg", sandbox.output_dir, "rw")
        assert _detail(sandbox) == "OUTPUT_CONTAINS_INPUT"

    def test_output_mount_inside_an_input_directory(self, sandbox: Sandbox) -> None:
        """-v /srv/data:/in:ro -v /srv/data/out:/out: output would land inside the input."""
        sandbox.mount("/srv/data", sandbox.input_dir, "ro")
        sandbox.mount("/srv/data/out", sandbox.output_dir, "rw")
        assert _detail(sandbox) == "OUTPUT_INSIDE_INPUT"

    def test_output_inside_the_directory_of_an_input_file(self, sandbox: Sandbox) -> None:
        """The directory holding a file input counts as an input directory (R-FS-3)."""
        sandbox.mount("/srv/data/in", sandbox.input_dir, "ro")
        sandbox.mount("/srv/cfg/routes.json", sandbox.input_dir / "routes.json", "ro")
        sandbox.mount("/srv/cfg/out", sandbox.output_dir, "rw")
        assert _detail(sandbox) == "OUTPUT_INSIDE_INPUT"

    def test_synth_output_directory_parent_is_judged(self, sandbox: Sandbox) -> None:
        """For a new directory (synth --out), its parent must be on the output mount."""
        sandbox.mount("/srv/data/out", sandbox.output_dir, "rw")
        sandbox.check(ContractPaths(outputs=(sandbox.output_dir / "corpus",)))
        assert _detail(sandbox, ContractPaths(outputs=(sandbox.inside / "corpus",))) == (
            "OUTPUT_NOT_WRITABLE"
        )


OTHER_USER = 65534
# Linux capability numbers (<linux/capability.h>) that let root write regardless of modes.
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH, _CAP_FOWNER = 1, 2, 3
_PR_CAPBSET_DROP = 24
# The mount part of the contract for `--out DIR/report.json`, DIR a writable mount of its own;
# prints the detail it raised, or OK.
_CHECK_OUTPUT = """
import sys
from pathlib import Path
from clearing_analysis.container.contract import ContractPaths, check_mounts
from clearing_analysis.container.mountinfo import parse_mountinfo
from clearing_analysis.codes.errors import MountContractError
out = Path(sys.argv[1])
table = parse_mountinfo(
    "1 0 0:48 / / ro - overlay overlay rw\\n"
    f"2 1 8:1 /srv/out {out} rw - ext4 /dev/vda1 rw\\n"
)
try:
    check_mounts(table, ContractPaths(outputs=(out / "report.json",)))
except MountContractError as error:
    print(error.detail)
else:
    print("OK")
"""


def _drop_dac_capabilities() -> None:
    # Runs in the child before exec: without these in the bounding set, root's exec'd process
    # gets only the other capabilities, so file modes bind it like any user (as with podman's
    # --cap-drop=ALL); the kernel's own permission checks then decide, not a stand-in.
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH, _CAP_FOWNER):
        if libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl")


def _contract_outcome(out: Path) -> str:
    """The contract's outcome for an output in `out`, as a user whom file modes bind: this
    process when it is not root; as root, a child without the capabilities that bypass modes."""
    if os.geteuid() != 0:
        try:
            check_mounts(
                parse_mountinfo(
                    "1 0 0:48 / / ro - overlay overlay rw\n"
                    f"2 1 8:1 /srv/out {out} rw - ext4 /dev/vda1 rw\n"
                ),
                ContractPaths(outputs=(out / "report.json",)),
            )
        except MountContractError as error:
            return error.detail
        return "OK"
    done = subprocess.run(
        [sys.executable, "-c", _CHECK_OUTPUT, str(out)],
        # The child runs a fresh interpreter; this test process starts no threads of its own.
        preexec_fn=_drop_dac_capabilities,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def _not_ours(path: Path) -> None:
    """Make `path` belong to another user (root only), as a root-owned host directory is to
    the image's user; without root, take away our write bit instead."""
    if os.geteuid() == 0:
        os.chown(path, OTHER_USER, OTHER_USER)
    else:
        path.chmod(0o555)


class TestOutputUser:
    """The user the process runs as may create files in the output directory."""

    def test_directory_of_another_user_refused(self, tmp_path: Path) -> None:
        """The README's first failure: an output directory (mode 0755) the running user does
        not own, e.g. a root-owned host directory and the image's user 65534."""
        out = tmp_path / "out"
        out.mkdir(mode=0o755)
        _not_ours(out)
        assert _contract_outcome(out) == "OUTPUT_NOT_WRITABLE_BY_USER"
        assert list(out.iterdir()) == []  # the check created nothing

    def test_own_directory_accepted(self, tmp_path: Path) -> None:
        """The same directory owned by the running user (after `chown 65534:65534 out` for the
        image) passes."""
        out = tmp_path / "out"
        out.mkdir(mode=0o755)
        assert _contract_outcome(out) == "OK"

    def test_unsearchable_directory_refused(self, tmp_path: Path) -> None:
        """A directory the user cannot even reach is refused too, not left to fail later."""
        private = tmp_path / "private"
        private.mkdir(mode=0o700)
        (private / "out").mkdir()
        if os.geteuid() == 0:
            os.chown(private, OTHER_USER, OTHER_USER)
        else:
            private.chmod(0o000)
        try:
            assert _contract_outcome(private / "out") == "OUTPUT_NOT_WRITABLE_BY_USER"
        finally:
            private.chmod(0o700)  # lets pytest remove it

    def test_missing_directory_is_left_to_the_cli(self, tmp_path: Path) -> None:
        """A missing parent is the CLI's OUTPUT_PARENT_MISSING, not a contract violation."""
        check_output_access(tmp_path / "absent")

    def test_file_instead_of_directory_is_left_to_the_cli(self, tmp_path: Path) -> None:
        """A file where the directory should be is the CLI's OUTPUT_PARENT_NOT_DIRECTORY."""
        (tmp_path / "file").write_bytes(b"")
        check_output_access(tmp_path / "file")


def _net(tmp_path: Path, interfaces: dict[str, str | None]) -> Path:
    net = tmp_path / "class-net"
    net.mkdir()
    for name, kind in interfaces.items():
        (net / name).mkdir()
        if kind is not None:
            (net / name / "type").write_text(kind + "\n", encoding="ascii")
    return net


class TestNetwork:
    """The network namespace has no interface but loopback."""

    def test_loopback_only(self, tmp_path: Path) -> None:
        """--network=none: only `lo`, of link type 772, is accepted."""
        check_network(_net(tmp_path, {"lo": "772"}))

    def test_no_interface_at_all(self, tmp_path: Path) -> None:
        """An empty namespace is isolated too."""
        check_network(_net(tmp_path, {}))

    @pytest.mark.parametrize(
        "interfaces",
        [
            pytest.param({"lo": "772", "eth0": "1"}, id="bridge"),
            pytest.param({"lo": "772", "tap0": "1"}, id="slirp"),
            pytest.param({"lo": "1"}, id="lo-not-loopback"),
        ],
    )
    def test_other_interfaces(self, tmp_path: Path, interfaces: dict[str, str | None]) -> None:
        """Any other interface, or an `lo` that is not a loopback, is NETWORK_NOT_ISOLATED."""
        with pytest.raises(MountContractError) as caught:
            check_network(_net(tmp_path, interfaces))
        assert caught.value.detail == "NETWORK_NOT_ISOLATED"

    def test_unreadable_class_directory(self, tmp_path: Path) -> None:
        """No /sys/class/net (no sysfs) cannot prove isolation."""
        with pytest.raises(MountContractError) as caught:
            check_network(tmp_path / "absent")
        assert caught.value.detail == "NETWORK_UNVERIFIABLE"

    def test_loopback_without_type(self, tmp_path: Path) -> None:
        """An `lo` whose type cannot be read cannot prove isolation."""
        with pytest.raises(MountContractError) as caught:
            check_network(_net(tmp_path, {"lo": None}))
        assert caught.value.detail == "NETWORK_UNVERIFIABLE"


class TestSidecar:
    """Sidecar companions are refused with the replay's own code."""

    @pytest.mark.parametrize("companion", ["history.sqlite-wal", "HISTORY.sqlite-SHM"])
    def test_companion_present(self, sandbox: Sandbox, companion: str) -> None:
        """A companion, named in any case, is SIDECAR_NOT_OFFLINE / COMPANION_PRESENT."""
        (sandbox.input_dir / companion).write_bytes(b"")
        with pytest.raises(SidecarNotOfflineError) as caught:
            check_sidecars(sandbox.paths().sidecars)
        assert caught.value.detail == "COMPANION_PRESENT"

    def test_no_companion(self, sandbox: Sandbox) -> None:
        """An unrelated sibling name is fine."""
        (sandbox.input_dir / "history.sqlite.bak").write_bytes(b"")
        check_sidecars(sandbox.paths().sidecars)

    def test_missing_sidecar_is_left_to_the_replay(self, sandbox: Sandbox) -> None:
        """A missing sidecar (or directory) is the replay's INPUT_INVALID, not checked here."""
        check_sidecars((sandbox.inside / "absent" / "history.sqlite",))


class TestWholeContract:
    """check_contract runs mounts, sidecar and network together."""

    def test_all_satisfied(self, sandbox: Sandbox, tmp_path: Path) -> None:
        """The sealed layout with loopback only passes as a whole."""
        sandbox.mount("/srv/data/in", sandbox.input_dir, "ro")
        sandbox.mount("/srv/data/out", sandbox.output_dir, "rw")
        check_contract(sandbox.paths(), sandbox.table_text(), _net(tmp_path, {"lo": "772"}))

    def test_network_checked_after_mounts(self, sandbox: Sandbox, tmp_path: Path) -> None:
        """Sound mounts do not excuse a network interface."""
        sandbox.mount("/srv/data/in", sandbox.input_dir, "ro")
        sandbox.mount("/srv/data/out", sandbox.output_dir, "rw")
        with pytest.raises(MountContractError) as caught:
            check_contract(
                sandbox.paths(), sandbox.table_text(), _net(tmp_path, {"lo": "772", "e": "1"})
            )
        assert caught.value.detail == "NETWORK_NOT_ISOLATED"

    def test_malformed_table(self, sandbox: Sandbox, tmp_path: Path) -> None:
        """A table that does not parse refuses the run."""
        with pytest.raises(MountContractError) as caught:
            check_contract(sandbox.paths(), "garbage\n", _net(tmp_path, {"lo": "772"}))
        assert caught.value.detail == "MOUNTINFO_INVALID"
