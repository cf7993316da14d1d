"""The mountinfo parser and the mount lookup (R-CT-2), on hand-written proc(5) text."""

from pathlib import PurePosixPath

import pytest

from clearing_analysis.codes.errors import MountContractError
from clearing_analysis.container.mountinfo import parse_mountinfo

# A podman --read-only container: overlay root, /proc, a read-only bind of a host directory at
# /in (with an optional field), a writable one at /out, and one mount point with a space.
PODMAN = """\
588 500 0:48 / / ro,relatime - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w
589 588 0:52 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw
590 588 8:1 /srv/data/in /in ro,relatime shared:1 master:2 - ext4 /dev/vda1 rw
591 588 8:1 /srv/data/out /out rw,relatime - ext4 /dev/vda1 rw
592 588 8:1 /srv/my\\040dir /my\\040dir ro,relatime - ext4 /dev/vda1 rw
"""


class TestParse:
    """Lines are read field by field, exactly as proc(5) defines them."""

    def test_fields_of_a_line_with_optional_fields(self) -> None:
        """Optional fields before `-` are skipped; the tail is type, source, super options."""
        mount = parse_mountinfo(PODMAN).mounts[2]
        assert (mount.mount_id, mount.parent_id, mount.device) == (590, 588, (8, 1))
        assert mount.root == PurePosixPath("/srv/data/in")
        assert mount.mount_point == PurePosixPath("/in")
        assert mount.fs_type == "ext4"
        assert mount.read_only

    def test_octal_escapes_are_decoded(self) -> None:
        """`\\040` in a path is a space."""
        mount = parse_mountinfo(PODMAN).mounts[4]
        assert mount.mount_point == PurePosixPath("/my dir")
        assert mount.root == PurePosixPath("/srv/my dir")

    def test_superblock_ro_makes_a_mount_read_only(self) -> None:
        """A per-mount `rw` mount of a read-only superblock is read-only."""
        table = parse_mountinfo("1 0 8:1 / / rw - ext4 /dev/vda1 ro,errors=remount-ro\n")
        assert table.mounts[0].read_only

    def test_rw_on_both_levels_is_writable(self) -> None:
        """Only `rw` on both levels makes a writable mount."""
        assert not parse_mountinfo(PODMAN).mounts[3].read_only

    @pytest.mark.parametrize(
        "text",
        [
            pytest.param("", id="empty"),
            pytest.param("1 0 8:1 / / rw ext4 /dev/vda1 rw\n", id="no-separator"),
            pytest.param("1 0 8:1 / / rw - ext4 /dev/vda1\n", id="short-tail"),
            pytest.param("1 0 8:1 / / rw - ext4 /dev/vda1 rw extra\n", id="long-tail"),
            pytest.param("x 0 8:1 / / rw - ext4 /dev/vda1 rw\n", id="id-not-number"),
            pytest.param("1 0 81 / / rw - ext4 /dev/vda1 rw\n", id="device-no-colon"),
            pytest.param("1 0 8:1 / relative rw - ext4 /dev/vda1 rw\n", id="relative-point"),
            pytest.param("1 0 8:1 root / rw - ext4 /dev/vda1 rw\n", id="relative-root"),
            pytest.param(
                "1 0 8:1 / / rw - ext4 a rw\n1 0 8:1 / / rw - ext4 a rw\n", id="duplicate-id"
            ),
            pytest.param("1 0 8:1 / / rw -\n", id="separator-last"),
        ],
    )
    def test_malformed_tables_are_refused(self, text: str) -> None:
        """Any other shape is MOUNTINFO_INVALID (never a partial table)."""
        with pytest.raises(MountContractError) as caught:
            parse_mountinfo(text)
        assert caught.value.detail == "MOUNTINFO_INVALID"


class TestMountOf:
    """The mount a path lies on is found by walking the mount tree."""

    def test_path_below_a_bind_mount(self) -> None:
        """A file under /in lies on the /in mount, at its host location."""
        table = parse_mountinfo(PODMAN)
        mount = table.mount_of(PurePosixPath("/in/journals/a.jsonl"))
        assert mount.mount_id == 590
        assert mount.location(PurePosixPath("/in/journals/a.jsonl")) == PurePosixPath(
            "/srv/data/in/journals/a.jsonl"
        )

    def test_path_outside_binds_is_on_the_root(self) -> None:
        """A path under no mount point lies on the namespace root; /input is not /in."""
        table = parse_mountinfo(PODMAN)
        assert table.mount_of(PurePosixPath("/input/x")).mount_id == 588
        assert table.mount_of(PurePosixPath("/")).mount_id == 588

    def test_topmost_of_stacked_mounts_wins(self) -> None:
        """A mount stacked on another at the same point hides it."""
        text = PODMAN + "600 590 8:1 /srv/other /in rw - ext4 /dev/vda1 rw\n"
        assert parse_mountinfo(text).mount_of(PurePosixPath("/in/a")).mount_id == 600

    def test_shadowed_child_is_not_chosen(self) -> None:
        """A mount at /in/sub is hidden when /in is mounted over afterwards."""
        text = (
            PODMAN
            + "600 590 8:1 /srv/sub /in/sub rw - ext4 /dev/vda1 rw\n"
            + "601 590 8:1 /srv/new /in ro - ext4 /dev/vda1 rw\n"
        )
        mount = parse_mountinfo(text).mount_of(PurePosixPath("/in/sub/file"))
        assert mount.mount_id == 601  # a longest-prefix match would wrongly say 600

    def test_root_needs_a_mount_at_slash(self) -> None:
        """A table with no namespace root mount is invalid."""
        table = parse_mountinfo("5 1 8:1 / /in ro - ext4 /dev/vda1 rw\n")
        with pytest.raises(MountContractError) as caught:
            table.mount_of(PurePosixPath("/in"))
        assert caught.value.detail == "MOUNTINFO_INVALID"

    def test_relative_path_is_caller_misuse(self) -> None:
        """mount_of wants a canonical absolute path: anything else is a RuntimeError."""
        with pytest.raises(RuntimeError):
            parse_mountinfo(PODMAN).mount_of(PurePosixPath("in"))
