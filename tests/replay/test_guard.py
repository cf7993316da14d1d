"""The credential / private-evidence guard (R-SIM-9): detectors, views, cost and strict policy.

Every credential-shaped value below is built from a prefix and filler at import time, so no
real secret and no secret-scanner-shaped literal sits in the repository.
"""

from __future__ import annotations

import json
import re
import re._constants as sre_constants
import re._parser as sre_parse
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clearing_analysis.policy import read_policy_bytes
from clearing_analysis.replay import guard

REPO = Path(__file__).resolve().parents[2]
PEM_BODY = "MIIEowIBAAKCAQEA" + "q7Zx" * 12  # base64-looking filler, not a key
JWT = "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0In0." + "Sf1Kx" * 9
EXPECTED_CODES = {
    "PRIVATE_KEY_BLOCK",
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GITHUB_TOKEN",
    "SLACK_TOKEN",
    "GOOGLE_API_KEY",
    "AWS_ACCESS_KEY_ID",
    "BEARER_TOKEN",
    "JWT",
    "URL_CREDENTIALS",
}


def pem(kind: str) -> str:
    """A PEM block with line breaks, as a page would show it."""
    label = f"{kind} PRIVATE KEY".strip()
    return f"-----BEGIN {label}-----\n{PEM_BODY}\n{PEM_BODY}\n-----END {label}-----\n"


def envelope(content: str) -> str:
    """A JSON web envelope holding `content`, encoded as the writer would (escapes included)."""
    return json.dumps(
        {"url": "https://docs.example.invalid/page", "status": 200, "content": content}
    )


# (code, case name, text): each must trip exactly its own detector.
POSITIVE = [
    ("PRIVATE_KEY_BLOCK", "rsa", pem("RSA")),
    ("PRIVATE_KEY_BLOCK", "ec", pem("EC")),
    ("PRIVATE_KEY_BLOCK", "openssh", pem("OPENSSH")),
    ("PRIVATE_KEY_BLOCK", "pkcs8", pem("")),
    ("PRIVATE_KEY_BLOCK", "pkcs8 encrypted", pem("ENCRYPTED")),
    ("ANTHROPIC_API_KEY", "api03", "key sk-ant-api03-" + "Xy9_z-" * 16 + "AA"),
    ("ANTHROPIC_API_KEY", "admin01", "sk-ant-admin01-" + "Q8w" * 11),
    ("OPENAI_API_KEY", "project", "OPENAI_API_KEY=sk-proj-" + "aB3_x-" * 20),
    ("OPENAI_API_KEY", "legacy", "sk-" + "T3BlbkFJ" * 6),
    ("GITHUB_TOKEN", "classic ghp", "token ghp_" + "a1B2c3" * 6),
    ("GITHUB_TOKEN", "oauth gho", "gho_" + "Z9y8X7" * 6),
    ("GITHUB_TOKEN", "app ghs", "ghs_" + "m4N5o6" * 6),
    ("GITHUB_TOKEN", "fine-grained", "github_pat_" + "11AB" * 5 + "CD_" + "x7Y" * 19 + "z0"),
    ("SLACK_TOKEN", "bot", "xoxb-123456789012-1234567890123-" + "AbCdEf" * 4),
    ("SLACK_TOKEN", "user", "xoxp-123456789012-98765432-" + "f00d" * 8),
    ("GOOGLE_API_KEY", "maps", "key=AIza" + "Sy9-x_" * 5 + "AbCdE"),
    ("AWS_ACCESS_KEY_ID", "long-term", "aws_access_key_id = AKIA" + "Q7WX" * 4),
    ("AWS_ACCESS_KEY_ID", "temporary", '"AccessKeyId": "ASIA' + "Z2Y3" * 4 + '"'),
    ("BEARER_TOKEN", "header", "Authorization: Bearer " + "mF_9.B5f-4.1JqM" * 2),
    ("BEARER_TOKEN", "lower case, tab", "bearer\t" + "0a1b2c3d" * 4),
    ("BEARER_TOKEN", "json header", '{"authorization":"Bearer ' + "x9Kq" * 8 + '"}'),
    ("JWT", "hs256", "session=" + JWT),
    ("URL_CREDENTIALS", "postgres", "postgres://admin:s3cr%40t@db.example.invalid:5432/app"),
    ("URL_CREDENTIALS", "https", "clone https://bot:hunter2@git.example.invalid/repo.git"),
    ("URL_CREDENTIALS", "ipv6 host", "redis://default:pw@[::1]:6379"),
]

