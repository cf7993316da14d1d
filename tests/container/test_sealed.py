"""`mountContract` (container.sealed): NOT_CHECKED without the entrypoint's marker, and with
it HELD only when the contract, checked again in this process, holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from clearing_analysis.codes.errors import MountContractError
from clearing_analysis.container import contract
from clearing_analysis.container.contract import ContractPaths
from clearing_analysis.container.sealed import (
    MARKER_VALUE,
    MARKER_VARIABLE,
    ContractStatus,
    contract_status,
    entrypoint_environment,
)
from tests.container._host import fake_host


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake mount table: ro root, ro in/, rw out/; loopback-only network."""
    for name in ("in", "out"):
        (tmp_path / name).mkdir()
    fake_host(
        tmp_path,
        monkeypatch,
        f"2 1 8:1 /srv/in {tmp_path / 'in'} ro - ext4 /dev/vda1 rw\n"
        f"3 1 8:1 /srv/out {tmp_path / 'out'} rw - ext4 /dev/vda1 rw\n",
    )
    return tmp_path


MARKED = {MARKER_VARIABLE: MARKER_VALUE}


def _paths(root: Path, key: str = "in") -> ContractPaths:
    return ContractPaths(
        inputs=(root / "in" / "routes.json", root / key / "run.key"),
        outputs=(root / "out" / "r.json", root / "out" / "r.json.intoto.jsonl"),
    )


def test_without_the_marker_nothing_is_checked(
    table: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No marker, or any other value: NOT_CHECKED, without even reading the mount table."""
    monkeypatch.setattr(contract, "MOUNTINFO", table / "absent")
    for environ in ({}, {MARKER_VARIABLE: ""}, {MARKER_VARIABLE: "1"}, {"OTHER": MARKER_VALUE}):
        assert contract_status(_paths(table, key="out"), environ) is ContractStatus.NOT_CHECKED


def test_with_the_marker_a_holding_contract_is_held(table: Path) -> None:
    """Marker and a contract that holds for every path, the key included: HELD."""
    assert contract_status(_paths(table), MARKED) is ContractStatus.HELD


def test_with_the_marker_a_broken_contract_is_refused(table: Path) -> None:
    """Marker but a key on the writable output mount: the contract's own refusal, never a
    statement that it held."""
    with pytest.raises(MountContractError) as caught:
        contract_status(_paths(table, key="out"), MARKED)
    assert caught.value.detail in {"INPUT_NOT_READ_ONLY", "OUTPUT_CONTAINS_INPUT"}


def test_the_entrypoint_environment_replaces_a_given_value() -> None:
    """Whatever the container was given for the variable, the CLI gets the marker."""
    assert entrypoint_environment({MARKER_VARIABLE: "forged", "A": "b"}) == {
        "A": "b",
        MARKER_VARIABLE: MARKER_VALUE,
    }


def test_the_enum_is_the_documented_two_values() -> None:
    """HELD and NOT_CHECKED, nothing that could read as a checked "false"."""
    assert [member.value for member in ContractStatus] == ["HELD", "NOT_CHECKED"]
