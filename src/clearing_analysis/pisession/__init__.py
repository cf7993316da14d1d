"""pi coding-agent sessions: the reader and the mapping onto journal records (explore only).

`read_session` reads one session file (versions 1 to 3) into the path the agent would resume;
`map_session` turns that path into in-memory journal v2 records (origin `imported`) that the
replay stage consumes under its imported-history rules. docs/formats/pi-sessions.md is the
reference.
"""

from clearing_analysis.pisession.mapping import map_session
from clearing_analysis.pisession.read import (
    PathEntry,
    ReadSession,
    RejectedSession,
    SessionInvalid,
    SessionOutcome,
    SessionRead,
    SessionShape,
    Unrecognized,
    grouping_keys,
    read_session,
    read_stream,
)

__all__ = [
    "PathEntry",
    "ReadSession",
    "RejectedSession",
    "SessionInvalid",
    "SessionOutcome",
    "SessionRead",
    "SessionShape",
    "Unrecognized",
    "grouping_keys",
    "map_session",
    "read_session",
    "read_stream",
]