# (code, case name, text): the nearest shapes that must not trip anything.
NEAR_MISS = [
    ("PRIVATE_KEY_BLOCK", "public key", "-----BEGIN PUBLIC KEY-----\n" + PEM_BODY),
    ("PRIVATE_KEY_BLOCK", "rsa public key", "-----BEGIN RSA PUBLIC KEY-----"),
    ("PRIVATE_KEY_BLOCK", "certificate", "-----BEGIN CERTIFICATE-----\n" + PEM_BODY),
    ("PRIVATE_KEY_BLOCK", "four dashes", "----BEGIN RSA PRIVATE KEY----"),
    ("ANTHROPIC_API_KEY", "placeholder", "export ANTHROPIC_API_KEY=sk-ant-api03-YOUR_KEY_HERE"),
    ("ANTHROPIC_API_KEY", "no version", "sk-ant-" + "Xy9_z" * 10),
    ("OPENAI_API_KEY", "short legacy", "sk-" + "a1" * 15 + "b"),
    ("OPENAI_API_KEY", "word ending in sk", "risk-" + "assessment" * 5),
    ("OPENAI_API_KEY", "short project", "sk-proj-" + "abc123" * 6),
    ("GITHUB_TOKEN", "35 characters", "ghp_" + "a1B2c" * 7 + " "),
    ("GITHUB_TOKEN", "unknown kind", "ghx_" + "a1B2c3" * 6),
    ("GITHUB_TOKEN", "inside identifier", "my_ghp_" + "a1B2c3" * 6),
    ("SLACK_TOKEN", "placeholder", "xoxb-your-token-here"),
    ("SLACK_TOKEN", "unknown kind", "xoxq-123456789012-" + "AbCdEf" * 4),
    ("GOOGLE_API_KEY", "34 characters", '"AIza' + "Sy9-x_" * 5 + 'AbCd"'),
    ("GOOGLE_API_KEY", "other prefix", "AIzb" + "Sy9-x_" * 6),
    ("AWS_ACCESS_KEY_ID", "15 characters", "AKIA" + "Q7WX" * 3 + "Q7W"),
    ("AWS_ACCESS_KEY_ID", "17 characters", "AKIA" + "Q7WX" * 4 + "Q"),
    ("AWS_ACCESS_KEY_ID", "lower case", "akia" + "q7wx" * 4),
    ("BEARER_TOKEN", "prose", "the bearer of this letter is responsible-for-everything"),
    ("BEARER_TOKEN", "placeholder", "Authorization: Bearer YOUR_ACCESS_TOKEN_GOES_HERE"),
    ("BEARER_TOKEN", "template", "Authorization: Bearer ${API_TOKEN}"),
    ("BEARER_TOKEN", "short token", "Bearer abc123"),
    ("JWT", "two segments", JWT.rsplit(".", 1)[0]),
    ("JWT", "short signature", JWT.rsplit(".", 1)[0] + ".abc"),
    ("JWT", "not a json header", "eyX" + JWT[3:]),
    ("URL_CREDENTIALS", "user only", "https://user@host.example.invalid/path"),
    ("URL_CREDENTIALS", "port", "https://host.example.invalid:8443/path"),
    ("URL_CREDENTIALS", "scp-style git", "git@github.com:org/repo.git"),
    ("URL_CREDENTIALS", "at sign in path", "https://host.example.invalid/@user:abc"),
]


def _ids(cases: list[tuple[str, str, str]]) -> list[str]:
    return [f"{code}-{name}" for code, name, _ in cases]


def test_policy_defines_the_reviewed_detectors() -> None:
    """The shipped policy decodes and defines exactly the documented detector codes."""
    codes = [detector.code for detector in guard.guard_policy().detectors]
    assert set(codes) == EXPECTED_CODES
    assert {code for code, _, _ in POSITIVE} == EXPECTED_CODES
    assert {code for code, _, _ in NEAR_MISS} == EXPECTED_CODES


@pytest.mark.parametrize("wrap", [str, envelope], ids=["plain", "envelope"])
@pytest.mark.parametrize(("code", "name", "text"), POSITIVE, ids=_ids(POSITIVE))
def test_positive_trips_its_detector(code: str, name: str, text: str, wrap: Any) -> None:
    """Each credential shape trips its own detector alone, as plain text and in an envelope."""
    assert guard.tripped_codes(wrap(text)) == {code}
    assert guard.trips(wrap(text))


