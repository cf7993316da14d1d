"""Whether the mount contract held for this run: the `mountContract` of a signed analyze.

The image's entrypoint checks the mount contract (R-CT-2, `container.contract`) and only then
execs the CLI, with `MARKER_VARIABLE=MARKER_VALUE` in its environment, replacing any value the
container was given. A signed `analyze` asks `contract_status`:
- without the marker (a checkout, CI outside the image, the image with its entrypoint replaced)
  the contract was not checked: `NOT_CHECKED`;
- with it, the whole contract is checked again, in this process, for the paths the signed run
  reads and writes (the signing key among the inputs): `HELD` if it holds, and a violation is
  the entrypoint's own `MOUNT_CONTRACT_VIOLATED` refusal, before any work.
So the marker only says "check": whoever sets it by hand, outside the image or past its
entrypoint, gets either a contract that really holds in that mount namespace, or a refusal;
it cannot make a signed statement claim a contract that does not hold. What `HELD` does not
say (which image, or unmodified code) is in docs/attestation.md.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Mapping

from clearing_analysis.container.contract import ContractPaths, check_this_container

MARKER_VARIABLE = "CLEARING_ANALYSIS_MOUNT_CONTRACT"
MARKER_VALUE = "checked-by-entrypoint"


class ContractStatus(enum.StrEnum):
    """The predicate's `mountContract` (docs/attestation.md)."""

    HELD = "HELD"  # checked by the entrypoint and again by the signing process: it holds
    NOT_CHECKED = "NOT_CHECKED"  # run without the image's entrypoint: nothing was checked


def entrypoint_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment the entrypoint execs the CLI with: `environ` and the marker."""
    passed_on = {key: value for key, value in environ.items() if key != MARKER_VARIABLE}
    return {**passed_on, MARKER_VARIABLE: MARKER_VALUE}


def contract_status(
    paths: ContractPaths, environ: Mapping[str, str] | None = None
) -> ContractStatus:
    """HELD when the entrypoint's marker is present and the contract holds for `paths` now;
    NOT_CHECKED without the marker. Raises MountContractError (or SidecarNotOfflineError, the
    contract's companion check) when the marker is present and the contract does not hold."""
    environ = os.environ if environ is None else environ
    if environ.get(MARKER_VARIABLE) != MARKER_VALUE:
        return ContractStatus.NOT_CHECKED
    check_this_container(paths)
    return ContractStatus.HELD


__all__ = [
    "MARKER_VALUE",
    "MARKER_VARIABLE",
    "ContractStatus",
    "contract_status",
    "entrypoint_environment",
]
