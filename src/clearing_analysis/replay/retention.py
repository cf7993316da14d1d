"""Retention matching of one tool result against its sidecar row (R-RT-2).

A match needs the committed ID index entry for the result's finalized id naming a row whose own
identity columns equal the result's finalized identity (R-SIM-9: an index entry pointing at
another result's row is no match, whatever its text), state `finalized`, no tombstone and
integrity `ok`. Redacted and truncated rows prove capture: they are matched
(and reported as redacted / truncated) but never eligible. Any other row must agree with the
result's text in UTF-8 byte length, SHA-256 digest and complete text; digests and texts are
compared in constant time. Nothing here keeps, returns or logs the text.
"""

from __future__ import annotations

import enum
import hashlib
import hmac

from clearing_analysis.identity import ToolIdentity
from clearing_analysis.inputs.sidecar import RetainedRow


class RetentionStatus(enum.StrEnum):
    """What the sidecar proves about one result's retention, checked in this order."""

    MATCHED = "MATCHED"
    REDACTED = "REDACTED"
    TRUNCATED = "TRUNCATED"
    MISSING = "MISSING"
    NOT_IDENTITY_LINKED = "NOT_IDENTITY_LINKED"
    NOT_FINALIZED = "NOT_FINALIZED"
    TOMBSTONED = "TOMBSTONED"
    INTEGRITY_MISMATCH = "INTEGRITY_MISMATCH"
    BYTES_MISMATCH = "BYTES_MISMATCH"
    DIGEST_MISMATCH = "DIGEST_MISMATCH"
    TEXT_MISMATCH = "TEXT_MISMATCH"
    NOT_PLAIN_TEXT = "NOT_PLAIN_TEXT"


MATCHED_STATUSES = frozenset(
    {RetentionStatus.MATCHED, RetentionStatus.REDACTED, RetentionStatus.TRUNCATED}
)


def identity_linked(row: RetainedRow | None, identity: ToolIdentity) -> RetainedRow | None:
    """The row when its identity columns equal `identity`, else None (nothing to trust)."""
    return row if row is not None and row.identity == identity else None


def match_retention(
    row: RetainedRow | None, identity: ToolIdentity, original: bytes
) -> RetentionStatus:
    """Compare a plain-text result (its UTF-8 bytes) with the row the committed ID index maps
    its id to.

    Precedence (one status per result): missing index entry, row not identity-linked, not
    finalized, tombstone, integrity mismatch, then redacted, truncated (matched, ineligible),
    then byte length, digest and text.
    """
    if row is None:
        return RetentionStatus.MISSING
    if row.identity != identity:  # not identity-linked (`identity_linked`)
        return RetentionStatus.NOT_IDENTITY_LINKED
    if row.state != "finalized":
        return RetentionStatus.NOT_FINALIZED
    if row.tombstone:
        return RetentionStatus.TOMBSTONED
    if row.integrity != "ok":
        return RetentionStatus.INTEGRITY_MISMATCH
    if row.redacted:
        return RetentionStatus.REDACTED
    if row.truncated:
        return RetentionStatus.TRUNCATED
    if row.byte_length != len(original):
        return RetentionStatus.BYTES_MISMATCH
    if not hmac.compare_digest(row.sha256, hashlib.sha256(original).digest()):
        return RetentionStatus.DIGEST_MISMATCH
    retained = b"" if row.text is None else row.text.encode("utf-8", "surrogatepass")
    if row.text is None or not hmac.compare_digest(retained, original):
        return RetentionStatus.TEXT_MISMATCH
    return RetentionStatus.MATCHED