@pytest.mark.parametrize("wrap", [str, envelope], ids=["plain", "envelope"])
@pytest.mark.parametrize(("code", "name", "text"), NEAR_MISS, ids=_ids(NEAR_MISS))
def test_near_miss_trips_nothing(code: str, name: str, text: str, wrap: Any) -> None:
    """The nearest non-credential shapes trip no detector, as plain text and in an envelope."""
    assert guard.tripped_codes(wrap(text)) == frozenset()
    assert not guard.trips(wrap(text))


def test_json_escaped_pem_block_trips() -> None:
    """A PEM block inside an envelope, its line breaks escaped as the two characters \\n."""
    text = envelope(pem("OPENSSH"))
    assert "\\n" + PEM_BODY in text  # the escaped form replay holds
    assert guard.tripped_codes(text) == {"PRIVATE_KEY_BLOCK"}


@pytest.mark.parametrize(
    ("code", "raw"),
    [
        pytest.param(
            "PRIVATE_KEY_BLOCK",
            '{"content":"\\u002d\\u002d\\u002d\\u002d\\u002dBEGIN RSA PRIVATE KEY'
            '\\u002d\\u002d\\u002d\\u002d\\u002d"}',
            id="unicode-escaped pem header",
        ),
        pytest.param(
            "URL_CREDENTIALS",
            '{"url":"https:\\/\\/deploy:t0ps3cret@host.example.invalid\\/x","status":200}',
            id="escaped slashes in url",
        ),
        pytest.param(
            "ANTHROPIC_API_KEY",
            envelope("line one\nsk-ant-api03-" + "Xy9_z-" * 16),
            id="key after escaped line break",
        ),
        pytest.param(
            "URL_CREDENTIALS",
            '{"content":"https:\\/\\/u:pw@h.example.invalid","content":"clean"}',
            id="first of a repeated key",
        ),
        pytest.param(
            "URL_CREDENTIALS",
            '{"content":"page\n\thttps:\\/\\/u:pw@h.example.invalid"}',
            id="raw control characters in a string",
        ),
    ],
)
def test_decoded_view_sees_through_json_escapes(code: str, raw: str) -> None:
    """Credentials hidden from a raw scan by JSON escaping trip once the envelope is decoded.

    The raw text alone does not trip: the decoded view (each string on its own, every value of
    a repeated key kept) is what finds them.
    """
    assert not any(pattern.search(raw) for _, pattern in guard._compiled())
    assert guard.tripped_codes(raw) == {code}


def test_raw_view_screens_envelopes_that_do_not_parse() -> None:
    """A truncated envelope (not JSON any more) is still screened as raw text."""
    text = envelope("Authorization: Bearer " + "x9Kq" * 8 + " and more")[:-20]
    with pytest.raises(ValueError):
        json.loads(text)
    assert guard.tripped_codes(text) == {"BEARER_TOKEN"}


def test_numbers_and_deep_nesting_do_not_raise() -> None:
    """Huge number literals and nesting past the JSON scanner's recursion limit are screened."""
    assert not guard.trips("[" * 200_000 + "]" * 200_000)
    assert not guard.trips('{"n":' + "7" * 10_000 + ',"x":1e999,"y":NaN}')
    assert guard.trips('{"n":' + "7" * 10_000 + ',"k":"AKIA' + "Q7WX" * 4 + '"}')


_NEAR_MISS_FRAGMENTS = [
    "-----BEGIN PUBLIC KEY----- ",
    "sk-ant-api03-" + "a" * 31 + " ",
    "sk-proj-" + "a" * 39 + " ",
    "sk-" + "a" * 31 + " ",
    "ghp_" + "a" * 35 + " ",
    "github_pat_" + "a" * 22 + "_" + "a" * 58 + " ",
    "xoxb-12345678-" + "a" * 9 + " ",
    "AIza" + "a" * 34 + " ",
    "AKIA" + "A" * 15 + " ",
    "Bearer " + "a" * 60 + " ",
    "eyJ" + "a" * 2000 + "." + "b" * 16000 + "." + "c" * 15 + " ",
    "https://" + "u" * 127 + ":" + "p" * 127 + " ",
]


