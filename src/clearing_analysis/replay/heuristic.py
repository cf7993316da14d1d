"""The engine's token heuristic and usage arithmetic (R-SIM-1), mirroring pi's coding agent.

pi estimates a message as ceil(chars / 4), where chars are JavaScript string lengths (UTF-16
code units) of: user text; assistant text, thinking, and each tool call's name plus
`JSON.stringify(arguments)`; tool-result text, with a fixed charge per image; a compaction
summary's text. Usage of an assistant message counts only when its stopReason is neither
"error" nor "aborted", and is `totalTokens`, else input + output + cacheRead + cacheWrite.

Two deliberate differences (docs/replay.md): pi ignores images inside user messages, while
R-SIM-1 charges every image 1,200 tokens, so user images are charged too; and an all-zero usage
(a provider that reported nothing) is no measurement for E, as it is no usage for cost
(R-CM-1). The numbers come from policy/eligibility.json.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Iterable
from typing import Any

import msgspec

from clearing_analysis.journal.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from clearing_analysis.policy import eligibility_policy

Message = UserMessage | AssistantMessage | ToolResultMessage

_INVALID_USAGE_STOP_REASONS = frozenset({"error", "aborted"})
# msgspec writes a JSON string exactly as JSON.stringify does for the texts the decoder admits
# (no lone surrogates): `"`, `\\` and \b \f \n \r \t as two characters, other controls as \u00XX,
# everything else as is (tested against json.dumps on any text).
_ENCODER = msgspec.json.Encoder()


def utf16_units(text: str) -> int:
    """Length of `text` as a JavaScript string: code points above U+FFFF count twice."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _js_number(value: float) -> str:
    """`String(value)` for a finite double: shortest round-trip digits, JavaScript layout."""
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    # repr gives the shortest round-trip digits, as JavaScript does; only the layout differs.
    parts = decimal.Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(str(d) for d in parts.digits)
    k = len(digits)
    n = k + int(parts.exponent)  # value = 0.<digits> * 10**n
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        exponent = n - 1
        head = digits[0] + ("." + digits[1:] if k > 1 else "")
        body = f"{head}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"
    return sign + body


def escaped_string_units(text: str, utf8_bytes: int, json_bytes: int) -> int:
    """UTF-16 length of `JSON.stringify(text)` from the text's UTF-8 size and the size of its
    JSON string: every escape and both quotes are ASCII, so what escaping adds in bytes it
    adds in UTF-16 units."""
    return utf16_units(text) + json_bytes - utf8_bytes


def json_string_units(text: str) -> int:
    """UTF-16 length of `JSON.stringify(text)`: quotes plus escapes."""
    json_bytes = len(_ENCODER.encode(text))
    if text.isascii():
        return json_bytes
    return escaped_string_units(text, len(text.encode("utf-8")), json_bytes)


def json_stringify_units(value: Any) -> int:
    """UTF-16 length of `JSON.stringify(value)` for a decoded JSON value (compact form).

    msgspec's compact encoding is JSON.stringify's byte for byte but for floats (1.0 is "1"
    in JavaScript, 1e21 is "1e+21"): a value without a float is measured on its encoding, in
    one call; one with a float is walked (`stringify_units_walked`, the definition)."""
    if _holds_float(value):
        return stringify_units_walked(value)
    encoded = _ENCODER.encode(value)
    if encoded.isascii():
        return len(encoded)
    return utf16_units(encoded.decode("utf-8"))


_PLAIN_SCALARS = frozenset({str, int, bool, type(None)})


def _holds_float(value: Any) -> bool:
    """Whether `value` holds a float anywhere (or anything but JSON's own types, which the
    walk then refuses)."""
    if type(value) is dict and _PLAIN_SCALARS.issuperset(map(type, value.values())):
        return False  # flat, as most arguments are: its values' types seen in one call
    stack = [value]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is dict:
            stack.extend(node.values())
        elif kind is list:
            stack.extend(node)
        elif kind not in _PLAIN_SCALARS:
            return True
    return False


def stringify_units_walked(value: Any) -> int:
    """`json_stringify_units` by its definition, value by value: what each part of the compact
    form adds, numbers laid out as JavaScript does."""
    if value is None:
        return 4
    if value is True:
        return 4
    if value is False:
        return 5
    if isinstance(value, str):
        return json_string_units(value)
    if isinstance(value, int):
        return len(str(value))
    if isinstance(value, float):
        return len(_js_number(value))
    if isinstance(value, dict):
        items = value.items()
        inner = sum(json_string_units(str(k)) + 1 + stringify_units_walked(v) for k, v in items)
        return 2 + inner + max(len(value) - 1, 0)
    if isinstance(value, list | tuple):
        return 2 + sum(stringify_units_walked(v) for v in value) + max(len(value) - 1, 0)
    raise TypeError("not a decoded JSON value")


def tokens_for_units(units: int) -> int:
    """ceil(units / units-per-token) (pi's `estimateTokenCount`)."""
    return math.ceil(units / eligibility_policy().utf16_units_per_token)


def _image_units() -> int:
    policy = eligibility_policy()
    return policy.tokens_per_image * policy.utf16_units_per_token


def _block_units(blocks: Iterable[object]) -> int:
    units = 0
    for block in blocks:
        if isinstance(block, TextContent):
            units += utf16_units(block.text)
        elif isinstance(block, ThinkingContent):
            units += utf16_units(block.thinking)
        elif isinstance(block, ToolCall):
            units += utf16_units(block.name) + json_stringify_units(block.arguments)
        elif isinstance(block, ImageContent):
            units += _image_units()
    return units


def message_tokens(message: Message) -> int:
    """Heuristic tokens of one message (pi's `estimateTokens`, images charged everywhere)."""
    if isinstance(message, UserMessage) and isinstance(message.content, str):
        return tokens_for_units(utf16_units(message.content))
    return tokens_for_units(_block_units(message.content))


def text_tokens(text: str) -> int:
    """Heuristic tokens of a bare text (a compaction summary as a user-role message)."""
    return tokens_for_units(utf16_units(text))


def usage_recorded(usage: Usage) -> bool:
    """Whether a usage was recorded at all: any of its five counts is non-zero.

    An all-zero usage is "no usage" everywhere (R-CM-1 decision): the request is a cost
    fallback, and it measures no context, so E skips it. Replay and the cost model both ask
    this one function, so they never disagree about the same message.
    """
    return bool(
        usage.input or usage.output or usage.cache_read or usage.cache_write or usage.total_tokens
    )


def valid_usage(message: AssistantMessage) -> Usage | None:
    """The message's usage if it counts as a context measurement for E (R-SIM-1): recorded,
    and the stopReason is neither error nor aborted (pi's own rule)."""
    if message.stop_reason in _INVALID_USAGE_STOP_REASONS or not usage_recorded(message.usage):
        return None
    return message.usage


def usage_tokens(usage: Usage) -> int:
    """pi's `calculateContextTokens`: totalTokens, else the sum of the four components."""
    if usage.total_tokens:
        return usage.total_tokens
    return usage.input + usage.output + usage.cache_read + usage.cache_write
