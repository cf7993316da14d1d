"""The decoder accepts a minimal closed native journal."""

import json

from clearing_analysis.journal import DecodedJournal, decode_bytes


def test_minimal_closed_journal_decodes() -> None:
    """Header, one turn, close: decoded with three records."""
    lines = [
        {
            "seq": 0,
            "kind": "header",
            "format": "pi-native-journal",
            "version": 2,
            "journalId": "j",
            "physicalConversationId": "p",
            "logicalConversationId": "l",
            "origin": "native",
            "createdAt": 1,
        },
        {
            "seq": 1,
            "kind": "turn_start",
            "hostTurnId": "t1",
            "message": {"role": "user", "content": "hi", "timestamp": 2},
        },
        {"seq": 2, "kind": "close", "timestamp": 3},
    ]
    result = decode_bytes("".join(json.dumps(x) + "\n" for x in lines).encode())
    assert isinstance(result, DecodedJournal)
    assert len(result.records) == 3
