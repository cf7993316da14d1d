"""The credential / private-evidence guard replay runs over redacted JSON web envelopes (R-SIM-9).

`structuredScanLosses` counts the redacted JSON web envelopes that the guard rejects again. The
detectors are reviewed data (policy/guard-detectors.json): a fixed list of regular expressions
for private-key blocks, provider API keys, bearer tokens, JWTs, AWS access key ids and
credentials in URLs. Replay calls `trips(text)` while the envelope's text is in memory and keeps
only whether it tripped; nothing here returns, stores or logs the matched text, and the count is
not an exclusive causal attribution. It is a heuristic screen, not a secret scanner
(docs/privacy.md).

Which text is scanned (a decision): the text replay holds is the toolResult's text, itself a JSON
document for a web envelope. Every detector runs over two views of it, and the envelope trips
when any detector matches in either:

- the raw text, so an envelope that no longer parses (truncated, or redacted into invalid JSON)
  is still screened;
- every string the text holds once decoded as JSON, keys and values, each on its own, because
  JSON escaping hides a credential from a raw scan: `https:\\/\\/user:pw@host`, a `\\u002d`
  escaped PEM header, or a token right after an escaped line break (`\\nsk-...`, where the
  `n` defeats the start-of-token look-behind).

A broken policy file (unknown field, duplicate or malformed code, empty list, a pattern that does
not compile or matches the empty text) is a RuntimeError at first use, not a silently different
screen.
"""

from __future__ import annotations

import functools
import importlib
import json
import re
from collections.abc import Iterator
from typing import Annotated, Any

import msgspec

from clearing_analysis import strictjson
from clearing_analysis.policy import limits, read_policy_bytes

POLICY_FILE = "guard-detectors.json"

# Same shape as every other fixed code: it may reach tests and docs, never matched text.
UpperSnake = Annotated[str, msgspec.Meta(pattern="^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$")]
NonEmptyStr = Annotated[str, msgspec.Meta(min_length=1)]