def test_megabyte_of_near_misses_completes() -> None:
    """About 1 MB of every detector's longest near miss, raw and as an envelope, returns False.

    Bounded quantifiers behind start-of-token anchors keep the work linear; a catastrophically
    backtracking pattern would not return within the test run.
    """
    unit = "".join(_NEAR_MISS_FRAGMENTS)
    text = unit * (1_000_000 // len(unit) + 1)
    assert len(text) >= 1_000_000
    assert not guard.trips(text)
    assert not guard.trips(envelope(text))


_FRAGMENTS = st.sampled_from(
    ["sk-", "sk-ant-", "ghp_", "AKIA", "AIza", "Bearer ", "eyJ", "://", ":", "@", "-----BEGIN "]
)
_ANY_TEXT = st.text(st.characters() | st.characters(categories=["Cs"]), max_size=200)
_SOUP = st.lists(_FRAGMENTS | _ANY_TEXT, max_size=12).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_ANY_TEXT, _SOUP, _SOUP.map(envelope), _SOUP.map(lambda s: json.dumps([s]))))
def test_trips_never_raises(text: str) -> None:
    """Any text, lone surrogates included, gets a verdict; both entry points agree."""
    codes = guard.tripped_codes(text)
    assert guard.trips(text) == bool(codes)
    assert codes <= EXPECTED_CODES


# Every positive shape among the fragments, so that soups hold credentials, screens pass and
# searches run.
_POSITIVE_SOUP = st.lists(
    _FRAGMENTS | _ANY_TEXT | st.sampled_from([text for _, _, text in POSITIVE]), max_size=8
).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_POSITIVE_SOUP, _POSITIVE_SOUP.map(envelope)))
def test_screened_searches_trip_as_the_searches_do(text: str) -> None:
    """`trips` searches a view only when it holds the detector's screen; its verdict is the
    unscreened searches' (`tripped_codes`), on texts that hold credentials and near misses."""
    assert guard.trips(text) == bool(guard.tripped_codes(text))


@pytest.mark.parametrize("wrap", [str, envelope], ids=["plain", "envelope"])
@pytest.mark.parametrize(("code", "name", "text"), POSITIVE, ids=_ids(POSITIVE))
def test_a_view_that_matches_holds_the_screen(code: str, name: str, text: str, wrap: Any) -> None:
    """Every view a detector matches holds its screen's literals (the screen never hides a
    match)."""
    patterns = dict(guard._compiled())
    views = [view for view in guard._views(wrap(text)) if patterns[code].search(view)]
    assert views
    for view in views:
        assert guard._passes(view, guard.screen(patterns[code].pattern))


def test_every_detector_but_the_case_blind_one_is_screened() -> None:
    """The shipped detectors start at literal prefixes, so each has a screen (its search runs
    only on views that hold them); the bearer detector, whose word may be in any case, has
    none and always searches."""
    screens = {code: guard.screen(pattern.pattern) for code, pattern in guard._compiled()}
    assert screens["BEARER_TOKEN"] == ()
    assert all(screens[code] for code in EXPECTED_CODES - {"BEARER_TOKEN"})
    assert screens["AWS_ACCESS_KEY_ID"] == (("AKIA", "ASIA"),)
    assert screens["GITHUB_TOKEN"] == (("gh", "github_pat_"),)
    assert ("sk-ant-",) in screens["ANTHROPIC_API_KEY"]


@pytest.mark.parametrize(
    ("pattern", "expected", "matches"),
    [
        ("abc", (("abc",),), ["abc", "xabcx"]),
        ("ab[0-9]cd", (("ab",), ("cd",)), ["ab7cd"]),
        ("(?<![a-z])key-[0-9]{2}", (("key-",),), ["key-12", "-key-34"]),
        ("x(?:yz|w)", (("xyz", "xw"),), ["xyz", "xw"]),
        ("(?:yz|[0-9])q", (("q",),), ["yzq", "5q"]),
        ("(ab)c(?:d|e)", (("ab",), ("c",)), ["abcd", "abce"]),
        ("(?i:ab)cd", (("cd",),), ["ABcd", "aBcd"]),
        ("(?i)abc", (), ["ABC"]),
        ("a?b", (("b",),), ["b", "ab"]),
        ("[ab]+", (), ["aab"]),
        (r"\bwo\brd", (("wo",), ("rd",)), []),
    ],
    ids=[
        "literal",
        "runs split by a class",
        "behind a look-behind",
        "branch continues the run",
        "branch without a leading literal",
        "groups",
        "case-blind group",
        "case-blind pattern",
        "optional",
        "class only",
        "anchors end runs",
    ],
)
def test_screen_is_what_every_match_holds(pattern: str, expected: Any, matches: list[str]) -> None:
    """A pattern's screen: its literal runs, a branch's heads continuing the run before it, a
    group's own runs; nothing from a case-blind part; each sample match holds it."""
    assert guard.screen(pattern) == expected
    for text in matches:
        assert re.search(pattern, text)
        assert guard._passes(text, expected)


