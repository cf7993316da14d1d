"""A fake host for the container's mount contract: what /proc/self/mountinfo and
/sys/class/net would show inside a sealed container, so tests need no real container."""

from __future__ import annotations

from pathlib import Path

import pytest

from clearing_analysis.container import contract

ROOT_MOUNT = "1 0 0:48 / / ro - overlay overlay rw\n"


def fake_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mounts: str) -> None:
    """A read-only root followed by `mounts` (mountinfo lines), and a loopback-only network."""
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(ROOT_MOUNT + mounts, encoding="utf-8")
    net = tmp_path / "net"
    (net / "lo").mkdir(parents=True)
    (net / "lo" / "type").write_text("772\n", encoding="ascii")
    monkeypatch.setattr(contract, "MOUNTINFO", mountinfo)
    monkeypatch.setattr(contract, "NET_CLASS", net)