class Detector(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One reviewed detector: a fixed code, a Python regular expression and what it finds."""

    code: UpperSnake
    pattern: NonEmptyStr
    meaning: NonEmptyStr


class GuardPolicy(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """policy/guard-detectors.json: a reviewer's comment and at least one detector."""

    comment: NonEmptyStr
    detectors: Annotated[tuple[Detector, ...], msgspec.Meta(min_length=1)]

    def __post_init__(self) -> None:
        codes = [detector.code for detector in self.detectors]
        if len(codes) != len(set(codes)):
            raise ValueError("duplicate detector code")
        for detector in self.detectors:
            try:
                compiled = re.compile(detector.pattern)
            except re.error:
                raise ValueError("pattern does not compile") from None
            if compiled.search("") is not None:
                # It would trip on every envelope and make the count meaningless.
                raise ValueError("pattern matches the empty text")


def decode_policy(raw: bytes) -> GuardPolicy:
    """Decode the detector policy strictly; any defect is a RuntimeError with a fixed message.

    Strict JSON first (duplicate keys are refused, not last-wins), then a strict conversion.
    """
    try:
        value = strictjson.loads(raw, max_depth=limits().max_nesting_depth)
        return strictjson.to_struct(value, GuardPolicy)
    except strictjson.JsonRejected as rejected:
        raise RuntimeError(f"policy/{POLICY_FILE} is invalid: {rejected.reason}") from None


@functools.cache
def guard_policy() -> GuardPolicy:
    """policy/guard-detectors.json, decoded once."""
    return decode_policy(read_policy_bytes(POLICY_FILE))


@functools.cache
def _compiled() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Each detector's code with its pattern, compiled once per process."""
    return tuple((d.code, re.compile(d.pattern)) for d in guard_policy().detectors)


Screen = tuple[tuple[str, ...], ...]
"""Literals every match of a pattern holds: at least one text of each tuple (none: no screen)."""

# The parse tree of the `re` module's own parser (the module that `re.compile` calls): read
# only to find the literal texts a pattern's matches hold.
_PARSER: Any = importlib.import_module("re._parser")
_OPS: Any = importlib.import_module("re._constants")


def _head(alternative: Any) -> str:
    """The literal characters an alternative of a branch starts with."""
    head = ""
    for op, value in alternative.data:
        if op is not _OPS.LITERAL:
            break
        head += chr(value)
    return head


def _needs(items: Any) -> list[tuple[str, ...]]:
    """What a match of the sequence `items` holds. A run of consecutive LITERAL items matches
    exactly those characters, one after the other: the run is in every match. A branch
    continues the run before it with one of its alternatives' leading literals: one of those
    texts is in every match (none when an alternative starts with no literal and no run
    precedes it). A group that changes no flag holds what its own items hold; a group that
    makes case not matter, and anything else (classes, repeats, look-arounds, anchors), adds
    nothing and ends the run. Leaving a literal out only makes the screen weaker, never
    wrong."""
    needs: list[tuple[str, ...]] = []
    run = ""
    for op, value in items:
        if op is _OPS.LITERAL:
            run += chr(value)
            continue
        if op is _OPS.BRANCH:
            heads = tuple(run + _head(alternative) for alternative in value[1])
            if all(heads):
                needs.append(heads)
        elif run:
            needs.append((run,))
        run = ""
        if op is _OPS.SUBPATTERN and not value[1] & re.IGNORECASE:  # (group, add, del, items)
            needs.extend(_needs(value[3].data))
    if run:
        needs.append((run,))
    return needs


def screen(pattern: str) -> Screen:
    """The literal texts every match of `pattern` holds (`Screen`), from its parse tree; none
    when case does not matter for the whole pattern."""
    parsed = _PARSER.parse(pattern)
    if parsed.state.flags & (re.IGNORECASE | re.LOCALE):
        return ()
    return tuple(dict.fromkeys(tuple(dict.fromkeys(need)) for need in _needs(parsed.data)))


@functools.cache
def _screened() -> tuple[tuple[Screen, re.Pattern[str]], ...]:
    """Each detector's screen with its compiled pattern, in the policy's order."""
    return tuple((screen(pattern.pattern), pattern) for _, pattern in _compiled())


def _passes(view: str, needs: Screen) -> bool:
    return all(any(text in view for text in need) for need in needs)


def _ignore(_text: str) -> None:
    """Numbers play no part in the screen; skipping them also avoids int() on huge literals."""


# Lenient on purpose: the envelope is not validated here, only screened. Object pairs stay a
# list so a repeated key cannot hide the first value's text; NaN / Infinity and raw control
# characters inside strings (strict=False) are accepted.
_DECODER = json.JSONDecoder(
    object_pairs_hook=list,
    parse_int=_ignore,
    parse_float=_ignore,
    parse_constant=_ignore,
    strict=False,
)


def _decoded_strings(text: str) -> Iterator[str]:
    """Every key and string value of `text` decoded as JSON; nothing when it is not JSON."""
    try:
        root: Any = _DECODER.decode(text)
    except (ValueError, RecursionError):
        # Not JSON (ValueError covers JSONDecodeError), or nested deeper than the C scanner's
        # recursion limit: the raw view still screens it.
        return
    stack: list[Any] = [root]
    while stack:  # iterative: no recursion on untrusted structure
        node = stack.pop()
        if isinstance(node, str):
            yield node
        elif isinstance(node, list | tuple):  # an array, an object's pairs, or one (key, value)
            stack.extend(node)


def _views(text: str) -> Iterator[str]:
    yield text
    yield from _decoded_strings(text)


def trips(text: str) -> bool:
    """Whether any detector matches the raw text or any string it holds once decoded as JSON.

    A detector searches a view only when the view holds its screen's literals (`screen`): a
    substring test costs a fraction of a regular-expression search, which tries every position
    of the view (each pattern starts behind a look-behind, so the `re` module cannot skip to
    its literal prefix). A match holds its screen's literals, so a view without them has no
    match: the answer is the searches' own (`tripped_codes` searches without screens)."""
    detectors = _screened()
    # Raw view first: the JSON decode happens only when the raw text did not trip.
    return any(
        _passes(view, needs) and pattern.search(view)
        for view in _views(text)
        for needs, pattern in detectors
    )


def tripped_codes(text: str) -> frozenset[str]:
    """The codes of the detectors that match (for tests and docs; replay needs only `trips`)."""
    detectors = _compiled()
    views = list(_views(text))
    return frozenset(
        code for code, pattern in detectors if any(pattern.search(view) for view in views)
    )
