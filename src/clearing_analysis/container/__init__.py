"""The OCI image's mount contract (R-CT-2, R-CT-3; docs/container.md).

`check_this_container(contract_paths(request))` proves, before replay, that every input a
command's request names is on a read-only mount, every output directory on its own writable
mount that exposes no input, no sidecar companion exists and the network namespace has only
loopback. The image's entrypoint, `python -m clearing_analysis.cli.image ARGS`, parses the
command line into its request, does that and then execs `clearing-analysis ARGS`
(`entrypoint.exec_cli`). This package imports neither the CLI nor the pipeline.
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
