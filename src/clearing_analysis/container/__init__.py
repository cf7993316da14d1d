"""The OCI image's mount contract (R-CT-2, R-CT-3; docs/container.md).

`check_this_container(contract_paths(argv))` proves, before replay, that every input is on a
read-only mount, every output directory on its own writable mount that exposes no input, no
sidecar companion exists and the network namespace has only loopback. `python -m
clearing_analysis.container ARGS` does that and then execs `clearing-analysis ARGS`.
"""

from __future__ import annotations

from clearing_analysis.container.arguments import contract_paths
from clearing_analysis.container.contract import (
    ContractPaths,
    check_contract,
    check_this_container,
)
from clearing_analysis.container.mountinfo import Mount, MountTable, parse_mountinfo

__all__ = [
    "ContractPaths",
    "Mount",
    "MountTable",
    "check_contract",
    "check_this_container",
    "contract_paths",
    "parse_mountinfo",
]