def _repeats(node: Any) -> list[tuple[int, Any]]:
    """Every repeat (min/max/possessive) in a parsed pattern, with its bound and body."""
    kinds = (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT)
    found: list[tuple[int, Any]] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, sre_parse.SubPattern):
            for op, arg in item.data:
                if op in kinds:
                    found.append((arg[1], arg[2]))
                stack.append(arg)
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found


@pytest.mark.parametrize("detector", guard.guard_policy().detectors, ids=lambda d: d.code)
def test_every_quantifier_is_bounded_and_not_nested(detector: guard.Detector) -> None:
    """Review rule: no unbounded quantifier, no quantifier inside a quantified group."""
    repeats = _repeats(sre_parse.parse(detector.pattern))
    assert repeats
    for upper, body in repeats:
        assert upper != sre_constants.MAXREPEAT
        assert _repeats(body) == []


VALID_DETECTOR = {"code": "DEMO_TOKEN", "pattern": "demo_[a-z]{8}", "meaning": "m"}


def _policy(**changes: Any) -> bytes:
    body = {"comment": "c", "detectors": [VALID_DETECTOR], **changes}
    return json.dumps(body).encode()


def test_minimal_policy_decodes() -> None:
    """The baseline for the refusals below decodes, so each refusal is down to its one change."""
    decoded = guard.decode_policy(_policy())
    assert [d.code for d in decoded.detectors] == ["DEMO_TOKEN"]


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(_policy(version=2), id="unknown top-level field"),
        pytest.param(
            _policy(detectors=[{**VALID_DETECTOR, "severity": "high"}]), id="unknown detector field"
        ),
        pytest.param(_policy(detectors=[VALID_DETECTOR, VALID_DETECTOR]), id="duplicate code"),
        pytest.param(
            _policy(detectors=[VALID_DETECTOR, {**VALID_DETECTOR, "pattern": "other_[0-9]{4}"}]),
            id="contradictory duplicate code",
        ),
        pytest.param(
            _policy(detectors=[{**VALID_DETECTOR, "pattern": "demo_([a-z]{8}"}]), id="bad pattern"
        ),
        pytest.param(
            _policy(detectors=[{**VALID_DETECTOR, "pattern": "(demo)?"}]),
            id="pattern matches empty text",
        ),
        pytest.param(_policy(detectors=[{**VALID_DETECTOR, "code": "demo"}]), id="lower-case code"),
        pytest.param(
            _policy(detectors=[{**VALID_DETECTOR, "code": "DEMO__TOKEN"}]), id="double underscore"
        ),
        pytest.param(_policy(detectors=[{**VALID_DETECTOR, "meaning": ""}]), id="empty meaning"),
        pytest.param(
            _policy(detectors=[{"code": "DEMO_TOKEN", "pattern": "x"}]), id="missing meaning"
        ),
        pytest.param(_policy(detectors=[]), id="no detectors"),
        pytest.param(json.dumps({"detectors": [VALID_DETECTOR]}).encode(), id="missing comment"),
        pytest.param(
            b'{"comment":"c","comment":"d","detectors":'
            + json.dumps([VALID_DETECTOR]).encode()
            + b"}",
            id="duplicate json key",
        ),
        pytest.param(b'{"comment":"c","detectors":[', id="malformed json"),
    ],
)
def test_broken_policy_is_a_runtime_error(raw: bytes) -> None:
    """A broken detector policy refuses to load instead of silently screening differently."""
    with pytest.raises(RuntimeError):
        guard.decode_policy(raw)


def test_shipped_policy_is_strict_json() -> None:
    """The shipped file itself passes the strict decoder (guard_policy() reads the same bytes)."""
    decoded = guard.decode_policy(read_policy_bytes(guard.POLICY_FILE))
    assert decoded == guard.guard_policy()


def test_privacy_doc_lists_every_detector() -> None:
    """docs/privacy.md's guard table lists exactly the policy's codes, each once."""
    doc = (REPO / "docs" / "privacy.md").read_text(encoding="utf-8")
    section = doc.split("## Credential / private-evidence guard", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([A-Z0-9_]+)` \|", section, flags=re.MULTILINE)
    assert sorted(listed) == sorted(EXPECTED_CODES)
